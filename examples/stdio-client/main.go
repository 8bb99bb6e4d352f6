// Command stdio-client starts an MCP server as a subprocess and uses its
// echo tool, greet prompt and mcpgen://readme resource, as the example
// server offers them.
//
//	go run ./examples/stdio-client [--revision R] -- go run ./examples/stdio-server
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	_ "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250618"
)

func main() {
	log.SetFlags(0)
	revision := flag.String("revision", "", "protocol revision to speak (default: the newest linked in)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: stdio-client [--revision R] -- SERVER-COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, *revision, flag.Args()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, revision string, command []string) error {
	proc, err := stdio.Command(ctx, exec.Command(command[0], command[1:]...))
	if err != nil {
		return err
	}
	opts := session.Options{}
	if revision != "" {
		opts.Revisions = []string{revision}
	}
	c, err := mcp.Connect(ctx, proc, mcp.Implementation{Name: "mcpgen-example-client", Version: "1.0.0"}, mcp.ClientCapabilities{}, nil, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println("revision:", c.Revision().Name)

	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range tools.Tools {
		fmt.Println("tool:", t.Name)
	}
	args, err := wire.EncodeValue(map[string]string{"text": "hello"})
	if err != nil {
		return err
	}
	res, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: args})
	if err != nil {
		return err
	}
	for _, b := range res.Content {
		if t, ok := b.Value.(*mcp.TextContent); ok {
			fmt.Println("echo:", t.Text)
		}
	}
	prompt, err := c.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		return err
	}
	for _, m := range prompt.Messages {
		if t, ok := m.Content.Value.(*mcp.TextContent); ok {
			fmt.Println("prompt:", t.Text)
		}
	}
	read, err := c.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "mcpgen://readme"})
	if err != nil {
		return err
	}
	for _, item := range read.Contents {
		if t, ok := item.Value.(*mcp.TextResourceContents); ok {
			fmt.Println("resource:", t.Text)
		}
	}
	return nil
}
