// Command stdio-server is an MCP server with one tool (echo), one prompt
// (greet) and one resource (mcpgen://readme). It speaks every revision linked
// into it: 2025-11-25, through its types, and 2025-06-18 and 2025-03-26 for
// older clients. It serves stdio, or Streamable HTTP with --http (bound to
// loopback unless told otherwise).
//
// SIGINT and SIGTERM shut it down gracefully: requests already received are
// answered (within the session's drain limit, session.DefaultDrainTimeout)
// before it exits with status 0; so does the end of standard input in stdio
// mode.
//
//	go run ./examples/stdio-server
//	go run ./examples/stdio-server --http 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	// Older revisions, negotiated with clients that ask for them.
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250618"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on `ADDR` (such as 127.0.0.1:8080) at /mcp instead of stdio")
	flag.Parse()
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

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr != "" {
		if err := serveHTTP(ctx, *httpAddr, srv); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := mcp.Serve(ctx, stdio.New(os.Stdin, os.Stdout), srv, session.Options{}); err != nil {
		log.Fatal(err)
	}
}

// shutdownTimeout bounds how long serveHTTP waits, once ctx ends, for the
// connections to finish their requests before it closes them.
const shutdownTimeout = 10 * time.Second

// serveHTTP serves srv over Streamable HTTP until ctx ends, then shuts down
// gracefully: it stops accepting connections, ends every session (each
// answers the requests it already received, within its drain limit, which
// also ends its streams), and waits for the connections to finish, for up
// to shutdownTimeout. The handler refuses foreign Host and Origin headers
// (DNS rebinding); the server bounds reading headers and bodies, but not
// writing, since SSE streams are long.
func serveHTTP(ctx context.Context, addr string, srv *mcp.StandardServer) error {
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, streamhttp.ServerOptions{})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("serving MCP on http://%s/mcp", ln.Addr())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	hs.RegisterOnShutdown(h.Close) // SSE streams end with their sessions
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err // Serve failed: it returns ErrServerClosed only after Shutdown
	case <-ctx.Done():
	}
	log.Printf("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Printf("shutdown: %v; closing the remaining connections", err)
		hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
