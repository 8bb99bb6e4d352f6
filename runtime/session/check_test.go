package session_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	_ "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

func TestCheckRevisions(t *testing.T) {
	for _, tt := range []struct {
		name    string
		names   []string
		unknown bool     // the error wraps ErrUnknownRevision
		want    []string // what the error says; none: no error
	}{
		{"nil: every linked revision", nil, false, nil},
		{"linked", []string{"2025-11-25", "2026-07-28"}, false, nil},
		{"empty", []string{}, false, []string{"Options.Revisions is empty", "leave it nil", "2026-07-28, 2025-11-25"}},
		{"not a revision", []string{"2025-11-25", "bogus"}, true, []string{`"bogus"`, "linked into this binary are 2026-07-28, 2025-11-25"}},
		{"well-formed, not linked", []string{"1999-01-01"}, true, []string{`"1999-01-01"`, "import its generated package", "protocol/mcp19990101"}},
		{"several", []string{"x", "2026-07-28", "y"}, true, []string{`"x", "y"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := session.CheckRevisions(tt.names)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckRevisions(%q) = %v, want nil", tt.names, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckRevisions(%q) = nil, want an error", tt.names)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if got := errors.Is(err, session.ErrUnknownRevision); got != tt.unknown {
				t.Errorf("errors.Is(err, ErrUnknownRevision) = %v, want %v", got, tt.unknown)
			}
		})
	}
}

func ExampleCheckRevisions() {
	// In a binary that links 2025-11-25 and 2026-07-28 (and maybe more):
	fmt.Println(session.CheckRevisions([]string{"2025-11-25"}))
	err := session.CheckRevisions([]string{"2025-11-52"})
	fmt.Println(errors.Is(err, session.ErrUnknownRevision))
	// Output:
	// <nil>
	// true
}
