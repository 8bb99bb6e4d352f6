package redis

import (
	"strconv"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/tasks"
	goredis "github.com/redis/go-redis/v9"
)

func TestFloorMilli(t *testing.T) {
	tests := []struct {
		t    time.Time
		want int64
	}{
		{time.UnixMilli(1500), 1500},
		{time.UnixMilli(1500).Add(999 * time.Microsecond), 1500},
		{time.UnixMilli(-1500), -1500},
		{time.UnixMilli(-1500).Add(-time.Nanosecond), -1501},
		{time.UnixMilli(-1500).Add(time.Nanosecond), -1500},
	}
	for _, tt := range tests {
		if got := floorMilli(tt.t); got != tt.want {
			t.Errorf("floorMilli(%v) = %d, want %d", tt.t, got, tt.want)
		}
	}
}

// TestDeadlines: the key's deadline is rounded up (never deleted early),
// the index score rounded down (Expire never misses a candidate), and a
// store on another clock shifts the key's deadline by the difference.
func TestDeadlines(t *testing.T) {
	created := time.UnixMilli(1_000_000).Add(123 * time.Microsecond)
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"}) // never contacted
	defer client.Close()
	tests := []struct {
		name  string
		ttl   time.Duration
		pxat  string
		score string
	}{
		{"no ttl", 0, "0", "+inf"},
		{"a second", time.Second, "1001001", "1001000"},
		{"a millisecond", time.Millisecond, "1000002", "1000001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewTaskStore(client, "p", TaskStoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pxat, score := s.deadlines(&tasks.Record{CreatedAt: created, TTL: tt.ttl})
			if pxat != tt.pxat || score != tt.score {
				t.Errorf("deadlines = %s, %s; want %s, %s", pxat, score, tt.pxat, tt.score)
			}
		})
	}

	// A clock a day behind the real one: the key expires a day later on
	// the real clock than createdAt+TTL says.
	s, err := NewTaskStore(client, "p", TaskStoreOptions{Now: func() time.Time { return time.Now().Add(-24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	pxat, score := s.deadlines(&tasks.Record{CreatedAt: created, TTL: time.Second})
	if score != "1001000" {
		t.Errorf("score on a fake clock = %s, want 1001000 (the fake clock's own)", score)
	}
	day := (24 * time.Hour).Milliseconds()
	got, err := strconv.ParseInt(pxat, 10, 64)
	if err != nil || got < 1001001+day-1000 || got > 1001001+day+1000 {
		t.Errorf("pxat on a clock a day behind = %d, want about %d", got, 1001001+day)
	}
}
