package session_test

import (
	"context"
	"fmt"
	"sync"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// pushed is a transport whose payloads are all pushed, as an HTTP
// server's are: the session runs no reader on it (session.PushOnly).
type pushed struct {
	mu      sync.Mutex
	push    func(data []byte, inline bool)
	written []string
	closed  chan struct{}
}

func (p *pushed) SetPush(push func(data []byte, inline bool)) { p.push = push }

func (p *pushed) PushOnly() {}

// Read is never called by the session: it reports the end only.
func (p *pushed) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-p.closed:
		return nil, context.Canceled
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pushed) Write(ctx context.Context, data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written = append(p.written, string(data))
	return nil
}

func (p *pushed) Close() error { close(p.closed); return nil }

// ExamplePushOnly serves a session whose transport hands it every
// payload (here a ping, inline: answered before push returns) and that
// the server ends with Close: an idle one holds no goroutine.
func ExamplePushOnly() {
	srv := mcp.NewServer(mcp.Implementation{Name: "example", Version: "1"})
	t := &pushed{closed: make(chan struct{})}
	s := session.New(session.Server, t, mcp.NewServerHandler(srv), session.Options{})
	t.push([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), true)
	t.push([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), false)
	t.push([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), true)
	fmt.Println(s.Close())
	fmt.Println(t.written[len(t.written)-1])
	// Output:
	// <nil>
	// {"jsonrpc":"2.0","id":2,"result":{}}
}
