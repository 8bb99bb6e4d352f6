// Package revision is the registry of protocol revisions linked into a
// binary. Each generated package registers its revision from an init
// function, so a session can negotiate any revision the binary has: a server
// built with several revision packages answers a client in the client's
// revision when it has it, otherwise in its newest.
package revision

import (
	"slices"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Revision describes one generated revision package.
type Revision struct {
	// Name is the revision, such as "2025-06-18".
	Name string
	// Batching reports whether the revision has JSON-RPC batches.
	Batching bool
	// Methods is the method table, sorted by name.
	Methods []wire.Method
	// New returns a new value of the schema definition called name.
	New func(name string) (wire.Codec, bool)
}

// Method returns the method called name.
func (r *Revision) Method(name string) (wire.Method, bool) {
	i, ok := slices.BinarySearchFunc(r.Methods, name, func(m wire.Method, n string) int { return strings.Compare(m.Name, n) })
	if !ok {
		return wire.Method{}, false
	}
	return r.Methods[i], true
}

// Find returns the method called name, or nil. The method is the table's:
// it must not be changed.
func (r *Revision) Find(name string) *wire.Method {
	i, ok := slices.BinarySearchFunc(r.Methods, name, func(m wire.Method, n string) int { return strings.Compare(m.Name, n) })
	if !ok {
		return nil
	}
	return &r.Methods[i]
}

var (
	mu  sync.RWMutex
	all []*Revision // newest first
)

// Register adds r to the registry. Generated packages call it from init;
// registering a revision twice keeps the first. The method names are interned
// for decoding (jsonrpc.InternMethods).
func Register(r *Revision) {
	mu.Lock()
	defer mu.Unlock()
	for _, x := range all {
		if x.Name == r.Name {
			return
		}
	}
	all = append(all, r)
	names := make([]string, len(r.Methods))
	for i, m := range r.Methods {
		names[i] = m.Name
	}
	jsonrpc.InternMethods(names...)
	// Revision names are dates: newest first is descending order.
	slices.SortFunc(all, func(a, b *Revision) int { return strings.Compare(b.Name, a.Name) })
}

// All returns the registered revisions, newest first.
func All() []*Revision {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(all)
}

// Lookup returns the registered revision called name.
func Lookup(name string) (*Revision, bool) {
	mu.RLock()
	defer mu.RUnlock()
	for _, r := range all {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// Handshake reports whether sessions of r begin with initialize: the
// revisions before 2026-07-28. A revision without it is stateless and is
// never negotiated by initialize.
func (r *Revision) Handshake() bool {
	_, ok := r.Method("initialize")
	return ok
}

// Negotiate picks the revision to answer a client that asked for requested
// in initialize: requested itself when it is among supported,
// otherwise the newest of supported. supported lists revision names; nil
// means every registered one. Only revisions with the initialize handshake
// take part. It returns nil when nothing is supported.
func Negotiate(requested string, supported []string) *Revision {
	var newest *Revision
	for _, r := range All() {
		if supported != nil && !slices.Contains(supported, r.Name) || !r.Handshake() {
			continue
		}
		if r.Name == requested {
			return r
		}
		if newest == nil {
			newest = r
		}
	}
	return newest
}

// shipped lists the revisions mcpgen ships a package for, oldest first:
// github.com/mcpgen/mcpgen/protocol/mcp followed by the date without
// dashes. A test of package protocol keeps it in step with the packages.
var shipped = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// Shipped returns the revisions mcpgen ships a generated package for,
// oldest first, whether or not they are linked into the binary.
func Shipped() []string { return slices.Clone(shipped) }

// ShippedPackage returns the import path of the package mcpgen ships for
// the revision name, such as github.com/mcpgen/mcpgen/protocol/mcp20250618,
// and whether it ships one.
func ShippedPackage(name string) (string, bool) {
	if !slices.Contains(shipped, name) {
		return "", false
	}
	return "github.com/mcpgen/mcpgen/protocol/mcp" + strings.ReplaceAll(name, "-", ""), true
}
