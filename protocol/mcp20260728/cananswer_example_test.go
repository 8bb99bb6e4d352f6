package mcp20260728_test

import (
	"context"
	"errors"
	"fmt"

	legacy "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// A tool that would ask the user checks ClientCan first and takes another
// way when the client cannot answer. One that asks anyway gets an error
// wrapping ErrClientCannotAnswer on a legacy session, which its caller
// gets as a tool result with isError (on a stateless request, error
// -32021 naming the capability).
func ExampleClientCan() {
	form := &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "Your name?",
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}}}}}
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1"})
	srv.MustAddTool(mcp.NewTool("greet", "Greets the user"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		if !mcp.ClientCan(ctx, "elicitation") {
			return mcp.TextResult("Hello, stranger"), nil
		}
		res, err := mcp.Elicit(ctx, "name", form)
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(fmt.Sprint("Hello, ", res.Content["name"].Value)), nil
	})
	srv.MustAddTool(mcp.NewTool("greet-anyway", "Asks whatever the client can do"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		_, err := mcp.Elicit(ctx, "name", form)
		fmt.Println("ErrClientCannotAnswer:", errors.Is(err, mcp.ErrClientCannotAnswer))
		return nil, err
	})

	// A 2025-11-25 client that did not declare elicitation.
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := context.Background()
	cs, err := legacy.Connect(ctx, clientEnd, &legacy.ClientOptions{Info: legacy.Implementation{Name: "app", Version: "1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for _, name := range []string{"greet", "greet-anyway"} {
		res, err := cs.CallTool(ctx, &legacy.CallToolRequestParams{Name: name})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: isError %v: %s\n", name, res.IsError != nil && *res.IsError, res.Content[0].Value.(*legacy.TextContent).Text)
	}
	// Output:
	// greet: isError false: Hello, stranger
	// ErrClientCannotAnswer: true
	// greet-anyway: isError true: input "name": elicitation/create: the client cannot answer: it did not declare the capability elicitation
}
