package otelmcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// A client that cancels a slow tools/call (its context): the client span
// ends with error.type cancelled and status Error; so does the server's,
// once the cancellation reached it (notifications/cancelled on a legacy
// session, the request's end on a stateless one).
func TestCancellation(t *testing.T) {
	for _, via := range []string{viaStdio, viaStreamable, viaSSE} {
		for _, revs := range [][]string{{"2025-11-25"}, nil} {
			if via == viaSSE && revs == nil {
				continue // HTTP+SSE serves legacy sessions only
			}
			name := via + "/stateless"
			if revs != nil {
				name = via + "/" + revs[0]
			}
			t.Run(name, func(t *testing.T) {
				started := make(chan struct{}, 1)
				c := connect(t, setup{via: via, revisions: revs, server: func(mw session.Middleware) *mcp.StandardServer {
					srv := testServer(mw)
					srv.MustAddTool(mcp.NewTool("slow", "waits for its cancellation"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
						started <- struct{}{}
						select {
						case <-ctx.Done():
							return nil, ctx.Err()
						case <-time.After(waitLimit):
							return mcp.TextResult("not cancelled"), nil
						}
					})
					return srv
				}})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				errc := make(chan error, 1)
				go func() {
					_, err := c.cs.CallToolArgs(ctx, "slow", nil)
					errc <- err
				}()
				select {
				case <-started:
				case <-time.After(waitLimit):
					t.Fatal("the tool did not start")
				}
				cancel()
				select {
				case err := <-errc:
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
					}
				case <-time.After(waitLimit):
					t.Fatal("the cancelled call did not return")
				}
				p := c.pair(t, "tools/call slow", true)
				checkParent(t, "tools/call slow", p)
				for side, span := range map[string]sdktrace.ReadOnlySpan{"client": p.sender, "server": p.receiver} {
					a := strAttrs(attrs(span))
					if a["error.type"] != "cancelled" {
						t.Errorf("%s span error.type %q, want cancelled", side, a["error.type"])
					}
					if _, ok := a["rpc.response.status_code"]; ok {
						t.Errorf("%s span has rpc.response.status_code %q for a cancellation", side, a["rpc.response.status_code"])
					}
					if span.Status().Code != codes.Error {
						t.Errorf("%s span status %v, want Error", side, span.Status())
					}
				}
			})
		}
	}
}
