package stdio_test

import (
	"context"
	"io"
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// BenchmarkCall measures a tools/call round trip between a client and a
// server session over stdio pipes, one call at a time and, in parallel,
// as many as GOMAXPROCS goroutines make.
func BenchmarkCall(b *testing.B) {
	srv := mcp.NewServer(mcp.Implementation{Name: "b", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
	})
	ctx := context.Background()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- mcp.Serve(ctx, stdio.New(c2sR, s2cW), srv, session.Options{}) }()
	cs, err := mcp.Connect(ctx, stdio.New(s2cR, c2sW), &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		cs.Close()
		<-served
	}()
	params := &mcp.CallToolRequestParams{Name: "echo"}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, err := cs.CallTool(ctx, params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
