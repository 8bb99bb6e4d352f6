package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// modernServer is a 2026-07-28 StandardServer with a tool that asks for a
// name (elicitation) and one resource, served on one end of a pipe.
func modernServer(t *testing.T) (*m26.StandardServer, *peer) {
	t.Helper()
	srv := m26.NewServer(m26.Implementation{Name: "dual", Version: "1"}, m26.WithCacheHint(m26.MethodToolsList, m26.CacheHint{TTL: 5000e6, Scope: "public"}))
	srv.MustAddTool(m26.Tool{Name: "greet", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			res, err := m26.Elicit(ctx, "user_name", &m26.ElicitRequestParams{Value: &m26.ElicitRequestFormParams{
				Message: "What is your name?",
				RequestedSchema: m26.ElicitRequestFormParamsRequestedSchema{Properties: map[string]m26.PrimitiveSchemaDefinition{
					"name": {Value: &m26.StringSchema{}},
				}},
			}})
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(res.Content["name"])
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "Hello " + string(b)}}}}, nil
		})
	srv.MustAddResource(m26.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, p *m26.ReadResourceRequestParams) (*m26.ReadResourceResult, error) {
		return &m26.ReadResourceResult{Contents: []m26.ReadResourceResultContentsItem{{Value: &m26.TextResourceContents{URI: p.URI, Text: "x"}}}}, nil
	})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{Sealer: testSealer{}})
	t.Cleanup(func() { s.Close() })
	return srv, &peer{t: t, tr: b}
}

// testSealer "seals" in the clear, with the method as a prefix: enough to
// test what the engine does with state; runtime/reqstate tests sealing.
type testSealer struct{}

func (testSealer) Seal(ctx context.Context, method string, params jsontext.Value, payload []byte) (string, error) {
	return method + "|" + string(payload), nil
}

func (testSealer) Open(ctx context.Context, state, method string, params jsontext.Value) ([]byte, error) {
	p, ok := strings.CutPrefix(state, method+"|")
	if !ok {
		return nil, errTampered
	}
	return []byte(p), nil
}

var errTampered = &json.UnsupportedValueError{Str: "tampered"}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

func TestStatelessEnvelope(t *testing.T) {
	_, p := modernServer(t)
	for _, tc := range []struct {
		name, method, params string
		code                 int
		msg                  string
	}{
		{"missing _meta", "tools/list", `{}`, -32602, "/_meta: missing"},
		{"missing version", "tools/list", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, -32602, "protocolVersion: missing"},
		{"missing capabilities", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, -32602, "clientCapabilities: missing"},
		{"unsupported version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022, `"v9" is not supported`},
		{"removed method", "logging/setLevel", `{` + meta26 + `,"level":"info"}`, -32601, "not found in revision 2026-07-28"},
		{"embedded method", "elicitation/create", `{` + meta26 + `}`, -32601, "not found"},
		{"initialize claiming 2026", "initialize", `{` + meta26 + `}`, -32601, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := p.call(7, tc.method, tc.params)
			if got := errorCode(t, m); got != tc.code || !strings.Contains(errorMessage(m), tc.msg) {
				t.Fatalf("got %d %q, want %d containing %q", got, errorMessage(m), tc.code, tc.msg)
			}
			if m["id"] != float64(7) {
				t.Errorf("id = %v, want 7", m["id"])
			}
		})
	}
	m := p.call(8, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}`)
	data := m["error"].(map[string]any)["data"]
	if diff := cmp.Diff(map[string]any{"supported": []any{"2026-07-28"}, "requested": "v9"}, data); diff != "" {
		t.Errorf("-32022 data (-want +got):\n%s", diff)
	}
}

func TestStatelessResults(t *testing.T) {
	_, p := modernServer(t)
	r := result(t, p.call(1, "tools/list", `{`+meta26+`}`))
	if r["resultType"] != "complete" || r["ttlMs"] != float64(5000) || r["cacheScope"] != "public" {
		t.Errorf("tools/list hints: %v", r)
	}
	info := r["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"]
	if diff := cmp.Diff(map[string]any{"name": "dual", "version": "1"}, info); diff != "" {
		t.Errorf("serverInfo (-want +got):\n%s", diff)
	}
	r = result(t, p.call(2, "resources/read", `{`+meta26+`,"uri":"test://r"}`))
	if r["resultType"] != "complete" || r["ttlMs"] != float64(0) || r["cacheScope"] != "private" {
		t.Errorf("resources/read default hints: %v", r)
	}
	m := p.call(3, "resources/read", `{`+meta26+`,"uri":"test://nope"}`)
	if errorCode(t, m) != -32602 {
		t.Errorf("unknown resource: %v, want -32602", m)
	}
}

func TestStatelessInputRounds(t *testing.T) {
	_, p := modernServer(t)
	r := result(t, p.call(1, "tools/call", `{`+meta26+`,"name":"greet","arguments":{}}`))
	if r["resultType"] != "input_required" {
		t.Fatalf("round 1: %v", r)
	}
	req := r["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	if req["method"] != "elicitation/create" {
		t.Errorf("input request: %v", req)
	}
	state, _ := r["requestState"].(string)
	if !strings.HasPrefix(state, "tools/call|") {
		t.Errorf("requestState %q was not sealed for tools/call", state)
	}
	sq, _ := json.Marshal(state)
	r = result(t, p.call(2, "tools/call", `{`+meta26+`,"name":"greet","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":`+string(sq)+`}`))
	content := r["content"].([]any)[0].(map[string]any)["text"]
	if r["resultType"] != "complete" || content != `Hello "Ada"` {
		t.Errorf("round 2: %v", r)
	}
	// A state sealed for another method does not open: -32602.
	m := p.call(3, "tools/call", `{`+meta26+`,"name":"greet","arguments":{},"inputResponses":{},"requestState":"prompts/get|{}"}`)
	if errorCode(t, m) != -32602 || !strings.Contains(errorMessage(m), "requestState") {
		t.Errorf("foreign state: %v", m)
	}
	// A client without elicitation: -32021 naming it.
	m = p.call(4, "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"greet","arguments":{}}`)
	if errorCode(t, m) != -32021 {
		t.Fatalf("no elicitation capability: %v", m)
	}
	if diff := cmp.Diff(map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{}}}, m["error"].(map[string]any)["data"]); diff != "" {
		t.Errorf("-32021 data (-want +got):\n%s", diff)
	}
}

// TestLegacySessionOnModernHandler serves a 2025-11-25 session with the
// 2026-07-28 handler: initialize from discover, results without the
// stateless era's members, and the tool's input asked as a real request.
func TestLegacySessionOnModernHandler(t *testing.T) {
	_, p := modernServer(t)
	init := p.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"old","version":"1"}}`)
	r := result(t, init)
	if r["protocolVersion"] != "2025-11-25" || r["serverInfo"].(map[string]any)["name"] != "dual" {
		t.Fatalf("initialize: %v", r)
	}
	caps := r["capabilities"].(map[string]any)
	if _, ok := caps["tools"]; !ok {
		t.Errorf("initialize capabilities lack tools: %v", caps)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r = result(t, p.call(1, "tools/list", ""))
	for _, k := range []string{"resultType", "ttlMs", "cacheScope", "_meta"} {
		if _, ok := r[k]; ok {
			t.Errorf("a 2025-11-25 tools/list result carries %q: %v", k, r)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
	req := p.recvMsg()
	if req["method"] != "elicitation/create" {
		t.Fatalf("want an elicitation request, got %v", req)
	}
	id, _ := json.Marshal(req["id"])
	p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"name":"Bo"}}}`)
	res := p.recvMsg()
	r = result(t, res)
	if got := r["content"].([]any)[0].(map[string]any)["text"]; got != `Hello "Bo"` {
		t.Errorf("legacy tool call: %v", r)
	}
	if _, ok := r["resultType"]; ok {
		t.Errorf("legacy result carries resultType: %v", r)
	}
}

// TestLegacySubscriptionAndListen checks the Bus reaching a legacy
// session's resources/subscribe and a stateless subscriptions/listen.
func TestLegacySubscriptionAndListen(t *testing.T) {
	srv, p := modernServer(t)
	result(t, p.call(0, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}`))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	result(t, p.call(1, "resources/subscribe", `{"uri":"test://r"}`))
	srv.NotifyResourceUpdated("test://other")
	srv.NotifyResourceUpdated("test://r")
	n := p.recvMsg()
	if n["method"] != "notifications/resources/updated" || n["params"].(map[string]any)["uri"] != "test://r" {
		t.Fatalf("want the update of test://r, got %v", n)
	}

	srv2, q := modernServer(t)
	q.send(`{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{` + meta26 + `,"notifications":{"toolsListChanged":true,"promptsListChanged":false,"resourceSubscriptions":["test://r"]}}}`)
	ack := q.recvMsg()
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message: %v", ack)
	}
	params := ack["params"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"toolsListChanged": true, "resourceSubscriptions": []any{"test://r"}}, params["notifications"]); diff != "" {
		t.Errorf("granted filter (-want +got):\n%s", diff)
	}
	if params["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != "L1" {
		t.Errorf("ack without the subscription id: %v", ack)
	}
	srv2.MustAddPrompt(m26.Prompt{Name: "p"}, func(ctx context.Context, p *m26.GetPromptRequestParams) (*m26.GetPromptResult, error) {
		return m26.PromptText(m26.RoleUser, "p"), nil
	}) // not asked for
	srv2.MustAddTool(m26.Tool{Name: "new", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return m26.TextResult("new"), nil
	})
	n = q.recvMsg()
	if n["method"] != "notifications/tools/list_changed" || n["params"].(map[string]any)["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != "L1" {
		t.Fatalf("want tools/list_changed tagged L1, got %v", n)
	}
	// Cancelling the listen request ends the stream without an answer.
	q.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L1"}}`)
	m := q.call(9, "tools/list", `{`+meta26+`}`)
	if m["id"] != float64(9) {
		t.Errorf("after cancelling the listen stream, got %v", m)
	}
}

// TestStatelessServerInfo checks that the results the runtime makes
// itself name the server in _meta as the handler's results do (V-2): the
// InputRequiredResult of a round, and the SubscriptionsListenResult that
// ends a listen stream when the server closes (U-S3).
func TestStatelessServerInfo(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "named", Version: "2"})
	srv.MustAddTool(m26.Tool{Name: "ask", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			if _, err := m26.ListRoots(ctx, "roots"); err != nil {
				return nil, err
			}
			return &m26.CallToolResult{}, nil
		})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{Sealer: testSealer{}})
	defer s.Close()
	p := &peer{t: t, tr: b}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	info := map[string]any{"name": "named", "version": "2"}

	r := result(t, p.call(1, "tools/call", `{`+meta+`,"name":"ask","arguments":{}}`))
	if r["resultType"] != "input_required" {
		t.Fatalf("tools/call ask: %v, want input_required", r)
	}
	if diff := cmp.Diff(map[string]any{"io.modelcontextprotocol/serverInfo": info}, r["_meta"]); diff != "" {
		t.Errorf("the InputRequiredResult's _meta (-want +got):\n%s", diff)
	}

	p.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`)
	if ack := p.recvMsg(); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message on the listen stream: %v", ack)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	end := p.recvMsg()
	want := map[string]any{"jsonrpc": "2.0", "id": "L", "result": map[string]any{
		"resultType": "complete",
		"_meta":      map[string]any{"io.modelcontextprotocol/subscriptionId": "L", "io.modelcontextprotocol/serverInfo": info},
	}}
	if diff := cmp.Diff(want, end); diff != "" {
		t.Errorf("the end of the listen stream (-want +got):\n%s", diff)
	}
	b.Close()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10s")
	}
}

// TestStatelessSealedState runs a round with the default sealer
// (runtime/reqstate, a key per process): the state opens on the retry, and
// a tampered one, or one moved to other params, is -32602.
func TestStatelessSealedState(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "sealed", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "twice", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			for _, key := range []string{"a", "b"} {
				if _, err := m26.ListRoots(ctx, key); err != nil {
					return nil, err
				}
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "done"}}}}, nil
		})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	defer s.Close()
	p := &peer{t: t, tr: b}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	roots := `{"roots":[{"uri":"file:///r"}]}`
	r := result(t, p.call(1, "tools/call", `{`+meta+`,"name":"twice","arguments":{"x":1}}`))
	state1, _ := json.Marshal(r["requestState"])
	r = result(t, p.call(2, "tools/call", `{`+meta+`,"name":"twice","arguments":{"x":1},"inputResponses":{"a":`+roots+`},"requestState":`+string(state1)+`}`))
	if _, ok := r["inputRequests"].(map[string]any)["b"]; !ok {
		t.Fatalf("round 2 should ask for b: %v", r)
	}
	state2, _ := json.Marshal(r["requestState"])
	// Round 3 answers only b: a's answer comes from the sealed state.
	r = result(t, p.call(3, "tools/call", `{`+meta+`,"arguments":{"x":1},"name":"twice","inputResponses":{"b":`+roots+`},"requestState":`+string(state2)+`}`))
	if r["resultType"] != "complete" {
		t.Fatalf("round 3: %v", r)
	}
	tampered := string(state2[:len(state2)-3]) + `x"`
	for name, params := range map[string]string{
		"tampered":     `{` + meta + `,"name":"twice","arguments":{"x":1},"inputResponses":{"b":` + roots + `},"requestState":` + tampered + `}`,
		"other params": `{` + meta + `,"name":"twice","arguments":{"x":2},"inputResponses":{"b":` + roots + `},"requestState":` + string(state2) + `}`,
	} {
		m := p.call(4, "tools/call", params)
		if errorCode(t, m) != -32602 || !strings.Contains(errorMessage(m), "requestState") {
			t.Errorf("%s: %v, want -32602 naming requestState", name, m)
		}
	}
}

// FuzzStatelessReader feeds arbitrary payloads to a server whose handler
// speaks 2026-07-28, before any initialize (so every request is served
// statelessly, input rounds and requestState included): it must not panic
// or hang, and must still answer a stateless request afterwards.
func FuzzStatelessReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta26 + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta26 + `,"name":"greet","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta26 + `,"name":"greet","inputResponses":{"user_name":{"action":"accept"}},"requestState":"x"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{` + meta26 + `,"notifications":{"toolsListChanged":true}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + meta26 + `}}`,
		`{`, `null`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, p := modernServer(t)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.tr.Write(ctx, data); err != nil {
			t.Fatal(err)
		}
		p.send(`{"jsonrpc":"2.0","id":"fuzz-probe","method":"resources/read","params":{` + meta26 + `,"uri":"test://r"}}`)
		for {
			raw, err := p.tr.Read(ctx)
			if err != nil {
				t.Fatalf("no answer to the probe after %q: %v", data, err)
			}
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil && m["id"] == "fuzz-probe" {
				if _, ok := m["result"]; !ok {
					t.Fatalf("probe after %q: %s", data, raw)
				}
				return
			}
		}
	})
}
