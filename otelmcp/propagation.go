package otelmcp

import (
	"bytes"
	"context"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"go.opentelemetry.io/otel/propagation"
)

// metaOf returns the params' _meta object, if there is one.
func metaOf(params jsontext.Value) (jsontext.Value, bool) {
	meta, ok := wire.Member(params, "_meta")
	if !ok || meta.Kind() != '{' {
		return nil, false
	}
	return meta, true
}

// metaCarrier reads a propagator's fields from a _meta object: each is a
// string member of it (traceparent, tracestate, baggage for the W3C
// propagators). Members of another type read as absent.
type metaCarrier struct{ meta jsontext.Value }

// Get returns the string member key.
func (c metaCarrier) Get(key string) string {
	s, _ := stringMember(c.meta, key)
	return s
}

// Set does nothing: the carrier is read only.
func (metaCarrier) Set(string, string) {}

// Keys returns the names of the object's members.
func (c metaCarrier) Keys() []string {
	var keys []string
	dec := jsontext.NewDecoder(bytesReader(c.meta))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return keys
		}
		keys = append(keys, tok.String())
		if err := dec.SkipValue(); err != nil {
			return keys
		}
	}
	return keys
}

// mapCarrier collects what a propagator injects: the W3C propagators set
// up to three fields, which fit in its arrays without allocating more.
type mapCarrier struct {
	keys, values []string
	kbuf, vbuf   [3]string
}

func (c *mapCarrier) Get(key string) string {
	if i := slices.Index(c.keys, key); i >= 0 {
		return c.values[i]
	}
	return ""
}

func (c *mapCarrier) Set(key, value string) {
	if i := slices.Index(c.keys, key); i >= 0 {
		c.values[i] = value
		return
	}
	c.keys = append(c.keys, key)
	c.values = append(c.values, value)
}

func (c *mapCarrier) Keys() []string { return c.keys }

// inject returns params with the context of ctx in its _meta object, as
// prop gives it, keeping every other member of _meta (the injected ones
// replace members of the same name); ok is false when prop had nothing to
// inject (no valid span context, no baggage) or params are not an object,
// and params are then to be sent as they are.
func inject(ctx context.Context, prop propagation.TextMapPropagator, params jsontext.Value) (jsontext.Value, bool) {
	c := &mapCarrier{}
	c.keys, c.values = c.kbuf[:0], c.vbuf[:0]
	prop.Inject(ctx, c)
	if len(c.keys) == 0 || (len(params) > 0 && params.Kind() != '{') {
		return params, false
	}
	size := 2
	for i, k := range c.keys {
		size += len(k) + len(c.values[i]) + 6
	}
	ours := make([]byte, 0, size)
	ours = append(ours, '{')
	for i, k := range c.keys {
		if i > 0 {
			ours = append(ours, ',')
		}
		var err error
		if ours, err = jsontext.AppendQuote(ours, k); err != nil {
			return params, false
		}
		ours = append(ours, ':')
		if ours, err = jsontext.AppendQuote(ours, c.values[i]); err != nil {
			return params, false
		}
	}
	ours = append(ours, '}')
	if len(params) == 0 {
		out := make([]byte, 0, len(ours)+10)
		out = append(out, `{"_meta":`...)
		return append(append(out, ours...), '}'), true
	}
	theirs, ok := metaOf(params)
	if !ok && !wire.Has(params, "_meta") {
		// The usual case: params without _meta get ours as their first
		// member.
		i := skipSpace(params, skipSpace(params, 0)+1) // past the '{'
		if i >= len(params) {
			return params, false
		}
		out := make([]byte, 0, len(params)+len(ours)+10)
		out = append(out, `{"_meta":`...)
		out = append(out, ours...)
		if params[i] != '}' {
			out = append(out, ',')
		}
		return append(out, params[i:]...), true
	}
	meta := jsontext.Value(ours)
	if ok {
		var err error
		if meta, err = wire.MergeMembers(meta, theirs); err != nil {
			return params, false
		}
	}
	out, err := wire.SetMember(params, "_meta", meta)
	if err != nil {
		return params, false
	}
	return out, true
}

// bytesReader reads b.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// skipSpace returns the index of the first byte of b at or after i that is
// no JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
