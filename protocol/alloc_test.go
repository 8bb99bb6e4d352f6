//go:build !race

// The race detector makes sync.Pool drop values at random, so the pooled
// decoders would count as allocations.

package protocol_test

import (
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestCodecAllocations guards the allocations of the codecs on the call
// path, so that they cannot creep back unnoticed: decoding a tools/call
// request costs the request, its arguments and _meta (kept as copies) and
// the tool's name, and nothing for checking the progress token in _meta;
// encoding a result that holds unions into a buffer large enough costs
// nothing.
func TestCodecAllocations(t *testing.T) {
	var res mcp.CallToolResult
	if err := wire.Unmarshal(callToolResult, &res); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	tests := []struct {
		name string
		max  float64
		f    func() error
	}{
		{"decode tools/call", 4, func() error {
			var r mcp.CallToolRequest
			return wire.Unmarshal(toolsCallRequest, &r)
		}},
		{"encode CallToolResult", 0, func() error {
			_, err := res.AppendJSON(buf[:0])
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.f(); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(100, func() { _ = tt.f() }); n > tt.max {
				t.Errorf("%v allocations, want at most %v", n, tt.max)
			}
		})
	}
}
