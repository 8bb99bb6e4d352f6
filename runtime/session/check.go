package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/revision"
)

// ErrUnknownRevision is wrapped by the error of CheckRevisions for a
// revision name that no package linked into the binary registered.
var ErrUnknownRevision = errors.New("unknown protocol revision")

// CheckRevisions checks names, the value of Options.Revisions (a
// StandardServer's WithRevisions), before a server or client is started
// with it: nil (every revision linked into the binary) is fine; so is a
// list whose every name is a linked revision. An empty list, which would
// allow none, and a name no linked package registered are errors that name
// the fault, list the revisions linked into the binary, and say what to
// do: for a revision mcpgen ships but the binary does not link, import its
// package (revision.ShippedPackage); for any other, which mcpgen does not
// ship, correct it (the error lists the revisions mcpgen ships, and the
// nearest when the name looks like a misspelling of one). The error of an
// unknown name wraps ErrUnknownRevision.
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
		return fmt.Errorf("%s are empty, which allows no protocol revision: leave them nil for every revision linked into this binary (%s), or list some", revisionsOption, linked)
	}
	var bad, hints []string
	for _, n := range names {
		if _, ok := revision.Lookup(n); ok {
			continue
		}
		bad = append(bad, fmt.Sprintf("%q", n))
		if len(hints) < 3 {
			hints = append(hints, unknownHint(n))
		}
	}
	if bad == nil {
		return nil
	}
	return fmt.Errorf("%s: %w %s: the revisions linked into this binary are %s; %s", revisionsOption, ErrUnknownRevision, strings.Join(bad, ", "), linked, strings.Join(hints, "; "))
}

// revisionsOption names the option a server's or client's revisions are
// set with, in the errors about them.
const revisionsOption = "the revisions allowed (a server's WithRevisions, or session.Options.Revisions)"

// unknownHint says what to do about n, a revision the binary does not
// link: import its package when mcpgen ships one, else correct it.
func unknownHint(n string) string {
	if len(n) > 32 {
		n = n[:32] + "…"
	}
	if pkg, ok := revision.ShippedPackage(n); ok {
		return fmt.Sprintf("to serve or speak %s, import its package %s", n, pkg)
	}
	shipped := revision.Shipped()
	msg := fmt.Sprintf("mcpgen ships no revision %q (it ships %s)", n, strings.Join(shipped, ", "))
	if near := nearest(n, shipped); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", near)
	}
	return msg
}

// nearest returns the name of names that n differs from in one or two
// characters, at the same places, or "".
func nearest(n string, names []string) string {
	for _, c := range names {
		if len(c) != len(n) {
			continue
		}
		diff := 0
		for i := range len(c) {
			if c[i] != n[i] {
				diff++
			}
		}
		if diff <= 2 {
			return c
		}
	}
	return ""
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
// linked and allowed by supported, the server's revisions): peer is the
// error's message for the client, which states the fact (the revisions the
// server supports); log adds what the operator is to do, for the server's
// log only.
func noHandshakeRevision(requested string, supported []string) (peer, log string) {
	var linked, served []string
	for _, r := range revision.All() {
		if r.Handshake() {
			linked = append(linked, r.Name)
		}
		if supported == nil || slices.Contains(supported, r.Name) {
			served = append(served, r.Name)
		}
	}
	if len(requested) > 32 {
		requested = requested[:32] + "…" // a peer's string, quoted back: bounded
	}
	peer = fmt.Sprintf("unsupported protocol version %q: this server supports no revision that begins with initialize", requested)
	if len(served) > 0 {
		peer += fmt.Sprintf(" (it supports %s)", strings.Join(served, ", "))
	}
	log = fmt.Sprintf("this server supports no protocol revision that begins with initialize (the client asked for %q): ", requested)
	if len(linked) == 0 {
		return peer, log + "none is linked into it; import a revision package of that era, such as github.com/mcpgen/mcpgen/protocol/mcp20251125 (a server built on github.com/mcpgen/mcpgen/protocol/mcp20260728 links them all)"
	}
	return peer, log + fmt.Sprintf("the server's revisions (WithRevisions or session.Options.Revisions: %s) allow none of those linked into it (%s); add one of those, or leave them nil for all", strings.Join(supported, ", "), strings.Join(linked, ", "))
}
