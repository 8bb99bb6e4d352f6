package protocol_test

import (
	"context"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

type smokeServer struct{ mcp.UnimplementedServer }

func (smokeServer) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ServerInfo: mcp.Implementation{Name: "smoke", Version: "1"}, Capabilities: mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{}}}, nil
}

func (smokeServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "hi " + p.Name}}}}, nil
}

func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := transport.Pipe()
	go mcp.Serve(ctx, a, smokeServer{}, session.Options{})
	c, err := mcp.Connect(ctx, b, mcp.Implementation{Name: "c", Version: "1"}, mcp.ClientCapabilities{}, nil, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := r.AppendJSON(nil)
	t.Logf("%s rev=%s", out, c.Revision().Name)
	if _, err := c.ListPrompts(ctx, nil); err == nil {
		t.Error("prompts/list without the prompts capability should fail")
	} else {
		t.Log(err)
	}
}
