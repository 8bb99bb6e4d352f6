package session_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// recordingHandler is a server handler that records the notifications it
// handles, checking that no two run at once.
type recordingHandler struct {
	session.Handler
	running atomic.Int32
	mu      sync.Mutex
	got     []string
	overlap atomic.Bool
}

func (h *recordingHandler) HandleNotification(ctx context.Context, s *session.Session, method string, params jsontext.Value) {
	if h.running.Add(1) != 1 {
		h.overlap.Store(true)
	}
	time.Sleep(time.Microsecond) // give a second runner, if any, the chance to overlap
	if method == "notifications/roots/list_changed" {
		h.mu.Lock()
		h.got = append(h.got, string(params))
		h.mu.Unlock()
	}
	h.running.Add(-1)
}

// Notifications are handled one at a time and in order, also in bursts
// much longer than the queue (maxQueuedNotes), during which the queue's
// worker stops and starts again.
func TestNotificationsInOrder(t *testing.T) {
	const n = 1000
	h := &recordingHandler{Handler: mcp.NewServerHandler(testServer(t))}
	a, b := transport.Pipe()
	s := session.New(session.Server, a, h, session.Options{})
	defer s.Close()
	p := &peer{t: t, tr: b}
	p.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"peer","version":"1"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var want []string
	for i := range n {
		params := fmt.Sprintf(`{"_meta":{"n":%d}}`, i)
		want = append(want, params)
		p.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":` + params + `}`)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		h.mu.Lock()
		done := len(h.got) >= n
		h.mu.Unlock()
		if done {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of %d notifications handled", len(h.got), n)
		case <-time.After(time.Millisecond):
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.overlap.Load() {
		t.Error("two notification handlers ran at once")
	}
	if len(h.got) != n {
		t.Fatalf("%d notifications handled, want %d", len(h.got), n)
	}
	for i := range want {
		if h.got[i] != want[i] {
			t.Fatalf("notification %d: got %s, want %s (out of order)", i, h.got[i], want[i])
		}
	}
}

// AfterFunc runs f once the session has ended, also when registered after.
func TestAfterFunc(t *testing.T) {
	a, _ := transport.Pipe()
	s := session.New(session.Server, a, mcp.NewServerHandler(testServer(t)), session.Options{})
	before := make(chan bool, 1)
	s.AfterFunc(func() {
		select {
		case <-s.Done():
			before <- true
		default:
			before <- false
		}
	})
	select {
	case <-before:
		t.Fatal("AfterFunc ran before the session ended")
	default:
	}
	s.Close()
	if !<-before {
		t.Error("AfterFunc ran before Done was closed")
	}
	after := make(chan struct{})
	s.AfterFunc(func() { close(after) })
	select {
	case <-after:
	case <-time.After(10 * time.Second): // a bound, not a measurement
		t.Fatal("AfterFunc registered after the end never ran")
	}
}

// Close and Abort return after the functions of AfterFunc have returned:
// what they record is there when the caller goes on (a metric before the
// meter provider is shut down, say). Each f calls Wait, which it may.
func TestCloseWaitsForAfterFunc(t *testing.T) {
	for _, end := range []struct {
		name string
		end  func(*session.Session) error
	}{
		{"Close", (*session.Session).Close},
		{"Abort", (*session.Session).Abort},
	} {
		t.Run(end.name, func(t *testing.T) {
			a, _ := transport.Pipe()
			s := session.New(session.Server, a, mcp.NewServerHandler(testServer(t)), session.Options{})
			var ran atomic.Int32
			for range 3 {
				s.AfterFunc(func() {
					_ = s.Wait()
					time.Sleep(20 * time.Millisecond) // long enough to lose the race if Close did not wait
					ran.Add(1)
				})
			}
			if err := end.end(s); err != nil {
				t.Fatalf("%s: %v", end.name, err)
			}
			if n := ran.Load(); n != 3 {
				t.Fatalf("%s returned with %d of 3 AfterFunc functions done, want all 3", end.name, n)
			}
		})
	}
}

// blockingNotes is a server handler whose roots/list_changed handler runs
// until released.
type blockingNotes struct {
	session.Handler
	started chan struct{}
	release chan struct{}
	handled atomic.Bool
}

func (h *blockingNotes) HandleNotification(ctx context.Context, s *session.Session, method string, params jsontext.Value) {
	if method != "notifications/roots/list_changed" {
		return
	}
	close(h.started)
	select {
	case <-h.release:
		h.handled.Store(true)
	case <-ctx.Done():
	}
}

// A notification handler running when the session ends gets the drain
// time, as request handlers do: Close returns after it is done.
func TestNotificationDrained(t *testing.T) {
	h := &blockingNotes{Handler: mcp.NewServerHandler(testServer(t)), started: make(chan struct{}), release: make(chan struct{})}
	a, b := transport.Pipe()
	s := session.New(session.Server, a, h, session.Options{DrainTimeout: 10 * time.Second})
	p := &peer{t: t, tr: b}
	p.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"peer","version":"1"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	select {
	case <-h.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the notification handler did not start")
	}
	closed := make(chan bool)
	go func() {
		s.Close()
		closed <- h.handled.Load()
	}()
	time.AfterFunc(50*time.Millisecond, func() { close(h.release) })
	select {
	case handled := <-closed:
		if !handled {
			t.Error("Close returned while a notification handler was still running")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}
