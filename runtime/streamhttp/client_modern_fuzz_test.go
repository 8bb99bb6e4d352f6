package streamhttp

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzToolsAnswer feeds the answer to a stateless tools/list to the
// Client's reader of x-mcp-header annotations: it never panics, what it
// returns is valid JSON when its input was, and it keeps no tool it did not
// keep annotations of.
func FuzzToolsAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}},{"name":"b","inputSchema":{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":"x"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewClient("http://127.0.0.1:1/mcp", ClientOptions{})
		defer c.Close()
		g := c.conn
		g.modern = &modernConn{toolLists: map[wire.ID]bool{wire.IntID(1): true}}
		out := c.toolsAnswer(g, data)
		if jsontext.Value(data).IsValid() && !jsontext.Value(out).IsValid() {
			t.Fatalf("toolsAnswer(%s) = %s: invalid JSON", data, out)
		}
		if string(out) == string(data) {
			return
		}
		// It rewrote the answer: every tool left has learned annotations.
		if m := clientProbe(out); m.kind != jsonrpc.Response {
			t.Fatalf("rewrote %s into %s, not a response", data, out)
		}
		res, _ := wire.Member(out, "result")
		tools, _ := wire.Member(res, "tools")
		var list []jsontext.Value
		if err := wire.DecodeValue(tools, &list); err != nil {
			t.Fatalf("rewritten tools %s: %v", tools, err)
		}
		for _, tl := range list {
			name, _ := wire.MemberString(tl, "name")
			if _, ok := g.modern.tools[name]; !ok {
				t.Fatalf("kept tool %q without learning its annotations", name)
			}
		}
	})
}
