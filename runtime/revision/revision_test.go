package revision

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestNegotiate(t *testing.T) {
	saved := all
	t.Cleanup(func() { all = saved })
	all = nil
	handshake := []wire.Method{{Name: "initialize"}}
	for _, n := range []string{"2025-03-26", "2024-11-05", "2025-11-25", "2025-06-18"} {
		Register(&Revision{Name: n, Methods: handshake})
	}
	// A stateless revision (no initialize) is newer but never negotiated.
	Register(&Revision{Name: "2026-07-28", Methods: []wire.Method{{Name: "tools/call"}}})
	Register(&Revision{Name: "2025-06-18", Batching: true}) // ignored: already there
	if r, _ := Lookup("2025-06-18"); r.Batching {
		t.Error("a second registration replaced the first")
	}
	tests := []struct {
		requested string
		supported []string
		want      string
	}{
		{"2025-06-18", nil, "2025-06-18"},
		{"2024-11-05", nil, "2024-11-05"},
		{"2024-10-07", nil, "2025-11-25"},
		{"2099-01-01", nil, "2025-11-25"},
		{"2025-11-25", []string{"2025-03-26", "2025-06-18"}, "2025-06-18"},
		{"2025-03-26", []string{"2025-03-26"}, "2025-03-26"},
		{"2026-07-28", nil, "2025-11-25"},
	}
	for _, tt := range tests {
		got := Negotiate(tt.requested, tt.supported)
		if got == nil || got.Name != tt.want {
			t.Errorf("Negotiate(%q, %v) = %v, want %s", tt.requested, tt.supported, got, tt.want)
		}
	}
	if got := Negotiate("2025-06-18", []string{"1999-01-01"}); got != nil {
		t.Errorf("Negotiate with nothing supported = %v, want nil", got.Name)
	}
	names := []string{}
	for _, r := range All() {
		names = append(names, r.Name)
	}
	if len(names) != 5 || names[0] != "2026-07-28" || names[3] != "2025-03-26" || names[4] != "2024-11-05" {
		t.Errorf("All() = %v, want newest first", names)
	}
}
