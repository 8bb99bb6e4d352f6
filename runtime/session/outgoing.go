package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Progress is one notifications/progress report.
type Progress struct {
	Progress float64
	Total    *float64
	Message  string
}

// CallOption changes one call.
type CallOption func(*callOptions)

type callOptions struct {
	progress func(Progress)
	noCache  bool
	noLimit  bool          // no CallTimeout
	noFollow bool          // WithoutFollow
	onID     func(wire.ID) // told the request's id before it is sent
	ext      *wire.Method  // the table entry of an extension's method
}

// ExtensionMethod gives a call the table entry of the method it sends when
// that method is an extension's (such as the Skills extension's
// skills/list), which no revision's table has: the call is checked and
// its params sent as md says, and its result decoded by md.NewResult
// when the session's revision is not the handler's. It is used only when
// the session's revision has no method md.Name; it changes nothing for a
// call of another method. Whether the server serves the extension is the
// caller's to check (the server's capabilities.extensions); one that does
// not answers -32601.
func ExtensionMethod(md wire.Method) CallOption {
	return func(o *callOptions) { o.ext = &md }
}

// WithoutCache makes a call of a client of the stateless era skip its
// cache: the request is sent even when a fresh cached result answers it
// (the result received is still stored).
func WithoutCache() CallOption {
	return func(o *callOptions) { o.noCache = true }
}

// WithProgress asks the peer for progress reports on the call: a
// progress token is put in the request's _meta, and the peer's
// notifications/progress for it are passed to fn, on the reader goroutine.
func WithProgress(fn func(Progress)) CallOption {
	return func(o *callOptions) { o.progress = fn }
}

// Call sends the request method with params (nil for none) and waits for
// its result, as raw JSON in the negotiated revision. Cancelling ctx, or the
// session's CallTimeout passing, sends notifications/cancelled and returns
// the context's error (see
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts).
// An error response is a *jsonrpc.Error.
//
// A client whose handler speaks the stateless era (see Connect) gets the
// complete result: one that asks for input is answered by the handler and
// the request sent again, and one without resultType, from a legacy
// server, reads as complete; one of a resultType that an extension of
// the client follows (Options.Extensions, ResultFollower), such as a task,
// is followed to its end. Such a client also looks up the results
// the server marked cacheable in its cache first (Options.Cache):
// a fresh entry answers without a request.
//
// The call passes through Options.Middleware, as an outgoing request.
func (s *Session) Call(ctx context.Context, method string, params wire.Appender, opts ...CallOption) (jsontext.Value, error) {
	var o callOptions
	if len(opts) > 0 {
		o = applyCallOptions(opts)
	}
	if s.mw == nil {
		return s.callOf(ctx, method, params, o)
	}
	raw, err := s.appendParams(method, params)
	if err != nil {
		return nil, err
	}
	r := &Request{Method: method, Params: raw, Outgoing: true, Revision: s.Revision(), Era: s.incomingEra(), Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		o := o
		o.onID = func(id wire.ID) {
			if !r.ID.IsValid() {
				r.ID = id
			}
		}
		return s.callOf(ctx, r.Method, paramsOf(r.Params), o)
	}
	return through(ctx, s.mw, r, s.log)
}

// appendParams encodes the params of an outgoing message for middleware;
// nil for none. The params of a client of the stateless era are encoded
// without the envelope its calls add (see encodeParams).
func (s *Session) appendParams(method string, params wire.Appender) (jsontext.Value, error) {
	if params == nil {
		return nil, nil
	}
	var raw jsontext.Value
	var err error
	if s.clientOfModern() {
		raw, err = encodeParams(params, nil)
	} else {
		raw, err = params.AppendJSON(nil)
	}
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", method, err)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	return raw, nil
}

// paramsOf gives raw params back to Call or Notify: nil for none.
func paramsOf(raw jsontext.Value) wire.Appender {
	if raw == nil {
		return nil
	}
	return rawAppender(raw)
}

// callOf is Call without middleware.
// applyCallOptions returns the options opts set. It is apart from Call
// because passing &o to the options moves o to the heap: a cost for calls
// with options only.
func applyCallOptions(opts []CallOption) callOptions {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func (s *Session) callOf(ctx context.Context, method string, params wire.Appender, o callOptions) (jsontext.Value, error) {
	if s.role == Client && (method == "tools/list" || method == "tools/call") {
		return s.callTools(ctx, method, params, o, s.callEra)
	}
	return s.callEra(ctx, method, params, o)
}

// callEra is callOf past the client's tool checks: a call of the client's
// era.
func (s *Session) callEra(ctx context.Context, method string, params wire.Appender, o callOptions) (jsontext.Value, error) {
	if !s.clientOfModern() || method == "initialize" {
		return s.call(ctx, method, params, o)
	}
	s.mu.Lock()
	mc := s.mc
	s.mu.Unlock()
	var raw jsontext.Value
	if params != nil {
		var err error
		if raw, err = encodeParams(params, mc); err != nil {
			return nil, fmt.Errorf("%s params: %w", method, err)
		}
		params = rawAppender(raw)
	}
	if mc != nil && method == "tools/call" {
		s.listToolsFirst(ctx)
	}
	cacheable := mc != nil && cache.Cacheable(method)
	var cached cache.Entry
	hit := false
	auth := "" // the authorization the request goes with
	if cacheable {
		auth = s.authContext()
	}
	if cacheable && !o.noCache {
		if cached, hit = mc.cache.Get(auth, method, raw); hit && cached.Fresh {
			return cached.Result, nil
		}
	}
	res, err := s.call(ctx, method, params, o)
	if err != nil {
		if hit && !isAnswer(err) {
			// A stale entry may serve when the re-fetch fails (the caching
			// page allows it).
			return cached.Result, nil
		}
		return nil, err
	}
	if res, err = s.completeRounds(ctx, method, raw, o, res); err != nil {
		return nil, err
	}
	if cacheable {
		if err := mc.cache.Put(auth, method, raw, res); err != nil {
			s.log.Debug("mcp: result not cached", "method", method, "err", err)
		}
	}
	return res, nil
}

// call sends one request and waits for its answer (see Call).
func (s *Session) call(ctx context.Context, method string, params wire.Appender, o callOptions) (jsontext.Value, error) {
	progress := o.progress
	md, out, err := s.outgoing(method, params, false, progress != nil, o.ext)
	if err != nil {
		return nil, err
	}
	ch := calls.Get().(chan callResult)
	s.mu.Lock()
	if s.state == stateClosed {
		err := s.closeErr
		s.mu.Unlock()
		calls.Put(ch)
		return nil, err
	}
	s.nextID++
	id := wire.IntID(s.nextID)
	if s.pending == nil {
		s.pending = map[wire.ID]chan callResult{} // an idle server session holds none
	}
	s.pending[id] = ch
	if progress != nil {
		if s.progress == nil {
			s.progress = map[wire.ID]func(Progress){}
		}
		s.progress[id] = progress
	}
	s.room.Broadcast() // a reader waiting for room must read this call's answer
	s.mu.Unlock()
	if o.onID != nil {
		o.onID(id)
	}
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		if progress != nil {
			delete(s.progress, id)
		}
		s.mu.Unlock()
	}()
	if progress != nil {
		raw, _ := out.(rawAppender)
		withToken, err := setProgressToken(jsontext.Value(raw), id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		out = rawAppender(withToken)
	}
	var timeout <-chan time.Time
	if s.opts.CallTimeout > 0 && !o.noLimit {
		t := getTimer(s.opts.CallTimeout)
		defer putTimer(t)
		timeout = t.C
	}
	b, withParams, err := jsonrpc.AppendCall(nil, id, method, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if !withParams && md.ParamsRequired {
		return nil, fmt.Errorf("%s: params are required", method)
	}
	if err := s.send(ctx, b); err != nil {
		if ctx.Err() != nil && method != "initialize" {
			// The context ended while the transport was sending (Streamable
			// HTTP waits for a JSON answer in Write): the request may have
			// reached the peer, so cancel it there too.
			s.cancelRequest(id, ctx.Err().Error())
		}
		if errors.Is(err, net.ErrClosed) {
			s.mu.Lock()
			closeErr := s.closeErr
			s.mu.Unlock()
			if closeErr != nil {
				// The session ended while the request was being sent, and
				// closed the transport: say why it ended.
				return nil, fmt.Errorf("%s: %w", method, closeErr)
			}
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	var why error
	select {
	case r := <-ch:
		// The one answer was taken from the channel, and the response that
		// sent it removed it from pending: nothing else can use it.
		calls.Put(ch)
		if r.err != nil {
			return nil, r.err
		}
		return s.fromNegotiated(*md, r.raw)
	case <-ctx.Done():
		why = ctx.Err()
	case <-timeout:
		why = context.DeadlineExceeded
	}
	if method != "initialize" { // initialize is never cancelled
		s.cancelRequest(id, why.Error())
	}
	return nil, fmt.Errorf("%s: %w", method, why)
}

// calls recycles the channels that carry answers to Call.
var calls = sync.Pool{New: func() any { return make(chan callResult, 1) }}

// timers recycles call timers. Since Go 1.23, a timer that was stopped or
// reset delivers no stale value, so a recycled one is as good as new.
var timers sync.Pool

func getTimer(d time.Duration) *time.Timer {
	if t, ok := timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

func putTimer(t *time.Timer) {
	t.Stop()
	timers.Put(t)
}

// fromNegotiated checks a result against the negotiated revision's result
// types when the handler's revision differs, by this side's rules
// (UnmarshalReceived); the caller decodes it with its own types. The result
// is passed on unchanged: a variant the negotiated revision does not know
// but the handler's does reaches the caller typed.
func (s *Session) fromNegotiated(md wire.Method, raw jsontext.Value) (jsontext.Value, error) {
	s.mu.Lock()
	rev := s.rev
	s.mu.Unlock()
	if rev == nil || rev == s.handler.Revision() || len(md.NewResult) == 0 {
		return raw, nil
	}
	var first error
	for _, newResult := range md.NewResult {
		if err := s.UnmarshalReceived(raw, newResult()); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		return raw, nil
	}
	return nil, fmt.Errorf("%s result: %w", md.Name, first)
}

func (s *Session) cancelRequest(id wire.ID, reason string) {
	idJSON, err := id.AppendJSON(nil)
	if err != nil {
		return
	}
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"requestId":`)
	e.Raw(idJSON)
	e.Name(`"reason":`)
	e.String(reason)
	e.EndObject()
	params, _ := e.Bytes()
	s.notify("notifications/cancelled", params)
}

// Notify sends the notification method with params (nil for none). It
// passes through Options.Middleware, as an outgoing notification.
func (s *Session) Notify(ctx context.Context, method string, params wire.Appender) error {
	if s.mw == nil {
		return s.notifyOf(ctx, method, params)
	}
	raw, err := s.appendParams(method, params)
	if err != nil {
		return err
	}
	r := &Request{Method: method, Params: raw, Notification: true, Outgoing: true, Revision: s.Revision(), Era: s.incomingEra(), Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		return nil, s.notifyOf(ctx, r.Method, paramsOf(r.Params))
	}
	_, err = through(ctx, s.mw, r, s.log)
	return err
}

// notifyOf is Notify without middleware.
func (s *Session) notifyOf(ctx context.Context, method string, params wire.Appender) error {
	md, out, err := s.outgoing(method, params, true, false, nil)
	if err != nil {
		return err
	}
	b, withParams, err := jsonrpc.AppendCall(nil, wire.ID{}, method, out)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if !withParams && md.ParamsRequired {
		return fmt.Errorf("%s: params are required", method)
	}
	return s.send(ctx, b)
}

// notify sends a notification the engine makes itself.
func (s *Session) notify(method string, params jsontext.Value) {
	b, err := (&jsonrpc.Message{Kind: jsonrpc.Notification, Method: method, Params: params}).AppendJSON(nil)
	if err == nil {
		s.write(b)
	}
}

// outgoing checks that this side may send method now, and returns its
// params for encoding: nil for none, params itself when it can be encoded
// straight into the message, or its encoding (a rawAppender) when it had to
// be looked at, converted to the negotiated revision, or when needRaw asks
// for it. ext, when not nil, is the table entry of method when the
// revision has none (see ExtensionMethod).
func (s *Session) outgoing(method string, params wire.Appender, notification, needRaw bool, ext *wire.Method) (*wire.Method, wire.Appender, error) {
	s.mu.Lock()
	st, rev, ended, mc, closeErr := s.state, s.rev, s.ended, s.mc, s.closeErr
	s.mu.Unlock()
	if notification {
		mc = nil // only requests carry the envelope
	}
	if st == stateClosed && (!notification || ended) {
		// While the session ends, handlers still answering may notify
		// (progress, logs), but nothing can be called any more.
		return nil, nil, closeErr
	}
	if rev == nil {
		if method != "ping" && method != "initialize" {
			return nil, nil, fmt.Errorf("%s: the session is not initialized", method)
		}
		rev = s.handler.Revision()
		if method == "initialize" && !rev.Handshake() {
			// A client of the stateless era falling back (see Connect):
			// initialize is said in the revision it offers.
			if rev = revision.Negotiate("", s.supported()); rev == nil {
				return nil, nil, errors.New("initialize: this binary links no revision with initialize")
			}
		}
	} else if s.role == Server && st != stateReady && !notification && method != "ping" {
		return nil, nil, fmt.Errorf("%s: the client has not sent notifications/initialized yet", method)
	}
	if s.role == Server && !notification && st != stateNew && isInputMethod(method) {
		// An input request the client cannot answer is not sent, with an
		// error wrapping ErrClientCannotAnswer.
		var raw jsontext.Value
		if method == "elicitation/create" && params != nil {
			var err error
			if raw, err = params.AppendJSON(nil); err != nil {
				return nil, nil, fmt.Errorf("%s params: %w", method, err)
			}
			params = rawAppender(raw)
		}
		if err := s.checkInput(rev, method, raw); err != nil {
			return nil, nil, err
		}
	}
	md := rev.Find(method)
	extension := false
	if md == nil && !notification {
		// An extension the client uses (Options.Extensions), or one the
		// call names (ExtensionMethod).
		if md = s.clientExtensionMethod(method); md != nil {
			extension = true
		} else if ext != nil && ext.Name == method {
			md, extension = ext, true
		}
	}
	if md == nil || md.Notification != notification || !s.maySend(*md) {
		if s.role == Client && len(s.opts.Extensions) > 0 {
			return nil, nil, fmt.Errorf("%s: not a %s a %s may send in revision %s, nor one of an extension it uses there", method, kindWord(notification), s.role, rev.Name)
		}
		return nil, nil, fmt.Errorf("%s: not a %s a %s may send in revision %s", method, kindWord(notification), s.role, rev.Name)
	}
	if path, ok := s.gatePeer(*md); !ok && st != stateNew {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("%s: the capability %s was not declared", method, path)}
	}
	if params == nil && mc == nil {
		if md.ParamsRequired {
			return md, nil, fmt.Errorf("%s: params are required", method)
		}
		return md, nil, nil
	}
	// An extension's params are the same in every revision.
	convert := !extension && rev != s.handler.Revision() && md.NewParams != nil
	if !needRaw && !convert && mc == nil {
		return md, params, nil
	}
	var raw []byte
	if params != nil {
		var err error
		if raw, err = params.AppendJSON(nil); err != nil {
			return md, nil, fmt.Errorf("%s params: %w", method, err)
		}
	}
	if mc != nil {
		// The revision, the capabilities and the identity, in _meta.
		var err error
		if raw, err = mc.withModernMeta(raw); err != nil {
			return md, nil, fmt.Errorf("%s params: %w", method, err)
		}
	}
	if len(raw) == 0 {
		if md.ParamsRequired {
			return md, nil, fmt.Errorf("%s: params are required", method)
		}
		return md, nil, nil
	}
	if convert {
		var err error
		if raw, err = inRevision(rev, method, raw); err != nil {
			return md, nil, err
		}
	}
	return md, rawAppender(raw), nil
}

func kindWord(notification bool) string {
	if notification {
		return "notification"
	}
	return "request"
}

// Initialize runs the client side of the handshake (see
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization):
// it sends
// initialize with params (whose protocolVersion is set to the newest
// revision this side supports), checks the server's answer, and sends
// notifications/initialized. It returns the raw InitializeResult.
func (s *Session) Initialize(ctx context.Context, params wire.Appender) (jsontext.Value, error) {
	if s.role != Client {
		return nil, fmt.Errorf("initialize: only a client initializes")
	}
	s.mu.Lock()
	if s.state == stateClosed {
		err := s.closeErr
		s.mu.Unlock()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, fmt.Errorf("initialize: the session is already initialized")
	}
	s.mu.Unlock()
	offer := revision.Negotiate("", s.supported())
	if offer == nil {
		return nil, fmt.Errorf("initialize: this client supports no protocol revision")
	}
	raw, err := params.AppendJSON(nil)
	if err != nil {
		return nil, fmt.Errorf("initialize params: %w", err)
	}
	q, _ := jsontext.AppendQuote(nil, offer.Name)
	if raw, err = wire.SetMember(raw, "protocolVersion", q); err != nil {
		return nil, fmt.Errorf("initialize params: %w", err)
	}
	// The params, capabilities included, are said in the offered revision's
	// vocabulary, not the handler's: a client on newer types pinned to an
	// older revision does not declare what that revision lacks.
	if raw, err = inRevision(offer, "initialize", raw); err != nil {
		return nil, err
	}
	caps, _ := wire.Member(raw, "capabilities")
	s.mu.Lock()
	s.ownCaps = cloneValue(caps)
	s.mu.Unlock()
	res, err := s.Call(ctx, "initialize", rawAppender(raw))
	if err != nil {
		return nil, err
	}
	version, _ := wire.MemberString(res, "protocolVersion")
	rev, ok := revision.Lookup(version)
	if !ok || (s.opts.Revisions != nil && !contains(s.opts.Revisions, version)) {
		// A revision this client does not implement ends the session.
		s.shutdown(fmt.Errorf("initialize: the server answered with protocol revision %q, which this client does not support", version))
		return nil, fmt.Errorf("initialize: the server answered with protocol revision %q, which this client does not support", version)
	}
	if md, ok := rev.Method("initialize"); ok && len(md.NewResult) > 0 {
		if err := wire.Unmarshal(res, md.NewResult[0]()); err != nil {
			return nil, fmt.Errorf("initialize result: %w", err)
		}
	}
	peerCaps, _ := wire.Member(res, "capabilities")
	info, _ := wire.Member(res, "serverInfo")
	if rev != offer {
		// The server chose an older revision: what this client accepts is
		// what it declared, as far as that revision can say it.
		if raw, err = inRevision(rev, "initialize", raw); err != nil {
			s.shutdown(err)
			return nil, err
		}
		caps, _ := wire.Member(raw, "capabilities")
		s.mu.Lock()
		s.ownCaps = cloneValue(caps)
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.rev = rev
	s.peerCaps = cloneValue(peerCaps)
	s.peerInfo = cloneValue(info)
	s.state = stateReady
	s.mu.Unlock()
	if err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
		return nil, err
	}
	return res, nil
}

// inRevision converts the params raw of method to rev by strict
// re-decoding with rev's params type: members rev lacks are dropped.
func inRevision(rev *revision.Revision, method string, raw jsontext.Value) (jsontext.Value, error) {
	md := rev.Find(method)
	if md == nil || md.NewParams == nil {
		return raw, nil
	}
	v := md.NewParams()
	if err := wire.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("%s params cannot be expressed in revision %s: %w", method, rev.Name, err)
	}
	out, err := v.AppendJSON(nil)
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", method, err)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rawAppender is JSON that is already encoded.
type rawAppender jsontext.Value

func (r rawAppender) AppendJSON(b []byte) ([]byte, error) { return append(b, r...), nil }

// setProgressToken puts tok into params._meta.progressToken.
func setProgressToken(params jsontext.Value, tok wire.ID) (jsontext.Value, error) {
	meta, _ := wire.Member(params, "_meta")
	t, err := tok.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	meta, err = wire.SetMember(meta, "progressToken", t)
	if err != nil {
		return nil, err
	}
	return wire.SetMember(params, "_meta", meta)
}

// progressTokenOf returns the member progressToken of obj (a request's
// _meta, or progress notification params), if it is a valid ID.
func progressTokenOf(obj jsontext.Value) wire.ID {
	raw, ok := wire.Member(obj, "progressToken")
	if !ok {
		return wire.ID{}
	}
	var id wire.ID
	if wire.Unmarshal(raw, &id) != nil {
		return wire.ID{}
	}
	return id
}

func decodeProgress(params jsontext.Value) (Progress, error) {
	var p Progress
	raw, ok := wire.Member(params, "progress")
	if !ok {
		return p, fmt.Errorf("progress: missing")
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return p, err
	}
	p.Progress = f
	if raw, ok := wire.Member(params, "total"); ok {
		if t, err := strconv.ParseFloat(string(raw), 64); err == nil {
			p.Total = &t
		}
	}
	p.Message, _ = wire.MemberString(params, "message")
	return p, nil
}

// requestKey is the context key of the request a handler runs for.
type requestKey struct{}

type requestInfo struct {
	s     *Session // nil for a stateless request served without a session
	id    wire.ID
	token wire.ID
	// x holds what few requests need; nil for the others.
	x *requestExtra
}

// requestExtra is the part of a request's info that few requests need.
type requestExtra struct {
	// lastProgress is the last progress reported for the token, valid once
	// reported is set, guarded by the session's mu (statelessProgress
	// without one). It lives as long as the request, so a token the peer
	// reuses later starts afresh.
	lastProgress float64
	reported     bool
	// modern is set for a stateless request (2026-07-28 on).
	modern *modernInfo
	// vals gives the values of the handler's context beyond the request's
	// own (see ItemPusher, Stateless.Serve); nil for none.
	vals valuer
}

// value is the Value of a handler's context for key: the request's info,
// or a value of vals.
func (ri *requestInfo) value(key any) any {
	if key == (requestKey{}) {
		return ri
	}
	if key == (stateAudienceKey{}) {
		// The server's audience, over one in the values it was given.
		if mi := ri.mod(); mi != nil && mi.audience != "" {
			return mi.audience
		}
	}
	if ri.x != nil && ri.x.vals != nil {
		return ri.x.vals.Value(key)
	}
	return nil
}

// mod returns the stateless request's info, or nil for a request of a
// session.
func (ri *requestInfo) mod() *modernInfo {
	if ri.x == nil {
		return nil
	}
	return ri.x.modern
}

// requestCtx carries a requestInfo; it is one allocation where
// context.WithValue and the info would be two.
type requestCtx struct {
	context.Context
	info requestInfo
}

func (c *requestCtx) Value(key any) any {
	if v := c.info.value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

func withRequest(ctx context.Context, s *Session, id, token wire.ID) context.Context {
	return &requestCtx{Context: ctx, info: requestInfo{s: s, id: id, token: token}}
}

// withRequestVals is withRequest for a request of id that came with the
// values vals (nil for none).
func withRequestVals(ctx context.Context, vals valuer, s *Session, id wire.ID) context.Context {
	c := &requestCtx{Context: ctx, info: requestInfo{s: s, id: id}}
	if vals != nil {
		c.info.x = &requestExtra{vals: vals}
	}
	return c
}

// FromContext returns the session a handler's context belongs to.
func FromContext(ctx context.Context) (*Session, bool) {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return nil, false
	}
	return ri.s, true
}

// statelessProgress guards the progress of stateless requests served
// without a session.
var statelessProgress sync.Mutex

// ReportProgress sends notifications/progress for the request the handler
// of ctx is answering, if the requester asked for progress. Progress
// must increase from report to report. Without a token, and in a context
// made by Detach, it does nothing.
func ReportProgress(ctx context.Context, progress float64, total *float64, message string) error {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok || !ri.token.IsValid() || detached(ctx) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err() // the request is over
	}
	s := ri.s
	mu := &statelessProgress
	if s != nil {
		mu = &s.mu
	}
	mu.Lock()
	if ri.x == nil {
		ri.x = &requestExtra{}
	}
	if last := ri.x.lastProgress; ri.x.reported && progress <= last {
		mu.Unlock()
		return fmt.Errorf("progress %v does not increase on %v", progress, last)
	}
	ri.x.lastProgress, ri.x.reported = progress, true
	mu.Unlock()
	tok, _ := ri.token.AppendJSON(nil)
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"progressToken":`)
	e.Raw(tok)
	e.Name(`"progress":`)
	e.Float(progress)
	if total != nil {
		e.Name(`"total":`)
		e.Float(*total)
	}
	if message != "" {
		e.Name(`"message":`)
		e.String(message)
	}
	e.EndObject()
	params, err := e.Bytes()
	if err != nil {
		return err
	}
	if ri.mod() != nil {
		return ri.notifyModern(ctx, "notifications/progress", params)
	}
	return s.Notify(ctx, "notifications/progress", rawAppender(params))
}

// Log sends notifications/message at level if it is at or above the level
// the client set with logging/setLevel (server side; the server must have
// declared logging). data is any JSON value; logger may be "".
func (s *Session) Log(ctx context.Context, level, logger string, data jsontext.Value) error {
	i := levelIndex(level)
	if i < 0 {
		return fmt.Errorf("log: unknown level %q", level)
	}
	s.mu.Lock()
	min := s.logLevel
	s.mu.Unlock()
	if i < min {
		return nil
	}
	params, err := logParams(level, logger, data)
	if err != nil {
		return err
	}
	return s.Notify(ctx, "notifications/message", rawAppender(params))
}

// Raw is JSON that is already encoded, as params of Call or Notify.
type Raw jsontext.Value

// AppendJSON appends r; nil r appends nothing, so Call and Notify send no
// params for it.
func (r Raw) AppendJSON(b []byte) ([]byte, error) { return append(b, r...), nil }

// RequestID returns the ID of the peer request whose handler ctx belongs
// to. Transports use it to send what a handler sends (progress, logs,
// requests to the peer) on that request's stream (Streamable HTTP).
func RequestID(ctx context.Context) (wire.ID, bool) {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok || !ri.id.IsValid() {
		return wire.ID{}, false
	}
	return ri.id, true
}
