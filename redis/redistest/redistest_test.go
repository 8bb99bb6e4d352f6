package redistest_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redis/redistest"
)

func TestServer(t *testing.T) {
	tests := []struct {
		name    string
		opts    redistest.Options
		survive bool // a key written before Restart is there after it
	}{
		{name: "no persistence", opts: redistest.Options{}, survive: false},
		{name: "append-only", opts: redistest.Options{AppendOnly: true}, survive: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s := redistest.StartWith(t, tt.opts)
			c := s.Client()
			if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatalf("SET on %s: %v", s.Addr(), err)
			}
			s.Stop()
			if err := c.Ping(ctx).Err(); err == nil {
				t.Fatal("PING answered after Stop")
			}
			s.Restart()
			got, err := c.Exists(ctx, "k").Result()
			if err != nil {
				t.Fatalf("EXISTS after Restart: %v", err)
			}
			if want := map[bool]int64{true: 1, false: 0}[tt.survive]; got != want {
				t.Errorf("EXISTS k after Restart = %d, want %d", got, want)
			}
		})
	}
}
