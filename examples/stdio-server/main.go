// Command stdio-server is an MCP server over stdio with one tool (echo), one
// prompt (greet) and one resource (mcpgen://readme). It speaks every revision
// linked into it: 2025-11-25, through its types, and 2025-06-18 and
// 2025-03-26 for older clients.
//
//	go run ./examples/stdio-server
package main

import (
	"context"
	"log"
	"os"
	"os/signal"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	// Older revisions, negotiated with clients that ask for them.
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250618"
)

func main() {
	log.SetFlags(0)
	log.SetOutput(os.Stderr) // stdout carries protocol messages only (T-IO3)
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpgen-example", Version: "1.0.0"})

	srv.AddTool(mcp.Tool{
		Name:        "echo",
		Description: ptr("Returns its text."),
		InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		if err := wire.DecodeValue(p.Arguments, &args); err != nil {
			return nil, err // reported to the client as a tool error
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: args.Text}}}}, nil
	})

	srv.AddPrompt(mcp.Prompt{
		Name:      "greet",
		Arguments: []mcp.PromptArgument{{Name: "name", Required: ptr(true)}},
	}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		text := "Say hello to " + p.Arguments["name"] + "."
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.ContentBlock{Value: &mcp.TextContent{Text: text}}}}}, nil
	})

	srv.AddResource(mcp.Resource{
		URI:      "mcpgen://readme",
		Name:     "readme",
		MIMEType: ptr("text/plain"),
	}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		text := "mcpgen generates typed Go for the Model Context Protocol."
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, MIMEType: ptr("text/plain"), Text: text}}}}, nil
	})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := mcp.Serve(ctx, stdio.New(os.Stdin, os.Stdout), srv, session.Options{}); err != nil {
		log.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }
