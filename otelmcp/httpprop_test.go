package otelmcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The trace context a peer sends: a hand-written stateless tools/call
// POSTed to a server over Streamable HTTP, its params._meta carrying a
// fixed traceparent, tracestate and baggage. The server span's parent is
// exactly that span, remote; with otelhttp around the handler, the HTTP
// request's span is linked, and without a carried context it is the
// parent.
func TestPeerContextOverHTTP(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
		carried = `"traceparent":"00-` + traceID + `-` + spanID + `-01","tracestate":"rojo=00f067aa0ba902b7","baggage":"user=alice",`
	)
	for _, tt := range []struct {
		name     string
		otelhttp bool
		meta     string // the trace members of _meta
	}{
		{"plain, carried", false, carried},
		{"otelhttp, carried", true, carried},
		{"otelhttp, none carried", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			srv := testServer(tel.middleware(otelmcp.Options{}))
			gotUser := make(chan string, 1)
			srv.MustAddTool(mcp.NewTool("who", "says who"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				gotUser <- baggage.FromContext(ctx).Member("user").Value()
				return mcp.TextResult("ok"), nil
			})
			h := srv.HTTPHandler(mcp.HTTPOptions{})
			var hh http.Handler = h
			if tt.otelhttp {
				hh = otelhttp.NewHandler(h, "mcp", otelhttp.WithTracerProvider(tel.tp))
			}
			hs := httptest.NewServer(hh)
			t.Cleanup(func() { h.Close(); hs.Close() })

			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"who","arguments":{},"_meta":{` + tt.meta +
				`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "who")
			res, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"text":"ok"`) {
				t.Fatalf("status %d: %s", res.StatusCode, b)
			}
			s := tel.one(t, "tools/call who", trace.SpanKindServer)
			a := strAttrs(attrs(s))
			if a["jsonrpc.request.id"] != "7" || a["mcp.protocol.version"] != "2026-07-28" || a["client.address"] != "127.0.0.1" || a["network.transport"] != "tcp" {
				t.Errorf("attributes %v", a)
			}
			var httpSpan sdktrace.ReadOnlySpan
			if tt.otelhttp {
				for _, sp := range tel.spans.Ended() {
					if sp.SpanKind() == trace.SpanKindServer && sp.Name() != "tools/call who" {
						httpSpan = sp
					}
				}
				if httpSpan == nil {
					t.Fatal("no HTTP server span")
				}
			}
			par := s.Parent()
			user := <-gotUser
			if tt.meta == "" {
				if par.SpanID() != httpSpan.SpanContext().SpanID() || par.TraceID() != httpSpan.SpanContext().TraceID() {
					t.Errorf("parent %s/%s, want the HTTP span %s/%s", par.TraceID(), par.SpanID(), httpSpan.SpanContext().TraceID(), httpSpan.SpanContext().SpanID())
				}
				if len(s.Links()) != 0 {
					t.Errorf("links %v, want none: the HTTP span is the parent", s.Links())
				}
				return
			}
			if par.TraceID().String() != traceID || par.SpanID().String() != spanID || !par.IsRemote() {
				t.Errorf("parent %s/%s remote %v, want the carried %s/%s, remote", par.TraceID(), par.SpanID(), par.IsRemote(), traceID, spanID)
			}
			if par.TraceState().String() != "rojo=00f067aa0ba902b7" {
				t.Errorf("parent's tracestate %q", par.TraceState())
			}
			if user != "alice" {
				t.Errorf("baggage user = %q in the handler, want alice", user)
			}
			switch {
			case !tt.otelhttp && len(s.Links()) != 0:
				t.Errorf("links %v, want none (no HTTP span)", s.Links())
			case tt.otelhttp && (len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != httpSpan.SpanContext().SpanID()):
				t.Errorf("links %v, want the HTTP span %s", s.Links(), httpSpan.SpanContext().SpanID())
			}
		})
	}
}
