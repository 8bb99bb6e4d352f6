package session_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// pushTransport is a transport.Pusher: the test pushes payloads with the
// function the session set, and every Write is recorded.
type pushTransport struct {
	transport.Transport // Read blocks until Close
	mu                  sync.Mutex
	push                func(data []byte, inline bool)
	written             []string
}

func (p *pushTransport) SetPush(push func(data []byte, inline bool)) {
	p.mu.Lock()
	p.push = push
	p.mu.Unlock()
}

func (p *pushTransport) Write(ctx context.Context, data []byte) error {
	p.mu.Lock()
	p.written = append(p.written, string(data))
	p.mu.Unlock()
	return nil
}

// wrote reports whether a payload containing s was written.
func (p *pushTransport) wrote(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.written {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

func (p *pushTransport) pushFn() func([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.push
}

// TestPush checks the transport.Pusher path: a pushed single request with
// inline set is handled on the pushing goroutine and answered before push
// returns; without inline, push returns while the handler still runs.
func TestPush(t *testing.T) {
	release := make(chan struct{})
	srv := mcp.NewServer(mcp.Implementation{Name: "push", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "wait", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			<-release
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "released " + string(p.Arguments)}}}}, nil
		})
	a, b := transport.Pipe()
	defer b.Close()
	pt := &pushTransport{Transport: a}
	s := session.New(session.Server, pt, mcp.NewServerHandler(srv), session.Options{})
	defer s.Close()
	push := pt.pushFn()
	if push == nil {
		t.Fatal("the session did not call SetPush on a transport.Pusher")
	}
	push([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), true)
	if !pt.wrote(`"id":1,"result"`) {
		t.Fatalf("initialize was not answered before push returned: %q", pt.written)
	}
	push([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), false)

	// Without inline: push returns while the handler waits.
	returned := make(chan struct{})
	go func() {
		push([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"n":2}}}`), false)
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("push without inline waited for the handler")
	}

	// Inline: push returns only once the handler has answered.
	returned = make(chan struct{})
	go func() {
		push([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{"n":3}}}`), true)
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("push with inline returned before its handler ran")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("push with inline did not return after its handler")
	}
	if !pt.wrote(`"id":3,"result"`) || !pt.wrote(`released {\"n\":3}`) {
		t.Fatalf("the inline request was not answered before push returned: %q", pt.written)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !pt.wrote(`"id":2,"result"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the request pushed without inline was never answered: %q", pt.written)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPushWhileClosing pushes notifications and requests from several
// goroutines while the session closes: nothing may panic or race.
func TestPushWhileClosing(t *testing.T) {
	a, b := transport.Pipe()
	defer b.Close()
	pt := &pushTransport{Transport: a}
	s := session.New(session.Server, pt, mcp.NewServerHandler(testServer(t)), session.Options{})
	push := pt.pushFn()
	push([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), true)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				push([]byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`), false)
				push([]byte(`{"jsonrpc":"2.0","id":"`+itoa(g)+`-`+itoa(i)+`","method":"ping"}`), i%2 == 0)
			}
		}()
	}
	time.Sleep(time.Millisecond)
	s.Close()
	wg.Wait()
}

// panicAppender is a result whose encoding panics.
type panicAppender struct{}

func (panicAppender) AppendJSON([]byte) ([]byte, error) { panic("encoding boom") }

// panicHandler answers every request with a panicAppender.
type panicHandler struct{ session.Handler }

func (h panicHandler) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	if method == "initialize" {
		return h.Handler.HandleRequest(ctx, s, method, params)
	}
	return panicAppender{}, nil
}

// TestResultEncodingPanics checks that a result whose AppendJSON panics is
// answered with -32603 like a panicking handler, and the session serves on.
func TestResultEncodingPanics(t *testing.T) {
	a, b := transport.Pipe()
	s := session.New(session.Server, a, panicHandler{mcp.NewServerHandler(testServer(t))}, session.Options{})
	defer s.Close()
	p := &peer{t: t, tr: b}
	defer b.Close()
	p.initialize("2025-11-25")
	for i := 1; i <= 2; i++ {
		m := p.call(i, "tools/list", "")
		if errorCode(t, m) != -32603 || !strings.Contains(errorMessage(m), "tools/list") {
			t.Fatalf("call %d answered %v; want -32603 naming tools/list", i, m)
		}
	}
}
