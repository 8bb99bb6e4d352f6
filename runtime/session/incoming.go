package session

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// request handles a request from the peer: on a worker goroutine, or on the
// calling one when inline is set. vals, when not nil, gives the values of
// its handler's context (see ItemPusher).
func (s *Session) request(vals valuer, m *jsonrpc.Message, inline bool, reply replier) {
	fail := func(code int64, format string, args ...any) {
		s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}))
	}
	if s.modern {
		s.mu.Lock()
		st := s.state
		s.mu.Unlock()
		// Before initialize, a server that speaks the stateless era serves
		// requests statelessly: every request must carry its
		// revision in _meta, except initialize, which starts a
		// legacy session, and a legacy client's ping. An initialize or
		// ping that carries a stateless revision in _meta (and no
		// initialize protocolVersion) is a stateless request: -32601.
		if st == stateNew && (m.Method != "initialize" && m.Method != "ping" || ClaimsModern(m.Params) && !wire.Has(m.Params, "protocolVersion")) {
			s.statelessRequest(vals, m, inline, reply)
			return
		}
	}
	// ping is answered at any time, even before initialize.
	if m.Method == "ping" {
		s.answerThrough(vals, m, s.incomingEra(), reply, func(reply replier) {
			s.answer(reply, &jsonrpc.Message{Kind: jsonrpc.Response, ID: m.ID, Result: jsontext.Value("{}")})
		})
		return
	}
	if m.Method == "initialize" && s.role == Server {
		s.answerThrough(vals, m, EraLegacy, reply, func(reply replier) { s.initialize(vals, m, reply) })
		return
	}
	s.mu.Lock()
	st, rev := s.state, s.rev
	s.mu.Unlock()
	if st == stateNew {
		fail(jsonrpc.InvalidRequest, "%s before initialize: the session is not initialized", m.Method)
		return
	}
	if st == stateClosed {
		// The session is ending: nothing new is handled, but what was
		// received is answered.
		fail(Busy, "the session is ending: %s not handled", m.Method)
		return
	}
	if s.role == Client && st != stateReady {
		fail(jsonrpc.InvalidRequest, "%s before the session is initialized", m.Method)
		return
	}
	md := rev.Find(m.Method)
	if md == nil && s.extensionMethod(m.Method) {
		_, md = findExtension(s.handler, m.Method)
	}
	if md == nil || md.Notification || !s.mayReceive(*md) {
		fail(jsonrpc.MethodNotFound, "method %q not found in revision %s for a %s", m.Method, rev.Name, s.role)
		return
	}
	if path, ok := s.gateOwn(*md); !ok {
		fail(jsonrpc.MethodNotFound, "method %q not found: this %s did not declare the capability %s", m.Method, s.role, path)
		return
	}
	if s.handlerChecks(rev) {
		if m.Params == nil && md.ParamsRequired {
			s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: md.Name + " params: missing, but required"}))
			return
		}
	} else if err := s.checkParams(*md, m.Params); err != nil {
		s.answer(reply, errorMessage(m.ID, err))
		return
	}
	if m.Method == "elicitation/create" {
		s.mu.Lock()
		own := s.ownCaps
		s.mu.Unlock()
		if mode, ok := elicitationModeOK(own, m.Params); !ok {
			fail(jsonrpc.InvalidParams, "elicitation/create params: /mode: this client did not declare elicitation mode %q", mode)
			return
		}
	}
	if m.Method == "logging/setLevel" && s.role == Server {
		s.answerThrough(vals, m, EraLegacy, reply, func(reply replier) { s.setLevel(m, reply) })
		return
	}
	modern := s.modern
	if modern {
		// A legacy session served by a handler of the stateless era: the
		// engine keeps resource subscriptions itself, and the handler gets
		// its own revision's params.
		switch {
		case s.keepsSubscription(m.Method):
			s.answerThrough(vals, m, EraLegacy, reply, func(reply replier) { s.subscription(m, reply) })
			return
		case s.handler.Revision().Find(m.Method) == nil && !s.extensionMethod(m.Method):
			fail(jsonrpc.MethodNotFound, "method %q is not implemented by this server", m.Method)
			return
		}
	}
	hc := newHandlerCtx(s, m.ID, progressToken(m.Params))
	if vals != nil {
		hc.info.x = &requestExtra{vals: vals}
	}
	s.dispatch(m, hc, inline, reply, job{legacy: legacyCall{s: s, hc: hc, m: m, rev: rev, md: md, modern: modern}})
}

// A job is the work of a request that dispatch runs: fn, or else the
// legacy call. A value, not a closure, so that the one closure dispatch
// makes carries it: one allocation where two closures cost two.
type job struct {
	fn     func() (wire.Appender, *jsonrpc.Error)
	legacy legacyCall
}

func (j job) run() (wire.Appender, *jsonrpc.Error) {
	if j.fn != nil {
		return j.fn()
	}
	return j.legacy.run()
}

// legacyCall is a request of a legacy session for its handler, through
// the middleware.
type legacyCall struct {
	s      *Session
	hc     *handlerCtx
	m      *jsonrpc.Message
	rev    *revision.Revision
	md     *wire.Method
	modern bool // a handler of the stateless era (Session.modern)
}

func (c legacyCall) run() (wire.Appender, *jsonrpc.Error) {
	if c.s.mw == nil {
		return c.call(c.hc, c.m.Params)
	}
	return c.s.wrapRequest(c.hc, c.m, c.rev, EraLegacy, c.call)
}

// call runs the handler on params, converted to the handler's revision
// when it is of the stateless era.
func (c legacyCall) call(ctx context.Context, params jsontext.Value) (wire.Appender, *jsonrpc.Error) {
	if c.modern && c.rev.Find(c.m.Method) != nil {
		var err error
		if params, err = c.s.modernParams(params); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.InternalError, "%s: %v", c.m.Method, err)
		}
	}
	return c.s.run(ctx, c.md, params)
}

// dispatch runs a request's handler with the context hc, on a worker
// goroutine or, when inline is set, on this one, after registering it as
// in flight (refused with Busy past MaxInFlight or while the session
// ends), and answers it.
func (s *Session) dispatch(m *jsonrpc.Message, hc *handlerCtx, inline bool, reply replier, j job) {
	fail := func(code int64, format string, args ...any) {
		s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}))
	}
	s.mu.Lock()
	if s.state == stateClosed {
		s.mu.Unlock()
		fail(Busy, "the session is ending: %s not handled", m.Method)
		return
	}
	if _, dup := s.inflight[m.ID]; dup {
		s.mu.Unlock()
		fail(jsonrpc.InvalidRequest, "request ID %v is already in use by a request in flight", m.ID)
		return
	}
	if len(s.inflight) >= s.opts.MaxInFlight {
		s.mu.Unlock()
		fail(Busy, "too many requests in flight (%d)", s.opts.MaxInFlight)
		return
	}
	if s.inflight == nil {
		s.inflight = map[wire.ID]*handlerCtx{}
	}
	s.inflight[m.ID] = hc
	s.handlers.Add(1)
	s.mu.Unlock()
	handle := func() {
		defer s.handlers.Done()
		res, err := j.run()
		// The handler is done, but the request counts toward the room the
		// reader waits for until its answer is written (or, on a byte
		// stream, queued for writing, where it counts until written): a
		// peer that does not read holds the reader back (waitRoom).
		s.mu.Lock()
		delete(s.inflight, m.ID)
		s.answering++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.answering--
			s.room.Broadcast() // the reader may wait for room (waitRoom)
			s.mu.Unlock()
		}()
		byPeer := hc.cancelledByPeer()
		hc.cancel()
		if byPeer {
			// Cancelled by the peer: no response.
			s.answer(reply, nil)
			return
		}
		if err != nil {
			s.answer(reply, errorMessage(m.ID, err))
			return
		}
		s.respond(reply, m.ID, m.Method, res)
	}
	if inline {
		handle()
		return
	}
	s.spawn(handle)
}

// statelessRequest serves a request of the stateless era read by a session
// (stdio) before any initialize: its notifications go out on the session's
// transport, and notifications/cancelled cancels it.
func (s *Session) statelessRequest(vals valuer, m *jsonrpc.Message, inline bool, reply replier) {
	sp := ScanParams(m)
	c := &statelessCall{}
	mi := &c.mi
	md, herr := admit(s.handler, s.opts.Revisions, m, sp, mi)
	if herr != nil {
		s.answer(reply, errorMessage(m.ID, herr.Err))
		return
	}
	mi.notify = s.send
	mi.ending = s.readCtx().Done()
	mi.mw = s.mw
	mi.audience = s.stateAudience()
	hc := c.init(s, m.ID, sp.progressToken(), vals)
	s.dispatch(m, hc, inline, reply, job{fn: func() (wire.Appender, *jsonrpc.Error) {
		res, jerr, _ := serveStateless(hc, s.mw, s.handler, s, sealer(s.opts), s.log, md, m)
		if jerr != nil {
			return nil, jerr
		}
		return rawAppender(res), nil
	}})
}

// respond answers request id with the result res. A message of its own is
// encoded in one go, the result in place; in a batch, the result is encoded
// for the batch's answer.
func (s *Session) respond(reply replier, id wire.ID, method string, res wire.Appender) {
	// Encoding runs the handler's Appender: a panic in it is the handler's,
	// answered like one (see run).
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp: encoding a result panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			s.answer(reply, errorMessage(id, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: fmt.Sprintf("internal error handling %s", method)}))
		}
	}()
	if reply != nil {
		raw, err := res.AppendJSON(nil)
		if err != nil {
			reply(errorMessage(id, resultError(method, err)))
			return
		}
		reply(&jsonrpc.Message{Kind: jsonrpc.Response, ID: id, Result: raw})
		return
	}
	b, err := jsonrpc.AppendResponse(nil, id, res)
	if err != nil {
		s.log.Error("mcp: cannot encode a result", "method", method, "err", err)
		b, err = (&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: id, Error: resultError(method, err)}).AppendJSON(nil)
		if err != nil {
			return
		}
	}
	s.writeAnswer(b)
}

func resultError(method string, err error) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.InternalError, Message: method + ": the result cannot be encoded: " + err.Error()}
}

// run calls the handler, turning panics and errors into JSON-RPC errors.
// When the negotiated revision is the handler's, the result is returned as
// the handler made it, to be encoded in place; otherwise it is converted to
// the negotiated revision.
func (s *Session) run(ctx context.Context, md *wire.Method, params jsontext.Value) (out wire.Appender, jerr *jsonrpc.Error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp: handler panicked", "method", md.Name, "panic", p, "stack", string(debug.Stack()))
			out, jerr = nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: fmt.Sprintf("internal error handling %s", md.Name)}
		}
	}()
	res, err := s.handle(ctx, md, params)
	if err != nil {
		return nil, asJSONRPC(err)
	}
	if res == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: md.Name + ": the handler returned no result"}
	}
	if !s.converts(*md) {
		return res, nil
	}
	b, err := res.AppendJSON(nil)
	if err != nil {
		return nil, resultError(md.Name, err)
	}
	b, err = s.toNegotiated(*md, b)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: err.Error()}
	}
	return rawAppender(b), nil
}

// asJSONRPC turns a handler error into a JSON-RPC error.
func asJSONRPC(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return &jsonrpc.Error{Code: jsonrpc.InternalError, Message: err.Error()}
}

// toNegotiated converts a result the handler encoded in its revision to the
// negotiated one, for a method that converts (see converts): decoded
// strictly with the negotiated revision's result types (the first that
// accepts it), then encoded again.
func (s *Session) toNegotiated(md wire.Method, b []byte) ([]byte, error) {
	s.mu.Lock()
	rev := s.rev
	s.mu.Unlock()
	if s.modern {
		b = stripModernMeta(b)
	}
	var errs []string
	for i, newResult := range md.NewResult {
		v := newResult()
		if err := wire.Unmarshal(b, v); err != nil {
			errs = append(errs, md.Results[i]+": "+err.Error())
			continue
		}
		return v.AppendJSON(nil)
	}
	return nil, fmt.Errorf("%s: the result cannot be expressed in revision %s (%s)", md.Name, rev.Name, strings.Join(errs, "; "))
}

// converts reports whether results of md need converting to the negotiated
// revision: it is not the handler's, and md has result types.
func (s *Session) converts(md wire.Method) bool {
	s.mu.Lock()
	rev := s.rev
	s.mu.Unlock()
	return rev != nil && rev != s.handler.Revision() && len(md.NewResult) > 0
}

// StrictHandler is implemented by handlers that decode params strictly with
// their revision's types and answer params that do not decode with -32602
// naming the pointer, as the generated handlers do. For them, the engine does
// not decode params a second time when the negotiated revision is theirs.
type StrictHandler interface {
	Handler
	StrictParams()
}

// handlerChecks reports whether the handler checks params itself in rev.
func (s *Session) handlerChecks(rev *revision.Revision) bool {
	_, strict := s.handler.(StrictHandler)
	return strict && rev == s.handler.Revision()
}

// checkParams decodes params with the revision's params type, by this side's
// rules (UnmarshalReceived), so that handlers only see valid params; errors
// are -32602 naming the pointer.
func (s *Session) checkParams(md wire.Method, params jsontext.Value) *jsonrpc.Error {
	if params == nil {
		if md.ParamsRequired {
			return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: md.Name + " params: missing, but required"}
		}
		return nil
	}
	if md.NewParams == nil {
		return nil
	}
	if err := s.UnmarshalReceived(params, md.NewParams()); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: md.Name + " params: " + err.Error()}
	}
	return nil
}

// mayReceive reports whether this side may receive md.
func (s *Session) mayReceive(md wire.Method) bool {
	if s.role == Server {
		return md.Direction&wire.ClientToServer != 0
	}
	return md.Direction&wire.ServerToClient != 0
}

// maySend reports whether this side may send md.
func (s *Session) maySend(md wire.Method) bool {
	if s.role == Server {
		return md.Direction&wire.ServerToClient != 0
	}
	return md.Direction&wire.ClientToServer != 0
}

// gateOwn checks a method this side receives against its own declared
// capabilities.
func (s *Session) gateOwn(md wire.Method) (string, bool) {
	if md.Gate == "" || !s.ownsGate(md.GateSide, true) {
		return "", true
	}
	s.mu.Lock()
	caps := s.ownCaps
	s.mu.Unlock()
	return md.Gate, HasCapability(caps, md.Gate)
}

// gatePeer checks a method this side sends against the peer's capabilities.
func (s *Session) gatePeer(md wire.Method) (string, bool) {
	if md.Gate == "" {
		return "", true
	}
	s.mu.Lock()
	own, peer := s.ownCaps, s.peerCaps
	s.mu.Unlock()
	if s.ownsGate(md.GateSide, false) {
		// A gate on the sender's own capabilities: a server only sends
		// list_changed notifications it declared.
		return md.Gate, HasCapability(own, md.Gate)
	}
	return md.Gate, HasCapability(peer, md.Gate)
}

// ownsGate reports whether a gate on side refers to this side's
// capabilities, for a message this side receives (receiving) or sends.
func (s *Session) ownsGate(side string, receiving bool) bool {
	switch side {
	case "receiver":
		return receiving
	case "server":
		return s.role == Server
	case "client":
		return s.role == Client
	}
	return false
}

// HasCapability reports whether the capabilities object caps declares the
// dotted path, such as "resources.subscribe": present and not false or null.
func HasCapability(caps jsontext.Value, path string) bool {
	v := caps
	for rest := path; rest != ""; {
		var p string
		p, rest, _ = strings.Cut(rest, ".")
		var ok bool
		if v, ok = wire.Member(v, p); !ok {
			return false
		}
	}
	s := strings.TrimSpace(string(v))
	return s != "false" && s != "null"
}

// progressToken returns params._meta.progressToken, if any.
func progressToken(params jsontext.Value) wire.ID {
	meta, ok := wire.Member(params, "_meta")
	if !ok {
		return wire.ID{}
	}
	return progressTokenOf(meta)
}

// initialize answers the client's initialize request (server side).
func (s *Session) initialize(vals valuer, m *jsonrpc.Message, reply replier) {
	fail := func(code int64, msg string) {
		s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: code, Message: msg}))
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if st != stateNew {
		fail(jsonrpc.InvalidRequest, "initialize: the session is already initialized")
		return
	}
	requested, _ := wire.MemberString(m.Params, "protocolVersion")
	rev := revision.Negotiate(requested, s.supported())
	if rev == nil {
		peer, advice := noHandshakeRevision(requested, s.supported())
		s.log.Warn("mcp: initialize refused: " + advice)
		fail(jsonrpc.InternalError, "initialize: "+peer)
		return
	}
	md := rev.Find("initialize")
	if md == nil {
		fail(jsonrpc.MethodNotFound, "initialize: revision "+rev.Name+" has no initialize")
		return
	}
	if err := s.checkParams(*md, m.Params); err != nil {
		s.answer(reply, errorMessage(m.ID, err))
		return
	}
	caps, _ := wire.Member(m.Params, "capabilities")
	info, _ := wire.Member(m.Params, "clientInfo")
	s.mu.Lock()
	s.rev = rev
	s.peerCaps = cloneValue(caps)
	s.peerInfo = cloneValue(info)
	s.mu.Unlock()
	var res wire.Appender
	var jerr *jsonrpc.Error
	ctx := withRequestVals(s.ctx(), vals, s, m.ID)
	if s.modern {
		res, jerr = s.initializeModern(ctx, rev, md)
	} else {
		res, jerr = s.run(ctx, md, m.Params)
	}
	var raw jsontext.Value
	if jerr == nil {
		var err error
		if raw, err = res.AppendJSON(nil); err != nil {
			jerr = resultError(md.Name, err)
		}
	}
	if jerr != nil {
		s.mu.Lock()
		s.rev, s.peerCaps, s.peerInfo = nil, nil, nil
		s.mu.Unlock()
		s.answer(reply, errorMessage(m.ID, jerr))
		return
	}
	// The answer names the negotiated revision, whatever the handler wrote.
	q, _ := jsontext.AppendQuote(nil, rev.Name)
	raw, err := wire.SetMember(raw, "protocolVersion", q)
	if err != nil {
		fail(jsonrpc.InternalError, "initialize: "+err.Error())
		return
	}
	own, _ := wire.Member(raw, "capabilities")
	s.mu.Lock()
	s.ownCaps = cloneValue(own)
	s.state = stateInitializing
	s.mu.Unlock()
	if s.modern {
		s.follow()
	}
	s.legacyChanged()
	s.answer(reply, &jsonrpc.Message{Kind: jsonrpc.Response, ID: m.ID, Result: raw})
}

func (s *Session) supported() []string { return s.opts.Revisions }

func cloneValue(v jsontext.Value) jsontext.Value {
	if v == nil {
		return nil
	}
	return append(jsontext.Value(nil), v...)
}

// logLevels are the RFC 5424 levels in increasing severity.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelIndex(level string) int {
	for i, l := range logLevels {
		if l == level {
			return i
		}
	}
	return -1
}

func (s *Session) setLevel(m *jsonrpc.Message, reply replier) {
	level, _ := wire.MemberString(m.Params, "level")
	i := levelIndex(level)
	if i < 0 {
		s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("logging/setLevel params: /level: unknown level %q", level)}))
		return
	}
	s.mu.Lock()
	changed := !s.logSet || s.logLevel != i
	s.logLevel, s.logSet = i, true
	s.mu.Unlock()
	if changed {
		s.legacyChanged()
	}
	s.answer(reply, &jsonrpc.Message{Kind: jsonrpc.Response, ID: m.ID, Result: jsontext.Value("{}")})
}

// notification handles a notification from the peer. Cancellation and
// progress are the engine's; the rest go to the handler, in order.
func (s *Session) notification(m *jsonrpc.Message) {
	switch m.Method {
	case "notifications/cancelled":
		raw, ok := wire.Member(m.Params, "requestId")
		var id wire.ID
		if !ok || wire.Unmarshal(raw, &id) != nil {
			return // malformed cancellations are ignored
		}
		s.mu.Lock()
		hc := s.inflight[id]
		dropped := hc == nil && s.unpark(id) // waiting for room (see waitRoom)
		s.mu.Unlock()
		if hc != nil {
			hc.cancelByPeer()
		}
		if dropped {
			s.log.Debug("mcp: a request waiting for room was cancelled", "id", id)
		}
		return
	case "notifications/progress":
		tok := progressTokenOf(m.Params)
		s.mu.Lock()
		fn := s.progress[tok]
		s.mu.Unlock()
		if fn != nil {
			p, err := decodeProgress(m.Params)
			if err == nil {
				fn(p)
			}
		}
		return
	case "notifications/initialized":
		s.mu.Lock()
		ready := s.role == Server && s.state == stateInitializing
		if ready {
			s.state = stateReady
		}
		s.mu.Unlock()
		if ready {
			s.legacyChanged()
		}
	}
	s.mu.Lock()
	rev, st := s.rev, s.state
	s.mu.Unlock()
	if rev == nil || st == stateClosed {
		return
	}
	md, ok := rev.Method(m.Method)
	if !ok || !md.Notification || !s.mayReceive(md) {
		s.log.Debug("mcp: unknown notification ignored", "method", m.Method)
		return
	}
	if err := s.checkParams(md, m.Params); err != nil {
		s.log.Debug("mcp: invalid notification ignored", "method", m.Method, "err", err)
		return
	}
	if s.role == Client {
		s.mu.Lock()
		mc := s.mc
		s.mu.Unlock()
		if mc != nil {
			if m.Method == "notifications/subscriptions/acknowledged" {
				s.acknowledge(m.Params)
			}
			mc.cache.Invalidate(m.Method, m.Params)
		}
	}
	s.queueNote(note{m.Method, m.Params})
}

func (s *Session) handleNotification(method string, params jsontext.Value) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("mcp: notification handler panicked", "method", method, "panic", p)
		}
	}()
	if s.mw == nil {
		s.handler.HandleNotification(s.ctx(), s, method, params)
		return
	}
	r := &Request{Method: method, Params: params, Notification: true, Revision: s.Revision(), Era: s.incomingEra(), Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		s.handler.HandleNotification(ctx, s, r.Method, r.Params)
		return nil, nil
	}
	if _, err := through(s.ctx(), s.mw, r, s.log); err != nil {
		s.log.Debug("mcp: notification not handled", "method", method, "err", err)
	}
}

// elicitationModeOK checks an elicitation's mode against the client's
// capabilities: "url" needs elicitation.url; "form" (also when mode
// is absent) needs elicitation.form, or an elicitation object that names no
// mode at all, which means form only.
func elicitationModeOK(caps, params jsontext.Value) (string, bool) {
	mode, ok := wire.MemberString(params, "mode")
	if !ok {
		mode = "form"
	}
	el, ok := wire.Member(caps, "elicitation")
	if !ok {
		return mode, false
	}
	if !wire.Has(el, "form") && !wire.Has(el, "url") {
		return mode, mode == "form"
	}
	return mode, HasCapability(el, mode)
}

// extensionMethod reports whether method is one of the handler's
// extensions' (see ExtensionHandler), on a server session whose revision
// has extensions: none before 2026-07-28 has, so on a legacy session of
// those an extension's methods are not found.
func (s *Session) extensionMethod(method string) bool {
	if s.role != Server {
		return false
	}
	if _, ok := s.handler.(ExtensionHandler); !ok || !hasExtensions(s.Revision()) {
		return false
	}
	x, _ := findExtension(s.handler, method)
	return x != nil
}
