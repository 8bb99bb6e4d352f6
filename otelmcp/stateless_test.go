package otelmcp_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The stateless requests of 2026-07-28, over stdio and Streamable HTTP:
// the span name, kind, attributes and parent on both sides, no session id;
// a subscriptions/listen is one span on each side that ends with the
// subscription.
func TestStatelessMethods(t *testing.T) {
	for _, via := range []string{viaStdio, viaStreamable} {
		t.Run(via, func(t *testing.T) {
			c := connect(t, setup{via: via, server: fullServer})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			s := c.cs.Session
			for _, call := range []struct{ method, params string }{
				{"tools/call", `{"name":"echo","arguments":{}}`},
				{"prompts/get", `{"name":"greet"}`},
				{"resources/read", `{"uri":"file:///a.txt"}`},
			} {
				if _, err := s.Call(ctx, call.method, rawParams(call.params)); err != nil {
					t.Fatalf("%s: %v", call.method, err)
				}
			}
			sub, err := s.Listen(ctx, &mcp.SubscriptionsListenRequestParams{Notifications: mcp.SubscriptionFilter{ToolsListChanged: ptr(true)}})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(c.client.ended("subscriptions/listen", trace.SpanKindClient)); n != 0 {
				t.Errorf("the subscriptions/listen span ended while the subscription is open (%d)", n)
			}
			if err := sub.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-sub.Done():
			case <-ctx.Done():
				t.Fatal("the subscription did not end")
			}
			checkOps(t, c, "2026-07-28", "", []op{
				{name: "server/discover", method: "server/discover", toServer: true, request: true},
				{name: "tools/call echo", method: "tools/call", toServer: true, request: true, want: map[string]string{"gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool"}},
				{name: "prompts/get greet", method: "prompts/get", toServer: true, request: true, want: map[string]string{"gen_ai.prompt.name": "greet"}},
				{name: "resources/read", method: "resources/read", toServer: true, request: true, want: map[string]string{"mcp.resource.uri": "file:///a.txt"}},
				{name: "subscriptions/listen", method: "subscriptions/listen", toServer: true, request: true},
			})
			for _, name := range []string{"initialize", "notifications/initialized"} {
				if n := len(c.client.ended(name, trace.SpanKindClient)) + len(c.server.ended(name, trace.SpanKindServer)); n != 0 {
					t.Errorf("a stateless client made %d %s spans", n, name)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// confirmServer has a tool "confirm" that elicits a confirmation: a multi
// round-trip call in the stateless era.
func confirmServer(mw session.Middleware) *mcp.StandardServer {
	srv := testServer(mw)
	srv.MustAddTool(mcp.NewTool("confirm", "asks first"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		res, err := mcp.Elicit(ctx, "ok", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "ok?"}})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(string(res.Action)), nil
	})
	return srv
}

// A multi round-trip tools/call: one CLIENT span for the whole call; one
// SERVER span per round on the server, each a child of it; the client's
// handling of the embedded elicitation/create a SERVER span inside the
// call's span.
func TestMultiRoundTrip(t *testing.T) {
	for _, via := range []string{viaStdio, viaStreamable} {
		t.Run(via, func(t *testing.T) {
			c := connect(t, setup{via: via, server: confirmServer, handler: answering{}})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			res, err := c.cs.CallToolArgs(ctx, "confirm", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != "accept" {
				t.Fatalf("result %q, want accept", res.Text())
			}
			call := c.client.one(t, "tools/call confirm", trace.SpanKindClient)
			if n := len(c.client.ended("tools/call confirm", trace.SpanKindClient)); n != 1 {
				t.Errorf("%d client spans for one call, want 1", n)
			}
			rounds := waitEnded(t, c.server, "tools/call confirm", trace.SpanKindServer, 2)
			for i, r := range rounds {
				par := r.Parent()
				if par.SpanID() != call.SpanContext().SpanID() || par.TraceID() != call.SpanContext().TraceID() || !par.IsRemote() {
					t.Errorf("round %d: server span's parent %s/%s, want the call's client span %s/%s",
						i, par.TraceID(), par.SpanID(), call.SpanContext().TraceID(), call.SpanContext().SpanID())
				}
				a := strAttrs(attrs(r))
				if a["mcp.protocol.version"] != "2026-07-28" || a["gen_ai.tool.name"] != "confirm" {
					t.Errorf("round %d: attributes %v", i, a)
				}
				if _, ok := a["mcp.session.id"]; ok {
					t.Errorf("round %d: a stateless request has mcp.session.id", i)
				}
			}
			if rounds[0].SpanContext().SpanID() == rounds[1].SpanContext().SpanID() {
				t.Error("the two rounds share a span")
			}
			el := c.client.one(t, "elicitation/create", trace.SpanKindServer)
			if el.Parent().SpanID() != call.SpanContext().SpanID() {
				t.Errorf("the client's elicitation/create span has parent %s, want the call's span %s", el.Parent().SpanID(), call.SpanContext().SpanID())
			}
			if a := strAttrs(attrs(el)); a["mcp.method.name"] != "elicitation/create" || a["mcp.protocol.version"] != "2026-07-28" {
				t.Errorf("the client's elicitation/create span: %v", a)
			}
			if n := len(c.server.ended("elicitation/create", trace.SpanKindClient)); n != 0 {
				t.Errorf("the server made %d elicitation/create spans; a stateless server sends no request", n)
			}
		})
	}
}

// waitEnded waits, bounded, for n ended spans named name of kind k, and
// fails if there are more.
func waitEnded(t *testing.T, tel *telemetry, name string, k trace.SpanKind, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		got := tel.ended(name, k)
		if len(got) == n {
			return got
		}
		if len(got) > n || time.Now().After(deadline) {
			t.Fatalf("%d ended spans %q of kind %s, want %d", len(got), name, k, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A tool call that runs as a task (the Tasks extension): the tasks/get
// polls are CLIENT spans inside the tools/call client span, each with its
// SERVER span as a child.
func TestTaskPolls(t *testing.T) {
	for _, via := range []string{viaStdio, viaStreamable} {
		t.Run(via, func(t *testing.T) {
			// The task runs until the server has been polled once.
			polled := make(chan struct{})
			var once sync.Once
			watch := func(next session.HandlerFunc) session.HandlerFunc {
				return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
					res, err := next(ctx, r)
					if r.Method == "tasks/get" {
						once.Do(func() { close(polled) })
					}
					return res, err
				}
			}
			var ts *tasks.Server
			c := connect(t, setup{via: via, exts: []mcp.ClientExtension{tasks.Follower{}}, server: func(mw session.Middleware) *mcp.StandardServer {
				ts = tasks.NewServer(tasks.Options{PollInterval: tasks.MinPollInterval})
				t.Cleanup(func() { ts.Close() })
				srv := mcp.NewServer(mcp.Implementation{Name: "srv", Version: "1"}, mcp.WithExtension(ts), mcp.WithMiddleware(mw, watch))
				srv.MustAddTool(mcp.NewTool("long", "runs as a task"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
					select {
					case <-polled:
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(waitLimit):
					}
					return mcp.TextResult("done"), nil
				})
				ts.SetToolSupport("long", tasks.Required)
				return srv
			}})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			res, err := c.cs.CallToolArgs(ctx, "long", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text() != "done" {
				t.Fatalf("result %q", res.Text())
			}
			call := c.client.one(t, "tools/call long", trace.SpanKindClient)
			polls := c.client.ended("tasks/get", trace.SpanKindClient)
			if len(polls) == 0 {
				t.Fatal("no tasks/get client span")
			}
			ids := map[trace.SpanID]bool{}
			for i, p := range polls {
				ids[p.SpanContext().SpanID()] = true
				if p.Parent().SpanID() != call.SpanContext().SpanID() || p.Parent().TraceID() != call.SpanContext().TraceID() {
					t.Errorf("poll %d: parent %s, want the tools/call client span %s", i, p.Parent().SpanID(), call.SpanContext().SpanID())
				}
				if a := strAttrs(attrs(p)); a["mcp.method.name"] != "tasks/get" || a["jsonrpc.request.id"] == "" {
					t.Errorf("poll %d: attributes %v", i, a)
				}
			}
			served := waitEnded(t, c.server, "tasks/get", trace.SpanKindServer, len(polls))
			for i, s := range served {
				if !ids[s.Parent().SpanID()] || !s.Parent().IsRemote() {
					t.Errorf("server tasks/get %d: parent %s (remote %v), want one of the client's polls", i, s.Parent().SpanID(), s.Parent().IsRemote())
				}
			}
			first := c.server.one(t, "tools/call long", trace.SpanKindServer)
			if first.Parent().SpanID() != call.SpanContext().SpanID() {
				t.Errorf("server tools/call span's parent %s, want the client's %s", first.Parent().SpanID(), call.SpanContext().SpanID())
			}
		})
	}
}
