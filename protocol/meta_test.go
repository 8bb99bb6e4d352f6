package protocol_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// metaParams is what the test needs of a tools/call params type.
type metaParams interface {
	wire.Codec
	MetaProgressToken() (wire.ID, bool)
	SetMetaProgressToken(wire.ID) error
}

// TestParamsKeepMeta checks that tools/call params keep _meta and its
// progress token in every revision, including the draft-07 ones whose schema
// declares _meta only on the generic Request params.
func TestParamsKeepMeta(t *testing.T) {
	in := []byte(`{"name":"echo","_meta":{"progressToken":7,"example.com/trace":"abc"}}`)
	for _, tc := range []struct {
		rev string
		new func() metaParams
	}{
		{"2025-03-26", func() metaParams { return new(mcp20250326.CallToolRequestParams) }},
		{"2025-06-18", func() metaParams { return new(mcp20250618.CallToolRequestParams) }},
		{"2025-11-25", func() metaParams { return new(mcp20251125.CallToolRequestParams) }},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			p := tc.new()
			out := roundTrip(t, p, in)
			if diff := cmp.Diff(jsonValue(t, in), jsonValue(t, out)); diff != "" {
				t.Errorf("round trip lost something (-want +got):\n%s", diff)
			}
			tok, ok := p.MetaProgressToken()
			if !ok || tok != wire.IntID(7) {
				t.Errorf("MetaProgressToken() = %v, %v; want 7, true", tok, ok)
			}
			if err := p.SetMetaProgressToken(wire.StringID("p-2")); err != nil {
				t.Fatal(err)
			}
			out, err := p.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"name":"echo","_meta":{"progressToken":"p-2","example.com/trace":"abc"}}`
			if diff := cmp.Diff(jsonValue(t, []byte(want)), jsonValue(t, out)); diff != "" {
				t.Errorf("after SetMetaProgressToken (-want +got):\n%s", diff)
			}
		})
	}
}
