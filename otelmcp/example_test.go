package otelmcp_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// One Middleware on the server and one on the client: a tool call is a
// CLIENT span on the client and a SERVER span on the server, in one trace.
func ExampleMiddleware() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	tel := otelmcp.Middleware(otelmcp.Options{TracerProvider: tp})

	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, mcp.WithMiddleware(tel))
	srv.MustAddTool(mcp.NewTool("forecast", "Weather forecast"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("Sunny."), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverEnd, clientEnd := transport.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, serverEnd, session.Options{}) }()

	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Middleware: []mcp.Middleware{tel}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := cs.CallToolArgs(ctx, "forecast", nil); err != nil {
		fmt.Println(err)
		return
	}
	cs.Close()
	cancel()
	<-served

	var names []string
	var traces []string
	for _, s := range spans.Ended() {
		names = append(names, fmt.Sprintf("%s (%s)", s.Name(), s.SpanKind()))
		if s.Name() == "tools/call forecast" {
			traces = append(traces, s.SpanContext().TraceID().String())
		}
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		fmt.Println(n)
	}
	fmt.Println("one trace:", len(traces) == 2 && traces[0] == traces[1])
	// Output:
	// server/discover (client)
	// server/discover (server)
	// tools/call forecast (client)
	// tools/call forecast (server)
	// one trace: true
}
