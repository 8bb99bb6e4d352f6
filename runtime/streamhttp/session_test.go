package streamhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// T-S4, T-S5: once DELETE was answered, the session is gone: a GET or POST
// sent right after it gets 404, every time.
func TestDeleteThenGet(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{})
	const rounds = 300
	var got []string
	for i := range rounds {
		sid := initSession(t, ts.URL)
		h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
		del := do(t, ts.URL, req{method: http.MethodDelete, header: h})
		if del.StatusCode != http.StatusNoContent {
			t.Fatalf("round %d: DELETE: %s", i, del.Status)
		}
		get := do(t, ts.URL, req{method: http.MethodGet, header: h})
		get.Body.Close()
		post := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: h})
		post.Body.Close()
		if get.StatusCode != http.StatusNotFound || post.StatusCode != http.StatusNotFound {
			got = append(got, fmt.Sprintf("round %d: GET %d, POST %d", i, get.StatusCode, post.StatusCode))
		}
	}
	if diff := cmp.Diff([]string(nil), got); diff != "" {
		t.Errorf("requests after DELETE not answered 404 (-want +got):\n%s", diff)
	}
}

// answerEnvelope is what a test compares of one JSON-RPC error response.
type answerEnvelope struct {
	HasID bool
	ID    any // float64 or string; nil for null or absent
	Code  float64
}

// envelopes reads a JSON-RPC error body: one response or an array of them.
func envelopes(t *testing.T, body []byte) []answerEnvelope {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, body)
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []answerEnvelope
	for _, e := range list {
		m, _ := e.(map[string]any)
		errObj, _ := m["error"].(map[string]any)
		if m["jsonrpc"] != "2.0" || errObj == nil || m["result"] != nil {
			t.Fatalf("not a JSON-RPC error response: %s", body)
		}
		id, has := m["id"]
		code, _ := errObj["code"].(float64)
		out = append(out, answerEnvelope{HasID: has, ID: id, Code: code})
	}
	return out
}

// Defect 6, T-H8, M-3: every HTTP-level refusal of a POST whose request
// id could be read echoes that id in its JSON-RPC error; an id that cannot
// be read is omitted at 2025-11-25 and null (JSON-RPC 2.0) before it; and
// MCP-Protocol-Version is checked before the session id.
func TestRefusalsEchoTheRequestID(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{MaxBodyBytes: 1 << 10})
	sid := initSession(t, ts.URL)
	s := func(extra map[string]string) map[string]string { return sessionHeaders(sid, extra) }
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":"b","method":"ping"}]`
	id := func(v any) []answerEnvelope { return []answerEnvelope{{HasID: true, ID: v, Code: -32600}} }
	tests := []struct {
		name   string
		r      req
		status int
		want   []answerEnvelope
	}{
		{"T-S3 no session ID", req{http.MethodPost, ping, map[string]string{"MCP-Protocol-Version": "2025-11-25"}}, http.StatusBadRequest, id(7.0)},
		{"T-S4 unknown session", req{http.MethodPost, ping, s(map[string]string{"Mcp-Session-Id": "nope"})}, http.StatusNotFound, id(7.0)},
		{"T-H8 unsupported version", req{http.MethodPost, ping, s(map[string]string{"MCP-Protocol-Version": "1999-01-01"})}, http.StatusBadRequest, id(7.0)},
		{"T-H8 unsupported version before an unknown session", req{http.MethodPost, ping, s(map[string]string{"MCP-Protocol-Version": "1999-01-01", "Mcp-Session-Id": "nope"})}, http.StatusBadRequest, id(7.0)},
		{"T-H8 unsupported version before a missing session", req{http.MethodPost, ping, map[string]string{"MCP-Protocol-Version": "1999-01-01"}}, http.StatusBadRequest, id(7.0)},
		{"T-P2 Accept without event-stream", req{http.MethodPost, ping, s(map[string]string{"Accept": "application/json"})}, http.StatusNotAcceptable, id(7.0)},
		{"Content-Type not JSON", req{http.MethodPost, `{"jsonrpc":"2.0","id":"s","method":"ping"}`, s(map[string]string{"Content-Type": "text/plain"})}, http.StatusUnsupportedMediaType, id("s")},
		{"body too large", req{http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("a", 2000) + `"}}}`, s(nil)}, http.StatusRequestEntityTooLarge, id(4.0)},
		{"body too large, batch", req{http.MethodPost, `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("a", 2000) + `"}}}]`, s(nil)}, http.StatusRequestEntityTooLarge, []answerEnvelope{{true, 4.0, -32600}, {true, 5.0, -32600}}},
		{"body too large, id after the cut", req{http.MethodPost, `{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"x":"` + strings.Repeat("a", 2000) + `"}},"id":4}`, s(nil)}, http.StatusRequestEntityTooLarge, []answerEnvelope{{Code: -32600}}},
		{"invalid params", req{http.MethodPost, `{"jsonrpc":"2.0","id":8,"method":"ping","params":[]}`, s(nil)}, http.StatusBadRequest, []answerEnvelope{{true, 8.0, -32602}}},
		{"initialize with a session ID", req{http.MethodPost, initBody, s(nil)}, http.StatusBadRequest, id(1.0)},
		{"batch in a revision without batches", req{http.MethodPost, batch, s(nil)}, http.StatusBadRequest, []answerEnvelope{{true, 1.0, -32600}, {true, "b", -32600}}},
		{"batch to an unknown session", req{http.MethodPost, batch, s(map[string]string{"Mcp-Session-Id": "nope"})}, http.StatusNotFound, []answerEnvelope{{true, 1.0, -32600}, {true, "b", -32600}}},
		{"malformed JSON at 2025-11-25: no id", req{http.MethodPost, `{"jsonrpc":"2.0","id":9,`, s(nil)}, http.StatusBadRequest, []answerEnvelope{{Code: -32700}}},
		{"malformed JSON at 2025-06-18: id null", req{http.MethodPost, `{"jsonrpc":"2.0","id":9,`, s(map[string]string{"MCP-Protocol-Version": "2025-06-18"})}, http.StatusBadRequest, []answerEnvelope{{HasID: true, Code: -32700}}},
		{"duplicate id member: not trusted", req{http.MethodPost, `{"jsonrpc":"2.0","id":9,"id":10,"method":"ping"}`, s(nil)}, http.StatusBadRequest, []answerEnvelope{{Code: -32600}}},
		{"notification to an unknown session: no id", req{http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, s(map[string]string{"Mcp-Session-Id": "nope"})}, http.StatusNotFound, []answerEnvelope{{Code: -32600}}},
		{"a response's id is not echoed", req{http.MethodPost, `{"jsonrpc":"2.0","id":99,"result":{}}`, s(map[string]string{"Mcp-Session-Id": "nope"})}, http.StatusNotFound, []answerEnvelope{{Code: -32600}}},
		{"GET: unsupported version before an unknown session", req{http.MethodGet, "", s(map[string]string{"MCP-Protocol-Version": "1999-01-01", "Mcp-Session-Id": "nope"})}, http.StatusBadRequest, []answerEnvelope{{Code: -32600}}},
		{"DELETE: unsupported version before an unknown session", req{http.MethodDelete, "", s(map[string]string{"MCP-Protocol-Version": "1999-01-01", "Mcp-Session-Id": "nope"})}, http.StatusBadRequest, []answerEnvelope{{Code: -32600}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, ts.URL, tt.r)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %s, want %d: %s", resp.Status, tt.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q, want application/json: %s", ct, body)
			}
			if diff := cmp.Diff(tt.want, envelopes(t, body)); diff != "" {
				t.Errorf("error body %s (-want +got):\n%s", body, diff)
			}
		})
	}
}

// Defect 9, T-P6b: below 2025-11-25 a stream has no priming event and its
// client is not told to poll, so CloseSSEStream refuses and the answer
// arrives on the open stream; at 2025-11-25 it closes the connection.
func TestCloseSSEStreamByRevision(t *testing.T) {
	for _, tc := range []struct {
		rev    string
		closed bool
	}{
		{"2024-11-05", false},
		{"2025-03-26", false},
		{"2025-06-18", false},
		{"2025-11-25", true},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			closed := make(chan bool, 1)
			proceed := make(chan struct{}) // closed once the answer's stream is open
			srv := mcp.NewServer(mcp.Implementation{Name: "http", Version: "1"})
			srv.MustAddTool(mcp.Tool{Name: "poll", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				select {
				case <-proceed:
				case <-ctx.Done():
				}
				closed <- streamhttp.CloseSSEStream(ctx)
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "answered"}}}}, nil
			})
			h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, streamhttp.ServerOptions{})
			ts := httptest.NewServer(h)
			t.Cleanup(func() {
				h.Close()
				ts.Close()
			})
			init := do(t, ts.URL, req{method: http.MethodPost, body: strings.Replace(initBody, "2025-11-25", tc.rev, 1)})
			sid := init.Header.Get("Mcp-Session-Id")
			io.Copy(io.Discard, init.Body)
			hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": tc.rev}
			do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: hdr})
			// The headers of an SSE answer are sent once its stream is open.
			resp := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"poll","arguments":{}}}`, header: hdr})
			close(proceed)
			var datas []string
			last := ""
			for _, e := range events(t, resp, 0) { // until the server ends the connection
				if e.data != "" {
					datas = append(datas, e.data)
				}
				last = e.id
			}
			var got bool
			select {
			case got = <-closed:
			case <-time.After(5 * time.Second):
				t.Fatal("the tool was not called")
			}
			if got != tc.closed {
				t.Errorf("CloseSSEStream = %v, want %v", got, tc.closed)
			}
			if tc.closed && len(datas) == 0 {
				// The connection was closed before the answer: it comes
				// when the client resumes (T-R2b).
				hdr["Last-Event-ID"] = last
				for _, e := range events(t, do(t, ts.URL, req{method: http.MethodGet, header: hdr}), 0) {
					if e.data != "" {
						datas = append(datas, e.data)
					}
				}
			}
			if len(datas) != 1 || !strings.Contains(datas[0], `"id":5`) || !strings.Contains(datas[0], "answered") {
				t.Errorf("events: %q; want the answer, once", datas)
			}
		})
	}
}

// MaxSessions: an initialize beyond the limit gets 503 and a JSON-RPC
// error with its id; once a session ends, a new one is admitted.
func TestMaxSessions(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{MaxSessions: 2})
	a := initSession(t, ts.URL)
	initSession(t, ts.URL)
	var got []answerEnvelope
	for range 2 {
		resp := do(t, ts.URL, req{method: http.MethodPost, body: strings.Replace(initBody, `"id":1`, `"id":"third"`, 1)})
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("initialize beyond MaxSessions: %s, session %q: %s", resp.Status, resp.Header.Get("Mcp-Session-Id"), body)
		}
		if !strings.Contains(string(body), "2 sessions") {
			t.Errorf("the error does not say why: %s", body)
		}
		got = append(got, envelopes(t, body)...)
	}
	want := []answerEnvelope{{true, "third", session.Busy}, {true, "third", session.Busy}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error bodies (-want +got):\n%s", diff)
	}
	if r := do(t, ts.URL, req{method: http.MethodDelete, header: map[string]string{"Mcp-Session-Id": a}}); r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", r.Status)
	}
	initSession(t, ts.URL) // the ended session's place is free
}
