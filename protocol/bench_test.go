package protocol_test

import (
	"encoding/json"
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The messages measured, and encoding/json on the same bytes into
// equivalent hand-tagged structs, for comparison. The legacy revisions
// share these shapes; 2026-07-28's request adds the _meta every request
// carries there (its version and capabilities), measured beside them.

var toolsCallRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world","count":3},"_meta":{"progressToken":"p-1"}}}`)

var callToolResult = []byte(`{"content":[{"type":"text","text":"hello, world"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///tmp/a.txt","mimeType":"text/plain","text":"contents"}}],"isError":false}`)

var modernToolsCallRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world","count":3},"_meta":{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)

type stdRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
	} `json:"params"`
}

type stdResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		Data     string `json:"data,omitempty"`
		MIMEType string `json:"mimeType,omitempty"`
		Resource *struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType,omitempty"`
			Text     string `json:"text,omitempty"`
		} `json:"resource,omitempty"`
	} `json:"content"`
	IsError *bool `json:"isError,omitempty"`
}

func BenchmarkDecodeToolsCall(b *testing.B) {
	b.Run("mcpgen", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(toolsCallRequest)))
		for b.Loop() {
			var r mcp.CallToolRequest
			if err := wire.Unmarshal(toolsCallRequest, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(toolsCallRequest)))
		for b.Loop() {
			var r stdRequest
			if err := json.Unmarshal(toolsCallRequest, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcpgen-2026-07-28", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(modernToolsCallRequest)))
		for b.Loop() {
			var r mcp20260728.CallToolRequest
			if err := wire.Unmarshal(modernToolsCallRequest, &r); err != nil {
				b.Fatal(err)
			}
			if _, ok := r.Params.MetaProtocolVersion(); !ok {
				b.Fatal("no protocol version")
			}
		}
	})
	b.Run("encoding-json-2026-07-28", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(modernToolsCallRequest)))
		for b.Loop() {
			var r stdRequest
			if err := json.Unmarshal(modernToolsCallRequest, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCallToolResult(b *testing.B) {
	var gen mcp.CallToolResult
	if err := wire.Unmarshal(callToolResult, &gen); err != nil {
		b.Fatal(err)
	}
	var std stdResult
	if err := json.Unmarshal(callToolResult, &std); err != nil {
		b.Fatal(err)
	}
	b.Run("decode/mcpgen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r mcp.CallToolResult
			if err := wire.Unmarshal(callToolResult, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r stdResult
			if err := json.Unmarshal(callToolResult, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/mcpgen", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			out, err := gen.AppendJSON(buf[:0])
			if err != nil {
				b.Fatal(err)
			}
			buf = out
		}
	})
	b.Run("encode/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(&std); err != nil {
				b.Fatal(err)
			}
		}
	})
}
