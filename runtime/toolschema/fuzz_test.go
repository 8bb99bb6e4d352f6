package toolschema

import (
	"testing"

	"github.com/go-json-experiment/json"
)

// FuzzInputDecode feeds arbitrary arguments to the decoder: it must never
// panic, and what it accepts must be valid against the schema once encoded
// again.
func FuzzInputDecode(f *testing.F) {
	for _, seed := range []string{``, `null`, `{}`, `{"city":"Oslo"}`, `{"city":"Oslo","days":99}`, `{"city":"Oslo","unit":"metric","days":7}`, `{"city":1}`, `{"city":"a","city":"b"}`, `[`, `{"city":"\ud800"}`, `{"days":1e400}`} {
		f.Add([]byte(seed))
	}
	in, err := NewInput[forecastIn](nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		got, err := in.Decode(args)
		if err != nil {
			return
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", got, err)
		}
		if err := in.Schema().Validate(b); err != nil {
			t.Fatalf("accepted %q, but its value %s breaks the schema: %v", args, b, err)
		}
	})
}

// FuzzCompile feeds arbitrary schemas to Compile: it must never panic.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{`{}`, `{"type":"object"}`, `{"$schema":"http://json-schema.org/draft-07/schema#"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{"pattern":"("}`, `{"$ref":"http://x/"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		s, err := Compile(schema)
		if err == nil {
			_ = s.Validate([]byte(`{"a":[1,"x",null]}`))
		}
	})
}
