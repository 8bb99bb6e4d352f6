package ssehttp_test

import (
	"context"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// init gives the package's own tests, which cannot import a revision
// package, the MCP server they serve.
func init() {
	srv := mcp.NewServer(mcp.Implementation{Name: "fuzz", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(p.Arguments)}}}}, nil
		})
	ssehttp.SetEchoServer(func() session.Handler { return mcp.NewServerHandler(srv) })
}
