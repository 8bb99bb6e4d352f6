package streamhttp_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// TestClientErrorStatusAnswer: a server that refuses a POST with an error
// status answers the request with a JSON-RPC error response in the body
// (the Server does, with the request's id). That answer is the caller's:
// Write's error carries it as a *jsonrpc.Error, with its code.
func TestClientErrorStatusAnswer(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        *jsonrpc.Error // nil: no *jsonrpc.Error in the chain
		expired     bool
		mentions    string
	}{
		{
			name: "error response with the request's id", status: http.StatusBadRequest, contentType: "application/json",
			body: `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad params"}}`,
			want: &jsonrpc.Error{Code: -32602, Message: "bad params"}, mentions: "400 Bad Request",
		},
		{
			name: "error response without an id", status: http.StatusServiceUnavailable, contentType: "application/json",
			body: `{"jsonrpc":"2.0","error":{"code":-32002,"message":"too many sessions"}}`,
			want: &jsonrpc.Error{Code: -32002, Message: "too many sessions"}, mentions: "503 Service Unavailable",
		},
		{
			name: "error response with a null id", status: http.StatusForbidden, contentType: "application/json; charset=utf-8",
			body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"origin not allowed"}}` + "\n",
			want: &jsonrpc.Error{Code: -32600, Message: "origin not allowed"}, mentions: "403 Forbidden",
		},
		{
			name: "404 also expires the session", status: http.StatusNotFound, contentType: "application/json",
			body: `{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"session not found"}}`,
			want: &jsonrpc.Error{Code: -32001, Message: "session not found"}, expired: true, mentions: "404 Not Found",
		},
		{
			name: "error response for another request", status: http.StatusBadRequest, contentType: "application/json",
			body:     `{"jsonrpc":"2.0","id":99,"error":{"code":-32602,"message":"not yours"}}`,
			mentions: "not yours",
		},
		{
			name: "plain text", status: http.StatusInternalServerError, contentType: "text/plain",
			body: "oops", mentions: "500 Internal Server Error: oops",
		},
		{
			name: "a success response is no error's answer", status: http.StatusBadRequest, contentType: "application/json",
			body: `{"jsonrpc":"2.0","id":3,"result":{}}`, mentions: "400 Bad Request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clCtx(t)
			f, srv := clNewFake(t)
			f.getStatus = http.StatusMethodNotAllowed
			f.post = func(w http.ResponseWriter, m clFakeMsg, _ string) bool {
				if m.Method != "tools/call" {
					return false
				}
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
				return true
			}
			c := clNewClient(srv.URL)
			defer c.Close()
			clHandshake(ctx, t, c)
			err := c.Write(ctx, []byte(clCall))
			if err == nil {
				t.Fatal("Write: no error")
			}
			var got *jsonrpc.Error
			if !errors.As(err, &got) {
				got = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the JSON-RPC error in %q (-want +got):\n%s", err, diff)
			}
			if errors.Is(err, streamhttp.ErrSessionExpired) != tt.expired {
				t.Errorf("error %q: ErrSessionExpired %v, want %v", err, !tt.expired, tt.expired)
			}
			if !strings.Contains(err.Error(), tt.mentions) || !strings.Contains(err.Error(), "POST "+srv.URL) {
				t.Errorf("error %q does not name the POST and %q", err, tt.mentions)
			}
		})
	}
}

// TestClientConnectBeyondMaxSessions: through a session, the Server's
// refusal of an initialize beyond MaxSessions reaches Connect's caller as
// the JSON-RPC error it is (code session.Busy), not only as text.
func TestClientConnectBeyondMaxSessions(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{MaxSessions: 1})
	ctx := clCtx(t)
	info := mcp20251125.Implementation{Name: "client-test", Version: "1"}
	first, err := mcp20251125.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &mcp20251125.ClientOptions{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := mcp20251125.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &mcp20251125.ClientOptions{Info: info})
	if err == nil {
		second.Close()
		t.Fatal("a second session beyond MaxSessions 1 was admitted")
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != session.Busy {
		t.Errorf("Connect beyond MaxSessions: %v; want a *jsonrpc.Error with code %d (session.Busy)", err, session.Busy)
	}
}

// TestClientGETStreamReopened: a GET stream that failed MaxRetries times
// in a row (a proxy answering 503 for a while) is opened again by the next
// Write, instead of never again: what the server sends there later (its
// requests, list_changed) must not be lost for the rest of the session.
func TestClientGETStreamReopened(t *testing.T) {
	leak := clGoroutines(t)
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.getStatus = http.StatusServiceUnavailable
	c := streamhttp.NewClient(srv.URL, streamhttp.ClientOptions{MaxRetries: 1, DefaultRetry: time.Millisecond})
	clHandshake(ctx, t, c)
	clWaitFor(t, "two GET attempts", func() bool { return f.count(http.MethodGet) >= 2 })
	f.mu.Lock()
	f.getStatus = 0 // the server offers the GET stream again
	f.mu.Unlock()

	// The session goes on sending; one of its next writes opens the stream.
	writes := 0
	clWaitFor(t, "the GET stream reopened", func() bool {
		writes++
		if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)); err != nil {
			t.Fatalf("Write: %v", err)
		}
		select {
		case <-f.getOpen:
			return true
		default:
			return false
		}
	})
	f.getCh <- `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`
	if m := clReadMsg(ctx, t, c); m["id"] != "srv-1" {
		t.Errorf("got %v, want the server's request sent on the reopened GET stream", m)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	srv.Close()
	leak()
}

// TestClientSSEBrokenAnswer: an event that names a request's id but is no
// JSON the session can read does not answer the request (the session
// cannot tell whose it is): when the stream ends and cannot be resumed,
// the Client answers the request with an error, as for any lost answer,
// instead of leaving the call to wait for its timeout. Found by
// FuzzClientAnswer.
func TestClientSSEBrokenAnswer(t *testing.T) {
	tests := []struct {
		name, data string
	}{
		{"bytes that are no JSON", "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\"\xda\xda:-32601,\"message\":\"no\"}}"},
		{"an object cut off", `{"jsonrpc":"2.0","id":3,"result":{"content":[`},
		{"a duplicate member", `{"jsonrpc":"2.0","id":3,"result":{},"result":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := clCtx(t)
			f, srv := clNewFake(t)
			f.getStatus = http.StatusMethodNotAllowed
			f.post = func(w http.ResponseWriter, m clFakeMsg, _ string) bool {
				if m.Method != "tools/call" {
					return false
				}
				clStartSSE(w)
				fmt.Fprintf(w, "data: %s\n\n", tt.data) // no event id: no resumption
				return true
			}
			c := clNewClient(srv.URL)
			defer c.Close()
			clHandshake(ctx, t, c)
			if err := c.Write(ctx, []byte(clCall)); err != nil {
				t.Fatal(err)
			}
			if data, err := c.Read(ctx); err != nil || string(data) != tt.data {
				t.Fatalf("Read: %q, %v; want the event as it came", data, err)
			}
			m := clReadMsg(ctx, t, c)
			e, _ := m["error"].(map[string]any)
			if m["id"] != 3.0 || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "answer lost") {
				t.Errorf("got %v, want the Client's error response for id 3", m)
			}
		})
	}
}
