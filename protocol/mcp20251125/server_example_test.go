package mcp20251125_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

type addArgs struct {
	A int `json:"a" description:"the first addend"`
	B int `json:"b" description:"the second addend"`
}

type sum struct {
	Sum int `json:"sum"`
}

// newCalculator is the server of these examples: one typed tool.
func newCalculator() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "calculator", Version: "1.0.0"})
	err := mcp.AddTypedTool(srv, mcp.NewTool("add", "Adds two integers"),
		func(ctx context.Context, in addArgs) (sum, error) { return sum{in.A + in.B}, nil })
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// A server and a client in one process, joined by a pipe: NewServer and
// Serve on one end, Connect and a tool call on the other.
func ExampleNewServer() {
	srv := newCalculator()
	serverEnd, clientEnd := transport.Pipe()
	ctx := context.Background()
	go func() {
		if err := mcp.Serve(ctx, serverEnd, srv, session.Options{}); err != nil {
			log.Print(err)
		}
	}()

	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add", Arguments: []byte(`{"a":2,"b":3}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.StructuredContent))
	// Output:
	// {"sum":5}
}

// Serve over stdio: the process is the server, its client the process
// that started it.
func ExampleServe() {
	srv := newCalculator()
	if err := mcp.Serve(context.Background(), stdio.New(os.Stdin, os.Stdout), srv, session.Options{}); err != nil {
		log.Fatal(err)
	}
}

// Serve over Streamable HTTP, and call a tool with a client of the same
// package. A real server listens with http.ListenAndServe(addr, h).
func ExampleServe_http() {
	srv := newCalculator()
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, streamhttp.ServerOptions{})
	defer h.Close()
	ts := httptest.NewServer(h) // on 127.0.0.1, at a port chosen now
	defer ts.Close()

	ctx := context.Background()
	t := streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{})
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tool := range list.Tools {
		fmt.Println(tool.Name, string(tool.InputSchema))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "add", Arguments: []byte(`{"a":2}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(*res.IsError, res.Content[0].Value.(*mcp.TextContent).Text)
	// Output:
	// add {"additionalProperties":false,"properties":{"a":{"description":"the first addend","type":"integer"},"b":{"description":"the second addend","type":"integer"}},"required":["a","b"],"type":"object"}
	// true invalid arguments: /b: required
}

// A resource template: reads of the URIs it matches (RFC 6570) go to its
// handler, which finds the values of the template's variables with
// TemplateVars.
func ExampleStandardServer_AddResourceTemplate() {
	srv := mcp.NewServer(mcp.Implementation{Name: "files", Version: "1.0.0"})
	err := srv.AddResourceTemplate(mcp.ResourceTemplate{Name: "file", URITemplate: "file:///{+path}"},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return mcp.ResourceText(p.URI, "text/plain", "contents of "+mcp.TemplateVars(ctx).Get("path")), nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	serverEnd, clientEnd := transport.Pipe()
	ctx := context.Background()
	go mcp.Serve(ctx, serverEnd, srv, session.Options{})
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for _, uri := range []string{"file:///docs/a.txt", "http://x"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Contents[0].Value.(*mcp.TextResourceContents).Text)
	}
	// Output:
	// contents of docs/a.txt
	// jsonrpc error -32002: resource not found: http://x
}

// A typed prompt: its arguments are listed from the fields of a struct and
// checked before the handler runs.
func ExampleAddTypedPrompt() {
	type trip struct {
		City  string `json:"city" description:"Where to go"`
		Style string `json:"style" enum:"calm,busy" default:"calm"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "travel", Version: "1.0.0"})
	err := mcp.AddTypedPrompt(srv, mcp.NewPrompt("plan-trip", "Plan a trip"),
		func(ctx context.Context, in trip) (*mcp.GetPromptResult, error) {
			return mcp.PromptText("user", "Plan a "+in.Style+" trip to "+in.City+"."), nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	serverEnd, clientEnd := transport.Pipe()
	ctx := context.Background()
	go mcp.Serve(ctx, serverEnd, srv, session.Options{})
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	list, _ := cs.ListPrompts(ctx, nil)
	for _, a := range list.Prompts[0].Arguments {
		fmt.Println("argument", a.Name, "required:", *a.Required)
	}
	for _, args := range []map[string]string{{"city": "Oslo"}, {"city": "Oslo", "style": "wild"}, {}} {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: "plan-trip", Arguments: args})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Messages[0].Content.Value.(*mcp.TextContent).Text)
	}
	// Output:
	// argument city required: true
	// argument style required: false
	// Plan a calm trip to Oslo.
	// jsonrpc error -32602: prompts/get "plan-trip": invalid arguments: /style: value must be one of "calm", "busy"
	// jsonrpc error -32602: prompts/get "plan-trip": missing required argument "city"
}

// The server of a first program: its tools, then ServeStdio, the process
// being the server its client started. The same code compiles against the
// package of any revision, mcp20260728 included.
func ExampleStandardServer_ServeStdio() {
	srv := mcp.NewServer(mcp.Implementation{Name: "calculator", Version: "1.0.0"})
	mcp.MustAddTypedTool(srv, mcp.NewTool("add", "Adds two integers"),
		func(ctx context.Context, in addArgs) (sum, error) { return sum{in.A + in.B}, nil })
	if err := srv.ServeStdio(context.Background()); err != nil {
		log.Fatal(err)
	}
}
