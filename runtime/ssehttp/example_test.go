package ssehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// One server offers both HTTP transports, one line each, and a client
// given either URL finds out which it speaks.
func ExampleNewAutoClient() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	srv.MustAddTool(mcp.Tool{Name: "forecast", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "sunny"}}}}, nil
		})
	newHandler := func() session.Handler { return mcp.NewServerHandler(srv) }
	modern := streamhttp.NewServer(newHandler, streamhttp.ServerOptions{})
	old := ssehttp.NewServer(newHandler, ssehttp.ServerOptions{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", modern)
	mux.Handle("/sse", old)
	hs := httptest.NewServer(mux)
	defer hs.Close()
	defer old.Close()
	defer modern.Close()

	ctx := context.Background()
	for _, path := range []string{"/mcp", "/sse"} {
		a := ssehttp.NewAutoClient(hs.URL+path, ssehttp.AutoOptions{})
		cs, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "me", Version: "1"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "forecast"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %T says %s\n", path, a.Transport(), res.Content[0].Value.(*mcp.TextContent).Text)
		cs.Close()
	}
	// Output:
	// /mcp: *streamhttp.Client says sunny
	// /sse: *ssehttp.Client says sunny
}
