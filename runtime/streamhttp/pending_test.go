package streamhttp

import (
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A pendingSet holds what a map of its requests would.
func TestPendingSet(t *testing.T) {
	type op struct {
		add bool // else remove
		id  wire.ID
	}
	a, b, c := wire.IntID(1), wire.StringID("1"), wire.IntID(3)
	tests := []struct {
		name string
		ops  []op
	}{
		{"empty", nil},
		{"one", []op{{true, a}}},
		{"one removed", []op{{true, a}, {false, a}}},
		{"another removed", []op{{true, a}, {false, b}}},
		{"one added twice", []op{{true, a}, {true, a}}},
		{"batch", []op{{true, a}, {true, b}, {true, c}}},
		{"batch drained", []op{{true, a}, {true, b}, {false, a}, {false, b}}},
		{"batch partly answered", []op{{true, a}, {true, b}, {true, c}, {false, b}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p pendingSet
			want := map[wire.ID]bool{}
			for _, o := range tt.ops {
				if o.add {
					p.add(o.id)
					want[o.id] = true
				} else {
					p.remove(o.id)
					delete(want, o.id)
				}
			}
			if p.len() != len(want) {
				t.Errorf("len = %d, want %d", p.len(), len(want))
			}
			var got []string
			p.each(func(id wire.ID) {
				if !want[id] {
					t.Errorf("each gave %v, not in the set", id)
				}
				got = append(got, id.String())
			})
			if len(got) != len(want) || len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
				t.Errorf("each gave %v, want each of %v once", got, want)
			}
			p.clear()
			if p.len() != 0 {
				t.Errorf("len after clear = %d", p.len())
			}
		})
	}
}
