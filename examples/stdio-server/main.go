// Command stdio-server is an MCP server with two tools (echo, and hello,
// which asks the user's name), one prompt (greet) and one resource
// (mcpgen://readme). It is written once against the newest revision,
// 2026-07-28, and serves both eras with the same handlers: stateless
// requests that carry their revision in _meta, and sessions that begin with
// initialize at 2025-11-25 and before, the revisions protocol/mcp20260728
// links. hello asks through mcp.Elicit: a stateless request gets an
// InputRequiredResult and its retry the answer; a legacy session gets a
// real elicitation/create request. It serves stdio, or HTTP with --http
// (bound to loopback unless told otherwise): Streamable HTTP at /mcp, and
// the HTTP+SSE transport of 2024-11-05 at /sse for older clients (GET
// /sse opens a session's stream, whose endpoint event names the URL to
// POST its messages to).
//
// SIGINT and SIGTERM shut it down gracefully: requests already received are
// answered (within the session's drain limit, session.DefaultDrainTimeout)
// before it exits with status 0; so does the end of standard input in stdio
// mode.
//
// In stdio mode it does not wait forever for a client that stops reading
// its standard output: a write that has not gone through within
// --write-timeout (30 s) fails, which ends the session, and the server
// exits with status 1 saying the client is not reading. Once standard
// input has ended, or on SIGTERM, it also gives up the answers still to be
// written when no write has gone through for --stall-timeout (30 s,
// session.Options.StallTimeout), and exits with status 1 saying the client
// stopped reading. (Without the write timeout the session still reads no
// further while MaxInFlight answers wait to be written, so only a client
// that keeps its input open and never reads would keep it waiting.)
// Choose both longer than a client may legitimately pause reading.
//
// A client that cannot answer (it did not declare elicitation, or speaks
// 2025-03-26, which has none) is greeted without a name.
//
//	go run ./examples/stdio-server
//	go run ./examples/stdio-server --http 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/spf13/pflag"
)

// options are what the flags say.
type options struct {
	http         string
	writeTimeout time.Duration
	stallTimeout time.Duration
}

const usage = `usage: stdio-server [flags]

An example MCP server: tools echo and hello, prompt greet, resource
mcpgen://readme. It serves stdio, or HTTP with --http.

Flags:
`

// parseFlags reads the command line. It returns done when it printed the
// help, and an error for a usage error.
func parseFlags(args []string, stdout io.Writer) (o options, done bool, err error) {
	fs := pflag.NewFlagSet("stdio-server", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.http, "http", "", "serve HTTP on `ADDR` (such as 127.0.0.1:8080) instead of stdio: Streamable HTTP at /mcp, HTTP+SSE (2024-11-05) at /sse")
	fs.DurationVar(&o.writeTimeout, "write-timeout", 30*time.Second, "in stdio mode, give up on a client that has not read a message within `D` (0: wait as long as it takes)")
	fs.DurationVar(&o.stallTimeout, "stall-timeout", session.DefaultStallTimeout, "in stdio mode, once standard input has ended or on SIGTERM, give up on a client that has read nothing for `D` (negative: wait as long as it takes)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return o, false, err
	}
	if *help {
		fmt.Fprint(stdout, usage+fs.FlagUsages())
		return o, true, nil
	}
	if fs.NArg() > 0 {
		return o, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, false, nil
}

func main() {
	log.SetFlags(0)
	log.SetOutput(os.Stderr) // stdout carries protocol messages only
	o, done, err := parseFlags(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stdio-server: %v; see --help\n", err)
		os.Exit(2)
	}
	if done {
		return
	}
	srv := newServer()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.http != "" {
		err = serveHTTP(ctx, o.http, srv)
	} else {
		err = srv.Serve(ctx, stdio.New(os.Stdin, os.Stdout, stdio.WithWriteTimeout(o.writeTimeout)), session.Options{StallTimeout: o.stallTimeout})
	}
	if err != nil {
		log.Fatal(err)
	}
}

// newServer returns the server with its tools, prompt and resource. They
// are registered at start-up, from code: the Must forms panic on a mistake
// in them, which a run of the program shows at once.
func newServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpgen-example", Version: "1.0.0"})

	echo := mcp.NewTool("echo", "Returns its text.")
	echo.InputSchema = []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	srv.MustAddTool(echo, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var args struct {
			Text string `json:"text"`
		}
		if err := wire.DecodeValue(p.Arguments, &args); err != nil {
			return nil, err // reported to the client as a tool error
		}
		return mcp.TextResult(args.Text), nil
	})

	srv.MustAddTool(mcp.NewTool("hello", "Asks the user's name, then says hello."), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		// Ask only a client that can answer: one that declared elicitation
		// (2025-03-26 has none, so no client of it declares it).
		if !mcp.ClientCan(ctx, "elicitation") {
			return mcp.TextResult("Hello, whoever you are."), nil
		}
		res, err := mcp.Elicit(ctx, "name", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
			Message: "What is your name?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
				Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}},
				Required:   []string{"name"},
			},
		}})
		if err != nil {
			return nil, err // on a stateless request: "input required", answered for us
		}
		name, _ := res.Content["name"].Value.(mcp.ElicitResultContentValueString)
		if res.Action != mcp.ElicitResultActionAccept || name == "" {
			return mcp.TextResult("Hello, whoever you are."), nil
		}
		return mcp.TextResult("Hello, " + string(name) + "!"), nil
	})

	srv.MustAddPrompt(mcp.NewPrompt("greet", "", mcp.RequiredArgument("name", "")), func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return mcp.PromptText(mcp.RoleUser, "Say hello to "+p.Arguments["name"]+"."), nil
	})

	srv.MustAddResource(mcp.NewResource("mcpgen://readme", "readme", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return mcp.ResourceText(p.URI, "text/plain", "mcpgen generates typed Go for the Model Context Protocol."), nil
	})
	return srv
}

// shutdownTimeout bounds how long serveHTTP waits, once ctx ends, for the
// connections to finish their requests before it closes them.
const shutdownTimeout = 10 * time.Second

// serveHTTP serves srv over Streamable HTTP at /mcp and over HTTP+SSE at
// /sse until ctx ends, then shuts down gracefully: it stops accepting
// connections, ends every session (each answers the requests it already
// received, within its drain limit, which also ends its streams), and
// waits for the connections to finish, for up to shutdownTimeout. The
// handlers refuse foreign Host and Origin headers (DNS rebinding); the
// server bounds reading headers and bodies (an HTTP+SSE stream is spared
// the ReadTimeout), but not writing, since SSE streams are long (the
// handlers bound each write themselves).
func serveHTTP(ctx context.Context, addr string, srv *mcp.StandardServer) error {
	h := srv.HTTPHandler(mcp.HTTPOptions{})
	defer h.Close()
	old := srv.SSEHandler(mcp.SSEOptions{})
	defer old.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", old) // GET opens a stream; its POSTs come back here
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("serving MCP on http://%s/mcp (Streamable HTTP) and http://%s/sse (HTTP+SSE)", ln.Addr(), ln.Addr())
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No deadline for a whole response: it would cut the SSE streams,
		// and the answers of calls that run longer than it. The handlers
		// bound each write themselves (their ServerOptions.WriteTimeout).
		WriteTimeout:   0,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
	}
	hs.RegisterOnShutdown(h.Close)   // SSE streams end with their sessions
	hs.RegisterOnShutdown(old.Close) // as do HTTP+SSE sessions with their streams
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
