package session

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/revision"
)

// ErrUnknownRevision is wrapped by the error of CheckRevisions for a
// revision name that no package linked into the binary registered.
var ErrUnknownRevision = errors.New("unknown protocol revision")

// dateRE matches the form of a revision name, such as 2025-06-18.
var dateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// CheckRevisions checks names, the value of Options.Revisions, before a
// server or client is started with it: nil (every revision linked into the
// binary) is fine; so is a list whose every name is a linked revision. An
// empty list, which would allow none, and a name no linked package
// registered are errors that name the fault, list the revisions linked
// into the binary, and say what to do: for a name of the form YYYY-MM-DD,
// import its package (mcpgen ships github.com/mcpgen/mcpgen/protocol/mcp
// followed by the date without dashes); for any other, correct it. The
// error of an unknown name wraps ErrUnknownRevision.
//
// The generated packages' Serve and Connect, and the transports' servers
// (streamhttp.NewServer, ssehttp.NewServer), run it on the Options they are
// given.
func CheckRevisions(names []string) error {
	if names == nil {
		return nil
	}
	linked := linkedNames()
	if len(names) == 0 {
		return fmt.Errorf("Options.Revisions is empty, which allows no protocol revision: leave it nil for every revision linked into this binary (%s), or list some", linked)
	}
	var bad []string
	var hint string
	for _, n := range names {
		if _, ok := revision.Lookup(n); ok {
			continue
		}
		bad = append(bad, fmt.Sprintf("%q", n))
		if dateRE.MatchString(n) && hint == "" {
			hint = fmt.Sprintf("; to serve or speak %s, import its generated package (mcpgen ships it as github.com/mcpgen/mcpgen/protocol/mcp%s)", n, strings.ReplaceAll(n, "-", ""))
		}
	}
	if bad == nil {
		return nil
	}
	return fmt.Errorf("Options.Revisions: %w %s: the revisions linked into this binary are %s%s", ErrUnknownRevision, strings.Join(bad, ", "), linked, hint)
}

// linkedNames lists the names of the revisions linked into the binary,
// newest first, or says there are none.
func linkedNames() string {
	var names []string
	for _, r := range revision.All() {
		names = append(names, r.Name)
	}
	if names == nil {
		return "none (import a revision package, such as github.com/mcpgen/mcpgen/protocol/mcp20260728)"
	}
	return strings.Join(names, ", ")
}

// noHandshakeRevision says why a server has no revision to answer an
// initialize that asked for requested (none of the initialize era is both
// linked and allowed by supported, Options.Revisions), and what to do.
func noHandshakeRevision(requested string, supported []string) string {
	var linked []string
	for _, r := range revision.All() {
		if r.Handshake() {
			linked = append(linked, r.Name)
		}
	}
	if len(requested) > 32 {
		requested = requested[:32] + "…" // a peer's string, quoted back: bounded
	}
	msg := fmt.Sprintf("this server supports no protocol revision that begins with initialize (the client asked for %q): ", requested)
	if len(linked) == 0 {
		return msg + "none is linked into it; import a revision package of that era, such as github.com/mcpgen/mcpgen/protocol/mcp20251125 (a server built on github.com/mcpgen/mcpgen/protocol/mcp20260728 links them all)"
	}
	return msg + fmt.Sprintf("its Options.Revisions (%s) allows none of those linked into it (%s); add one to it, or leave it nil for all", strings.Join(supported, ", "), strings.Join(linked, ", "))
}
