package streamhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// statelessServer serves a 2026-07-28 StandardServer with a tool that
// reports progress.
func statelessServer(t *testing.T) string {
	t.Helper()
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "work", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			if err := session.ReportProgress(ctx, 1, nil, "half"); err != nil {
				return nil, err
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "done"}}}}, nil
		})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts.URL
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func post(t *testing.T, url, method, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestStatelessHTTP(t *testing.T) {
	url := statelessServer(t)
	for _, tc := range []struct {
		name, method, body string
		header             map[string]string
		status             int
		want               string // in the body
	}{
		{"discover", "server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta26 + `}}`, nil, 200, `"resultType":"complete"`},
		{"missing _meta", "tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`, nil, 400, `"code":-32602`},
		{"unknown method", "nope/nope", `{"jsonrpc":"2.0","id":3,"method":"nope/nope","params":{` + meta26 + `}}`, nil, 404, `"code":-32601`},
		{"version header differs", "tools/list", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + meta26 + `}}`, map[string]string{"MCP-Protocol-Version": "2025-11-25"}, 400, `"code":-32020`},
		{"method header missing", "tools/list", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{` + meta26 + `}}`, map[string]string{"Mcp-Method": ""}, 400, `"code":-32020`},
		{"unsupported version", "tools/list", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}}`, map[string]string{"MCP-Protocol-Version": "v9"}, 400, `"code":-32022`},
		{"batch", "tools/list", `[{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta26 + `}}]`, nil, 400, `{"jsonrpc":"2.0","error":{"code":-32600`},
		{"notification", "notifications/cancelled", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, nil, 202, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := post(t, url, tc.method, tc.body, tc.header)
			if res.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("got %d %s, want %d with %s", res.StatusCode, body, tc.status, tc.want)
			}
			if res.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a stateless answer minted a session id")
			}
		})
	}
}

// TestStatelessHTTPStream checks that a request whose handler reports
// progress is answered on an SSE stream: the progress first, the answer
// last.
func TestStatelessHTTPStream(t *testing.T) {
	url := statelessServer(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"work","arguments":{}}}`
	res, text := post(t, url, "tools/call", body, map[string]string{"Mcp-Name": "work"})
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" || res.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("content type %q, headers %v", ct, res.Header)
	}
	var msgs []map[string]any
	for _, line := range strings.Split(text, "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.NewDecoder(bytes.NewReader([]byte(data))).Decode(&m); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			msgs = append(msgs, m)
		}
	}
	if len(msgs) != 2 || msgs[0]["method"] != "notifications/progress" || msgs[1]["id"] != float64(1) {
		t.Fatalf("events: %v", msgs)
	}
}

// T-N12: on a server whose handler speaks 2026-07-28, a GET or DELETE that
// names no session is 405 with Allow: POST, whatever else it carries; with
// the id of a legacy session, GET opens its stream and DELETE ends it, as
// before. A server of a legacy handler keeps answering 400 (no session id).
func TestStatelessGetDelete(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	modern := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	legacy := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(testMCPServer()) }, streamhttp.ServerOptions{})
	mts, lts := httptest.NewServer(modern), httptest.NewServer(legacy)
	t.Cleanup(func() { modern.Close(); legacy.Close(); mts.Close(); lts.Close() })
	sid := initSession(t, mts.URL) // a legacy session of the modern handler

	type answer struct {
		Status int
		Allow  string
		Code   float64 // of the JSON-RPC error in the body; 0 for none
	}
	for _, tc := range []struct {
		name, url, method string
		header            map[string]string
		want              answer
	}{
		{"GET", mts.URL, http.MethodGet, nil, answer{405, "POST", -32600}},
		{"GET at 2026-07-28", mts.URL, http.MethodGet, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, answer{405, "POST", -32600}},
		{"GET with Last-Event-ID", mts.URL, http.MethodGet, map[string]string{"Last-Event-ID": "x_1"}, answer{405, "POST", -32600}},
		{"GET without Accept", mts.URL, http.MethodGet, map[string]string{"Accept": ""}, answer{405, "POST", -32600}},
		{"GET with an unknown version", mts.URL, http.MethodGet, map[string]string{"MCP-Protocol-Version": "v9"}, answer{405, "POST", -32600}},
		{"DELETE", mts.URL, http.MethodDelete, map[string]string{"MCP-Protocol-Version": "2026-07-28"}, answer{405, "POST", -32600}},
		{"GET of an unknown session", mts.URL, http.MethodGet, sessionHeaders("nope", nil), answer{404, "", -32600}},
		{"legacy server GET", lts.URL, http.MethodGet, nil, answer{400, "", -32600}},
		{"legacy server DELETE", lts.URL, http.MethodDelete, nil, answer{400, "", -32600}},
		{"PUT", mts.URL, http.MethodPut, nil, answer{405, "GET, POST, DELETE", -32600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, tc.url, req{method: tc.method, header: tc.header})
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			got := answer{Status: resp.StatusCode, Allow: resp.Header.Get("Allow")}
			if len(b) > 0 {
				got.Code = envelopes(t, b)[0].Code
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, b)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("the answer carries an Mcp-Session-Id")
			}
		})
	}

	// The legacy session keeps its GET stream and its DELETE.
	ctx, cancel := context.WithCancel(context.Background())
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, mts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Accept", "text/event-stream")
	for k, v := range sessionHeaders(sid, nil) {
		r.Header.Set(k, v)
	}
	get, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("GET of the legacy session: %s, %q", get.Status, get.Header.Get("Content-Type"))
	}
	cancel()
	get.Body.Close()
	del := do(t, mts.URL, req{method: http.MethodDelete, header: sessionHeaders(sid, nil)})
	if del.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE of the legacy session: %s", del.Status)
	}
	if again := do(t, mts.URL, req{method: http.MethodDelete, header: sessionHeaders(sid, nil)}); again.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE of the ended session: %s, want 404", again.Status)
	}
}
