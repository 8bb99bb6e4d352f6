// Package urimatch matches resource URIs against RFC 6570 URI templates,
// the form of an MCP resource template's uriTemplate, and carries the
// variables a match bound to the handler that serves the read.
//
// Parsing and matching are github.com/yosida95/uritemplate/v3 (the library
// the official go-sdk and mcp-go use): all four levels of RFC 6570, with
// the limits of matching an expansion backwards (a query expression matches
// its variables in the template's order, and two adjacent expressions split
// their text the first way that fits). Matching runs a compiled automaton
// over the URI, without backtracking; URIs longer than MaxURI are not
// tried.
package urimatch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/yosida95/uritemplate/v3"
)

// MaxURI is the length in bytes above which Match does not try to match a
// URI.
const MaxURI = 16 << 10

// Template is a parsed URI template.
type Template struct {
	raw string
	t   *uritemplate.Template
}

// Parse parses an RFC 6570 URI template. The error names the template and
// what is wrong with it.
func Parse(template string) (*Template, error) {
	t, err := parse(template)
	if err != nil {
		return nil, fmt.Errorf("URI template %q: %w", template, err)
	}
	return &Template{raw: template, t: t}, nil
}

// parse calls the library, turning a panic of it into an error so that
// no template can crash a server.
func parse(s string) (t *uritemplate.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("%v", r)
		}
	}()
	t, err = uritemplate.New(s)
	if err != nil {
		err = plain(s, err)
	}
	return t, err
}

// plain rewrites the library's error text "MESSAGE: PREFIX" followed by
// a marker ('_' or '|'), where PREFIX is the part of the template read
// before the error, as "MESSAGE at byte N", N being the length of PREFIX:
// the offset (from 0) of the byte where reading stopped. Other errors are
// returned as they are.
func plain(template string, err error) error {
	msg := err.Error()
	if msg == "" || (msg[len(msg)-1] != '_' && msg[len(msg)-1] != '|') {
		return err
	}
	for i := len(msg) - 2; i >= 0; i-- {
		if i+2 <= len(msg)-1 && msg[i:i+2] == ": " && strings.HasPrefix(template, msg[i+2:len(msg)-1]) {
			return fmt.Errorf("%s at byte %d", msg[:i], len(msg)-1-(i+2))
		}
	}
	return err
}

// String returns the template as it was given.
func (t *Template) String() string { return t.raw }

// Match reports whether uri is an expansion of the template, and the
// values the template's variables take in it (percent-decoded).
func (t *Template) Match(uri string) (Vars, bool) {
	if len(uri) > MaxURI {
		return nil, false
	}
	vals := t.t.Match(uri)
	if vals == nil {
		return nil, false
	}
	vars := make(Vars, len(vals))
	for name, v := range vals {
		vars[name] = v.V
	}
	return vars, true
}

// Vars are the values of a template's variables in a URI it matched: one
// value for a simple variable, the elements of an exploded list or the
// alternating keys and values of an associative array otherwise. Like
// url.Values, it is a map with a Get for the common case.
type Vars map[string][]string

// Get returns the first value of the variable name, or "" when it has
// none.
func (v Vars) Get(name string) string {
	if vs := v[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

type varsKey struct{}

// NewContext returns a context carrying vars, for the handler of a read
// that a template matched.
func NewContext(ctx context.Context, vars Vars) context.Context {
	return context.WithValue(ctx, varsKey{}, vars)
}

// FromContext returns the variables NewContext put in ctx, or nil.
func FromContext(ctx context.Context) Vars {
	v, _ := ctx.Value(varsKey{}).(Vars)
	return v
}

// Router holds templates in the order they were added, each with a value
// (typically a handler), and finds the first one a URI matches. It is safe
// for concurrent use.
type Router[H any] struct {
	mu     sync.RWMutex
	routes []route[H]
}

type route[H any] struct {
	t *Template
	h H
}

// Add parses template and adds it, with h, after the templates already
// added. An error leaves the router as it was.
func (r *Router[H]) Add(template string, h H) error {
	t, err := Parse(template)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.routes = append(r.routes, route[H]{t: t, h: h})
	r.mu.Unlock()
	return nil
}

// Set is Add, except that a template added already (the same text) keeps
// its place and takes h as its value. It reports whether it replaced one.
func (r *Router[H]) Set(template string, h H) (replaced bool, err error) {
	t, err := Parse(template)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.routes {
		if r.routes[i].t.raw == template {
			r.routes[i] = route[H]{t: t, h: h}
			return true, nil
		}
	}
	r.routes = append(r.routes, route[H]{t: t, h: h})
	return false, nil
}

// Remove removes template (the same text as added), and reports whether
// it was there.
func (r *Router[H]) Remove(template string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.routes {
		if r.routes[i].t.raw == template {
			r.routes = slices.Delete(r.routes, i, i+1)
			return true
		}
	}
	return false
}

// Match returns the value of the first template uri matches, in the order
// they were added, with the variables it bound.
func (r *Router[H]) Match(uri string) (h H, vars Vars, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, rt := range r.routes {
		if vars, ok := rt.t.Match(uri); ok {
			return rt.h, vars, true
		}
	}
	return h, nil, false
}
