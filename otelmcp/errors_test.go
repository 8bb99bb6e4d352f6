package otelmcp_test

import (
	"context"
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Errors over the real transports, in both eras: a tool's own error is
// tool_error without rpc.response.status_code; a JSON-RPC error is its
// code in both; both set status Error, on both sides.
func TestErrorsOverTransports(t *testing.T) {
	for _, tt := range []struct {
		via  string
		revs []string
	}{
		{viaStdio, []string{"2025-11-25"}},
		{viaStdio, nil},
		{viaStreamable, []string{"2025-11-25"}},
		{viaStreamable, nil},
		{viaSSE, []string{"2025-11-25"}},
	} {
		name := tt.via + "/stateless"
		if tt.revs != nil {
			name = tt.via + "/" + tt.revs[0]
		}
		t.Run(name, func(t *testing.T) {
			c := connect(t, setup{via: tt.via, revisions: tt.revs})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if _, err := c.cs.CallToolArgs(ctx, "broken", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := c.cs.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "nowhere"}); err == nil {
				t.Fatal("prompts/get of no prompt succeeded")
			}
			for _, e := range []struct {
				span, errorType, status string
			}{
				{"tools/call broken", "tool_error", ""},
				{"prompts/get nowhere", "-32602", "-32602"},
			} {
				p := c.pair(t, e.span, true)
				checkParent(t, e.span, p)
				for side, span := range map[string]sdktrace.ReadOnlySpan{"client": p.sender, "server": p.receiver} {
					a := strAttrs(attrs(span))
					if a["error.type"] != e.errorType {
						t.Errorf("%s: %s span error.type %q, want %q", e.span, side, a["error.type"], e.errorType)
					}
					if got, ok := a["rpc.response.status_code"]; got != e.status || ok != (e.status != "") {
						t.Errorf("%s: %s span rpc.response.status_code %q (%v), want %q", e.span, side, got, ok, e.status)
					}
					if span.Status().Code != codes.Error {
						t.Errorf("%s: %s span status %v, want Error", e.span, side, span.Status())
					}
				}
			}
		})
	}
}
