package otelmcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// A tool call is a CLIENT span on the client and a SERVER span on the
// server, the server's the child of the client's through params._meta, in
// both eras, with the attributes the convention asks for.
func TestToolCallSpans(t *testing.T) {
	for _, tt := range []struct {
		era       string
		revisions []string
		version   string
	}{
		{"legacy", []string{"2025-11-25"}, "2025-11-25"},
		{"stateless", nil, "2026-07-28"},
	} {
		t.Run(tt.era, func(t *testing.T) {
			tel := newTelemetry(t)
			srv := testServer(tel.middleware(otelmcp.Options{}))
			cs := pipePair(t, srv, &mcp.ClientOptions{Revisions: tt.revisions, Middleware: []session.Middleware{tel.middleware(otelmcp.Options{})}})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ctx, agent := tel.tp.Tracer("test").Start(ctx, "agent")
			if _, err := cs.CallToolArgs(ctx, "echo", map[string]any{"x": 1}); err != nil {
				t.Fatal(err)
			}
			agent.End()

			client := tel.one(t, "tools/call echo", trace.SpanKindClient)
			server := tel.one(t, "tools/call echo", trace.SpanKindServer)
			if client.Parent().SpanID() != agent.SpanContext().SpanID() {
				t.Errorf("client span's parent %s, want the caller's span %s", client.Parent().SpanID(), agent.SpanContext().SpanID())
			}
			if server.Parent().SpanID() != client.SpanContext().SpanID() || server.SpanContext().TraceID() != client.SpanContext().TraceID() {
				t.Errorf("server span's parent %s in trace %s, want the client span %s in trace %s",
					server.Parent().SpanID(), server.SpanContext().TraceID(), client.SpanContext().SpanID(), client.SpanContext().TraceID())
			}
			if !server.Parent().IsRemote() {
				t.Error("server span's parent is not remote: it was not read from params._meta")
			}
			for _, s := range []struct {
				side string
				a    map[attribute.Key]attribute.Value
			}{{"client", attrs(client)}, {"server", attrs(server)}} {
				want := map[attribute.Key]string{
					"mcp.method.name":       "tools/call",
					"gen_ai.tool.name":      "echo",
					"gen_ai.operation.name": "execute_tool",
					"mcp.protocol.version":  tt.version,
				}
				for k, v := range want {
					if got := s.a[k].AsString(); got != v {
						t.Errorf("%s span %s = %q, want %q", s.side, k, got, v)
					}
				}
				if s.a["jsonrpc.request.id"].AsString() == "" {
					t.Errorf("%s span has no jsonrpc.request.id", s.side)
				}
				for _, k := range []attribute.Key{"error.type", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "mcp.session.id"} {
					if v, ok := s.a[k]; ok {
						t.Errorf("%s span has %s = %s", s.side, k, v.String())
					}
				}
			}
			if c, s := attrs(client)["jsonrpc.request.id"].AsString(), attrs(server)["jsonrpc.request.id"].AsString(); c != s {
				t.Errorf("jsonrpc.request.id %q on the client, %q on the server", c, s)
			}
			if client.Status().Code != codes.Unset || server.Status().Code != codes.Unset {
				t.Errorf("status %v / %v, want unset", client.Status(), server.Status())
			}
		})
	}
}

// Errors: a tool's own error is tool_error; a JSON-RPC error is its code,
// in error.type and rpc.response.status_code; both set status ERROR.
func TestErrorSpans(t *testing.T) {
	for _, revs := range [][]string{{"2025-11-25"}, nil} {
		tel := newTelemetry(t)
		srv := testServer(tel.middleware(otelmcp.Options{}))
		cs := pipePair(t, srv, &mcp.ClientOptions{Revisions: revs, Middleware: []session.Middleware{tel.middleware(otelmcp.Options{})}})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cs.CallToolArgs(ctx, "broken", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "nowhere"}); err == nil {
			t.Fatal("prompts/get of no prompt succeeded")
		}
		for _, k := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
			s := tel.one(t, "tools/call broken", k)
			if got := attrs(s)["error.type"].AsString(); got != "tool_error" {
				t.Errorf("%v %s: error.type %q, want tool_error", revs, k, got)
			}
			if _, ok := attrs(s)["rpc.response.status_code"]; ok {
				t.Errorf("%v %s: a tool error has rpc.response.status_code", revs, k)
			}
			if s.Status().Code != codes.Error {
				t.Errorf("%v %s: status %v, want Error", revs, k, s.Status())
			}
			p := tel.one(t, "prompts/get nowhere", k)
			a := attrs(p)
			if a["error.type"].AsString() != "-32602" || a["rpc.response.status_code"].AsString() != "-32602" || a["gen_ai.prompt.name"].AsString() != "nowhere" {
				t.Errorf("%v %s: prompts/get of no prompt: %v", revs, k, p.Attributes())
			}
			if p.Status().Code != codes.Error || p.Status().Description == "" {
				t.Errorf("%v %s: status %+v, want Error with the JSON-RPC message", revs, k, p.Status())
			}
		}
	}
}

// The operation durations are recorded on both sides with the
// convention's attributes, and a legacy session's duration once it ends.
func TestMetrics(t *testing.T) {
	tel := newTelemetry(t)
	srv := testServer(tel.middleware(otelmcp.Options{}))
	cs := pipePair(t, srv, &mcp.ClientOptions{Revisions: []string{"2025-11-25"}, Middleware: []session.Middleware{tel.middleware(otelmcp.Options{})}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cs.CallToolArgs(ctx, "broken", nil); err != nil {
		t.Fatal(err)
	}
	tel.one(t, "tools/call broken", trace.SpanKindServer)
	for _, name := range []string{"mcp.client.operation.duration", "mcp.server.operation.duration"} {
		found := false
		for _, dp := range tel.histogram(t, name) {
			m, _ := dp.Attributes.Value("mcp.method.name")
			if m.AsString() != "tools/call" {
				continue
			}
			found = true
			e, _ := dp.Attributes.Value("error.type")
			tool, _ := dp.Attributes.Value("gen_ai.tool.name")
			if dp.Count != 1 || e.AsString() != "tool_error" || tool.AsString() != "broken" {
				t.Errorf("%s: count %d, attributes %v", name, dp.Count, dp.Attributes.ToSlice())
			}
			if _, ok := dp.Attributes.Value("jsonrpc.request.id"); ok {
				t.Errorf("%s has jsonrpc.request.id, a high-cardinality attribute", name)
			}
			if len(dp.Bounds) != 14 || dp.Bounds[0] != 0.01 || dp.Bounds[13] != 300 {
				t.Errorf("%s buckets %v, want the convention's", name, dp.Bounds)
			}
		}
		if !found {
			t.Errorf("no %s point for tools/call", name)
		}
	}
	cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for _, name := range []string{"mcp.client.session.duration", "mcp.server.session.duration"} {
		for {
			pts := tel.histogram(t, name)
			if len(pts) == 1 {
				v, _ := pts[0].Attributes.Value("mcp.protocol.version")
				if pts[0].Count != 1 || v.AsString() != "2025-11-25" {
					t.Errorf("%s: count %d, attributes %v", name, pts[0].Count, pts[0].Attributes.ToSlice())
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d points, want 1", name, len(pts))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
