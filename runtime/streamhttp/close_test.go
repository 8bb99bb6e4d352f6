package streamhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Server.Close ends its sessions at the same time: each one's handlers are
// cancelled without waiting for the other sessions to finish draining. A
// handler here waits, once cancelled, until every handler is cancelled (or
// a bound passes); closing the sessions one after another would leave the
// first one waiting alone.
func TestServerCloseEndsSessionsTogether(t *testing.T) {
	const n = 3
	var (
		mu        sync.Mutex
		cancelled int
		allDone   = make(chan struct{})
		started   = make(chan struct{}, n)
		seen      = make(chan int, n)
	)
	srv := mcp.NewServer(mcp.Implementation{Name: "close", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "wait", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		mu.Lock()
		cancelled++
		if cancelled == n {
			close(allDone)
		}
		mu.Unlock()
		select {
		case <-allDone:
		case <-time.After(10 * time.Second): // a bound, not a measurement
		}
		mu.Lock()
		seen <- cancelled
		mu.Unlock()
		return nil, ctx.Err()
	})
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) },
		streamhttp.ServerOptions{Session: session.Options{DrainTimeout: -1}})
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range n {
		sid := initSession(t, ts.URL)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait"}}`, 10+i)
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/json, text/event-stream")
		hr.Header.Set("Mcp-Session-Id", sid)
		hr.Header.Set("MCP-Protocol-Version", "2025-11-25")
		go func() {
			if resp, err := http.DefaultClient.Do(hr); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range n {
		select {
		case <-started:
		case <-ctx.Done():
			t.Fatal("the tool calls did not start")
		}
	}
	h.Close()
	for range n {
		if got := <-seen; got != n {
			t.Errorf("a handler saw %d of %d handlers cancelled: Server.Close ended the sessions one after another", got, n)
		}
	}
}

// Server.Close returns once every session has ended, also one that a
// DELETE forgot just before Close was called, whose handler, ignoring its
// cancelled context, still runs: an application that stops its process
// when Close returns must not cut that handler off.
func TestServerCloseWaitsForForgottenSessions(t *testing.T) {
	started, returned, gate := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	srv := stubbornServer(started, returned, gate)
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) },
		streamhttp.ServerOptions{Session: session.Options{DrainTimeout: -1}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer release() // before the HTTP server closes
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sid := openSession(t, ts.URL, "")
	goSend(ctx, http.MethodPost, ts.URL, "", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stubborn"}}`)
	receive(t, "the call's handler started", started)
	deleted := goSend(ctx, http.MethodDelete, ts.URL, "", sid, "")
	deadline := time.Now().Add(20 * time.Second)
	for send(t, http.MethodPost, ts.URL, "", sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`).status != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("the DELETEd session still answers after 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	// Close must wait for the handler; it gets a while to return wrongly
	// before the handler is let go.
	select {
	case <-closed:
		t.Fatal("Server.Close returned while a session DELETEd just before still ran its handler")
	case <-time.After(200 * time.Millisecond):
	}
	release()
	receive(t, "Server.Close", closed)
	select {
	case <-returned:
	default:
		t.Error("Server.Close returned before the handler")
	}
	if status := receive(t, "the DELETE's answer", deleted); status != http.StatusNoContent {
		t.Errorf("DELETE: %d; want 204", status)
	}
}

// Once Close has begun, an initialize is refused as a request in a live
// session is: 503 and a JSON-RPC error of code session.Busy (try again,
// elsewhere or later) carrying its id, whose message says the server is
// shutting down, not an internal error.
func TestInitializeRefusedWhileClosing(t *testing.T) {
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(whisperServer()) }, streamhttp.ServerOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	h.Close()
	x := send(t, http.MethodPost, ts.URL, "", "", strings.Replace(initBody, `"id":1`, `"id":"late"`, 1))
	var e struct {
		ID    string
		Error struct {
			Code    int64
			Message string
		}
	}
	if err := json.Unmarshal([]byte(x.body), &e); err != nil || x.status != http.StatusServiceUnavailable || x.header.Get("Mcp-Session-Id") != "" ||
		e.ID != "late" || e.Error.Code != session.Busy || !strings.HasPrefix(e.Error.Message, "the server is shutting down: ") {
		t.Errorf("initialize after Close: %d %q %s (%v); want 503, no session, and a %d error with id \"late\" saying the server is shutting down",
			x.status, x.header.Get("Mcp-Session-Id"), x.body, err, session.Busy)
	}
}
