package session

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// envelopeParams stands for generated params whose _meta requires the
// envelope: AppendJSONWithMeta adds meta's members to its own _meta.
type envelopeParams struct{ meta string }

func (p envelopeParams) AppendJSON(b []byte) ([]byte, error) {
	return p.AppendJSONWithMeta(b, nil)
}

func (p envelopeParams) AppendJSONWithMeta(b []byte, meta jsontext.Value) ([]byte, error) {
	m, err := wire.MergeMembers(jsontext.Value(p.meta), meta)
	if err != nil {
		return b, err
	}
	b = append(b, `{"name":"echo","_meta":`...)
	b = append(b, m...)
	return append(b, '}'), nil
}

// TestEncodeParamsWithoutEnvelope checks the params of a stateless-era
// call encoded for middleware or a legacy session: the envelope's members
// leave _meta, the caller's stay in their order, and an empty _meta goes.
func TestEncodeParamsWithoutEnvelope(t *testing.T) {
	tests := []struct {
		name string
		meta string
		want string
	}{
		{"caller's members kept", `{"traceparent":"00-ab-cd-01","progressToken":"p-1"}`, `{"name":"echo","_meta":{"traceparent":"00-ab-cd-01","progressToken":"p-1"}}`},
		{"only the envelope", `{}`, `{"name":"echo"}`},
		{"envelope members the caller set dropped", `{"` + MetaProtocolVersion + `":"x","k":1}`, `{"name":"echo","_meta":{"k":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeParams(envelopeParams{meta: tt.meta}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("encodeParams = %s, want %s", got, tt.want)
			}
		})
	}
}
