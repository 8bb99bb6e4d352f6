package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const testExtID = "io.example/probe"

// probeExt is an extension with one method, probe/echo, that answers
// whether the request declared the extension, and, as a ToolCallWrapper,
// counts the tools/call requests it sees.
type probeExt struct {
	id      string
	methods []string
	mu      sync.Mutex
	calls   []string // the tools/call params' names it wrapped
}

func (x *probeExt) ID() string                 { return x.id }
func (x *probeExt) Capability() jsontext.Value { return jsontext.Value(`{"level":2}`) }
func (x *probeExt) Methods() []wire.Method {
	var out []wire.Method
	for _, m := range x.methods {
		out = append(out, wire.Method{Name: m, Direction: wire.ClientToServer, Message: "ProbeRequest", Results: []string{"ProbeResult"}})
	}
	return out
}

func (x *probeExt) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	v, _ := wire.Member(params, "v")
	declared := session.ClientDeclares(ctx, x.id)
	return session.Raw(`{"method":"` + method + `","declared":` + map[bool]string{true: "true", false: "false"}[declared] + `,"v":` + string(v) + `}`), nil
}

func (x *probeExt) WrapToolCall(ctx context.Context, s *session.Session, params jsontext.Value, call func(context.Context) (wire.Appender, error)) (wire.Appender, error) {
	name, _ := wire.MemberString(params, "name")
	if session.ClientDeclares(ctx, x.id) {
		name += " (declared)"
	}
	x.mu.Lock()
	x.calls = append(x.calls, name)
	x.mu.Unlock()
	return call(ctx)
}

func (x *probeExt) wrapped() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.calls...)
}

// extServer is a 2026-07-28 StandardServer serving probeExt, with a tool,
// on one end of a pipe.
func extServer(t *testing.T) (*m26.StandardServer, *probeExt, *peer) {
	t.Helper()
	x := &probeExt{id: testExtID, methods: []string{"probe/echo"}}
	srv := m26.NewServer(m26.Implementation{Name: "ext", Version: "1"}, m26.WithExtension(x))
	srv.MustAddTool(m26.Tool{Name: "hello"}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "hi"}}}}, nil
	})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	t.Cleanup(func() { s.Close() })
	return srv, x, &peer{t: t, tr: b}
}

func metaWith(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
}

func TestExtensionMethods(t *testing.T) {
	_, _, p := extServer(t)
	declaring := metaWith(`{"extensions":{"` + testExtID + `":{}}}`)
	for _, tc := range []struct {
		name, method, params string
		code                 int
		want                 map[string]any
	}{
		{"extension method, declared", "probe/echo", `{` + declaring + `,"v":1}`, 0,
			map[string]any{"method": "probe/echo", "declared": true, "v": float64(1), "resultType": "complete"}},
		{"extension method, not declared", "probe/echo", `{` + metaWith(`{}`) + `,"v":2}`, 0,
			map[string]any{"method": "probe/echo", "declared": false, "v": float64(2), "resultType": "complete"}},
		{"declared false", "probe/echo", `{` + metaWith(`{"extensions":{"`+testExtID+`":false}}`) + `,"v":3}`, 0,
			map[string]any{"method": "probe/echo", "declared": false, "v": float64(3), "resultType": "complete"}},
		{"another extension's id", "probe/echo", `{` + metaWith(`{"extensions":{"io.example/other":{}}}`) + `,"v":4}`, 0,
			map[string]any{"method": "probe/echo", "declared": false, "v": float64(4), "resultType": "complete"}},
		{"a method of no extension", "tasks/result", `{` + declaring + `}`, -32601, nil},
		{"another one", "tasks/list", `{` + declaring + `}`, -32601, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := p.call(1, tc.method, tc.params)
			if tc.code != 0 {
				if got := errorCode(t, m); got != tc.code {
					t.Fatalf("%s: got %v, want error %d", tc.method, m, tc.code)
				}
				return
			}
			r := result(t, m)
			delete(r, "_meta")
			if diff := cmp.Diff(tc.want, r); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtensionCapabilityAndWrapper(t *testing.T) {
	_, x, p := extServer(t)
	r := result(t, p.call(1, "server/discover", `{`+metaWith(`{}`)+`}`))
	exts := r["capabilities"].(map[string]any)["extensions"]
	if diff := cmp.Diff(map[string]any{testExtID: map[string]any{"level": float64(2)}}, exts); diff != "" {
		t.Errorf("discover capabilities.extensions (-want +got):\n%s", diff)
	}
	for i := range 3 {
		r := result(t, p.call(2+i, "tools/call", `{`+metaWith(`{}`)+`,"name":"hello","arguments":{}}`))
		if r["content"].([]any)[0].(map[string]any)["text"] != "hi" {
			t.Fatalf("tools/call through the wrapper: %v", r)
		}
	}
	// An unknown tool goes through the wrapper too: the wrapper sees every
	// tools/call, and the tool's own answer (-32602) comes back.
	if m := p.call(9, "tools/call", `{`+metaWith(`{}`)+`,"name":"nope","arguments":{}}`); errorCode(t, m) != -32602 {
		t.Errorf("unknown tool: %v", m)
	}
	if diff := cmp.Diff([]string{"hello", "hello", "hello", "nope"}, x.wrapped()); diff != "" {
		t.Errorf("wrapped calls (-want +got):\n%s", diff)
	}
}

// TestExtensionLegacySession: a legacy session (2025-11-25) has no
// extensions: not in initialize's capabilities, methods -32601; its
// tools/call goes through the wrapper, where no extension is declared.
func TestExtensionLegacySession(t *testing.T) {
	_, x, p := extServer(t)
	// Even a client that puts an extensions member in its capabilities
	// declares none in this revision.
	r := result(t, p.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"`+testExtID+`":{}}},"clientInfo":{"name":"old","version":"1"}}`))
	if _, ok := r["capabilities"].(map[string]any)["extensions"]; ok {
		t.Errorf("a 2025-11-25 initialize declares extensions: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := p.call(1, "probe/echo", `{"v":1}`); errorCode(t, m) != -32601 {
		t.Errorf("extension method on a legacy session: %v, want -32601", m)
	}
	r = result(t, p.call(2, "tools/call", `{"name":"hello","arguments":{}}`))
	if r["content"].([]any)[0].(map[string]any)["text"] != "hi" {
		t.Errorf("legacy tools/call: %v", r)
	}
	if diff := cmp.Diff([]string{"hello"}, x.wrapped()); diff != "" {
		t.Errorf("wrapped calls (-want +got):\n%s", diff)
	}
}

func TestAddExtension(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "x", Version: "1"})
	first := &probeExt{id: testExtID, methods: []string{"probe/echo"}}
	for _, tc := range []struct {
		name    string
		x       m26.Extension
		wantErr string
	}{
		{"nil", nil, "the extension is nil"},
		{"no ID", &probeExt{methods: []string{"probe/a"}}, "has no ID"},
		{"a revision method", &probeExt{id: "io.example/bad", methods: []string{"tools/list"}}, "method tools/list is one of revision 2026-07-28's own"},
		{"first", first, ""},
		{"another's method", &probeExt{id: "io.example/other", methods: []string{"probe/echo"}}, "method probe/echo is extension " + testExtID + "'s already"},
		{"same ID replaces", &probeExt{id: testExtID, methods: []string{"probe/echo", "probe/more"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := srv.AddExtension(tc.x)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("AddExtension: %v, want %q", err, tc.wantErr)
			}
		})
	}
	exts := srv.Handler().(session.ExtensionHandler).Extensions()
	if len(exts) != 1 || len(exts[0].Methods()) != 2 {
		t.Errorf("after replacing: %d extensions, want 1 with 2 methods", len(exts))
	}
}

func TestMissingExtensionError(t *testing.T) {
	e := session.MissingExtensionError("io.modelcontextprotocol/tasks")
	if e.Code != -32021 {
		t.Errorf("code %d", e.Code)
	}
	var data any
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if !strings.Contains(e.Message, "io.modelcontextprotocol/tasks") {
		t.Errorf("message does not name the extension: %q", e.Message)
	}
}

func TestAskerAndDetach(t *testing.T) {
	var asked []string
	var askErr, logErr, progErr error
	var answer string
	srv := m26.NewServer(m26.Implementation{Name: "x", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "ask"}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		dctx := session.WithAsker(session.Detach(ctx), func(ctx context.Context, reqs map[string]session.InputRequest) (map[string]jsontext.Value, error) {
			for k := range reqs {
				asked = append(asked, k)
			}
			return map[string]jsontext.Value{"k": jsontext.Value(`{"action":"accept","content":{"name":"Ada"}}`)}, nil
		})
		res, err := m26.Elicit(dctx, "k", &m26.ElicitRequestParams{Value: &m26.ElicitRequestFormParams{Message: "name?"}})
		askErr = err
		if err == nil {
			answer = string(res.Action)
		}
		logErr = session.Log(dctx, "error", "", jsontext.Value(`"dropped"`))
		progErr = session.ReportProgress(dctx, 1, nil, "dropped")
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "done"}}}}, nil
	})
	x := session.NewStateless(srv.Handler(), session.Options{})
	defer x.Close()
	var notes []string
	m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/call",
		Params: jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug","progressToken":"p"},"name":"ask","arguments":{}}`)}
	resp, status := x.Serve(context.Background(), m, func(ctx context.Context, b []byte) error {
		notes = append(notes, string(b))
		return nil
	})
	if status != 200 || resp.Error != nil {
		t.Fatalf("tools/call: %d %v", status, resp.Error)
	}
	if askErr != nil || answer != "accept" || !cmp.Equal(asked, []string{"k"}) {
		t.Errorf("Ask through the Asker: err %v, answer %q, asked %v", askErr, answer, asked)
	}
	if logErr != nil || progErr != nil || len(notes) != 0 {
		t.Errorf("a detached context sent notifications: log %v, progress %v, sent %v", logErr, progErr, notes)
	}
}

// TestExtensionOverHTTP: Mcp-Name of tasks/get is params.taskId, checked
// before the request reaches the extension.
func TestExtensionOverHTTP(t *testing.T) {
	x := &probeExt{id: testExtID, methods: []string{"tasks/get"}}
	srv := m26.NewServer(m26.Implementation{Name: "ext", Version: "1"}, m26.WithExtension(x))
	h := srv.HTTPHandler(m26.HTTPOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	post := func(name string) (int, map[string]any) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{` + metaWith(`{}`) + `,"taskId":"t-1","v":5}}`
		req, _ := http.NewRequest("POST", ts.URL, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tasks/get")
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("not JSON: %s", b)
		}
		return resp.StatusCode, m
	}
	for _, tc := range []struct {
		name, header string
		status, code int
	}{
		{"matching", "t-1", 200, 0},
		{"mismatched", "t-2", 400, -32020},
		{"missing", "", 400, -32020},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := post(tc.header)
			if status != tc.status || errorCode(t, m) != tc.code {
				t.Fatalf("Mcp-Name %q: HTTP %d %v, want %d and code %d", tc.header, status, m, tc.status, tc.code)
			}
			if tc.code == 0 && m["result"].(map[string]any)["v"] != float64(5) {
				t.Errorf("result: %v", m)
			}
		})
	}
}

func TestRevisionHasExtensions(t *testing.T) {
	for _, tc := range []struct {
		rev  string
		want bool
	}{{"2026-07-28", true}, {"2025-11-25", false}, {"2025-06-18", false}} {
		r, ok := revision.Lookup(tc.rev)
		if !ok {
			t.Fatalf("revision %s not linked", tc.rev)
		}
		if got := session.HasExtensions(r); got != tc.want {
			t.Errorf("%s: has extensions %v, want %v", tc.rev, got, tc.want)
		}
	}
}
