package session_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// A middleware that refuses one tool and logs every message, in both
// directions, with its era and revision.
func ExampleMiddleware() {
	logged := func(next session.HandlerFunc) session.HandlerFunc {
		return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
			if !r.Outgoing && r.Method == "tools/call" && string(r.Params) == `{"name":"rm"}` {
				return nil, &jsonrpc.Error{Code: -32001, Message: "rm is not allowed"}
			}
			res, err := next(ctx, r)
			dir := "<-"
			if r.Outgoing {
				dir = "->"
			}
			rev := "-" // an initialize has none yet
			if r.Revision != nil {
				rev = r.Revision.Name
			}
			fmt.Println(dir, r.Method, r.Era, rev, err)
			return res, err
		}
	}
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "rm", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			return &m26.CallToolResult{}, nil
		})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{Middleware: []session.Middleware{logged}})
	defer s.Close()
	b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	b.Read(context.Background())
	b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm"}}`))
	answer, _ := b.Read(context.Background())
	fmt.Println(string(answer))
	// Output:
	// <- initialize legacy - <nil>
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"rm is not allowed"}}
}

// A tool handler that logs to the client through slog: each record is a
// notifications/message, sent if the client asked for its level.
func ExampleLogHandler() {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "build", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			log := slog.New(session.LogHandler(ctx).WithLogger("build"))
			log.Info("compiled", "files", 3, "took", 2*time.Second)
			log.Debug("not asked for")
			return &m26.CallToolResult{}, nil
		})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	defer s.Close()
	b.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`))
	note, _ := b.Read(context.Background())
	fmt.Println(string(note))
	// Output:
	// {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"build","data":{"msg":"compiled","files":3,"took":"2s"}}}
}

// A handler reads the HTTP request that carried its request, when it came
// over Streamable HTTP.
func ExampleHTTPRequestOf() {
	handler := func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		caller := "unknown"
		if hr, ok := session.HTTPRequestOf(ctx); ok {
			caller = hr.Header.Get("X-Caller") + " at " + hr.RemoteAddr
		}
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: caller}}}}, nil
	}
	_ = handler
}
