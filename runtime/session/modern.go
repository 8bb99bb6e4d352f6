package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The _meta keys of the stateless era (2026-07-28 on): every request
// carries its revision and the client's capabilities (and usually its
// identity and the log level it wants); results name the server; the
// messages of a subscriptions/listen stream name their subscription.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// The error codes of the stateless era (2026-07-28 on).
const (
	// HeaderMismatch: an HTTP header that mirrors the body (the revision,
	// the method, the name, a tool parameter) is missing or differs.
	HeaderMismatch = -32020
	// MissingRequiredClientCapability: handling the request needs a client
	// capability the request did not declare; data.requiredCapabilities
	// names it.
	MissingRequiredClientCapability = -32021
	// UnsupportedProtocolVersion: the request's revision is not served here;
	// data.supported lists those that are, data.requested echoes it.
	UnsupportedProtocolVersion = -32022
)

// Modern reports whether the handler h speaks a stateless revision, one
// without the initialize handshake (2026-07-28 and later). A session or a
// Stateless server with such a handler serves both eras: requests that
// carry their revision in _meta statelessly, and sessions that begin with
// initialize as before, their messages converted to and from the handler's
// revision.
func Modern(h Handler) bool {
	rev := h.Revision()
	return rev != nil && !rev.Handshake()
}

// modernInfo is what a handler of a stateless request sees of it.
type modernInfo struct {
	rev    *revision.Revision
	method string
	params jsontext.Value // as received, inputResponses and requestState included
	caps   jsontext.Value // the client's capabilities from _meta
	// logLevel is the index in logLevels of _meta's log level; -1 when the
	// request asked for no log messages.
	logLevel int
	// notify sends a notification that belongs to the request (progress,
	// log messages) to where its response goes.
	notify func(ctx context.Context, data []byte) error
	// ending is closed when the server starts shutting down: a listen
	// stream then ends with a result.
	ending <-chan struct{}
	// mw is the middleware the request's notifications pass through, nil
	// for none.
	mw HandlerFunc
	// audience is the StateAudience of the server serving the request.
	audience string

	input *roundInput
	round roundInput // where input points, once the round is open
	// parent is the context the request was served with, whose
	// cancellation cancels the handler's; nil when the session cancels
	// it. unlink undoes the link made the first time the handler's context
	// was watched (see handlerCtx.linkLocked), nil until then; both are
	// guarded by the handler context's mu.
	parent context.Context
	unlink func() bool
	// scan is the scan of params (see StatelessParams).
	scan *StatelessParams
	// ext is the extension whose method the request calls, nil for a
	// method of the revision.
	ext Extension
}

// HTTPStatusError is a JSON-RPC error that also chooses the HTTP status of
// the response, when the request came over HTTP (2026-07-28's status
// mapping: 400 for an unsupported revision, missing _meta, a missing client
// capability or a header mismatch; 404 for an unknown method).
type HTTPStatusError struct {
	Err    *jsonrpc.Error
	Status int
}

func (e *HTTPStatusError) Error() string { return e.Err.Error() }

// Unwrap returns the JSON-RPC error.
func (e *HTTPStatusError) Unwrap() error { return e.Err }

func statusErr(status int, code int64, format string, args ...any) *HTTPStatusError {
	return &HTTPStatusError{Err: jsonrpc.Errorf(code, format, args...), Status: status}
}

// MissingCapabilityError returns error -32021 for a request whose handling
// needs the client capability at the dotted path (such as "sampling" or
// "elicitation.url") that it did not declare.
func MissingCapabilityError(path string) *jsonrpc.Error {
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"requiredCapabilities":`)
	parts := strings.Split(path, ".")
	for _, p := range parts {
		e.BeginObject()
		q, _ := jsontext.AppendQuote(nil, p)
		e.Name(string(q) + ":")
	}
	e.BeginObject()
	e.EndObject()
	for range parts {
		e.EndObject()
	}
	e.EndObject()
	data, _ := e.Bytes()
	return &jsonrpc.Error{Code: MissingRequiredClientCapability, Message: "this request needs the client capability " + path + ", which it did not declare", Data: data}
}

// httpStatus is the HTTP status for an error answering a stateless request:
// the one the error chose, 404 for an unknown method, 400 for the errors of
// the stateless era's envelope, and 200 for the rest (a tool or resource
// error is an answer like any other).
func httpStatus(err *jsonrpc.Error, chosen int) int {
	if chosen != 0 {
		return chosen
	}
	switch err.Code {
	case jsonrpc.MethodNotFound:
		return http.StatusNotFound
	case HeaderMismatch, MissingRequiredClientCapability, UnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// modernRevisions lists the stateless revisions among supported (nil: all
// registered), newest first.
func modernRevisions(supported []string) []*revision.Revision {
	var out []*revision.Revision
	for _, r := range revision.All() {
		if r.Handshake() || supported != nil && !slices.Contains(supported, r.Name) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// ClaimsModern reports whether the request params carry a _meta revision,
// which makes the request a stateless one.
func ClaimsModern(params jsontext.Value) bool {
	meta, ok := wire.Member(params, "_meta")
	return ok && wire.Has(meta, MetaProtocolVersion)
}

// admit checks a stateless request's envelope and finds its
// method: the revision named in _meta, which this side serves, and a method
// of it a client may send, or of one of the handler's extensions (see
// ExtensionHandler). sp is the scan of m's params. It returns the method
// and fills mi with the request's info.
func admit(h Handler, supported []string, m *jsonrpc.Message, sp *StatelessParams, mi *modernInfo) (*wire.Method, *HTTPStatusError) {
	if !sp.hasMeta || sp.meta.Kind() != '{' {
		return nil, statusErr(http.StatusBadRequest, jsonrpc.InvalidParams, "%s params: /_meta: missing, but every request must carry %s and %s in it", m.Method, MetaProtocolVersion, MetaClientCapabilities)
	}
	requested, ok := sp.ProtocolVersion()
	if !ok {
		return nil, statusErr(http.StatusBadRequest, jsonrpc.InvalidParams, "%s params: /_meta/%s: missing, or not a string", m.Method, MetaProtocolVersion)
	}
	rev, ok := revision.Lookup(requested)
	if !ok || rev.Handshake() || supported != nil && !slices.Contains(supported, rev.Name) || rev != h.Revision() && !canConvert(h.Revision(), rev) {
		var names []string
		for _, r := range modernRevisions(supported) {
			names = append(names, r.Name)
		}
		e := wire.NewEncoder(nil)
		e.BeginObject()
		e.Name(`"supported":`)
		e.BeginArray()
		for _, n := range names {
			e.String(n)
		}
		e.EndArray()
		e.Name(`"requested":`)
		e.String(requested)
		e.EndObject()
		data, _ := e.Bytes()
		return nil, &HTTPStatusError{Status: http.StatusBadRequest, Err: &jsonrpc.Error{
			Code: UnsupportedProtocolVersion, Data: data,
			Message: fmt.Sprintf("protocol version %q is not supported; supported: %s", requested, strings.Join(names, ", ")),
		}}
	}
	caps := sp.caps
	if caps == nil || caps.Kind() != '{' {
		return nil, statusErr(http.StatusBadRequest, jsonrpc.InvalidParams, "%s params: /_meta/%s: missing, or not an object", m.Method, MetaClientCapabilities)
	}
	md := rev.Find(m.Method)
	var ext Extension
	if md == nil {
		ext, md = findExtension(h, m.Method)
	}
	if md == nil || md.Notification || md.Embedded || md.Direction&wire.ClientToServer == 0 {
		return nil, statusErr(http.StatusNotFound, jsonrpc.MethodNotFound, "method %q not found in revision %s", m.Method, rev.Name)
	}
	level := -1
	if sp.hasLogLevel {
		level = levelIndex(stringOf(sp.logLevel))
	}
	*mi = modernInfo{rev: rev, method: m.Method, params: m.Params, caps: caps, logLevel: level, ext: ext, scan: sp}
	return md, nil
}

// canConvert reports whether a handler speaking rev can serve requests of
// the stateless revision to. Only the handler's own revision is served
// today: converting between stateless revisions needs one that differs.
func canConvert(rev, to *revision.Revision) bool { return rev == to }

// Stateless serves the requests of the stateless era (2026-07-28 on) one at
// a time, with no session: each request carries its revision and the
// client's capabilities in _meta, and everything it needs to be answered.
// The Streamable HTTP server uses it for POSTs that carry no session; a
// Session uses the same rules for the stateless requests it reads.
type Stateless struct {
	h        Handler
	opts     Options
	mw       HandlerFunc
	log      *slog.Logger
	audience string
	ending   chan struct{}
	once     sync.Once
}

// NewStateless returns a Stateless serving h, which must speak a stateless
// revision (see Modern). Of MergeOptions(h, opts), Revisions, Logger,
// Sealer, StateAudience and Middleware are used. Without a StateAudience, the Stateless is an
// audience of its own: the requestState it seals opens at no other server.
func NewStateless(h Handler, opts Options) *Stateless {
	opts = MergeOptions(h, opts)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Stateless{h: h, opts: opts, mw: chain(opts.Middleware), log: log, audience: stateAudience(opts), ending: make(chan struct{})}
}

// Close ends the subscriptions/listen streams in progress, each with its
// result, and makes new ones end at once.
func (x *Stateless) Close() {
	x.once.Do(func() { close(x.ending) })
}

// Handler returns the handler the server serves.
func (x *Stateless) Handler() Handler { return x.h }

// Serve answers the stateless request m and returns its answer and the HTTP
// status that goes with it. notify receives, as encoded messages, the
// notifications that belong to the request (progress, log messages, a
// subscription's events) before the answer; it is called from the
// handler's goroutine and may block (a slow client slows the handler down).
// Cancelling ctx cancels the handler (closing a request's HTTP stream is
// cancellation); the answer is then an error the caller need not
// send. m must be a request.
//
// The handler's context carries the values of ctx (not its deadline): those
// of the HTTP request, say, with its HTTPRequest (see WithHTTPRequest).
func (x *Stateless) Serve(ctx context.Context, m *jsonrpc.Message, notify func(context.Context, []byte) error) (*jsonrpc.Message, int) {
	return x.ServeParams(ctx, m, ScanParams(m), notify)
}

// ServeParams is Serve for a caller that has scanned m's params already
// with ScanParams (to check the HTTP headers that mirror them, say): it
// reads what it needs of them from sp and does not scan them again. An sp
// that is nil, or not of m's params, is replaced by a scan of them.
func (x *Stateless) ServeParams(ctx context.Context, m *jsonrpc.Message, sp *StatelessParams, notify func(context.Context, []byte) error) (*jsonrpc.Message, int) {
	if sp == nil || sp.method != m.Method || !sameBytes(sp.params, m.Params) {
		sp = ScanParams(m)
	}
	c := &statelessCall{}
	mi := &c.mi
	md, herr := admit(x.h, x.opts.Revisions, m, sp, mi)
	if herr != nil {
		return errorMessage(m.ID, herr.Err), herr.Status
	}
	mi.notify = notify
	mi.ending = x.ending
	mi.mw = x.mw
	mi.audience = x.audience
	mi.parent = ctx
	hc := c.init(nil, m.ID, sp.progressToken(), ctx)
	defer func() {
		hc.cancel()
		hc.unlink()
	}()
	res, jerr, status := serveStateless(hc, x.mw, x.h, nil, sealer(x.opts), x.log, md, m)
	if jerr != nil {
		return errorMessage(m.ID, jerr), httpStatus(jerr, status)
	}
	c.resp = jsonrpc.Message{Kind: jsonrpc.Response, ID: m.ID, Result: res}
	return &c.resp, http.StatusOK
}

// statelessCall is what serving one stateless request takes, made in one
// allocation rather than one each: the handler's context, its request's
// extra info, the stateless info and the answer.
type statelessCall struct {
	hc   handlerCtx
	x    requestExtra
	mi   modernInfo
	resp jsonrpc.Message
}

// init readies c's handler context for request id of session s (nil for
// none), with the progress token token and the values vals, and returns
// it; c.mi must be filled.
func (c *statelessCall) init(s *Session, id, token wire.ID, vals valuer) *handlerCtx {
	c.x = requestExtra{modern: &c.mi, vals: vals}
	c.hc.info = requestInfo{s: s, id: id, token: token, x: &c.x}
	return &c.hc
}

// serveStateless is serveModern through the middleware mw (nil for none),
// for the request m.
func serveStateless(hc *handlerCtx, mw HandlerFunc, h Handler, s *Session, sealer StateSealer, log *slog.Logger, md *wire.Method, m *jsonrpc.Message) (jsontext.Value, *jsonrpc.Error, int) {
	if mw == nil {
		return serveModern(hc, hc, h, s, sealer, log, md, m.Params)
	}
	r := &Request{Method: m.Method, Params: m.Params, ID: m.ID, Revision: hc.info.mod().rev, Era: EraModern, Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		res, jerr, status := serveModern(hc, ctx, h, s, sealer, log, md, r.Params)
		if jerr != nil {
			if status != 0 {
				return nil, &HTTPStatusError{Err: jerr, Status: status}
			}
			return nil, jerr
		}
		return res, nil
	}
	raw, err := through(hc, mw, r, log)
	if err != nil {
		return nil, asJSONRPC(err), statusOf(err)
	}
	if raw == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: m.Method + ": the middleware returned no result"}, 0
	}
	return raw, nil, 0
}

// serveModern runs the handler for a stateless request and makes its answer:
// a complete result (resultType set, the server named in _meta), an
// InputRequiredResult when the handler asked for input it does not have
// yet, or an error. The handler runs with ctx, hc or a context derived
// from it.
func serveModern(hc *handlerCtx, ctx context.Context, h Handler, s *Session, sealer StateSealer, log *slog.Logger, md *wire.Method, params jsontext.Value) (res jsontext.Value, jerr *jsonrpc.Error, status int) {
	mi := hc.info.mod()
	defer func() {
		if p := recover(); p != nil {
			log.Error("mcp: handler panicked", "method", md.Name, "panic", p, "stack", string(debug.Stack()))
			res, jerr, status = nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: fmt.Sprintf("internal error handling %s", md.Name)}, 0
		}
	}()
	if md.Name == methodListen {
		if b, ok := h.(busHolder); ok && b.Bus() != nil {
			if jerr := checkBus(hc, b.Bus(), log); jerr != nil {
				return nil, jerr, 0
			}
			r, err := listen(hc, h, s, b.Bus(), md, params)
			if err != nil {
				return nil, asJSONRPC(err), statusOf(err)
			}
			if r, err = withServerInfo(r, h); err != nil {
				return nil, resultError(md.Name, err), 0
			}
			return r, nil, 0
		}
	}
	mayAsk := slices.Contains(md.Results, inputRequiredResult)
	if mayAsk {
		mi.round = roundInput{}
		in := &mi.round
		startedOver, err := openRound(hc, sealer, md.Name, mi.scan.of(params), in)
		if err != nil {
			return nil, err, http.StatusBadRequest
		}
		if startedOver {
			log.Debug("mcp: the requestState was sealed by a key this server does not have (an earlier process's, or a retired one): the request starts over", "method", md.Name)
		}
		mi.input = in
	}
	var out wire.Appender
	var err error
	if mi.ext != nil {
		out, err = mi.ext.HandleRequest(ctx, s, md.Name, params)
	} else {
		out, err = h.HandleRequest(ctx, s, md.Name, params)
	}
	if err != nil {
		var ir *InputRequiredError
		if errors.As(err, &ir) {
			if !mayAsk {
				return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: md.Name + ": the handler asked for input, which this method cannot ask for"}, 0
			}
			b, jerr := inputRequired(hc, sealer, md.Name, params, ir)
			if jerr != nil {
				return nil, jerr, statusOf(jerr)
			}
			if b, err = withServerInfo(b, h); err != nil {
				return nil, resultError(md.Name, err), 0
			}
			return b, nil, 0
		}
		return nil, asJSONRPC(err), statusOf(err)
	}
	if out == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: md.Name + ": the handler returned no result"}, 0
	}
	b, eerr := out.AppendJSON(nil)
	if eerr != nil {
		return nil, resultError(md.Name, eerr), 0
	}
	_, valid := out.(wire.ValidJSON)
	b, eerr = completeResult(b, h, valid)
	if eerr != nil {
		return nil, resultError(md.Name, eerr), 0
	}
	return b, nil, 0
}

// statusOf returns the HTTP status an error chose, or 0.
func statusOf(err error) int {
	var se *HTTPStatusError
	if errors.As(err, &se) {
		return se.Status
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == MissingRequiredClientCapability {
		return http.StatusBadRequest
	}
	return 0
}

// ServerInfoHandler is implemented by handlers that name their server: the
// stateless era puts it in every result's _meta, and a legacy
// session's initialize answers with it.
type ServerInfoHandler interface {
	// ServerInfo returns the server's Implementation object.
	ServerInfo() jsontext.Value
}

// ToolHeaderHandler is implemented by handlers whose tools may mark
// arguments with x-mcp-header in their inputSchema (2026-07-28 on). A
// client mirrors such an argument of a tools/call into the HTTP header
// Mcp-Param-{Name}; the Streamable HTTP transport asks the handler
// for the called tool's annotations and checks those headers against the
// arguments before the request reaches the handler.
type ToolHeaderHandler interface {
	Handler
	// ToolHeaderParams returns the x-mcp-header annotations of the tool
	// named name, as mcpheader.ParseTool found them when the tool was
	// registered: nil for a tool without annotations and for a tool the
	// handler does not know. It is called for every stateless tools/call
	// over HTTP, from many goroutines at once, and should not parse the
	// schema again.
	ToolHeaderParams(name string) mcpheader.Params
}

// completeResult makes b, a result the handler encoded, a complete result
// of the stateless era: resultType "complete" unless the handler set one,
// and the server's identity in _meta unless the handler put one there.
// valid reports that b is known to be valid JSON (the handler's result is
// a generated type, see wire.ValidJSON): the members b lacks are then
// appended to it in place. Otherwise, and when a member must be replaced or
// merged into, b is rebuilt, and checked, by wire.SetMember.
func completeResult(b []byte, h Handler, valid bool) ([]byte, error) {
	rt, hasRT := wire.MemberTag(b, "resultType")
	setRT := !hasRT || len(rt) == 0
	meta, hasMeta := wire.Member(b, "_meta")
	var info jsontext.Value
	if si, ok := h.(ServerInfoHandler); ok && !wire.Has(meta, MetaServerInfo) {
		info = si.ServerInfo()
	}
	if !setRT && info == nil {
		return b, nil
	}
	if valid && (!setRT || !hasRT) && (info == nil || !hasMeta) {
		if out, ok := appendMembers(b, setRT, info); ok {
			return out, nil
		}
	}
	var err error
	if setRT {
		if b, err = wire.SetMember(b, "resultType", jsontext.Value(`"complete"`)); err != nil {
			return nil, err
		}
	}
	if info == nil {
		return b, nil
	}
	return putServerInfo(b, meta, info)
}

// withServerInfo puts the server's identity in the _meta of b, a result of
// the stateless era, unless it names one already or h does not name its
// server: servers SHOULD name themselves in every result, the
// runtime's own (InputRequiredResult, the end of a listen stream)
// included.
func withServerInfo(b []byte, h Handler) ([]byte, error) {
	si, ok := h.(ServerInfoHandler)
	if !ok {
		return b, nil
	}
	meta, _ := wire.Member(b, "_meta")
	if wire.Has(meta, MetaServerInfo) {
		return b, nil
	}
	info := si.ServerInfo()
	if info == nil {
		return b, nil
	}
	return putServerInfo(b, meta, info)
}

// putServerInfo sets the server's identity info in meta, the _meta of the
// result b (nil when b has none), and returns b with that _meta.
func putServerInfo(b []byte, meta, info jsontext.Value) ([]byte, error) {
	if meta == nil {
		meta = jsontext.Value("{}")
	}
	m, err := wire.SetMember(meta, MetaServerInfo, info)
	if err != nil {
		return nil, err
	}
	return wire.SetMember(b, "_meta", m)
}

// appendMembers appends to the valid JSON value b, which lacks them,
// resultType "complete" (when rt) and a _meta naming the server info (when
// info is not nil), reusing b's array. It returns false, and b unchanged,
// when b is not an object. info is not checked here: the response's
// encoding checks the whole result (see jsonrpc.Message.AppendJSON and
// jsonrpc.AppendResponse).
func appendMembers(b []byte, rt bool, info jsontext.Value) ([]byte, bool) {
	end := len(b)
	for end > 0 && isSpace(b[end-1]) {
		end--
	}
	if end < 2 || b[end-1] != '}' {
		return b, false
	}
	i := end - 2
	for i > 0 && isSpace(b[i]) {
		i--
	}
	more := b[i] != '{' // an object with members already
	out := b[:end-1]
	if rt {
		if more {
			out = append(out, ',')
		}
		out = append(out, `"resultType":"complete"`...)
		more = true
	}
	if info != nil {
		if more {
			out = append(out, ',')
		}
		out = append(out, `"_meta":{"`+MetaServerInfo+`":`...)
		out = append(out, info...)
		out = append(out, '}')
	}
	return append(out, '}'), true
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// levelAllowed reports whether a log message at level may be sent for the
// request of ri: on a stateless request, only when it asked for log
// messages at that level or below it.
func (ri *requestInfo) levelAllowed(level int) bool {
	if ri.mod() == nil {
		return true
	}
	return ri.mod().logLevel >= 0 && level >= ri.mod().logLevel
}

// Log sends a log message (notifications/message) for the request whose
// handler ctx belongs to: on a stateless request only if the request asked
// for messages at level or above (its _meta log level), and on a session
// if the client's logging/setLevel allows it. data is any JSON value;
// logger may be "". Outside a handler, and in a context made by Detach, it
// does nothing.
func Log(ctx context.Context, level, logger string, data jsontext.Value) error {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok || detached(ctx) {
		return nil
	}
	if ri.mod() == nil {
		if ri.s == nil {
			return nil
		}
		return ri.s.Log(ctx, level, logger, data)
	}
	i := levelIndex(level)
	if i < 0 {
		return fmt.Errorf("log: unknown level %q", level)
	}
	if !ri.levelAllowed(i) {
		return nil
	}
	params, err := logParams(level, logger, data)
	if err != nil {
		return err
	}
	return ri.notifyModern(ctx, "notifications/message", params)
}

// notifyModern sends a notification of a stateless request to where its
// answer goes.
func (ri *requestInfo) notifyModern(ctx context.Context, method string, params jsontext.Value) error {
	mi := ri.mod()
	if mi.notify == nil {
		return nil
	}
	if mi.mw == nil {
		return ri.sendModern(ctx, method, params)
	}
	r := &Request{Method: method, Params: params, Notification: true, Outgoing: true, Revision: mi.rev, Era: EraModern, Session: ri.s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		return nil, ri.sendModern(ctx, r.Method, r.Params)
	}
	log := slog.New(slog.DiscardHandler)
	if ri.s != nil {
		log = ri.s.log
	}
	_, err := through(ctx, mi.mw, r, log)
	return err
}

// sendModern sends a notification of a stateless request (notifyModern
// without middleware).
func (ri *requestInfo) sendModern(ctx context.Context, method string, params jsontext.Value) error {
	b, err := (&jsonrpc.Message{Kind: jsonrpc.Notification, Method: method, Params: params}).AppendJSON(nil)
	if err != nil {
		return err
	}
	return ri.mod().notify(ctx, b)
}

func logParams(level, logger string, data jsontext.Value) (jsontext.Value, error) {
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"level":`)
	e.String(level)
	if logger != "" {
		e.Name(`"logger":`)
		e.String(logger)
	}
	e.Name(`"data":`)
	e.Raw(data)
	e.EndObject()
	return e.Bytes()
}

// ClientCapabilities returns the capabilities of the client whose request
// the handler of ctx answers: those of the request's _meta on a stateless
// request, those the client declared in initialize on a session.
func ClientCapabilities(ctx context.Context) jsontext.Value {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return nil
	}
	if ri.mod() != nil {
		return ri.mod().caps
	}
	if ri.s != nil {
		return ri.s.PeerCapabilities()
	}
	return nil
}

// RevisionOf returns the revision of the request the handler of ctx
// answers: the request's own on a stateless request, the negotiated one on
// a session.
func RevisionOf(ctx context.Context) *revision.Revision {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return nil
	}
	if ri.mod() != nil {
		return ri.mod().rev
	}
	if ri.s != nil {
		return ri.s.Revision()
	}
	return nil
}

// IsStateless reports whether the handler of ctx answers a stateless request
// (2026-07-28 on) rather than one of a session.
func IsStateless(ctx context.Context) bool {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	return ok && ri.mod() != nil
}
