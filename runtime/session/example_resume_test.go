package session_test

import (
	"context"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// An instance of a fleet carries on a legacy session that another one
// began: it reads the state the other saved after each change
// (Options.OnLegacyState), resumes the session from it, and saves the
// state again when the client changes it.
func ExampleResume() {
	srv := m26.NewServer(m26.Implementation{Name: "fleet", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "hello", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			return m26.TextResult("hello"), nil
		})
	store := map[string][]byte{ // a shared store, such as Redis, keyed by session
		"s1": []byte(`{"revision":"2025-06-18","serverCapabilities":{"tools":{},"logging":{}},"clientCapabilities":{},"clientInfo":{"name":"c","version":"1"},"logLevel":"error","initialized":true}`),
	}
	st, err := session.UnmarshalLegacyState(store["s1"])
	if err != nil {
		fmt.Println(err)
		return
	}
	save := func(st session.LegacyState) {
		b, _ := jsonv2.Marshal(st)
		store["s1"] = b
		fmt.Printf("saved: %s\n", b)
	}
	a, b := transport.Pipe() // the client's side of the session's transport is b
	s, err := session.Resume(a, srv.Handler(), session.Options{OnLegacyState: save}, st)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hello","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"info"}}`,
	} {
		if err := b.Write(ctx, []byte(req)); err != nil {
			fmt.Println(err)
			return
		}
		answer, err := b.Read(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("answer: %s\n", answer)
	}
	// Output:
	// answer: {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}
	// saved: {"revision":"2025-06-18","serverCapabilities":{"tools":{},"logging":{}},"clientCapabilities":{},"clientInfo":{"name":"c","version":"1"},"logLevel":"info","initialized":true}
	// answer: {"jsonrpc":"2.0","id":8,"result":{}}
}
