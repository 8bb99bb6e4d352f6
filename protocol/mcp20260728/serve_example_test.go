package mcp20260728_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// A first server: one import of mcpgen, a typed tool, and ServeStdio. It
// serves every revision mcpgen ships: stateless 2026-07-28 requests, and
// sessions that begin with initialize at 2025-11-25 and before.
func ExampleStandardServer_ServeStdio() {
	type Args struct {
		City string `json:"city" description:"City name"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	mcp.MustAddTypedTool(srv, mcp.NewTool("forecast", "Weather forecast"),
		func(ctx context.Context, a Args) (*mcp.CallToolResult, error) {
			return mcp.TextResult("Sunny in " + a.City + "."), nil
		})
	if err := srv.ServeStdio(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// postInitialize POSTs an initialize to url with the API key, if any, and
// prints the status and, for a refusal, the body.
func postInitialize(url, key string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		fmt.Println(res.StatusCode, string(b))
		return
	}
	fmt.Println(res.StatusCode)
}

// The server over Streamable HTTP, behind an API key: a request without
// the key is refused with 401 and a JSON-RPC error carrying its id. A real
// server listens with an http.Server whose timeouts are set (see docs/http.md).
func ExampleStandardServer_HTTPHandler() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	srv.MustAddTool(mcp.NewTool("forecast", "Weather forecast"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("sunny"), nil
	})
	h := srv.HTTPHandler(mcp.HTTPOptions{Gate: mcp.RequireHeader("X-API-Key", "s3cret")})
	defer h.Close()
	ts := httptest.NewServer(h) // on 127.0.0.1, at a port chosen now
	defer ts.Close()

	postInitialize(ts.URL, "")
	postInitialize(ts.URL, "s3cret")
	// Output:
	// 401 {"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"unauthorized: the X-API-Key header is missing"}}
	// 200
}

// Both HTTP transports, each on its path: Streamable HTTP, and HTTP+SSE
// for the clients that still speak it (a GET opens a session's stream,
// whose first event names the URL to POST to).
func ExampleStandardServer_SSEHandler() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(mcp.HTTPOptions{}))
	mux.Handle("/sse", srv.SSEHandler(mcp.SSEOptions{}))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	res, err := http.Get(ts.URL + "/sse")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	for range 2 {
		line, _ := r.ReadString('\n')
		fmt.Println(strings.TrimSpace(line[:min(len(line), len("data: /sse?sessionId="))]))
	}
	// Output:
	// event: endpoint
	// data: /sse?sessionId=
}

// exchange writes each message to a server over t and prints each answer.
func exchange(t transport.Transport, messages ...string) {
	ctx := context.Background()
	for _, m := range messages {
		t.Write(ctx, []byte(m))
		if strings.Contains(m, `"id"`) {
			answer, _ := t.Read(ctx)
			fmt.Println(string(answer))
		}
	}
}

// A receive hook, set once on the server, sees what the server receives
// on every transport (here a pipe), and refuses what it returns an error
// for.
func ExampleWithReceiveHook() {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"},
		mcp.WithReceiveHook(func(ctx context.Context, m *mcp.Message) error {
			if !m.Notification {
				fmt.Println("received", m.Method)
			}
			if m.Method == "tools/call" {
				return fmt.Errorf("no calls today")
			}
			return nil
		}))
	srv.MustAddTool(mcp.NewTool("t", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("t"), nil
	})
	a, b := transport.Pipe()
	go srv.Serve(context.Background(), a, session.Options{})
	defer b.Close()
	exchange(b,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}`)
	// Output:
	// received initialize
	// {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"},"protocolVersion":"2025-11-25"}}
	// received tools/call
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"no calls today"}}
}

// Middleware, set once on the server, wraps what it receives and sends on
// every transport; its signature needs no other import.
func ExampleWithMiddleware() {
	timing := func(next mcp.MessageHandler) mcp.MessageHandler {
		return func(ctx context.Context, m *mcp.Message) (mcp.RawJSON, error) {
			res, err := next(ctx, m)
			if !m.Outgoing && !m.Notification {
				fmt.Printf("%s: %d bytes, error %v\n", m.Method, len(res), err)
			}
			return res, err
		}
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, mcp.WithMiddleware(timing))
	srv.MustAddTool(mcp.NewTool("now", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("noon"), nil
	})
	a, b := transport.Pipe()
	go srv.Serve(context.Background(), a, session.Options{})
	defer b.Close()
	exchange(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"now","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	// Output:
	// tools/call: 141 bytes, error <nil>
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"noon"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}
}

// A resource handler says a URI names no resource with ResourceNotFound:
// the client gets the protocol's error, whose code depends on the
// revision of its request.
func ExampleResourceNotFound() {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1"})
	srv.MustAddResourceTemplate(mcp.ResourceTemplate{Name: "note", URITemplate: "notes://{id}"},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			if id := mcp.TemplateVars(ctx).Get("id"); id != "today" {
				return nil, mcp.ResourceNotFound(p.URI)
			}
			return mcp.ResourceText(p.URI, "text/plain", "sunny"), nil
		})
	_, err := srv.ReadResource(context.Background(), &mcp.ReadResourceRequestParams{URI: "notes://yesterday"})
	fmt.Println(err)
	// Output:
	// jsonrpc error -32602: resource not found: notes://yesterday
}

// A tool refuses arguments it cannot serve with InvalidParams, a protocol
// error; a plain error would be a tool result with isError, for the model.
func ExampleInvalidParams() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1"})
	type Args struct {
		City string `json:"city"`
	}
	mcp.MustAddTypedTool(srv, mcp.NewTool("forecast", ""), func(ctx context.Context, a Args) (*mcp.CallToolResult, error) {
		if a.City == "Atlantis" {
			return nil, mcp.InvalidParams("no forecast for %s", a.City)
		}
		if a.City == "Oslo" {
			return nil, fmt.Errorf("the forecast service is down")
		}
		return mcp.TextResult("sunny"), nil
	})
	for _, city := range []string{"Atlantis", "Oslo"} {
		res, err := srv.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "forecast", Arguments: []byte(`{"city":"` + city + `"}`)})
		if err != nil {
			fmt.Println("protocol error:", err)
			continue
		}
		fmt.Println("tool error:", res.Content[0].Value.(*mcp.TextContent).Text)
	}
	// Output:
	// protocol error: jsonrpc error -32602: no forecast for Atlantis
	// tool error: the forecast service is down
}

// The capabilities follow what was registered; WithCapabilities declares
// one by hand, here tools that will be registered once clients are
// connected and must be announced to them.
func ExampleWithCapabilities() {
	yes := true
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"},
		mcp.WithCapabilities(mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{ListChanged: &yes}}))
	srv.MustAddPrompt(mcp.NewPrompt("greet", ""), func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return mcp.PromptText(mcp.RoleUser, "Hello"), nil
	})
	d, _ := srv.Discover(context.Background(), &mcp.RequestParams{})
	caps, _ := d.Capabilities.AppendJSON(nil)
	fmt.Println(string(caps))
	// Output:
	// {"logging":{},"prompts":{"listChanged":true},"tools":{"listChanged":true}}
}

// WithRevisions limits the revisions served; one not linked into the
// binary is refused when the server is served.
func ExampleWithRevisions() {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, mcp.WithRevisions("2025-11-25", "2025-13-01"))
	a, _ := transport.Pipe()
	err := srv.Serve(context.Background(), a, session.Options{})
	fmt.Println(err != nil, strings.Contains(err.Error(), `unknown protocol revision "2025-13-01"`))
	// Output:
	// true true
}

// Session options set once on the server, here a lower bound on the
// requests handled at once; a transport's own options are merged in, and
// win where they set a field.
func ExampleWithSessionOptions() {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"},
		mcp.WithSessionOptions(session.Options{MaxInFlight: 8}))
	merged := session.MergeOptions(srv.Handler(), session.Options{DrainTimeout: time.Second})
	fmt.Println(merged.MaxInFlight, merged.DrainTimeout)
	// Output:
	// 8 1s
}
