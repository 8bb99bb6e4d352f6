package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// askingServer is a 2026-07-28 StandardServer whose tools ask the client
// for input with each of the helpers. Each tool sends what it saw (its
// error wraps ErrClientCannotAnswer, ClientCan of the capability) on seen.
func askingServer(t *testing.T) (*peer, <-chan [2]bool) {
	t.Helper()
	seen := make(chan [2]bool, 1)
	srv := m26.NewServer(m26.Implementation{Name: "asking", Version: "1"})
	form := &m26.ElicitRequestParams{Value: &m26.ElicitRequestFormParams{Message: "Your name?", RequestedSchema: m26.ElicitRequestFormParamsRequestedSchema{Properties: map[string]m26.PrimitiveSchemaDefinition{"name": {Value: &m26.StringSchema{}}}}}}
	url := &m26.ElicitRequestParams{Value: &m26.ElicitRequestURLParams{Message: "Sign in", URL: "https://example.com/login"}}
	for name, tc := range map[string]struct {
		capability string
		ask        func(ctx context.Context) error
	}{
		"elicit":     {"elicitation", func(ctx context.Context) error { _, err := m26.Elicit(ctx, "name", form); return err }},
		"elicit-url": {"elicitation.url", func(ctx context.Context) error { _, err := m26.Elicit(ctx, "login", url); return err }},
		"sample": {"sampling", func(ctx context.Context) error {
			_, err := m26.CreateMessage(ctx, "summary", &m26.CreateMessageRequestParams{MaxTokens: 10, Messages: []m26.SamplingMessage{}})
			return err
		}},
		"roots": {"roots", func(ctx context.Context) error { _, err := m26.ListRoots(ctx, "roots"); return err }},
		"ask-both": {"elicitation", func(ctx context.Context) error {
			_, err := m26.AskInput(ctx, m26.InputRequests{
				"name":  {Value: &m26.ElicitRequest{Params: *form}},
				"roots": {Value: &m26.ListRootsRequest{}},
			})
			return err
		}},
	} {
		srv.MustAddTool(m26.Tool{Name: name, InputSchema: []byte(`{"type":"object"}`)},
			func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
				can := m26.ClientCan(ctx, tc.capability)
				err := tc.ask(ctx)
				seen <- [2]bool{errors.Is(err, m26.ErrClientCannotAnswer), can}
				if err != nil {
					return nil, err
				}
				return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "asked"}}}}, nil
			})
	}
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{Sealer: testSealer{}})
	t.Cleanup(func() { s.Close() })
	return &peer{t: t, tr: b}, seen
}

// A tool that asks a client that cannot answer: on a legacy session of
// every revision, the caller gets a tool result with isError saying why
// (not -32601, not -32603), and no request reaches the client; on a
// stateless request, -32021 naming the capability, as the protocol asks.
func TestClientCannotAnswer(t *testing.T) {
	for _, tc := range []struct {
		rev, tool string
		caps      string // the client's capabilities; {} when ""
		// text is in the isError result of a legacy session; required is
		// the data of the stateless request's -32021.
		text     string
		required string
	}{
		{rev: "2024-11-05", tool: "elicit", text: `input "name": elicitation/create: the client cannot answer: revision 2024-11-05 has no such request`},
		{rev: "2025-03-26", tool: "elicit", text: `input "name": elicitation/create: the client cannot answer: revision 2025-03-26 has no such request`},
		{rev: "2025-06-18", tool: "elicit", text: `input "name": elicitation/create: the client cannot answer: it did not declare the capability elicitation`},
		{rev: "2025-11-25", tool: "elicit", text: `input "name": elicitation/create: the client cannot answer: it did not declare the capability elicitation`},
		{rev: "2026-07-28", tool: "elicit", required: `{"requiredCapabilities":{"elicitation":{}}}`},
		{rev: "2025-11-25", tool: "sample", text: `input "summary": sampling/createMessage: the client cannot answer: it did not declare the capability sampling`},
		{rev: "2025-11-25", tool: "roots", text: `input "roots": roots/list: the client cannot answer: it did not declare the capability roots`},
		{rev: "2025-11-25", tool: "ask-both", text: `input "name": elicitation/create: the client cannot answer: it did not declare the capability elicitation`},
		{rev: "2026-07-28", tool: "sample", required: `{"requiredCapabilities":{"sampling":{}}}`},
		{rev: "2025-11-25", tool: "elicit-url", caps: `{"elicitation":{}}`, text: `input "login": elicitation/create: the client cannot answer: it did not declare elicitation mode "url" (the capability elicitation.url)`},
		{rev: "2026-07-28", tool: "elicit-url", caps: `{"elicitation":{}}`, required: `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
	} {
		t.Run(tc.rev+"/"+tc.tool, func(t *testing.T) {
			p, seen := askingServer(t)
			caps := tc.caps
			if caps == "" {
				caps = `{}`
			}
			var m map[string]any
			if tc.rev == "2026-07-28" {
				m = p.call(1, "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+caps+`},"name":"`+tc.tool+`","arguments":{}}`)
			} else {
				result(t, p.call(0, "initialize", `{"protocolVersion":"`+tc.rev+`","capabilities":`+caps+`,"clientInfo":{"name":"old","version":"1"}}`))
				p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				// The next message is the answer: no request reached the client.
				m = p.call(1, "tools/call", `{"name":"`+tc.tool+`","arguments":{}}`)
			}
			if m["method"] != nil {
				t.Fatalf("the client got a request it cannot answer: %v", m)
			}
			var got [2]bool
			select {
			case got = <-seen:
			default:
				t.Fatal("the tool did not run")
			}
			if got[1] {
				t.Error("ClientCan = true for a capability the client did not declare")
			}
			if tc.required != "" {
				if code := errorCode(t, m); code != session.MissingRequiredClientCapability {
					t.Fatalf("stateless: %v, want error -32021", m)
				}
				var want any
				if err := jsonUnmarshal([]byte(tc.required), &want); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, m["error"].(map[string]any)["data"]); diff != "" {
					t.Errorf("-32021 data (-want +got):\n%s", diff)
				}
				return
			}
			if !got[0] {
				t.Error("the helper's error does not wrap ErrClientCannotAnswer")
			}
			if code := errorCode(t, m); code != 0 {
				t.Fatalf("legacy %s: error %d %q, want a tool result with isError", tc.rev, code, errorMessage(m))
			}
			r := result(t, m)
			content, _ := r["content"].([]any)
			if r["isError"] != true || len(content) != 1 {
				t.Fatalf("legacy %s: %v, want isError with one content block", tc.rev, r)
			}
			if text := content[0].(map[string]any)["text"]; text != tc.text {
				t.Errorf("legacy %s: text %q, want %q", tc.rev, text, tc.text)
			}
		})
	}
}

// The session's own Call of an input request the client cannot answer is
// refused with an error that wraps ErrClientCannotAnswer, and keeps the
// *jsonrpc.Error it had (-32601 for an undeclared capability).
func TestCallClientCannotAnswer(t *testing.T) {
	for _, tc := range []struct {
		rev, caps, method, params string
		code                      int64 // of the *jsonrpc.Error in the chain, 0 for none
		text                      string
	}{
		{"2025-03-26", `{}`, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, 0, "elicitation/create: the client cannot answer: revision 2025-03-26 has no such request"},
		{"2025-11-25", `{}`, "roots/list", ``, jsonrpc.MethodNotFound, "roots/list: the client cannot answer: it did not declare the capability roots"},
		{"2025-11-25", `{"elicitation":{}}`, "elicitation/create", `{"mode":"url","message":"m","url":"https://example.com","elicitationId":"1"}`, jsonrpc.InvalidParams, `elicitation/create: the client cannot answer: it did not declare elicitation mode "url" (the capability elicitation.url)`},
	} {
		t.Run(tc.rev+"/"+tc.method, func(t *testing.T) {
			p, s := serve(t, testServer(t), session.Options{})
			result(t, p.call(0, "initialize", `{"protocolVersion":"`+tc.rev+`","capabilities":`+tc.caps+`,"clientInfo":{"name":"old","version":"1"}}`))
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			p.call(-1, "ping", "") // initialized has been seen
			var params session.Raw
			if tc.params != "" {
				params = session.Raw(tc.params)
			}
			_, err := s.Call(context.Background(), tc.method, params)
			if !errors.Is(err, session.ErrClientCannotAnswer) || err.Error() != tc.text {
				t.Fatalf("Call = %v, want %q wrapping ErrClientCannotAnswer", err, tc.text)
			}
			var je *jsonrpc.Error
			if got := errors.As(err, &je); got != (tc.code != 0) || (got && je.Code != tc.code) {
				t.Errorf("*jsonrpc.Error in the chain: %v, want code %d", je, tc.code)
			}
		})
	}
}

// ClientCan answers from what the client declared, in both eras.
func TestClientCan(t *testing.T) {
	for _, tc := range []struct {
		rev, caps string
		want      map[string]bool
	}{
		{"2025-11-25", `{"elicitation":{},"roots":{"listChanged":true}}`, map[string]bool{"elicitation": true, "elicitation.form": true, "elicitation.url": false, "roots": true, "roots.listChanged": true, "sampling": false}},
		{"2025-11-25", `{"elicitation":{"url":{}},"sampling":{}}`, map[string]bool{"elicitation": true, "elicitation.form": false, "elicitation.url": true, "sampling": true, "roots": false}},
		// 2025-03-26 has no elicitation, whatever the client says.
		{"2025-03-26", `{"elicitation":{},"sampling":{}}`, map[string]bool{"elicitation": false, "elicitation.form": false, "sampling": true}},
		{"2026-07-28", `{"elicitation":{"form":{},"url":{}}}`, map[string]bool{"elicitation": true, "elicitation.form": true, "elicitation.url": true, "sampling": false, "roots": false}},
		{"2026-07-28", `{}`, map[string]bool{"elicitation": false, "elicitation.form": false, "sampling": false}},
	} {
		t.Run(tc.rev+" "+tc.caps, func(t *testing.T) {
			got := make(chan map[string]bool, 1)
			srv := m26.NewServer(m26.Implementation{Name: "can", Version: "1"})
			srv.MustAddTool(m26.Tool{Name: "can", InputSchema: []byte(`{"type":"object"}`)},
				func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
					m := map[string]bool{}
					for c := range tc.want {
						m[c] = m26.ClientCan(ctx, c)
					}
					got <- m
					return &m26.CallToolResult{Content: []m26.ContentBlock{}}, nil
				})
			a, b := transport.Pipe()
			s := session.New(session.Server, a, srv.Handler(), session.Options{})
			t.Cleanup(func() { s.Close() })
			p := &peer{t: t, tr: b}
			if tc.rev == "2026-07-28" {
				result(t, p.call(1, "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+tc.caps+`},"name":"can"}`))
			} else {
				result(t, p.call(0, "initialize", `{"protocolVersion":"`+tc.rev+`","capabilities":`+tc.caps+`,"clientInfo":{"name":"old","version":"1"}}`))
				p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				result(t, p.call(1, "tools/call", `{"name":"can"}`))
			}
			select {
			case m := <-got:
				if diff := cmp.Diff(tc.want, m); diff != "" {
					t.Errorf("ClientCan (-want +got):\n%s", diff)
				}
			default:
				t.Fatal("the tool did not run")
			}
		})
	}
	if session.ClientCan(context.Background(), "elicitation") {
		t.Error("ClientCan outside a handler = true")
	}
}

// The sentinel is the same error under both names.
func TestErrClientCannotAnswerReexported(t *testing.T) {
	if m26.ErrClientCannotAnswer != session.ErrClientCannotAnswer || !strings.Contains(m26.ErrClientCannotAnswer.Error(), "cannot answer") {
		t.Error("mcp.ErrClientCannotAnswer is not session.ErrClientCannotAnswer")
	}
}
