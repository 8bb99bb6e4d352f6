package session

import (
	"bytes"
	"sync/atomic"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// StatelessParams is what a server reads of the params of a stateless
// request (2026-07-28 on), found in one scan of them by ScanParams: the
// members of _meta that make its envelope (the revision, the client's
// capabilities, the log level, the progress token), the members its HTTP
// headers mirror (see mcpheader), and the input of a retry (requestState,
// inputResponses). The Streamable HTTP server scans a request once, checks
// its headers with the StatelessParams and passes it on to
// Stateless.ServeParams, which reads nothing of the params again; the
// digest that binds a requestState to them is computed at most once per
// request, too.
//
// A StatelessParams is used by one request at a time.
type StatelessParams struct {
	method string
	params jsontext.Value

	meta, version, caps, logLevel, progress jsontext.Value
	hasMeta, hasVersion, hasLogLevel        bool
	name, arguments                         jsontext.Value
	requestState, inputResponses            jsontext.Value
	hasRequestState, hasInputResponses      bool

	versionString string // ProtocolVersion's answer, once versionMade
	versionMade   bool

	digested  bool
	digest    [32]byte
	digestErr error
}

// scanCount and digestCount, when set, count the scans of params and the
// digests of them, for the tests that prove each request is scanned once
// and digested at most once (see export_test.go).
var scanCount, digestCount atomic.Pointer[atomic.Int64]

// ScanParams reads, in one scan of m's params, what the server needs of a
// stateless request with them. Like the decoder that read m, it assumes
// params are valid JSON (a request decoded by package jsonrpc is); it does
// not fail, and on anything else it finds what it can.
func ScanParams(m *jsonrpc.Message) *StatelessParams {
	p := &StatelessParams{}
	p.scan(m.Method, m.Params)
	return p
}

func (p *StatelessParams) scan(method string, params jsontext.Value) {
	if c := scanCount.Load(); c != nil {
		c.Add(1)
	}
	*p = StatelessParams{method: method, params: params}
	field := mcpheader.NameField(method)
	ms := wire.ScanMembers(params)
	for ms.Next() {
		v := ms.Value()
		switch {
		case ms.NameIs("_meta"):
			if !p.hasMeta {
				p.meta, p.hasMeta = v, true
				p.scanMeta(v)
			}
		case field != "" && p.name == nil && ms.NameIs(field):
			p.name = v
		case method == "tools/call" && p.arguments == nil && ms.NameIs("arguments"):
			p.arguments = v
		case !p.hasRequestState && ms.NameIs("requestState"):
			p.requestState, p.hasRequestState = v, true
		case !p.hasInputResponses && ms.NameIs("inputResponses"):
			p.inputResponses, p.hasInputResponses = v, true
		}
	}
}

// scanMeta reads the members of _meta.
func (p *StatelessParams) scanMeta(meta jsontext.Value) {
	ms := wire.ScanMembers(meta)
	for ms.Next() {
		v := ms.Value()
		switch {
		case !p.hasVersion && ms.NameIs(MetaProtocolVersion):
			p.version, p.hasVersion = v, true
		case p.caps == nil && ms.NameIs(MetaClientCapabilities):
			p.caps = v
		case !p.hasLogLevel && ms.NameIs(MetaLogLevel):
			p.logLevel, p.hasLogLevel = v, true
		case p.progress == nil && ms.NameIs("progressToken"):
			p.progress = v
		}
	}
}

// of returns p if it was scanned from params (the same bytes, as a
// middleware that leaves a request alone passes them on), else a scan of
// params.
func (p *StatelessParams) of(params jsontext.Value) *StatelessParams {
	if p != nil && sameBytes(p.params, params) {
		return p
	}
	q := &StatelessParams{}
	q.scan(p.methodOr(""), params)
	return q
}

func (p *StatelessParams) methodOr(def string) string {
	if p == nil {
		return def
	}
	return p.method
}

// sameBytes reports whether a and b are the same slice of the same array.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// ClaimsModern reports whether the params carry a _meta revision, which
// makes the request a stateless one (see the function ClaimsModern).
func (p *StatelessParams) ClaimsModern() bool { return p.hasVersion }

// ProtocolVersion returns the revision _meta names, as MemberString reads
// it, and whether _meta has one.
func (p *StatelessParams) ProtocolVersion() (string, bool) {
	if !p.hasVersion {
		return "", false
	}
	if !p.versionMade {
		p.versionString, p.versionMade = versionString(p.version), true
	}
	return p.versionString, true
}

// Mirrored returns the members of the params that HTTP headers mirror:
// name is the member mcpheader.NameField names for the method (nil when
// absent or when the method has none), arguments the arguments of a
// tools/call (nil otherwise). They are what mcpheader.CheckMembers takes.
func (p *StatelessParams) Mirrored() (name, arguments jsontext.Value) {
	return p.name, p.arguments
}

// progressToken returns _meta's progress token, as progressToken reads it.
func (p *StatelessParams) progressToken() wire.ID {
	if p.progress == nil {
		return wire.ID{}
	}
	var id wire.ID
	if wire.Unmarshal(p.progress, &id) != nil {
		return wire.ID{}
	}
	return id
}

// paramsDigest returns reqstate.ParamsDigest of the params, computing it
// once.
func (p *StatelessParams) paramsDigest() ([32]byte, error) {
	if !p.digested {
		if c := digestCount.Load(); c != nil {
			c.Add(1)
		}
		p.digest, p.digestErr = reqstate.ParamsDigest(p.params)
		p.digested = true
	}
	return p.digest, p.digestErr
}

// stringOf returns the JSON value v as wire.MemberString does: a string
// unquoted, anything else as its JSON text.
func stringOf(v jsontext.Value) string {
	if len(v) == 0 || v[0] != '"' {
		return string(v)
	}
	if len(v) >= 2 && v[len(v)-1] == '"' {
		if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return string(inner)
		}
	}
	u, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return string(v)
	}
	return string(u)
}

// revisionNames holds the names of the registered revisions, so that a
// request's revision is read without allocating a string (see
// versionString).
var revisionNames atomic.Pointer[[]string]

// versionString is stringOf for _meta's revision: the name of a registered
// revision is that revision's own string, not a copy.
func versionString(v jsontext.Value) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		inner := v[1 : len(v)-1]
		if names := revisionNames.Load(); names != nil {
			for _, n := range *names {
				if string(inner) == n {
					return n
				}
			}
		}
	}
	s := stringOf(v)
	if _, ok := revision.Lookup(s); ok {
		// Registered since the list was made (or the list is not made
		// yet): make it again.
		var names []string
		for _, r := range revision.All() {
			names = append(names, r.Name)
		}
		revisionNames.Store(&names)
	}
	return s
}
