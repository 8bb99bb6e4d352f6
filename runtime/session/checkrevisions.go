package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/revision"
)

// CheckRevisions checks the revision names of an Options.Revisions: each
// must be a revision linked into the binary. It returns nil for none (nil
// or empty), and otherwise an error naming the first unknown name and the
// revisions the binary links, and, for a name that has the form of a
// revision (YYYY-MM-DD), the package to import for it. A client's Connect
// calls it, so that a mistyped revision is refused by name rather than
// failing the handshake for a reason that does not say so.
func CheckRevisions(names []string) error {
	if len(names) == 0 {
		return nil
	}
	var known []string
	for _, r := range revision.All() {
		known = append(known, r.Name)
	}
	slices.Sort(known)
	for _, n := range names {
		if slices.Contains(known, n) {
			continue
		}
		list := "none"
		if len(known) > 0 {
			list = strings.Join(known, ", ")
		}
		if revisionLike(n) {
			return fmt.Errorf("Options.Revisions: revision %q is not linked into this binary (linked: %s): import github.com/mcpgen/mcpgen/protocol/mcp%s, or every revision with github.com/mcpgen/mcpgen/protocol/revisions", n, list, strings.ReplaceAll(n, "-", ""))
		}
		return fmt.Errorf("Options.Revisions: unknown protocol revision %q; the revisions linked into this binary are %s", n, list)
	}
	return nil
}

// revisionLike reports whether name has the form of a revision name, a
// date YYYY-MM-DD.
func revisionLike(name string) bool {
	if len(name) != len("2006-01-02") {
		return false
	}
	for i, c := range []byte(name) {
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}
