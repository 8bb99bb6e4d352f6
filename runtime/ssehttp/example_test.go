package ssehttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/fleet"
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

// Two instances of one server on a fleet's store and relay (in memory
// here; the module github.com/mcpgen/mcpgen/redis has them on Redis):
// the client's stream is on the first, and each of its POSTs reaches the
// second, which carries it to the first.
func ExampleServerOptions_fleet() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	srv.MustAddTool(mcp.Tool{Name: "forecast", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "sunny"}}}}, nil
		})
	newHandler := func() session.Handler { return mcp.NewServerHandler(srv) }
	store, relay := fleet.NewMemorySessionStore(), fleet.NewMemoryRelay()
	a := ssehttp.NewServer(newHandler, ssehttp.ServerOptions{Fleet: fleet.NewNode(store, relay)})
	b := ssehttp.NewServer(newHandler, ssehttp.ServerOptions{Fleet: fleet.NewNode(store, relay)})
	// A load balancer, of a kind: GETs to a, POSTs to b.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			a.ServeHTTP(w, r)
		} else {
			b.ServeHTTP(w, r)
		}
	}))
	defer hs.Close()
	defer a.Close()
	defer b.Close()

	ctx := context.Background()
	cs, err := mcp.Connect(ctx, ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{}), &mcp.ClientOptions{Info: mcp.Implementation{Name: "me", Version: "1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "forecast"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].Value.(*mcp.TextContent).Text)
	// Output:
	// sunny
}
