//go:build !race

// The race detector makes sync.Pool drop values at random, so the pooled
// decoders the checks use would count as allocations, and its
// instrumentation allocates where the plain build does not.

package wire

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestMetaChecksAllocateNothing guards the _meta checks every request decode
// runs: a valid member costs no allocation.
func TestMetaChecksAllocateNothing(t *testing.T) {
	d, meta := readMeta(t, `{"_meta":{"progressToken":"p-1","n":7,"v":"2026-07-28","b":true}}`)
	tests := []struct {
		name  string
		check func() (bool, error)
	}{
		{"MetaID", func() (bool, error) { return MetaID(d, meta, "progressToken") }},
		{"MetaScalar string", func() (bool, error) { return MetaScalar[string](d, meta, "v") }},
		{"MetaScalar int64", func() (bool, error) { return MetaScalar[int64](d, meta, "n") }},
		{"MetaScalar bool", func() (bool, error) { return MetaScalar[bool](d, meta, "b") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok, err := tt.check(); !ok || err != nil {
				t.Fatalf("check = %v, %v; want true, nil", ok, err)
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = tt.check() }); n != 0 {
				t.Errorf("%v allocations, want 0", n)
			}
		})
	}
}

// TestMergeAndSetAllocateOnce guards the _meta edits of every call of a
// client of the stateless era: each result is built in one allocation.
func TestMergeAndSetAllocateOnce(t *testing.T) {
	meta := jsontext.Value(`{"progressToken":"p-1","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`)
	envelope := jsontext.Value(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`)
	params := jsontext.Value(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p-1"}}`)
	tests := []struct {
		name string
		f    func() (jsontext.Value, error)
	}{
		{"MergeMembers", func() (jsontext.Value, error) { return MergeMembers(meta, envelope) }},
		{"SetMember", func() (jsontext.Value, error) { return SetMember(params, "_meta", meta) }},
		{"DeleteMembers", func() (jsontext.Value, error) { return DeleteMembers(params, "_meta") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.f(); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = tt.f() }); n != 1 {
				t.Errorf("%v allocations, want 1", n)
			}
		})
	}
}
