package wire_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// probe records, for each decode, whether the decoder kept unknown variants;
// it fails while failStrict is set and the decoder is strict. With child set,
// it decodes its value through UnmarshalAt into child.
type probe struct {
	modes      *[]bool
	failStrict bool
	child      *probe
}

func (p *probe) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	keeps := wire.KeepsUnknown(d)
	*p.modes = append(*p.modes, keeps)
	raw, err := d.ReadValue()
	if err != nil {
		return err
	}
	if p.child != nil {
		return wire.UnmarshalAt(d, raw, p.child)
	}
	if p.failStrict && !keeps {
		return errors.New("strict")
	}
	return nil
}

// The mode is set only for a second pass after a strict one failed, and
// UnmarshalAt passes it on to the decoders it starts.
func TestKeepUnknownMode(t *testing.T) {
	for _, tt := range []struct {
		name       string
		failStrict bool
		nested     bool
		want       []bool // modes seen by the innermost probe
	}{
		{"valid: one strict pass", false, false, []bool{false}},
		{"invalid: strict, then keeping", true, false, []bool{false, true}},
		{"nested valid", false, true, []bool{false}},
		{"nested invalid: strict, then keeping, passed on", true, true, []bool{false, false, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var modes []bool
			leaf := &probe{modes: &modes, failStrict: tt.failStrict}
			var u wire.Unmarshaler = leaf
			if tt.nested {
				var outer []bool
				u = &probe{modes: &outer, child: leaf}
			}
			if err := wire.UnmarshalKeepUnknown([]byte(`{"a":1}`), u); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, modes); diff != "" {
				t.Errorf("modes (-want +got):\n%s", diff)
			}
			modes = nil
			err := wire.Unmarshal([]byte(`{"a":1}`), u)
			if (err != nil) != tt.failStrict || slicesContain(modes, true) {
				t.Errorf("Unmarshal: err %v, modes %v: want strict only", err, modes)
			}
		})
	}
}

func slicesContain(s []bool, v bool) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Decoders made elsewhere, with other Unmarshalers or none, are strict.
func TestKeepsUnknownOtherDecoders(t *testing.T) {
	other := json.UnmarshalFunc(func([]byte, *int) error { return nil })
	for _, opts := range [][]jsontext.Options{nil, {json.WithUnmarshalers(other)}, {jsontext.AllowDuplicateNames(true)}} {
		d := jsontext.NewDecoder(bytes.NewReader([]byte(`{}`)), opts...)
		if wire.KeepsUnknown(d) {
			t.Errorf("a decoder with options %v keeps unknown variants", opts)
		}
		if _, ok := wire.KeepUnknown(d, []byte(`{"type":"x"}`), "type"); ok {
			t.Errorf("KeepUnknown on a decoder with options %v kept the value", opts)
		}
	}
}
