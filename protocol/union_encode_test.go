package protocol_test

import (
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestUnionEncodesEveryVariantForm checks that a union encodes each form its
// Value can hold: a pointer to an object variant, a value variant and a
// pointer to one (both implement the interface), and an unknown variant
// kept verbatim. The generated encoders switch on the variant's type.
func TestUnionEncodesEveryVariantForm(t *testing.T) {
	str := mcp.ElicitResultContentValueString("x")
	n := mcp.ElicitResultContentValueInteger(7)
	tests := []struct {
		name string
		v    wire.Appender
		want string
	}{
		{"object", &mcp.ContentBlock{Value: &mcp.TextContent{Text: "hi"}}, `{"type":"text","text":"hi"}`},
		{"unknown", &mcp.ContentBlock{Value: &mcp.UnknownVariant{Raw: []byte(`{"type":"video","url":"u"}`)}}, `{"type":"video","url":"u"}`},
		{"string value", &mcp.ElicitResultContentValue{Value: str}, `"x"`},
		{"string pointer", &mcp.ElicitResultContentValue{Value: &str}, `"x"`},
		{"integer value", &mcp.ElicitResultContentValue{Value: n}, `7`},
		{"integer pointer", &mcp.ElicitResultContentValue{Value: &n}, `7`},
		{"boolean", &mcp.ElicitResultContentValue{Value: mcp.ElicitResultContentValueBoolean(true)}, `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.v.AppendJSON(nil)
			if err != nil || string(got) != tt.want {
				t.Errorf("AppendJSON = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	if _, err := (&mcp.ContentBlock{}).AppendJSON(nil); err == nil {
		t.Error("an empty union encoded")
	}
}
