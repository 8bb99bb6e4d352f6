package jsonrpc_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var toolsCall = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Berlin","units":"metric","days":3},"_meta":{"progressToken":"p-42"}}}`)

// BenchmarkDecodeToolsCall decodes the envelope of a tools/call request; the
// params stay raw.
func BenchmarkDecodeToolsCall(b *testing.B) {
	b.SetBytes(int64(len(toolsCall)))
	b.ReportAllocs()
	for b.Loop() {
		items, _, err := jsonrpc.Decode(toolsCall, false)
		if err != nil || items[0].Msg == nil {
			b.Fatal(items, err)
		}
	}
}

// BenchmarkEncodeResponse encodes a tools/call result response into a reused
// buffer.
func BenchmarkEncodeResponse(b *testing.B) {
	m := &jsonrpc.Message{
		Kind:   jsonrpc.Response,
		ID:     wire.IntID(42),
		Result: raw(`{"content":[{"type":"text","text":"Sunny, 21°C, light wind from the west."}],"structuredContent":{"temperature":21,"conditions":"sunny"},"isError":false}`),
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		out, err := m.AppendJSON(buf[:0])
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
}
