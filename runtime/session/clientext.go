package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file is the client side of extensions (Extension is the server
// side): a client declares the extensions it uses, may call their
// methods, and completes the results of theirs that are not complete yet
// (a task of the Tasks extension) through a ResultFollower.

// ClientExtension is an MCP extension a client uses (such as the Tasks
// extension's client side, protocol/ext/tasks): a client whose
// Options.Extensions has it declares it under
// capabilities.extensions[ID()] (in every stateless request's _meta), and
// may call the requests it adds (Methods). See
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
// for capability negotiation.
type ClientExtension interface {
	// ID is the extension's identifier, such as
	// "io.modelcontextprotocol/tasks".
	ID() string
	// Capability is the JSON object the client declares under
	// capabilities.extensions[ID()], usually {}; nil declares {}.
	Capability() jsontext.Value
	// Methods are the table entries of the requests the extension adds
	// that a client sends (Direction ClientToServer). Others are ignored.
	Methods() []wire.Method
}

// ResultFollower is an optional interface of a ClientExtension whose
// results the client completes itself: a result of a client of the
// stateless era whose resultType is ResultType (the Tasks extension's
// "task") is given to FollowResult, which returns the complete result the
// call returns in its place (one whose resultType is "complete"), or the
// call's error. Only one extension may follow a resultType, and neither
// "complete" nor "input_required", which the session completes itself.
//
// WithoutFollow makes a call return such a result as it is, for callers
// that follow it themselves.
type ResultFollower interface {
	ClientExtension
	// ResultType is the resultType the extension follows, such as "task".
	ResultType() string
	// FollowResult completes result, the answer of s to the request method
	// sent with params (as sent: with the client's _meta). It runs on the
	// caller's goroutine with the call's ctx; it may call s (the
	// extension's own methods, AnswerInput).
	FollowResult(ctx context.Context, s *Session, method string, params, result jsontext.Value) (jsontext.Value, error)
}

// WithoutFollow makes a call return a result that a ResultFollower of the
// client would complete (a task, for the Tasks extension) as it is,
// instead of following it. Other results are not affected.
func WithoutFollow() CallOption {
	return func(o *callOptions) { o.noFollow = true }
}

// checkClientExtensions checks Options.Extensions of a client: no nil
// entry, an ID each, IDs unique, no method of the handler's revision, no
// resultType followed twice or one the session completes itself.
func (s *Session) checkClientExtensions() error {
	rev := s.handler.Revision()
	ids := map[string]bool{}
	followed := map[string]string{}
	for i, x := range s.opts.Extensions {
		if x == nil {
			return fmt.Errorf("Options.Extensions[%d] is nil", i)
		}
		id := x.ID()
		if id == "" {
			return fmt.Errorf("Options.Extensions[%d] has no ID", i)
		}
		if ids[id] {
			return fmt.Errorf("Options.Extensions[%d]: extension %s is there twice", i, id)
		}
		ids[id] = true
		if c := x.Capability(); len(c) > 0 && c.Kind() != '{' {
			return fmt.Errorf("Options.Extensions[%d]: extension %s: its capability is not a JSON object", i, id)
		}
		for _, m := range x.Methods() {
			if rev != nil && rev.Find(m.Name) != nil {
				return fmt.Errorf("Options.Extensions[%d]: extension %s: method %s is one of revision %s's own", i, id, m.Name, rev.Name)
			}
		}
		if f, ok := x.(ResultFollower); ok {
			rt := f.ResultType()
			switch {
			case rt == "" || rt == "complete" || rt == "input_required":
				return fmt.Errorf("Options.Extensions[%d]: extension %s cannot follow resultType %q", i, id, rt)
			case followed[rt] != "":
				return fmt.Errorf("Options.Extensions[%d]: extension %s follows resultType %q, which extension %s follows already", i, id, rt, followed[rt])
			}
			followed[rt] = id
		}
	}
	return nil
}

// withClientExtensions returns the client's capabilities caps (an object)
// with capabilities.extensions[id] set for each of Options.Extensions
// whose id caps does not declare already (what the caller set wins).
func (s *Session) withClientExtensions(caps jsontext.Value) (jsontext.Value, error) {
	if len(s.opts.Extensions) == 0 {
		return caps, nil
	}
	exts, ok := wire.Member(caps, "extensions")
	if !ok || exts.Kind() != '{' {
		exts = jsontext.Value(`{}`)
	}
	for _, x := range s.opts.Extensions {
		if wire.Has(exts, x.ID()) {
			continue
		}
		c := x.Capability()
		if len(c) == 0 {
			c = jsontext.Value(`{}`)
		}
		var err error
		if exts, err = wire.SetMember(exts, x.ID(), c); err != nil {
			return nil, fmt.Errorf("capabilities.extensions[%q]: %w", x.ID(), err)
		}
	}
	return wire.SetMember(caps, "extensions", exts)
}

// clientExtensionMethod returns the table entry of method when one of the
// client's extensions adds it as a request the client sends and the
// session speaks a revision with extensions (a client of the stateless
// era, or a session whose revision has capabilities.extensions), or nil.
func (s *Session) clientExtensionMethod(method string) *wire.Method {
	if s.role != Client || len(s.opts.Extensions) == 0 {
		return nil
	}
	s.mu.Lock()
	mc, rev := s.mc, s.rev
	s.mu.Unlock()
	if mc == nil && !hasExtensions(rev) {
		return nil
	}
	for _, x := range s.opts.Extensions {
		for _, m := range x.Methods() {
			if m.Name == method && !m.Notification && m.Direction&wire.ClientToServer != 0 {
				return &m
			}
		}
	}
	return nil
}

// resultFollower returns the client's extension that follows resultType rt, or
// nil.
func (s *Session) resultFollower(rt string) ResultFollower {
	if s.role != Client {
		return nil
	}
	for _, x := range s.opts.Extensions {
		if f, ok := x.(ResultFollower); ok && f.ResultType() == rt {
			return f
		}
	}
	return nil
}

// followResult has the extension that follows resultType rt complete raw, the
// result of method, unless the call asked not to (WithoutFollow); ok is
// false when no extension follows rt.
func (s *Session) followResult(ctx context.Context, rt, method string, params, raw jsontext.Value, o callOptions) (res jsontext.Value, ok bool, err error) {
	f := s.resultFollower(rt)
	if f == nil {
		return nil, false, nil
	}
	if o.noFollow {
		return raw, true, nil
	}
	res, err = f.FollowResult(ctx, s, method, params, raw)
	if err != nil {
		return nil, true, err
	}
	if got, _ := wire.MemberString(res, "resultType"); got != "complete" {
		return nil, true, fmt.Errorf("%s: extension %s followed a result of resultType %q to one of resultType %q, not a complete result", method, f.ID(), rt, got)
	}
	return res, true, nil
}

// AnswerInput has the client's handler answer input requests the server
// sent outside a multi round-trip result (a task of the Tasks extension
// asking for input), as it answers the inputRequests of an
// InputRequiredResult: reqs holds each request ({"method": …, "params":
// …}) by its key, and the answers come back by the same keys. A request
// that is not an input request of the handler's revision, or that needs a
// capability the client did not declare (an elicitation mode included),
// is refused with an error naming its key, and so is a failure of the
// handler; nothing is answered then. Each answer passes through
// Options.Middleware as an incoming request does. Keys are answered in
// sorted order, one at a time.
func (s *Session) AnswerInput(ctx context.Context, reqs map[string]jsontext.Value) (map[string]jsontext.Value, error) {
	if !s.clientOfModern() {
		return nil, errors.New("AnswerInput: only a client whose handler speaks the stateless era answers input requests")
	}
	keys := slices.Sorted(maps.Keys(reqs))
	answers := make(map[string]jsontext.Value, len(reqs))
	for _, k := range keys {
		req := reqs[k]
		if req.Kind() != '{' {
			return nil, fmt.Errorf("/inputRequests/%s: not a JSON object", k)
		}
		a, err := s.answerOne(ctx, k, req)
		if err != nil {
			return nil, err
		}
		answers[k] = a
	}
	return answers, nil
}

// UsesExtension reports whether the client uses the extension id: one of
// its Options.Extensions has that ID. (A server's are its handler's; on a
// server it reports false.)
func (s *Session) UsesExtension(id string) bool {
	if s.role != Client {
		return false
	}
	return slices.ContainsFunc(s.opts.Extensions, func(x ClientExtension) bool { return x != nil && x.ID() == id })
}
