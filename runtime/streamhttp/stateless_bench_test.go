package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// BenchmarkStatelessPOST measures the server's side of one 2026-07-28
// tools/call (an echo tool; the request as bench/'s Modern rows send it),
// served by calling ServeHTTP: no network.
func BenchmarkStatelessPOST(b *testing.B) {
	srv := m26.NewServer(m26.Implementation{Name: "bench", Version: "1.0.0"})
	srv.MustAddTool(m26.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			text, _ := wire.MemberString(p.Arguments, "text")
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: text}}}}, nil
		})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	defer h.Close()
	const body = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	const want = `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"hello, world"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0.0"}}}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "echo")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Body.String() != want {
			b.Fatalf("answer %d %s, want 200 %s", w.Code, w.Body, want)
		}
	}
}
