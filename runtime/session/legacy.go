package session

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file is the bridge that lets a handler of the stateless era
// (2026-07-28 on) serve legacy sessions (initialize, up to 2025-11-25): the
// engine answers initialize from the handler's server/discover, gives the
// handler params in its own revision (the session's revision and the
// client's capabilities in _meta, as a stateless request would carry
// them), converts results down to the session's revision, keeps
// resources/subscribe itself, and turns the handler's requests for input
// into real requests to the client.

// modernParams gives a legacy session's request params the _meta of a
// stateless request: the session's revision and the client's capabilities.
func (s *Session) modernParams(params jsontext.Value) (jsontext.Value, error) {
	s.mu.Lock()
	rev, caps := s.rev, s.peerCaps
	s.mu.Unlock()
	if params == nil {
		params = jsontext.Value(`{}`)
	}
	meta, _ := wire.Member(params, "_meta")
	if meta == nil {
		meta = jsontext.Value(`{}`)
	}
	q, _ := jsontext.AppendQuote(nil, rev.Name)
	meta, err := wire.SetMember(meta, MetaProtocolVersion, q)
	if err != nil {
		return nil, err
	}
	if caps == nil {
		caps = jsontext.Value(`{}`)
	}
	if meta, err = wire.SetMember(meta, MetaClientCapabilities, caps); err != nil {
		return nil, err
	}
	return wire.SetMember(params, "_meta", meta)
}

// initializeModern makes the answer to a legacy client's initialize from
// the handler's server/discover: its capabilities, instructions and the
// server's identity, in the negotiated revision.
func (s *Session) initializeModern(ctx context.Context, rev *revision.Revision, md *wire.Method) (wire.Appender, *jsonrpc.Error) {
	params, err := s.modernParams(nil)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "initialize: %v", err)
	}
	res, err := s.handler.HandleRequest(ctx, s, "server/discover", params)
	if err != nil {
		return nil, asJSONRPC(err)
	}
	d, err := res.AppendJSON(nil)
	if err != nil {
		return nil, resultError("server/discover", err)
	}
	caps, _ := wire.Member(d, "capabilities")
	if caps == nil {
		caps = jsontext.Value(`{}`)
	}
	meta, _ := wire.Member(d, "_meta")
	info, ok := wire.Member(meta, MetaServerInfo)
	if !ok {
		if si, ok := s.handler.(ServerInfoHandler); ok {
			info = si.ServerInfo()
		}
	}
	if info == nil {
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "initialize: the server does not name itself (no %s in server/discover's _meta)", MetaServerInfo)
	}
	out := jsontext.Value(`{}`)
	q, _ := jsontext.AppendQuote(nil, rev.Name)
	out, _ = wire.SetMember(out, "protocolVersion", q)
	out, _ = wire.SetMember(out, "capabilities", caps)
	out, _ = wire.SetMember(out, "serverInfo", info)
	if instr, ok := wire.Member(d, "instructions"); ok {
		out, _ = wire.SetMember(out, "instructions", instr)
	}
	b, err := s.toNegotiated(*md, out)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "initialize: %v", err)
	}
	return rawAppender(b), nil
}

// subscription answers resources/subscribe and resources/unsubscribe on a
// legacy session whose handler's revision has no such methods, and reports
// whether it did: the engine keeps the session's subscriptions and tells
// it of the updates the handler's Bus carries.
func (s *Session) subscription(m *jsonrpc.Message, reply replier) bool {
	if !s.keepsSubscription(m.Method) {
		return false
	}
	uri, _ := wire.MemberString(m.Params, "uri")
	s.mu.Lock()
	changed := s.subs[uri] != (m.Method == "resources/subscribe")
	if m.Method == "resources/subscribe" {
		if s.subs == nil {
			s.subs = map[string]bool{}
		}
		s.subs[uri] = true
	} else {
		delete(s.subs, uri)
	}
	s.mu.Unlock()
	if changed {
		s.legacyChanged()
	}
	s.answer(reply, &jsonrpc.Message{Kind: jsonrpc.Response, ID: m.ID, Result: jsontext.Value("{}")})
	return true
}

// keepsSubscription reports whether the engine answers method itself (see
// subscription).
func (s *Session) keepsSubscription(method string) bool {
	return (method == "resources/subscribe" || method == "resources/unsubscribe") && s.handler.Revision().Find(method) == nil
}

// follow tells a legacy session of the events of its handler's Bus that it
// may hear of: the list changes the server declared it announces, and
// updates of the resources the client subscribed to. An idle session costs
// no goroutine for it: the Bus's callback queues the event, and a sender
// runs only while events wait (see follower). The subscription ends with
// the session's reading (end calls it).
func (s *Session) follow() {
	b, ok := s.handler.(busHolder)
	if !ok || b.Bus() == nil {
		return
	}
	cancel := b.Bus().Subscribe(s.heard)
	s.mu.Lock()
	ending := s.state == stateClosed
	if !ending {
		s.unfollow = cancel // called by end
	}
	s.mu.Unlock()
	if ending {
		cancel()
	}
}

// heard is the Bus's callback of follow: it queues ev for the session's
// follower, made by the first event the session hears.
func (s *Session) heard(ev Event) {
	if !s.hears(ev) {
		return
	}
	s.mu.Lock()
	f := s.fol
	if f == nil {
		f = &follower{s: s}
		s.fol = f
	}
	s.mu.Unlock()
	f.put(ev)
}

// follower holds the events of a Bus that a legacy session is to be told
// of, each once: a change announced twice before it was sent is sent once.
// A goroutine sends them while there are any, and ends when none is left.
type follower struct {
	s       *Session
	mu      sync.Mutex
	pending []Event
	sending bool // a goroutine runs send
}

// put queues ev, starting a sender if none runs. It does not block: it
// runs on the publisher's goroutine.
func (f *follower) put(ev Event) {
	f.mu.Lock()
	if !slices.ContainsFunc(f.pending, ev.same) {
		f.pending = append(f.pending, ev)
	}
	start := !f.sending
	f.sending = true
	f.mu.Unlock()
	if start {
		go f.send()
	}
}

// send notifies the session of the queued events, in order, until none is
// left or the session has stopped reading.
func (f *follower) send() {
	s := f.s
	for {
		f.mu.Lock()
		evs := f.pending
		f.pending = nil
		if len(evs) == 0 || s.readCtx().Err() != nil {
			f.sending = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		for _, ev := range evs {
			var params wire.Appender
			if ev.Method == ResourceUpdated {
				params = rawAppender(ev.params())
			}
			if err := s.Notify(s.readCtx(), ev.Method, params); err != nil {
				s.log.Debug("mcp: event not sent", "method", ev.Method, "err", err)
			}
		}
	}
}

// hears reports whether the session may be told of ev.
func (s *Session) hears(ev Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Method {
	case ToolsListChanged:
		return HasCapability(s.ownCaps, "tools.listChanged")
	case PromptsListChanged:
		return HasCapability(s.ownCaps, "prompts.listChanged")
	case ResourcesListChanged:
		return HasCapability(s.ownCaps, "resources.listChanged")
	case ResourceUpdated:
		return s.subs[ev.URI]
	}
	return false
}

// handle calls the handler for a request of the peer. On a server, a
// handler that asks for input by returning an *InputRequiredError gets it
// fetched from the client and runs again (bridgeInput).
func (s *Session) handle(ctx context.Context, md *wire.Method, params jsontext.Value) (wire.Appender, error) {
	if _, ok := s.handler.(ExtensionHandler); ok && s.Revision() != nil && s.Revision().Find(md.Name) == nil {
		if x, _ := findExtension(s.handler, md.Name); x != nil {
			return x.HandleRequest(ctx, s, md.Name, params)
		}
	}
	res, err := s.handler.HandleRequest(ctx, s, md.Name, params)
	if err == nil || s.role != Server {
		return res, err
	}
	// Declared only here: errors.As moves ir to the heap, a cost for
	// failed calls only.
	var ir *InputRequiredError
	if !errors.As(err, &ir) {
		return res, err
	}
	return s.bridgeInput(ctx, func(ctx context.Context) (wire.Appender, error) {
		return s.handler.HandleRequest(ctx, s, md.Name, params)
	}, ir)
}

// stripModernMeta removes from a result's _meta what only the stateless
// era has (the server's identity), for a legacy session.
func stripModernMeta(b []byte) []byte {
	meta, ok := wire.Member(b, "_meta")
	if !ok || !wire.Has(meta, MetaServerInfo) {
		return b
	}
	var m map[string]jsontext.Value
	if wire.DecodeValue(meta, &m) != nil {
		return b
	}
	delete(m, MetaServerInfo)
	var out []byte
	if len(m) == 0 {
		out, _ = removeMember(b, "_meta")
	} else {
		nm, err := encodeSorted(m)
		if err != nil {
			return b
		}
		out, _ = wire.SetMember(b, "_meta", nm)
	}
	if out == nil {
		return b
	}
	return out
}

// removeMember returns the object v without its member name, nil on error.
func removeMember(v jsontext.Value, name string) (jsontext.Value, error) {
	out, err := wire.DeleteMembers(v, name)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// encodeSorted encodes an object with its members sorted by name.
func encodeSorted(m map[string]jsontext.Value) (jsontext.Value, error) {
	return json.Marshal(m, json.Deterministic(true))
}
