package streamhttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"

	_ "github.com/mcpgen/mcpgen/protocol/mcp20241105"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250618"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func testMCPServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "http", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "echo"}}}}, nil
	})
	srv.MustAddTool(mcp.Tool{Name: "reconnect", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		s.Log(ctx, "info", "t", []byte(`"before"`))
		time.Sleep(20 * time.Millisecond)
		if !streamhttp.CloseSSEStream(ctx) {
			return nil, io.ErrClosedPipe
		}
		time.Sleep(50 * time.Millisecond)
		s.Log(ctx, "info", "t", []byte(`"after"`))
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "resumed"}}}}, nil
	})
	return srv
}

func newTestServer(t *testing.T, opts streamhttp.ServerOptions) (*httptest.Server, *mcp.StandardServer) {
	t.Helper()
	srv := testMCPServer()
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, opts)
	ts := httptest.NewServer(h) // listens on 127.0.0.1
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts, srv
}

type req struct {
	method, body string
	header       map[string]string
}

func do(t *testing.T, url string, r req) *http.Response {
	t.Helper()
	return doWithin(t, url, r, 5*time.Second)
}

// doWithin is do with timeout as the bound on the request and the reading
// of its answer.
func doWithin(t *testing.T, url string, r req, timeout time.Duration) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	hr, err := http.NewRequestWithContext(ctx, r.method, url, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.method == http.MethodPost {
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/json, text/event-stream")
	}
	if r.method == http.MethodGet {
		hr.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range r.header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	if h, ok := r.header["Host"]; ok {
		hr.Host = h
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %.200q (headers %v): %v", r.method, r.body, r.header, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type event struct{ id, data, retry string }

// events reads SSE events until the stream ends or n events arrived.
func events(t *testing.T, resp *http.Response, n int) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = event{}
			if n > 0 && len(out) == n {
				return out
			}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		case strings.HasPrefix(line, "retry: "):
			cur.retry = line[7:]
		}
	}
	return out
}

// sessionHeaders returns the headers of a request in session sid at
// 2025-11-25, with extra added (an empty value removes a header, see do).
func sessionHeaders(sid string, extra map[string]string) map[string]string {
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	maps.Copy(h, extra)
	return h
}

// initSession initializes a session and returns its ID.
func initSession(t *testing.T, url string) string {
	t.Helper()
	resp := do(t, url, req{method: http.MethodPost, body: initBody})
	if resp.StatusCode != 200 {
		t.Fatalf("initialize: %s", resp.Status)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	evs := events(t, resp, 0)
	if len(evs) < 2 || evs[0].data != "" || evs[0].id == "" || !strings.Contains(evs[len(evs)-1].data, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize events: %+v (want a priming event, then the result)", evs)
	}
	r := do(t, url, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}})
	if r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", r.Status)
	}
	return sid
}

// T-S1: the session ID is visible ASCII and unguessable.
func TestSessionID(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{})
	a, b := initSession(t, ts.URL), initSession(t, ts.URL)
	if a == b || len(a) < 32 {
		t.Errorf("session IDs %q and %q", a, b)
	}
	for _, c := range a {
		if c < 0x21 || c > 0x7e {
			t.Errorf("session ID %q has a byte outside visible ASCII", a)
		}
	}
}

func TestHeaderAndStatusRules(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{MaxBodyBytes: 1 << 10})
	sid := initSession(t, ts.URL)
	s := func(extra map[string]string) map[string]string { return sessionHeaders(sid, extra) }
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	tests := []struct {
		name   string
		r      req
		status int
	}{
		{"T-P2 Accept without event-stream", req{http.MethodPost, ping, s(map[string]string{"Accept": "application/json"})}, http.StatusNotAcceptable},
		{"Content-Type not JSON", req{http.MethodPost, ping, s(map[string]string{"Content-Type": "text/plain"})}, http.StatusUnsupportedMediaType},
		{"T-S3 no session ID", req{http.MethodPost, ping, map[string]string{"MCP-Protocol-Version": "2025-11-25"}}, http.StatusBadRequest},
		{"T-S4 unknown session", req{http.MethodPost, ping, s(map[string]string{"Mcp-Session-Id": "nope"})}, http.StatusNotFound},
		{"T-H8 unsupported version", req{http.MethodPost, ping, s(map[string]string{"MCP-Protocol-Version": "1999-01-01"})}, http.StatusBadRequest},
		{"T-H7 missing version is 2025-03-26", req{http.MethodPost, ping, s(map[string]string{"MCP-Protocol-Version": ""})}, http.StatusOK},
		{"header names are case-insensitive", req{http.MethodPost, ping, map[string]string{"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}}, http.StatusOK},
		{"T-P4 notification accepted", req{http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, s(nil)}, http.StatusAccepted},
		{"T-P4 response accepted", req{http.MethodPost, `{"jsonrpc":"2.0","id":99,"result":{}}`, s(nil)}, http.StatusAccepted},
		{"malformed JSON", req{http.MethodPost, `{"jsonrpc":`, s(nil)}, http.StatusBadRequest},
		{"invalid message", req{http.MethodPost, `{"jsonrpc":"2.0","id":3}`, s(nil)}, http.StatusBadRequest},
		{"body too large", req{http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("a", 2000) + `"}}}`, s(nil)}, http.StatusRequestEntityTooLarge},
		{"initialize with a session ID", req{http.MethodPost, initBody, s(nil)}, http.StatusBadRequest},
		{"method not allowed", req{http.MethodPut, ping, s(nil)}, http.StatusMethodNotAllowed},
		{"T-G1 GET without event-stream", req{http.MethodGet, "", s(map[string]string{"Accept": "application/json"})}, http.StatusNotAcceptable},
		{"T-H2 DNS rebinding: foreign Host", req{http.MethodPost, ping, s(map[string]string{"Host": "evil.example.com"})}, http.StatusForbidden},
		{"T-H2b foreign Origin", req{http.MethodPost, ping, s(map[string]string{"Origin": "http://evil.example.com"})}, http.StatusForbidden},
		{"loopback Origin", req{http.MethodPost, ping, s(map[string]string{"Origin": "http://localhost:3000"})}, http.StatusOK},
		{"Last-Event-ID of no stream of the session", req{http.MethodGet, "", s(map[string]string{"Last-Event-ID": "other-1_3"})}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, ts.URL, tt.r)
			if resp.StatusCode != tt.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %s, want %d: %s", resp.Status, tt.status, b)
			}
			if tt.status >= 400 && resp.Header.Get("Content-Type") == "application/json" {
				var m map[string]any
				if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m["error"] == nil {
					t.Errorf("error body is not a JSON-RPC error: %v %v", m, err)
				}
			}
			if tt.status == http.StatusAccepted {
				if b, _ := io.ReadAll(resp.Body); len(b) != 0 {
					t.Errorf("202 with a body: %s", b)
				}
			}
		})
	}
}

// T-S5, T-S4: DELETE ends the session; its ID then gets 404.
func TestDelete(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{})
	sid := initSession(t, ts.URL)
	if r := do(t, ts.URL, req{method: http.MethodDelete, header: map[string]string{"Mcp-Session-Id": sid}}); r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", r.Status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid}})
		if r.StatusCode == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after DELETE: %s", r.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Idle sessions are reaped.
func TestSessionExpiry(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{IdleTimeout: 50 * time.Millisecond})
	sid := initSession(t, ts.URL)
	time.Sleep(300 * time.Millisecond) // well past the idle timeout, touching nothing
	r := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid}})
	if r.StatusCode != http.StatusNotFound {
		t.Fatalf("an idle session answered %s, want 404", r.Status)
	}
}

// A request answered as JSON when configured (T-P5).
func TestJSONResponse(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{JSONResponse: true})
	resp := do(t, ts.URL, req{method: http.MethodPost, body: initBody})
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m["result"] == nil {
		t.Fatalf("body %v %v", m, err)
	}
}

// T-P6b, T-R2b: a dropped answer stream resumes with GET and Last-Event-ID;
// no message is lost or duplicated.
func TestResumption(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{Retry: 10 * time.Millisecond})
	sid := initSession(t, ts.URL)
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	resp := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reconnect"}}`, header: h})
	first := events(t, resp, 0) // ends when the server drops the connection
	if len(first) < 2 || first[0].retry != "10" || first[0].data != "" {
		t.Fatalf("before the drop: %+v (want a priming event with retry, then the log)", first)
	}
	last := first[len(first)-1].id
	h["Last-Event-ID"] = last
	rest := events(t, do(t, ts.URL, req{method: http.MethodGet, header: h}), 0)
	var datas []string
	for _, e := range append(first[1:], rest...) {
		datas = append(datas, e.data)
	}
	all := strings.Join(datas, "\n")
	if strings.Count(all, `"before"`) != 1 || strings.Count(all, `"after"`) != 1 || strings.Count(all, `"resumed"`) != 1 || !strings.HasSuffix(all, `}`) {
		t.Fatalf("messages across the drop:\n%s", all)
	}
	if !strings.Contains(datas[len(datas)-1], `"id":7`) {
		t.Errorf("the last message is not the response: %s", datas[len(datas)-1])
	}
}

// T-G1…T-G3, T-M2: the GET stream carries messages unrelated to requests,
// each once; a second GET stream is refused.
func TestGetStream(t *testing.T) {
	ts, srv := newTestServer(t, streamhttp.ServerOptions{})
	sid := initSession(t, ts.URL)
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	resp := do(t, ts.URL, req{method: http.MethodGet, header: h})
	if resp.StatusCode != 200 {
		t.Fatalf("GET: %s", resp.Status)
	}
	got := make(chan []event, 1)
	go func() { got <- events(t, resp, 2) }()
	time.Sleep(50 * time.Millisecond)
	if r := do(t, ts.URL, req{method: http.MethodGet, header: h}); r.StatusCode != http.StatusConflict {
		t.Errorf("second GET stream: %s", r.Status)
	}
	srv.MustAddTool(mcp.Tool{Name: "late", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("late"), nil
	})
	select {
	case evs := <-got:
		if len(evs) != 2 || evs[0].data != "" || !strings.Contains(evs[1].data, "notifications/tools/list_changed") {
			t.Errorf("GET stream events %+v", evs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no list_changed on the GET stream")
	}
}

// FuzzHandler sends arbitrary bodies and header values: the handler never
// panics, answers with a sensible status, and the session keeps serving.
func FuzzHandler(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), "2025-11-25", "application/json, text/event-stream")
	f.Add([]byte(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`), "2025-03-26", "*/*")
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`), "", "application/json, text/event-stream")
	f.Add([]byte(`{`), "x", "")
	srv := testMCPServer()
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, streamhttp.ServerOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	f.Fuzz(func(t *testing.T, body []byte, version, accept string) {
		sid := initSession(t, ts.URL)
		hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": version, "Accept": accept}
		for k, v := range hdr {
			// net/http refuses to send other bytes in a header value.
			if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
				hdr[k] = ""
			}
		}
		resp := do(t, ts.URL, req{method: http.MethodPost, body: string(body), header: hdr})
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode >= 500 {
			t.Fatalf("status %s for %q", resp.Status, body)
		}
		ping := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":"p","method":"ping"}`, header: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}})
		if evs := events(t, ping, 2); len(evs) != 2 || !strings.Contains(evs[1].data, `"id":"p"`) {
			t.Fatalf("ping after %q: %+v", body, evs)
		}
		// Each run ends its session: MaxSessions would refuse the next ones.
		if r := do(t, ts.URL, req{method: http.MethodDelete, header: map[string]string{"Mcp-Session-Id": sid}}); r.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE after %q: %s", body, r.Status)
		}
	})
}

// Sessions of revisions before 2025-11-25 get no priming event.
func TestNoPrimingBefore20251125(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{Retry: time.Second})
	body := strings.Replace(initBody, "2025-11-25", "2025-06-18", 1)
	evs := events(t, do(t, ts.URL, req{method: http.MethodPost, body: body}), 0)
	if len(evs) != 1 || !strings.Contains(evs[0].data, `"protocolVersion":"2025-06-18"`) || evs[0].retry != "" {
		t.Fatalf("2025-06-18 initialize events: %+v", evs)
	}
}
