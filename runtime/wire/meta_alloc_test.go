//go:build !race

// The race detector makes sync.Pool drop values at random, so the pooled
// decoders the checks use would count as allocations.

package wire

import "testing"

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
