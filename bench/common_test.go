package bench

import (
	"context"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol revision every client asks for and every server speaks.
const protocolVersion = "2025-06-18"

// The message bytes the codec benchmarks decode (the same as
// protocol/bench_test.go) and that the encoders produce.
var (
	toolsCallRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world","count":3},"_meta":{"progressToken":"p-1"}}}`)
	callToolResult   = []byte(`{"content":[{"type":"text","text":"hello, world"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///tmp/a.txt","mimeType":"text/plain","text":"contents"}}],"isError":false}`)
)

// The echo tool: it takes {"text": string} and answers one text block with
// that text. Every round trip calls it with echoText.
const (
	echoText   = "hello, world"
	echoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`
)

// newMcpgenServer returns mcpgen's StandardServer with the echo tool and
// the middleware mw (none but in the Tracing rows).
func newMcpgenServer(mw ...session.Middleware) *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "bench", Version: "1.0.0"}, mcp.WithMiddleware(mw...))
	srv.MustAddTool(mcp.Tool{Name: "echo", InputSchema: []byte(echoSchema)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			text, _ := wire.MemberString(p.Arguments, "text")
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: text}}}}, nil
		})
	return srv
}

type echoIn struct {
	Text string `json:"text"`
}

// newSDKServer returns go-sdk's server with the echo tool, registered with
// the typed mcp.AddTool (its normal API: it infers and applies the schema).
func newSDKServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	return srv
}

// newMcpgoServer returns mcp-go's server with the echo tool.
func newMcpgoServer() *mcpgoserver.MCPServer {
	srv := mcpgoserver.NewMCPServer("bench", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	srv.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(text), nil
		})
	return srv
}

// caller makes one echo call and checks its answer.
type caller func(ctx context.Context) error

// benchCalls runs b.N calls of call: sequentially when workers is 1, else
// spread over that many goroutines (the ns/op is then wall time per call, so
// 1e9/ns/op is the aggregate calls/s).
func benchCalls(b *testing.B, workers int, call caller) {
	b.Helper()
	ctx := context.Background()
	// Warm up (first-call lazy work, connection setup).
	for range 10 {
		if err := call(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if workers <= 1 {
		for range b.N {
			if err := call(ctx); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	runWorkers(b, workers, func() error { return call(ctx) })
}
