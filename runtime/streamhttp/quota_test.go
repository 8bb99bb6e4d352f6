package streamhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// One user cannot take every session from the others: past
// MaxSessionsPerPrincipal (by default MaxSessions/100), their initialize
// is refused with 429 and a JSON-RPC error that carries its id and names
// the limit, while another user still gets in; a session the user ends
// frees a place. Sessions without a principal are not counted per
// principal.
func TestSessionsPerPrincipal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  streamhttp.ServerOptions
		limit int
	}{
		{"default", streamhttp.ServerOptions{MaxSessions: 1500}, 15},
		{"floor", streamhttp.ServerOptions{MaxSessions: 200}, 10},
		{"set", streamhttp.ServerOptions{MaxSessionsPerPrincipal: 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, logs := protectedServer(t, tc.opts)
			var alice []string
			for range tc.limit {
				alice = append(alice, openSession(t, url+"/mcp", tokenAlice))
			}
			// Her other token is the same principal.
			x := send(t, http.MethodPost, url+"/mcp", tokenAlice2, "", strings.Replace(initBody, `"id":1`, `"id":"init-over"`, 1))
			if x.status != http.StatusTooManyRequests || x.header.Get("Mcp-Session-Id") != "" {
				t.Fatalf("alice's initialize past her %d sessions: %d %q %s; want 429 and no session", tc.limit, x.status, x.header.Get("Mcp-Session-Id"), x.body)
			}
			var e struct {
				ID    string
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal([]byte(x.body), &e); err != nil || e.ID != "init-over" || e.Error.Code != session.Busy ||
				!strings.Contains(e.Error.Message, fmt.Sprintf("limit of %d sessions", tc.limit)) {
				t.Errorf("refusal body %s (%v); want a -32000 error with id \"init-over\" naming the limit", x.body, err)
			}
			openSession(t, url+"/mcp", tokenBob)
			for range 2 {
				openSession(t, url+"/open", "") // no principal: not counted per principal
			}
			if x := send(t, http.MethodDelete, url+"/mcp", tokenAlice, alice[0], ""); x.status != http.StatusNoContent {
				t.Fatalf("DELETE: %d %s", x.status, x.body)
			}
			openSession(t, url+"/mcp", tokenAlice2) // the place is free
			if x := send(t, http.MethodPost, url+"/mcp", tokenAlice, "", initBody); x.status != http.StatusTooManyRequests {
				t.Errorf("alice's initialize past her limit again: %d %s; want 429", x.status, x.body)
			}
			if strings.Contains(logs.String(), "alice") {
				t.Errorf("the log names the principal:\n%s", logs)
			}
		})
	}
}

// MaxSessionsPerPrincipal negative: one principal may hold every session.
func TestSessionsPerPrincipalOff(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{MaxSessions: 200, MaxSessionsPerPrincipal: -1})
	for range 12 { // past the default of 10
		openSession(t, url+"/mcp", tokenAlice)
	}
}

// A session's place, and its principal's, is freed however it ends: here
// it is reaped once idle.
func TestSessionsPerPrincipalIdle(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{MaxSessionsPerPrincipal: 1, IdleTimeout: 50 * time.Millisecond})
	openSession(t, url+"/mcp", tokenAlice)
	deadline := time.Now().Add(20 * time.Second)
	for {
		x := send(t, http.MethodPost, url+"/mcp", tokenAlice, "", initBody)
		if x.status == http.StatusOK {
			return
		}
		if x.status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("initialize after the session was reaped: %d %s", x.status, x.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stubbornServer is an MCP server whose tool stubborn signals started,
// then waits for gate, ignoring its context (bounded by 20 seconds, so that
// a failing test ends), and tells returned when it returns.
func stubbornServer(started, returned chan<- struct{}, gate <-chan struct{}) *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "stubborn", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "stubborn", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		defer func() { returned <- struct{}{} }()
		select {
		case <-gate:
		case <-time.After(20 * time.Second): // a bound for a failing test
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	return srv
}

// goSend sends an MCP request as send does (with token, none if "", in
// session sid, none if ""), on a goroutine, and returns
// the channel its status arrives on (0 when it could not be sent).
func goSend(ctx context.Context, method, url, token, sid, body string) <-chan int {
	status := make(chan int, 1)
	go func() {
		r, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
		if err != nil {
			status <- 0
			return
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
			r.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			status <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	return status
}

// receive waits, at most 20 seconds, for a value on ch.
func receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: not within 20s", what)
		panic("unreachable")
	}
}

// A session keeps its place, and its principal's, until it has really
// ended. A user loops initialize, a call whose handler ignores its
// context, DELETE (without waiting for its answer): the DELETE makes the
// session id unknown at once, but while the handler still runs, the user
// cannot open one more session past MaxSessionsPerPrincipal, which would
// let them hold any number of running handlers. Once the handler returns,
// the DELETE is answered and the place is free.
func TestSessionsPerPrincipalHeldUntilEnded(t *testing.T) {
	started, returned, gate := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	url, _, _ := protectedServerWith(t, stubbornServer(started, returned, gate), streamhttp.ServerOptions{
		MaxSessionsPerPrincipal: 1,
		Session:                 session.Options{DrainTimeout: 20 * time.Millisecond}, // cancelled soon: ignored
	})
	t.Cleanup(release) // before the server closes
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sid := openSession(t, url+"/mcp", tokenAlice)
	goSend(ctx, http.MethodPost, url+"/mcp", tokenAlice, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stubborn"}}`)
	receive(t, "the call's handler started", started)
	deleted := goSend(ctx, http.MethodDelete, url+"/mcp", tokenAlice, sid, "")
	deadline := time.Now().Add(20 * time.Second)
	for send(t, http.MethodPost, url+"/mcp", tokenAlice, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`).status != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("the DELETEd session still answers after 20s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if x := send(t, http.MethodPost, url+"/mcp", tokenAlice, "", initBody); x.status != http.StatusTooManyRequests {
		t.Fatalf("alice's initialize while her DELETEd session's handler still runs: %d %s; want 429", x.status, x.body)
	}
	select {
	case <-returned:
		t.Fatal("the handler returned before its gate opened")
	default:
	}
	release()
	receive(t, "the handler returned", returned)
	if status := receive(t, "the DELETE's answer", deleted); status != http.StatusNoContent {
		t.Fatalf("DELETE: %d; want 204", status)
	}
	openSession(t, url+"/mcp", tokenAlice) // the session has ended: its place is free
}
