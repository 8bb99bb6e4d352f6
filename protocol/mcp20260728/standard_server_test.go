package mcp20260728_test

import (
	"context"
	"strings"
	"testing"

	legacy "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// From 2026-07-28 an outputSchema may describe any JSON value and
// structuredContent may be any JSON value; the inputSchema stays an
// object.
func TestToolOutputOfAnyType(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	err := mcp.AddTypedTool(srv, mcp.NewTool("cities", "Known cities"),
		func(ctx context.Context, in struct{}) ([]string, error) { return []string{"Oslo", "Lima"}, nil })
	if err != nil {
		t.Fatalf("AddTypedTool with a slice result: %v", err)
	}
	noop := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }
	if err := srv.AddTool(mcp.Tool{Name: "n", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"type":"number"}`)}, noop); err != nil {
		t.Errorf("AddTool with a number outputSchema: %v", err)
	}
	if err := srv.AddTool(mcp.Tool{Name: "bad", InputSchema: []byte(`{"type":"array"}`)}, noop); err == nil || !strings.Contains(err.Error(), `tool "bad": inputSchema: the top-level type is "array"`) {
		t.Errorf("AddTool with an array inputSchema: err = %v", err)
	}

	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(list.Tools[0].OutputSchema); got != `{"items":{"type":"string"},"type":"array"}` {
		t.Errorf("outputSchema = %s", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "cities"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.StructuredContent); got != `["Oslo","Lima"]` {
		t.Errorf("structuredContent = %s", got)
	}
}

// A legacy client of the same server: what its revision cannot say is
// left out rather than failing the list.
func TestToolOutputOfAnyTypeLegacy(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	if err := mcp.AddTypedTool(srv, mcp.NewTool("cities", "Known cities"),
		func(ctx context.Context, in struct{}) ([]string, error) { return []string{"Oslo", "Lima"}, nil }); err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()
	ctx := context.Background()
	cs, err := legacy.Connect(ctx, clientEnd, &legacy.ClientOptions{Info: legacy.Implementation{Name: "app", Version: "1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(list.Tools) != 1 || len(list.Tools[0].OutputSchema) != 0 {
		t.Errorf("tools = %+v, want cities without an outputSchema", list.Tools)
	}
	res, err := cs.CallTool(ctx, &legacy.CallToolRequestParams{Name: "cities"})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if len(res.StructuredContent) != 0 {
		t.Errorf("structuredContent = %s, want none", res.StructuredContent)
	}
	if text, ok := res.Content[0].Value.(*legacy.TextContent); !ok || text.Text != `["Oslo","Lima"]` {
		t.Errorf("content = %+v, want the JSON as text", res.Content[0].Value)
	}
}
