package otelmcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// With otelhttp on both ends, one trace reads as the convention's
// Streamable HTTP example does: the MCP client span, the HTTP client span
// of its POST as its child, the HTTP server span as that one's child, and
// the MCP server span a child of the MCP client span (carried in _meta),
// linked to the HTTP server span. For each HTTP transport and era.
func TestHTTPSpansNestUnderMCPSpans(t *testing.T) {
	for _, tt := range []struct {
		name      string
		sse       bool
		revisions []string
	}{
		{"streamable HTTP, 2026-07-28", false, nil},
		{"streamable HTTP, 2025-11-25", false, []string{"2025-11-25"}},
		{"HTTP+SSE, 2024-11-05", true, []string{"2024-11-05"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			prop := otelhttp.WithPropagators(propagation.TraceContext{})
			srv := testServer(tel.middleware(otelmcp.Options{}))
			var h interface {
				http.Handler
				Close()
			}
			if tt.sse {
				h = srv.SSEHandler(mcp.SSEOptions{})
			} else {
				h = srv.HTTPHandler(mcp.HTTPOptions{})
			}
			hs := httptest.NewServer(otelhttp.NewHandler(h, "mcp", otelhttp.WithTracerProvider(tel.tp), prop))
			t.Cleanup(func() { h.Close(); hs.Close() })
			hc := &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport, otelhttp.WithTracerProvider(tel.tp), prop)}
			var tr transport.Transport
			if tt.sse {
				tr = ssehttp.NewClient(hs.URL, ssehttp.ClientOptions{HTTPClient: hc})
			} else {
				tr = streamhttp.NewClient(hs.URL, streamhttp.ClientOptions{HTTPClient: hc})
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			cs, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{
				Revisions:  tt.revisions,
				Middleware: []session.Middleware{tel.middleware(otelmcp.Options{})},
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
				t.Fatal(err)
			}
			mcpServer := tel.one(t, "tools/call echo", trace.SpanKindServer)
			mcpClient := tel.one(t, "tools/call echo", trace.SpanKindClient)
			// The HTTP client span of the POST that carried the call: a
			// CLIENT span that is not an MCP one, whose child is the HTTP
			// server span the MCP server span links to.
			if len(mcpServer.Links()) != 1 {
				t.Fatalf("the MCP server span has links %v, want the HTTP server span", mcpServer.Links())
			}
			httpServerID := mcpServer.Links()[0].SpanContext.SpanID()
			httpServer := tel.byID(httpServerID)
			if httpServer == nil {
				t.Fatal("no HTTP server span with the linked id")
			}
			httpClient := tel.byID(httpServer.Parent().SpanID())
			switch {
			case httpClient == nil:
				t.Fatalf("the HTTP server span's parent %s is no span of the client", httpServer.Parent().SpanID())
			case httpClient.SpanKind() != trace.SpanKindClient:
				t.Fatalf("the HTTP server span's parent is %q, kind %v; want the HTTP client span", httpClient.Name(), httpClient.SpanKind())
			case httpClient.Parent().SpanID() != mcpClient.SpanContext().SpanID():
				t.Errorf("the HTTP client span's parent is %s, want the MCP client span %s", httpClient.Parent().SpanID(), mcpClient.SpanContext().SpanID())
			}
			if mcpServer.Parent().SpanID() != mcpClient.SpanContext().SpanID() {
				t.Errorf("the MCP server span's parent is %s, want the MCP client span %s", mcpServer.Parent().SpanID(), mcpClient.SpanContext().SpanID())
			}
			if got, want := httpClient.SpanContext().TraceID(), mcpClient.SpanContext().TraceID(); got != want {
				t.Errorf("the HTTP client span is in trace %s, want %s", got, want)
			}
		})
	}
}

// byID returns the ended span whose id is id, waiting a little for it (an
// HTTP span ends after the MCP span it carried: when the handler returns,
// or when the client has read the body), or nil.
func (tel *telemetry) byID(id trace.SpanID) sdktrace.ReadOnlySpan {
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, s := range tel.spans.Ended() {
			if s.SpanContext().SpanID() == id {
				return s
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}
