package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// readMeta returns a decoder that has just read the _meta member of doc, as
// a generated decoder has when it checks the member's keys, and the member.
func readMeta(t *testing.T, doc string) (*jsontext.Decoder, jsontext.Value) {
	t.Helper()
	d := jsontext.NewDecoder(bytes.NewReader([]byte(doc)))
	if _, err := d.ReadToken(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadToken(); err != nil {
		t.Fatal(err)
	}
	v, err := d.ReadValue()
	if err != nil {
		t.Fatal(err)
	}
	return d, v
}

func TestMetaScalar(t *testing.T) {
	tests := []struct {
		name    string
		meta    string
		check   func(*jsontext.Decoder, jsontext.Value) (bool, error)
		present bool
		err     string
	}{
		{"string", `{"k":"v"}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[string](d, m, "k") }, true, ""},
		{"absent", `{"j":1}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[string](d, m, "k") }, false, ""},
		{"string wanted", `{"k":1}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[string](d, m, "k") }, true, "/_meta/k: "},
		{"integer", `{"k":7}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[int64](d, m, "k") }, true, ""},
		{"integer wanted", `{"k":1.5}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[int64](d, m, "k") }, true, "/_meta/k: "},
		{"number", `{"k":1.5}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[float64](d, m, "k") }, true, ""},
		{"boolean", `{"k":false}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[bool](d, m, "k") }, true, ""},
		{"boolean wanted", `{"k":"false"}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[bool](d, m, "k") }, true, "/_meta/k: "},
		{"slash escaped", `{"a/b":1}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaScalar[string](d, m, "a/b") }, true, "/_meta/a~1b: "},
		{"member", `{"k":"x"}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaMember(d, m, "k", new(ID)) }, true, ""},
		{"member wrong", `{"k":true}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaMember(d, m, "k", new(ID)) }, true, "/_meta/k"},
		{"check", `{"k":7}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaCheck(d, m, "k", checkID) }, true, ""},
		{"check absent", `{"j":7}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaCheck(d, m, "k", checkID) }, false, ""},
		{"check fails", `{"k":{"a":1}}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) {
			return MetaCheck(d, m, "k", func(d *jsontext.Decoder) error { var id ID; return id.UnmarshalJSONFrom(d) })
		}, true, "/_meta/k: want string or integer, got object"},
		{"id string", `{"k":"p-1"}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, true, ""},
		{"id integer", `{"k":-42}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, true, ""},
		{"id absent", `{"j":"x"}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, false, ""},
		{"id boolean", `{"k":true}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, true, "/_meta/k: want string or integer, got boolean"},
		{"id null", `{"k":null}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, true, "/_meta/k: want string or integer, got null"},
		{"id fraction", `{"k":1.5}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, true, "/_meta/k: want integer, got 1.5"},
		{"id object", `{"k":{"a":1}}`, func(d *jsontext.Decoder, m jsontext.Value) (bool, error) { return MetaID(d, m, "k") }, true, "/_meta/k: want string or integer, got object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, meta := readMeta(t, `{"_meta":`+tt.meta+`}`)
			present, err := tt.check(d, meta)
			if present != tt.present {
				t.Errorf("present = %v, want %v", present, tt.present)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
				t.Errorf("error %v, want one starting %q", err, tt.err)
			}
		})
	}
	d, _ := readMeta(t, `{"_meta":{}}`)
	if err := MissingMeta(d, "io.x/y"); err == nil || err.Error() != `/_meta: missing required field "io.x/y"` {
		t.Errorf("MissingMeta = %v", err)
	}
}

// TestMetaIDAgreesWithMetaMember checks that MetaID accepts and refuses
// exactly what MetaMember with a new(ID) does, with the same error.
func TestMetaIDAgreesWithMetaMember(t *testing.T) {
	for _, v := range []string{`"x"`, `""`, `"\u00e9"`, `0`, `-7`, `9223372036854775807`, `9223372036854775808`, `1e3`, `1.0`, `1.5`, `true`, `null`, `[]`, `{}`} {
		t.Run(v, func(t *testing.T) {
			d, meta := readMeta(t, `{"_meta":{"k":`+v+`}}`)
			okID, errID := MetaID(d, meta, "k")
			okMember, errMember := MetaMember(d, meta, "k", new(ID))
			if okID != okMember || (errID == nil) != (errMember == nil) || (errID != nil && errID.Error() != errMember.Error()) {
				t.Errorf("MetaID = %v, %v; MetaMember = %v, %v", okID, errID, okMember, errMember)
			}
		})
	}
}
