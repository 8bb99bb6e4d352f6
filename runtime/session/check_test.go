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
		{"empty", []string{}, false, []string{"WithRevisions, or session.Options.Revisions) are empty", "leave them nil", "2026-07-28, 2025-11-25"}},
		{"not a revision", []string{"2025-11-25", "bogus"}, true, []string{`"bogus"`, "linked into this binary are 2026-07-28, 2025-11-25"}},
		{"well-formed, not shipped", []string{"2025-13-01"}, true, []string{`mcpgen ships no revision "2025-13-01" (it ships 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`}},
		{"a misspelling", []string{"2025-11-52"}, true, []string{`mcpgen ships no revision "2025-11-52"`, "did you mean 2025-11-25?"}},
		{"several", []string{"x", "2026-07-28", "y"}, true, []string{`"x", "y"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := session.CheckRevisions(tt.names)
			if err != nil && strings.Contains(err.Error(), "protocol/mcp20251301") {
				t.Errorf("error %q suggests a package mcpgen does not ship", err)
			}
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

// The advice for a revision the binary does not link: import the package
// of one mcpgen ships; never suggest a package of one it does not ship.
func TestUnknownRevisionHint(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string
	}{
		{"2025-06-18", "to serve or speak 2025-06-18, import its package github.com/mcpgen/mcpgen/protocol/mcp20250618"},
		{"2025-13-01", `mcpgen ships no revision "2025-13-01" (it ships 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`},
		{"2025-11-52", `mcpgen ships no revision "2025-11-52" (it ships 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28): did you mean 2025-11-25?`},
		{"bogus", `mcpgen ships no revision "bogus" (it ships 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := session.UnknownHint(tt.name); got != tt.want {
				t.Errorf("hint for %q = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}
