package main

import (
	"context"
	"errors"
	"fmt"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/redis"
	goredis "github.com/redis/go-redis/v9"
)

// counterURI is the resource every instance serves the same: a counter
// kept in Redis.
const counterURI = "fleet://counter"

// Empty is the argument of the tools that take none.
type Empty struct{}

// newServer returns the server an instance runs: the same on every
// instance, but for the name whoami answers.
func newServer(name string, f *redis.Fleet) *mcp.StandardServer {
	// The Bus carries changes to every instance: a subscriptions/listen
	// stream or a legacy session on any instance hears a change made on
	// any other.
	srv := mcp.NewServer(mcp.Implementation{Name: "fleet-example", Version: "1.0.0"}, mcp.WithBus(f.Bus))

	mcp.MustAddTypedTool(srv, mcp.NewTool("whoami", "Names the instance that ran the call"),
		func(ctx context.Context, _ Empty) (*mcp.CallToolResult, error) {
			return mcp.TextResult(name), nil
		})

	// greet asks a question: over 2026-07-28 a round of input, whose
	// sealed requestState any instance opens; over a legacy session a
	// request to the client, whose answer reaches this instance wherever
	// it is posted.
	mcp.MustAddTypedTool(srv, mcp.NewTool("greet", "Asks for a name, and greets it"),
		func(ctx context.Context, _ Empty) (*mcp.CallToolResult, error) {
			res, err := mcp.Elicit(ctx, "name", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
				Message: "What is your name?",
				RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
					Properties: map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}},
					Required:   []string{"name"},
				},
			}})
			if err != nil {
				return nil, err
			}
			n, _ := res.Content["name"].Value.(mcp.ElicitResultContentValueString)
			return mcp.TextResult(fmt.Sprintf("Hello, %s (asked by %s)", n, name)), nil
		})

	// The counter lives in Redis, so that every instance reads the same;
	// bump changes it and tells every instance's subscribers.
	client := f.Client()
	srv.MustAddResource(mcp.NewResource(counterURI, "counter", "text/plain"),
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			n, err := client.Get(ctx, f.Prefix+":example:counter").Int64()
			if err != nil && !errors.Is(err, goredis.Nil) {
				return nil, fmt.Errorf("reading the counter: %w", err)
			}
			return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{{Value: &mcp.TextResourceContents{URI: counterURI, Text: fmt.Sprint(n)}}}}, nil
		})
	mcp.MustAddTypedTool(srv, mcp.NewTool("bump", "Adds one to the counter"),
		func(ctx context.Context, _ Empty) (*mcp.CallToolResult, error) {
			n, err := client.Incr(ctx, f.Prefix+":example:counter").Result()
			if err != nil {
				return nil, fmt.Errorf("bumping the counter: %w", err)
			}
			srv.NotifyResourceUpdated(counterURI)
			return mcp.TextResult(fmt.Sprintf("%d (by %s)", n, name)), nil
		})
	return srv
}
