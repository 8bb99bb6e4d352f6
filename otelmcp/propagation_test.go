package otelmcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
)

// rawParams are params given as JSON text.
type rawParams string

func (p rawParams) AppendJSON(b []byte) ([]byte, error) { return append(b, p...), nil }

// The context a peer puts in params._meta: the server span's parent, and
// its baggage in the handler's context; or, for a public endpoint, only a
// link, in a trace of the server's own.
func TestPeerContext(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
		params  = `{"name":"who","_meta":{"traceparent":"00-` + traceID + `-` + spanID + `-01","tracestate":"rojo=00f067aa0ba902b7","baggage":"user=alice"}}`
	)
	for _, tt := range []struct {
		name   string
		public bool
	}{{"trusted", false}, {"public endpoint", true}} {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			srv := testServer(tel.middleware(otelmcp.Options{PublicEndpoint: tt.public}))
			gotUser := make(chan string, 1)
			srv.MustAddTool(mcp.NewTool("who", "says who"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				gotUser <- baggage.FromContext(ctx).Member("user").Value()
				return mcp.TextResult("ok"), nil
			})
			cs := pipePair(t, srv, nil) // a client without the middleware: the context is the peer's own
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := cs.Session.Call(ctx, "tools/call", rawParams(params)); err != nil {
				t.Fatal(err)
			}
			s := tel.one(t, "tools/call who", trace.SpanKindServer)
			carried := s.Parent()
			user := <-gotUser
			if !tt.public {
				if carried.TraceID().String() != traceID || carried.SpanID().String() != spanID || !carried.IsRemote() {
					t.Errorf("parent %s/%s remote %v, want the carried %s/%s", carried.TraceID(), carried.SpanID(), carried.IsRemote(), traceID, spanID)
				}
				if s.Parent().TraceState().String() != "rojo=00f067aa0ba902b7" {
					t.Errorf("parent's tracestate %q", s.Parent().TraceState())
				}
				if user != "alice" {
					t.Errorf("baggage user = %q in the handler, want alice", user)
				}
				if len(s.Links()) != 0 {
					t.Errorf("links %v, want none (no HTTP span)", s.Links())
				}
				return
			}
			if s.Parent().IsValid() || s.SpanContext().TraceID().String() == traceID {
				t.Errorf("a public endpoint's span has parent %v in trace %s, want a root of its own", s.Parent(), s.SpanContext().TraceID())
			}
			if len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID().String() != spanID {
				t.Errorf("links %v, want the carried context", s.Links())
			}
			if user != "" {
				t.Errorf("a public endpoint took the peer's baggage: user = %q", user)
			}
		})
	}
}
