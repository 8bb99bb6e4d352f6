package session_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// FuzzSessionReader feeds arbitrary payloads to an initialized server
// session: it must not panic or hang, must still answer a ping afterwards,
// and must leave no goroutine behind once closed.
func FuzzSessionReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{`, `[]`, `null`, "\xff",
	} {
		f.Add([]byte(s))
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "fuzz", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "x"}}}}, nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		before := runtime.NumGoroutine()
		a, b := transport.Pipe()
		s := session.New(session.Server, a, mcp.NewServerHandler(srv), session.Options{})
		p := &peer{t: t, tr: b}
		p.initialize("2025-03-26") // the revision with batches
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := b.Write(ctx, data); err != nil {
			t.Fatal(err)
		}
		p.send(`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`)
		for {
			raw, err := b.Read(ctx)
			if err != nil {
				t.Fatalf("no answer to the ping after %q: %v", data, err)
			}
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil && m["id"] == "fuzz-ping" {
				break
			}
		}
		b.Close()
		select {
		case <-s.Done():
		case <-ctx.Done():
			t.Fatalf("the session did not end after %q", data)
		}
		for i := 0; runtime.NumGoroutine() > before && i < 200; i++ {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Fatalf("%d goroutines left behind after %q", n-before, data)
		}
	})
}
