package otelmcp_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// fullServer is testServer with a resource, a template, completion, and a
// tool "ask" that asks the client for every input its session can give
// (sampling, elicitation, roots), logs and reports progress.
func fullServer(mw session.Middleware) *mcp.StandardServer {
	srv := testServer(mw)
	srv.MustAddResource(mcp.NewResource("file:///a.txt", "a", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: "a"}}}}, nil
	})
	srv.MustAddResourceTemplate(mcp.NewResourceTemplate("file:///t/{name}", "t", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: "t"}}}}, nil
	})
	srv.SetCompletion(func(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: []string{p.Argument.Value + "yz"}}}, nil
	})
	srv.MustAddTool(mcp.NewTool("ask", "asks the client"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		reqs := map[string]session.InputRequest{}
		if mcp.ClientCan(ctx, "sampling") {
			reqs["s"] = session.InputRequest{Method: "sampling/createMessage", Params: rawParams(`{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`)}
		}
		if mcp.ClientCan(ctx, "elicitation") {
			reqs["e"] = session.InputRequest{Method: "elicitation/create", Params: rawParams(`{"message":"ok?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`)}
		}
		if mcp.ClientCan(ctx, "roots") {
			reqs["r"] = session.InputRequest{Method: "roots/list"}
		}
		if _, err := session.Ask(ctx, reqs); err != nil {
			return nil, err
		}
		if err := session.Log(ctx, "info", "ask", jsontext.Value(`"asked"`)); err != nil {
			return nil, err
		}
		if err := session.ReportProgress(ctx, 1, nil, "done"); err != nil {
			return nil, err
		}
		return mcp.TextResult(fmt.Sprint(len(reqs), " answers")), nil
	})
	return srv
}

// answering is a client that answers every input request.
type answering struct{ mcp.UnimplementedClient }

func (answering) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Model: "m1", Role: mcp.RoleAssistant, Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "ok"}}}, nil
}

func (answering) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"ok": true})
}

func (answering) ListRoots(ctx context.Context, p *mcp.ListRootsRequestParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///r"}}}, nil
}

// op is one message of a test: the span name its sides record, and what
// they record beyond the method, the version and the network.
type op struct {
	name     string // the span name
	method   string
	toServer bool              // the client sends it (else the server)
	request  bool              // a request (jsonrpc.request.id on both sides)
	want     map[string]string // more attributes, on both sides
	parent   string            // the span name of the parent of the sender's span, "" for the caller's
	// senderOnly: the receiving engine consumes the message itself (a
	// notifications/progress), so only the sender has a span.
	senderOnly bool
}

// legacyOps are the messages of TestLegacyMethods, in the order they are
// exchanged, for a session whose client answers elicitation when elicit.
func legacyOps(elicit bool) []op {
	ops := []op{
		{name: "initialize", method: "initialize", toServer: true, request: true},
		{name: "notifications/initialized", method: "notifications/initialized", toServer: true},
		{name: "ping", method: "ping", toServer: true, request: true},
		{name: "logging/setLevel", method: "logging/setLevel", toServer: true, request: true},
		{name: "tools/list", method: "tools/list", toServer: true, request: true},
		{name: "tools/call echo", method: "tools/call", toServer: true, request: true, want: map[string]string{"gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool"}},
		{name: "prompts/list", method: "prompts/list", toServer: true, request: true},
		{name: "prompts/get greet", method: "prompts/get", toServer: true, request: true, want: map[string]string{"gen_ai.prompt.name": "greet"}},
		{name: "resources/list", method: "resources/list", toServer: true, request: true},
		{name: "resources/templates/list", method: "resources/templates/list", toServer: true, request: true},
		{name: "resources/read", method: "resources/read", toServer: true, request: true, want: map[string]string{"mcp.resource.uri": "file:///a.txt"}},
		{name: "resources/subscribe", method: "resources/subscribe", toServer: true, request: true, want: map[string]string{"mcp.resource.uri": "file:///a.txt"}},
		{name: "notifications/resources/updated", method: "notifications/resources/updated", want: map[string]string{"mcp.resource.uri": "file:///a.txt"}},
		{name: "resources/unsubscribe", method: "resources/unsubscribe", toServer: true, request: true, want: map[string]string{"mcp.resource.uri": "file:///a.txt"}},
		{name: "completion/complete greet", method: "completion/complete", toServer: true, request: true, want: map[string]string{"gen_ai.prompt.name": "greet"}},
		{name: "tools/call ask", method: "tools/call", toServer: true, request: true, want: map[string]string{"gen_ai.tool.name": "ask", "gen_ai.operation.name": "execute_tool"}},
		{name: "sampling/createMessage", method: "sampling/createMessage", request: true, parent: "tools/call ask"},
		{name: "roots/list", method: "roots/list", request: true, parent: "tools/call ask"},
		{name: "notifications/message", method: "notifications/message", parent: "tools/call ask"},
		{name: "notifications/progress", method: "notifications/progress", parent: "tools/call ask", senderOnly: true},
		{name: "notifications/tools/list_changed", method: "notifications/tools/list_changed"},
	}
	if elicit {
		ops = append(ops, op{name: "elicitation/create", method: "elicitation/create", request: true, parent: "tools/call ask"})
	}
	return ops
}

// legacyExchange sends, on a legacy session, every message legacyOps
// lists (initialize and notifications/initialized were sent by Connect).
func legacyExchange(t *testing.T, ctx context.Context, c *conn, srv **mcp.StandardServer) {
	t.Helper()
	s := c.cs.Session
	calls := []struct {
		method string
		params string
		opts   []session.CallOption
	}{
		{"ping", "", nil},
		{"logging/setLevel", `{"level":"debug"}`, nil},
		{"tools/list", `{}`, nil},
		{"tools/call", `{"name":"echo","arguments":{}}`, nil},
		{"prompts/list", `{}`, nil},
		{"prompts/get", `{"name":"greet"}`, nil},
		{"resources/list", `{}`, nil},
		{"resources/templates/list", `{}`, nil},
		{"resources/read", `{"uri":"file:///a.txt"}`, nil},
		{"resources/subscribe", `{"uri":"file:///a.txt"}`, nil},
		{"", "", nil}, // the server's notifications/resources/updated
		{"resources/unsubscribe", `{"uri":"file:///a.txt"}`, nil},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"x"}}`, nil},
		{"tools/call", `{"name":"ask","arguments":{}}`, []session.CallOption{session.WithProgress(func(session.Progress) {})}},
	}
	for _, call := range calls {
		if call.method == "" {
			(*srv).NotifyResourceUpdated("file:///a.txt")
			c.client.one(t, "notifications/resources/updated", trace.SpanKindServer) // before unsubscribing
			continue
		}
		var params rawParams
		if call.params != "" {
			params = rawParams(call.params)
		}
		var err error
		if params == "" {
			_, err = s.Call(ctx, call.method, nil, call.opts...)
		} else {
			_, err = s.Call(ctx, call.method, params, call.opts...)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", call.method, call.params, err)
		}
	}
	// A tool registered now is announced to the session.
	(*srv).MustAddTool(mcp.NewTool("late", "registered late"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("late"), nil
	})
}

// Every method of a legacy session, over every transport, in the newest
// legacy revision and an older one: the span name, kind, attributes and
// parent on both sides.
func TestLegacyMethods(t *testing.T) {
	for _, via := range []string{viaStdio, viaStreamable, viaSSE} {
		for _, rev := range []string{"2025-11-25", "2025-03-26"} {
			t.Run(via+"/"+rev, func(t *testing.T) {
				var srv *mcp.StandardServer
				c := connect(t, setup{via: via, revisions: []string{rev}, handler: answering{}, server: func(mw session.Middleware) *mcp.StandardServer {
					srv = fullServer(mw)
					return srv
				}})
				ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
				defer cancel()
				legacyExchange(t, ctx, c, &srv)
				elicit := rev >= "2025-06-18"
				sid := ""
				if via != viaStdio {
					raw := c.rawSessionID(t)
					if raw == "" {
						t.Fatal("no session id over HTTP")
					}
					sid = raw
				}
				checkOps(t, c, rev, sid, legacyOps(elicit))
				if !elicit && len(c.client.ended("elicitation/create", trace.SpanKindServer)) != 0 {
					t.Errorf("%s has no elicitation, yet the client handled one", rev)
				}
			})
		}
	}
}

// checkOps checks the spans of ops on c: rawSID is the transport's
// session id, "" for none.
func checkOps(t *testing.T, c *conn, version, rawSID string, ops []op) {
	t.Helper()
	for _, o := range ops {
		if o.senderOnly {
			c.checkSenderOnly(t, o)
			continue
		}
		p := c.pair(t, o.name, o.toServer)
		checkParent(t, o.name, p)
		client, server := p.sides(o.toServer)
		c.checkNetwork(t, o.name, client, server)
		for _, side := range []struct {
			name string
			s    sdktrace.ReadOnlySpan
		}{{"client", client}, {"server", server}} {
			a := strAttrs(attrs(side.s))
			want := map[string]string{"mcp.method.name": o.method, "mcp.protocol.version": version}
			for k, v := range o.want {
				want[k] = v
			}
			for k, v := range want {
				if a[k] != v {
					t.Errorf("%s: %s span %s = %q, want %q", o.name, side.name, k, a[k], v)
				}
			}
			if _, ok := a["jsonrpc.request.id"]; ok != o.request {
				t.Errorf("%s: %s span has jsonrpc.request.id: %v, want %v", o.name, side.name, ok, o.request)
			}
			for _, k := range []string{"error.type", "rpc.response.status_code", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
				if v, ok := a[k]; ok {
					t.Errorf("%s: %s span has %s = %q", o.name, side.name, k, v)
				}
			}
			if _, ok := a["mcp.resource.uri"]; ok && o.want["mcp.resource.uri"] == "" {
				t.Errorf("%s: %s span has mcp.resource.uri", o.name, side.name)
			}
			if side.s.Status().Code != codes.Unset {
				t.Errorf("%s: %s span status %v, want unset", o.name, side.name, side.s.Status())
			}
			got, has := a["mcp.session.id"]
			switch {
			case rawSID == "" && has:
				t.Errorf("%s: %s span has mcp.session.id %q, want none", o.name, side.name, got)
			case rawSID != "" && !isDigest(got):
				t.Errorf("%s: %s span mcp.session.id %q, want a digest of 32 hex digits", o.name, side.name, got)
			case rawSID != "" && got == rawSID:
				t.Errorf("%s: %s span mcp.session.id is the raw session id", o.name, side.name)
			}
		}
		if c, s := attrs(client)["jsonrpc.request.id"].String(), attrs(server)["jsonrpc.request.id"].String(); c != s {
			t.Errorf("%s: jsonrpc.request.id %q on the client, %q on the server", o.name, c, s)
		}
		if c, s := attrs(client)["mcp.session.id"].String(), attrs(server)["mcp.session.id"].String(); c != s {
			t.Errorf("%s: mcp.session.id %q on the client, %q on the server", o.name, c, s)
		}
		if o.parent != "" {
			// The sender is the server, handling the request named parent.
			par := c.server.one(t, o.parent, trace.SpanKindServer)
			if p.sender.Parent().SpanID() != par.SpanContext().SpanID() {
				t.Errorf("%s: the server's span has parent %s, want its %q span %s", o.name, p.sender.Parent().SpanID(), o.parent, par.SpanContext().SpanID())
			}
		}
	}
}

// checkSenderOnly checks the span of a message only its sender observes:
// the engine on the other side consumes it, which passes no middleware
// (see session.Middleware).
func (c *conn) checkSenderOnly(t *testing.T, o op) {
	t.Helper()
	sender, receiver := c.server, c.client
	if o.toServer {
		sender, receiver = c.client, c.server
	}
	s := sender.one(t, o.name, trace.SpanKindClient)
	if got := attrs(s)["mcp.method.name"].AsString(); got != o.method {
		t.Errorf("%s: mcp.method.name %q", o.name, got)
	}
	if o.parent != "" {
		par := sender.one(t, o.parent, trace.SpanKindServer)
		if s.Parent().SpanID() != par.SpanContext().SpanID() {
			t.Errorf("%s: the sender's span has parent %s, want its %q span %s", o.name, s.Parent().SpanID(), o.parent, par.SpanContext().SpanID())
		}
	}
	if n := len(receiver.ended(o.name, trace.SpanKindServer)); n != 0 {
		t.Errorf("%s: the receiver, whose engine consumes it, has %d spans of it", o.name, n)
	}
}

// isDigest reports whether s is 32 hex digits.
func isDigest(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 16
}

var _ = attribute.Key("")
