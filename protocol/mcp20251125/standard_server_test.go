package mcp20251125_test

import (
	"context"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
)

// MCP's schema requires "type": "object" of a tool's inputSchema and
// outputSchema; AddTool and AddTypedTool refuse others, naming the tool.
func TestToolSchemasMustBeObjects(t *testing.T) {
	noop := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	tests := []struct {
		name string
		add  func() error
		want string
	}{
		{"output array", func() error {
			return srv.AddTool(mcp.Tool{Name: "a", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"type":"array"}`)}, noop)
		}, `tool "a": outputSchema: the top-level type is "array"`},
		{"input without type", func() error {
			return srv.AddTool(mcp.Tool{Name: "b", InputSchema: []byte(`{"properties":{}}`)}, noop)
		}, `tool "b": inputSchema: the schema has no top-level "type"`},
		{"typed slice output", func() error {
			return mcp.AddTypedTool(srv, mcp.NewTool("c", ""), func(ctx context.Context, in struct{}) ([]string, error) { return nil, nil })
		}, `AddTypedTool: tool "c": output schema: the top-level type is "array"; an MCP tool schema must have "type": "object" (for a Go type, use a struct)`},
		{"typed int input", func() error {
			return mcp.AddTypedTool(srv, mcp.NewTool("d", ""), func(ctx context.Context, in int) (struct{}, error) { return struct{}{}, nil })
		}, `tool "d": input schema: the top-level type is "integer"`},
	}
	for _, tt := range tests {
		err := tt.add()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
