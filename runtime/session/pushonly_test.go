package session_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// readCounter is a pushTransport that counts the calls of Read.
type readCounter struct {
	*pushTransport
	reads atomic.Int32
}

func (r *readCounter) Read(ctx context.Context) ([]byte, error) {
	r.reads.Add(1)
	return r.pushTransport.Read(ctx)
}

// pushOnly is a readCounter that says it is a session.PushOnly.
type pushOnly struct{ *readCounter }

func (pushOnly) PushOnly() {}

var _ session.PushOnly = pushOnly{}

// TestPushOnly checks that a session on a session.PushOnly transport
// never reads it, and is served and ended all the same, while a session
// on a transport that only pushes reads it (to learn of its end).
func TestPushOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pushOnly bool
	}{
		{"pusher", false},
		{"push only", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := transport.Pipe()
			defer b.Close()
			rc := &readCounter{pushTransport: &pushTransport{Transport: a}}
			var tr transport.Transport = rc
			if tc.pushOnly {
				tr = pushOnly{rc}
			}
			s := session.New(session.Server, tr, mcp.NewServerHandler(testServer(t)), session.Options{})
			push := rc.pushFn()
			push([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), true)
			push([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), false)
			// Not inline: handled on a goroutine of the session's.
			push([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), false)
			deadline := time.Now().Add(10 * time.Second)
			for !rc.wrote(`"id":2,"result"`) || !tc.pushOnly && rc.reads.Load() == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("after 10s: ping answered %v, %d reads; written %q", rc.wrote(`"id":2,"result"`), rc.reads.Load(), rc.written)
				}
				time.Sleep(time.Millisecond)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if n := rc.reads.Load(); tc.pushOnly && n != 0 {
				t.Errorf("the session read a PushOnly transport %d times; want none", n)
			}
			if !rc.wrote(`"id":1,"result"`) {
				t.Errorf("initialize was not answered: %q", rc.written)
			}
		})
	}
}
