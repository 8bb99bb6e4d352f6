package session_test

import (
	"sync"
	"testing"
	"time"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// countingBus is a Bus for one process that counts its live subscriptions.
type countingBus struct {
	session.Bus
	mu   sync.Mutex
	live int
}

func (b *countingBus) Subscribe(fn func(session.Event)) func() {
	cancel := b.Bus.Subscribe(fn)
	b.mu.Lock()
	b.live++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			b.mu.Lock()
			b.live--
			b.mu.Unlock()
		})
	}
}

func (b *countingBus) subscriptions() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.live
}

// A legacy session on a handler with a Bus is told of the events it may
// hear of, in order, each burst's duplicates once, as they come and after
// an idle spell alike; once the session ends it no longer follows the Bus.
func TestLegacySessionFollowsBus(t *testing.T) {
	bus := &countingBus{Bus: session.NewBus()}
	srv := m26.NewServer(m26.Implementation{Name: "bus", Version: "1"}, m26.WithBus(bus),
		m26.WithCapabilities(m26.ServerCapabilities{Resources: &m26.ServerCapabilitiesResources{Subscribe: ptr(true)}}))
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	defer s.Close()
	p := &peer{t: t, tr: b}
	result(t, p.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"1"}}`))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if n := bus.subscriptions(); n != 1 {
		t.Fatalf("%d subscriptions to the Bus after initialize, want 1", n)
	}
	result(t, p.call(1, "resources/subscribe", `{"uri":"test://r"}`))
	for round := range 3 {
		bus.Publish(session.Event{Method: session.ResourceUpdated, URI: "test://other"}) // not subscribed
		bus.Publish(session.Event{Method: session.ResourceUpdated, URI: "test://r"})
		bus.Publish(session.Event{Method: session.ResourceUpdated, URI: "test://r"})
		n := p.recvMsg()
		if n["method"] != "notifications/resources/updated" || n["params"].(map[string]any)["uri"] != "test://r" {
			t.Fatalf("round %d: want the update of test://r, got %v", round, n)
		}
		// The duplicate is sent at most once more (when the first was
		// already taken): the next message is the answer to this ping, or
		// the duplicate and then it.
		m := p.call(10+round, "ping", "")
		if m["method"] == "notifications/resources/updated" {
			m = p.recvMsg()
		}
		if m["id"] != float64(10+round) {
			t.Fatalf("round %d: want the ping's answer, got %v", round, m)
		}
	}
	s.Close()
	deadline := time.Now().Add(10 * time.Second)
	for bus.subscriptions() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions to the Bus 10s after the session ended, want 0", bus.subscriptions())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
