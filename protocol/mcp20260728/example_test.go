package mcp20260728_test

import (
	"context"
	"errors"
	"fmt"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// asker is a client that answers elicitations with a name. Having Elicit
// makes it an Elicitor: Connect declares the elicitation capability for it.
type asker struct{ mcp.UnimplementedClient }

func (asker) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"name": "Ada"})
}

// A server whose tool asks the client for input, and a client that answers:
// the stateless era's multi round-trip request (InputRequiredResult, then
// the retry with the answer), with no code for it on either side.
func ExampleConnect() {
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"})
	srv.MustAddTool(mcp.Tool{Name: "greet", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := mcp.Elicit(ctx, "name", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
				Message: "What is your name?",
				RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
					Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}}},
			}})
			if err != nil {
				return nil, err
			}
			name, _ := res.Content["name"].Value.(mcp.ElicitResultContentValueString)
			return mcp.TextResult("Hello, " + string(name)), nil
		})
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()

	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Handler: asker{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	fmt.Println(cs.Era(), cs.Revision().Name)
	res, err := cs.CallToolArgs(ctx, "greet", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// modern 2026-07-28
	// Hello, Ada
}

// A typed call: the arguments from a Go value, the structured result
// decoded into another, checked first against the outputSchema the server
// listed.
func ExampleCallTypedTool() {
	type Args struct {
		City string `json:"city"`
		Days int    `json:"days,omitzero" default:"3"` // omitzero: unset, the tool's default applies
	}
	type Forecast struct {
		Summary string `json:"summary"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	mcp.AddTypedTool(srv, mcp.NewTool("forecast", "Weather forecast"), func(ctx context.Context, a Args) (Forecast, error) {
		return Forecast{Summary: fmt.Sprintf("Sunny in %s for %d days.", a.City, a.Days)}, nil
	})
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()

	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	out, _, err := mcp.CallTypedTool[Forecast](ctx, cs, "forecast", Args{City: "Oslo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Summary)
	_, _, err = mcp.CallTypedTool[Forecast](ctx, cs, "forecast", map[string]any{"city": "Oslo", "days": "two"})
	fmt.Println(err)
	// Output:
	// Sunny in Oslo for 3 days.
	// tool "forecast" failed: invalid arguments: /days: expected integer, but got string
}

// The answers an Elicit method gives: accepted with values (of the kinds
// the revision has), declined, or dismissed.
func ExampleAccept() {
	for _, answer := range []func() (*mcp.ElicitResult, error){
		func() (*mcp.ElicitResult, error) {
			return mcp.Accept(map[string]any{"name": "Ada", "age": 36, "languages": []string{"en", "fr"}, "subscribe": true})
		},
		func() (*mcp.ElicitResult, error) { return mcp.Accept(map[string]any{"height": 1.75}) },
		mcp.Decline,
		mcp.Cancel,
	} {
		r, err := answer()
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, _ := r.AppendJSON(nil)
		fmt.Println(string(b))
	}
	// Output:
	// {"action":"accept","content":{"age":36,"languages":["en","fr"],"name":"Ada","subscribe":true}}
	// answer: field "height": 1.75 has a fraction, and revision 2026-07-28 answers with integers only
	// {"action":"decline"}
	// {"action":"cancel"}
}

// A first client, with the revision package as its only mcpgen import: it
// starts a server process, or reaches one over HTTP (either transport), and
// uses a tool.
func ExampleCommand() {
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, mcp.Command("./weather"), nil) // or mcp.HTTP("http://127.0.0.1:8080/mcp", nil)
	if err != nil {
		fmt.Println(err) // the error names the server and, if it exited, its status and the end of its stderr
		return
	}
	defer cs.Close()
	res, err := cs.CallToolArgs(ctx, "forecast", map[string]any{"city": "Oslo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
}

// A typed tool: its schemas come from the Go types, its arguments are
// checked (and defaulted) before the function runs, and its result is sent
// as structuredContent plus the same JSON as text.
func ExampleAddTypedTool() {
	type Args struct {
		City string `json:"city"`
		Days int    `json:"days" minimum:"1" maximum:"7" default:"3"`
	}
	type Forecast struct {
		Args
		Summary string `json:"summary"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	err := mcp.AddTypedTool(srv, mcp.NewTool("forecast", "Weather forecast for a city"),
		func(ctx context.Context, a Args) (Forecast, error) {
			return Forecast{Args: a, Summary: "Sunny in " + a.City + "."}, nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for _, args := range []string{`{"city":"Oslo"}`, `{"city":"Oslo","days":99}`} {
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "forecast", Arguments: []byte(args)})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.IsError != nil && *res.IsError, res.Content[0].Value.(*mcp.TextContent).Text)
	}
	// Output:
	// false {"city":"Oslo","days":3,"summary":"Sunny in Oslo."}
	// true invalid arguments: /days: must be <= 7
}

// A tool registered without an inputSchema takes no arguments: it is
// listed with {"type":"object"}.
func ExampleStandardServer_AddTool() {
	srv := mcp.NewServer(mcp.Implementation{Name: "clock", Version: "1.0.0"})
	err := srv.AddTool(mcp.NewTool("now", "The time"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("noon"), nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
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
	fmt.Println(list.Tools[0].Name, string(list.Tools[0].InputSchema))
	// Output:
	// now {"type":"object"}
}

// A resource template: reads of the URIs it matches (RFC 6570) go to its
// handler, which finds the values of the template's variables with
// TemplateVars.
func ExampleStandardServer_AddResourceTemplate() {
	srv := mcp.NewServer(mcp.Implementation{Name: "files", Version: "1.0.0"})
	err := srv.AddResourceTemplate(mcp.ResourceTemplate{Name: "repo", URITemplate: "repo://{owner}/{name}{?rev}"},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			vars := mcp.TemplateVars(ctx)
			return mcp.ResourceText(p.URI, "text/plain", vars.Get("owner")+"/"+vars.Get("name")+" at rev "+vars.Get("rev")), nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(srv.AddResourceTemplate(mcp.ResourceTemplate{Name: "bad", URITemplate: "repo://{owner"}, nil))

	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for _, uri := range []string{"repo://mcpgen/mcpgen?rev=7", "other://x"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: uri})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(res.Contents[0].Value.(*mcp.TextResourceContents).Text)
	}
	// Output:
	// AddResourceTemplate: URI template "repo://{owner": incomplete expression at byte 13
	// mcpgen/mcpgen at rev 7
	// jsonrpc error -32602: resource not found: other://x
}

// A server and a client in one process, for a test: Pipe gives the two
// ends of an in-memory transport, and the client pins a revision with
// ClientOptions.Revisions.
func ExamplePipe() {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"})
	serverEnd, clientEnd := mcp.Pipe()
	ctx := context.Background()
	go srv.Serve(ctx, serverEnd, session.Options{})

	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Revisions: []string{"2025-11-25"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	fmt.Println(cs.Era(), cs.Revision().Name)
	// Output:
	// legacy 2025-11-25
}

// A resource that does not exist is an error IsResourceNotFound knows, in
// every revision; any other error of the protocol is an *RPCError.
func ExampleIsResourceNotFound() {
	srv := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"})
	srv.MustAddResource(mcp.NewResource("note://hello", "hello", "text/plain"), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: p.URI, Text: "Hello"}}}}, nil
	})
	serverEnd, clientEnd := mcp.Pipe()
	ctx := context.Background()
	go srv.Serve(ctx, serverEnd, session.Options{})

	cs, err := mcp.Connect(ctx, clientEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "note://missing"})
	var rpcErr *mcp.RPCError
	fmt.Println(mcp.IsResourceNotFound(err), errors.As(err, &rpcErr), rpcErr.Code)
	// Output:
	// true true -32602
}

// A client's receive hook sees what the server sends it: here the
// elicitation/create request of a legacy session, which it could refuse
// by returning an error.
func ExampleReceiveHook() {
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"})
	srv.MustAddTool(mcp.NewTool("greet", "Asks a name."), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		res, err := mcp.Elicit(ctx, "name", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "Your name?"}})
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("Hello, " + string(res.Content["name"].Value.(mcp.ElicitResultContentValueString)) + "."), nil
	})
	serverEnd, clientEnd := mcp.Pipe()
	ctx := context.Background()
	go srv.Serve(ctx, serverEnd, session.Options{})

	hook := mcp.ReceiveHook(func(ctx context.Context, m *mcp.Message) error {
		fmt.Println("received", m.Method)
		return nil
	})
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{
		Revisions:  []string{"2025-11-25"},
		Handler:    elicitName{},
		Middleware: []mcp.Middleware{hook},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallToolArgs(ctx, "greet", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// received elicitation/create
	// Hello, Ada.
}

// elicitName answers every question with the name Ada.
type elicitName struct{ mcp.UnimplementedClient }

func (elicitName) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"name": "Ada"})
}
