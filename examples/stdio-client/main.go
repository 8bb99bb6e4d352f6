// Command stdio-client starts an MCP server as a subprocess and uses its
// echo and hello tools, greet prompt and mcpgen://readme resource, as the
// example server offers them. It is a client of both eras: it tries
// 2026-07-28 (stateless) first and falls back to initialize when the server
// does not speak it, or when --revision names an older revision. hello asks
// for the user's name; the client answers with --name, in either era.
//
//	go run ./examples/stdio-client [--revision R] [--name N] -- go run ./examples/stdio-server
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"

	// The revisions it falls back to.
	_ "github.com/mcpgen/mcpgen/protocol/mcp20241105"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20251125"
)

func main() {
	log.SetFlags(0)
	revision := flag.String("revision", "", "protocol revision to speak (default: 2026-07-28, or the newest the server has)")
	name := flag.String("name", "Ada", "the name to give when the server asks for it")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: stdio-client [--revision R] [--name N] -- SERVER-COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, *revision, *name, flag.Args()); err != nil {
		log.Fatal(err)
	}
}

// namer answers the server's elicitations with a name.
type namer struct {
	mcp.UnimplementedClient
	name string
}

func (n namer) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: map[string]mcp.ElicitResultContentValue{
		"name": {Value: mcp.ElicitResultContentValueString(n.name)},
	}}, nil
}

func run(ctx context.Context, revision, name string, command []string) error {
	// A server that stops reading its standard input makes a write fail
	// after 30 s, which ends the session, rather than block it forever.
	proc, err := stdio.Command(ctx, exec.Command(command[0], command[1:]...), stdio.WithWriteTimeout(30*time.Second))
	if err != nil {
		return err
	}
	opts := session.Options{}
	if revision != "" {
		opts.Revisions = []string{revision}
	}
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ClientCapabilitiesElicitation{}}
	c, err := mcp.Connect(ctx, proc, mcp.Implementation{Name: "mcpgen-example-client", Version: "1.0.0"}, caps, namer{name: name}, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Println("revision:", c.Revision().Name, "("+c.Era().String()+" era)")

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
	hello, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "hello"})
	if err != nil {
		return err
	}
	for _, b := range hello.Content {
		if t, ok := b.Value.(*mcp.TextContent); ok {
			fmt.Println("hello:", t.Text)
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
