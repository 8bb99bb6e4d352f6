package wire_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzDecodeValue feeds arbitrary bytes to DecodeValue into an any. It must
// never panic, fail only with *wire.Error, accept only valid JSON (one
// value, no duplicate names, valid UTF-8), and what it accepts must encode
// with EncodeValue to the same JSON value: equal once both are put in
// canonical form (RFC 8785), and decoding that again gives the same Go
// value.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range unmarshalSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"arguments":{"city":"Paris","days":3,"units":null,"tags":["a","b"],"nested":{"x":[1,2.5,-0,1e3]}}}`,
		`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"},"progressToken":7}}`,
		`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`,
		`12345678901234567890`, `1e400`, `"\u00e9\ud83d\ude00"`, `[{},[],""]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out any
		err := wire.DecodeValue(jsontext.Value(data), &out)
		if err != nil {
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("DecodeValue(%q) error %T %v, want *wire.Error", data, err, err)
			}
			return
		}
		if !jsontext.Value(data).IsValid() {
			t.Fatalf("DecodeValue accepted %q, which is not valid JSON", data)
		}
		enc, err := wire.EncodeValue(out)
		if err != nil {
			t.Fatalf("EncodeValue(%#v) of %q: %v", out, data, err)
		}
		want, got := jsontext.Value(bytes.Clone(data)), jsontext.Value(bytes.Clone(enc))
		if err := want.Canonicalize(); err != nil {
			t.Fatalf("canonical form of accepted %q: %v", data, err)
		}
		if err := got.Canonicalize(); err != nil {
			t.Fatalf("canonical form of %q (from %q): %v", enc, data, err)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("%q encodes back as %q: canonical %q, want %q", data, enc, got, want)
		}
		var again any
		if err := wire.DecodeValue(enc, &again); err != nil {
			t.Fatalf("DecodeValue(%q), re-encoded from %q: %v", enc, data, err)
		}
		if !reflect.DeepEqual(out, again) { // cmp.Diff only on failure: it is slow on deep values
			t.Fatalf("%q decodes differently after a round trip (-first +again):\n%s", data, cmp.Diff(out, again))
		}
	})
}
