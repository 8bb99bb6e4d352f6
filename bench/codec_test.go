package bench

import (
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/wire"
	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkDecodeToolsCall decodes one tools/call request, envelope and all,
// into each SDK's typed params, the way its server does.
func BenchmarkDecodeToolsCall(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r mcp.CallToolRequest
			if err := wire.Unmarshal(toolsCallRequest, &r); err != nil {
				b.Fatal(err)
			}
			if r.Params.Name != "echo" {
				b.Fatal(r.Params.Name)
			}
		}
	})
	b.Run("gosdk", func(b *testing.B) {
		// go-sdk: jsonrpc.DecodeMessage, then the params into
		// CallToolParamsRaw (what its server hands a tool handler).
		b.ReportAllocs()
		for b.Loop() {
			msg, err := sdkjsonrpc.DecodeMessage(toolsCallRequest)
			if err != nil {
				b.Fatal(err)
			}
			req := msg.(*sdkjsonrpc.Request)
			var p sdk.CallToolParamsRaw
			if err := json.Unmarshal(req.Params, &p); err != nil {
				b.Fatal(err)
			}
			if p.Name != "echo" {
				b.Fatal(p.Name)
			}
		}
	})
	b.Run("mcpgo", func(b *testing.B) {
		// mcp-go: MCPServer.HandleMessage's envelope probe, then the whole
		// message into mcp.CallToolRequest.
		b.ReportAllocs()
		for b.Loop() {
			var base struct {
				JSONRPC string          `json:"jsonrpc"`
				Method  mcpgo.MCPMethod `json:"method"`
				ID      any             `json:"id,omitempty"`
				Result  any             `json:"result,omitempty"`
			}
			if err := json.Unmarshal(toolsCallRequest, &base); err != nil {
				b.Fatal(err)
			}
			var r mcpgo.CallToolRequest
			if err := json.Unmarshal(toolsCallRequest, &r); err != nil {
				b.Fatal(err)
			}
			if r.Params.Name != "echo" {
				b.Fatal(r.Params.Name)
			}
		}
	})
}

// BenchmarkEncodeResult encodes a CallToolResult with a text, an image and
// an embedded resource block (each SDK's value decoded from callToolResult).
func BenchmarkEncodeResult(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		var r mcp.CallToolResult
		if err := wire.Unmarshal(callToolResult, &r); err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 0, 1024)
		b.ReportAllocs()
		for b.Loop() {
			out, err := r.AppendJSON(buf[:0])
			if err != nil {
				b.Fatal(err)
			}
			buf = out
		}
	})
	b.Run("gosdk", func(b *testing.B) {
		var r sdk.CallToolResult
		if err := json.Unmarshal(callToolResult, &r); err != nil {
			b.Fatal(err)
		}
		if len(r.Content) != 3 {
			b.Fatal(len(r.Content))
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcpgo", func(b *testing.B) {
		var r mcpgo.CallToolResult
		if err := json.Unmarshal(callToolResult, &r); err != nil {
			b.Fatal(err)
		}
		if len(r.Content) != 3 {
			b.Fatal(len(r.Content))
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeResult decodes callToolResult into each SDK's type.
func BenchmarkDecodeResult(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r mcp.CallToolResult
			if err := wire.Unmarshal(callToolResult, &r); err != nil {
				b.Fatal(err)
			}
			if len(r.Content) != 3 {
				b.Fatal(len(r.Content))
			}
		}
	})
	b.Run("gosdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r sdk.CallToolResult
			if err := json.Unmarshal(callToolResult, &r); err != nil {
				b.Fatal(err)
			}
			if len(r.Content) != 3 {
				b.Fatal(len(r.Content))
			}
		}
	})
	b.Run("mcpgo", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r mcpgo.CallToolResult
			if err := json.Unmarshal(callToolResult, &r); err != nil {
				b.Fatal(err)
			}
			if len(r.Content) != 3 {
				b.Fatal(len(r.Content))
			}
		}
	})
}
