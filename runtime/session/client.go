package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file is the client of the stateless era (2026-07-28 on): a client
// whose handler speaks a revision without initialize finds out which era
// the server speaks, and then either sends every request with its
// revision, capabilities and identity in _meta and answers the
// server's requests for input by retrying, or falls back to
// the initialize handshake of the newest legacy revision linked into the
// binary, its handler answering real server requests instead (see
// https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
// and docs/requirements.md#era-detection).

// DefaultProbeTimeout is Options.ProbeTimeout's default.
const DefaultProbeTimeout = 5 * time.Second

// Era is the generation of the protocol a client and a server speak.
type Era uint8

// The eras.
const (
	// EraUnknown: not found out yet.
	EraUnknown Era = iota
	// EraLegacy: the initialize handshake and a session (2025-11-25 and
	// earlier).
	EraLegacy
	// EraModern: stateless requests that carry their revision (2026-07-28
	// on).
	EraModern
)

func (e Era) String() string {
	switch e {
	case EraLegacy:
		return "legacy"
	case EraModern:
		return "modern"
	}
	return "unknown"
}

// AuthorizationError is implemented by errors of a transport that could
// not get its requests authorized (such as runtime/oauth's *Error). When
// the probe of Connect fails with one whose AuthorizationFailed is true,
// Connect returns it rather than falling back to initialize, which would
// only fail the same way (asking the user twice).
type AuthorizationError interface {
	error
	AuthorizationFailed() bool
}

// AuthContexter is implemented by transports whose requests carry an
// authorization (such as an OAuth access token): AuthContext names it, as
// an opaque string that changes when the authorization does ("" for none).
// A client of the stateless era keeps the "private" results it caches
// apart per authorization context, so that an answer given to one token
// never serves another (docs/requirements.md#private-cache-scope).
type AuthContexter interface {
	AuthContext() string
}

// authContext is the authorization context of s's transport.
func (s *Session) authContext() string {
	if a, ok := s.t.(AuthContexter); ok {
		return a.AuthContext()
	}
	return ""
}

// ServerKeyer is implemented by transports that reach a server by an
// address that outlives the connection, such as a Streamable HTTP endpoint
// URL. Connect remembers the era it found per key for the life of the
// process (clients cache the detected era per server), so that a
// second connection to a legacy server starts with initialize at once.
type ServerKeyer interface {
	ServerKey() string
}

// eras caches the era found per server key.
var eras sync.Map // string → Era

// KnownEra returns the era Connect found for the server key, or EraUnknown.
func KnownEra(key string) Era {
	if v, ok := eras.Load(key); ok {
		return v.(Era)
	}
	return EraUnknown
}

// ForgetEra drops what Connect found for the server key, so that the next
// Connect probes again (after the server was upgraded, say).
func ForgetEra(key string) { eras.Delete(key) }

// modernClient is what a client of the stateless era adds to every request.
type modernClient struct {
	meta  jsontext.Value // the _meta members every request carries
	cache *cache.Cache
}

// Connect starts the client side for a handler of the stateless era: it
// finds out the server's era (docs/requirements.md#era-detection) and
// readies the session for calls.
// info and caps are the client's Implementation and ClientCapabilities.
//
// It sends server/discover as a stateless request, bounded by
// Options.ProbeTimeout. A DiscoverResult means a server of the stateless
// era: from then on every request carries the revision, caps and info in
// _meta, PeerCapabilities and PeerInfo come from the DiscoverResult, and
// results that ask for input are answered by the handler and retried
// (see Call). An error of the stateless era means the same kind of server
// (-32022 UnsupportedProtocolVersion is followed: the probe is sent again
// at a revision both sides have, or, when the server names only revisions
// of the initialize era, the client falls back). A failure that says
// nothing of the era is returned as it is, once: an AuthorizationError (an
// HTTP 401 or 403, an OAuth failure), which initialize would meet too, and
// a request that reached no server (a *url.Error: a connection refused, a
// host not found, a URL that does not parse). Anything else (another error,
// another HTTP status without such an error, no answer in time) means a
// legacy server: Connect sends initialize for the newest revision with
// the handshake that the binary links and Options.Revisions allow, and the
// session goes on in it, the handler's types converted as for any older
// revision. The error names both attempts when that fails too.
//
// The era found is remembered per server when the transport is a
// ServerKeyer; a legacy one makes the next Connect start with initialize,
// as does an Options.Revisions that leaves out the handler's revision.
// Connect on a handler of a revision with initialize just initializes.
func (s *Session) Connect(ctx context.Context, info, caps wire.Appender) error {
	if s.role != Client {
		return errors.New("connect: only a client connects")
	}
	infoRaw, err := appendValue(info, "clientInfo")
	if err != nil {
		return err
	}
	capsRaw, err := appendValue(caps, "capabilities")
	if err != nil {
		return err
	}
	if err := s.checkClientExtensions(); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if capsRaw, err = s.withClientExtensions(capsRaw); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if st != stateNew {
		return errors.New("connect: the session is already connected")
	}
	if !Modern(s.handler) {
		if err := s.initializeWith(ctx, infoRaw, capsRaw); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		return nil
	}
	key := ""
	if k, ok := s.t.(ServerKeyer); ok {
		key = k.ServerKey()
	}
	rev := s.handler.Revision()
	if key != "" && KnownEra(key) == EraLegacy || s.opts.Revisions != nil && !slices.Contains(s.opts.Revisions, rev.Name) {
		// A server known to be legacy, or a client told not to speak the
		// handler's revision: initialize at once.
		return s.fallback(ctx, key, infoRaw, capsRaw, nil)
	}
	for tries := 0; ; tries++ {
		err := s.probe(ctx, rev, infoRaw, capsRaw)
		if err == nil {
			if key != "" {
				eras.Store(key, EraModern)
			}
			return nil
		}
		s.mu.Lock()
		s.rev, s.mc, s.ownCaps = nil, nil, nil
		s.mu.Unlock()
		if ctx.Err() != nil {
			return fmt.Errorf("connect: %w", err)
		}
		if errors.Is(err, ErrClosed) {
			// The connection ended (a server process that exited, say):
			// there is nothing left to fall back on.
			return fmt.Errorf("connect: %w", err)
		}
		var ae AuthorizationError
		if errors.As(err, &ae) && ae.AuthorizationFailed() {
			// Not a sign of the server's era: initialize would need the
			// same authorization.
			return fmt.Errorf("connect: %w", err)
		}
		if transportFailed(err) {
			// The request did not reach a server (nothing listens, no
			// such host, not a URL): initialize would not either.
			return fmt.Errorf("connect: %w", err)
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !modernError(je) {
			return s.fallback(ctx, key, infoRaw, capsRaw, err)
		}
		if je.Code != UnsupportedProtocolVersion || tries > 0 {
			// A server of the stateless era that refused the probe.
			return fmt.Errorf("connect: %w", err)
		}
		// Retry with a revision both sides have, as the versioning page
		// asks, or fall back when the server names only revisions of the
		// initialize era.
		supported := supportedOf(je)
		next := s.commonModern(supported)
		if next == nil {
			if s.commonLegacy(supported) {
				return s.fallback(ctx, key, infoRaw, capsRaw, err)
			}
			return fmt.Errorf("connect: the server supports %v, none of which this client speaks: %w", supported, err)
		}
		rev = next
	}
}

// transportFailed reports whether err is the error of an HTTP request that
// got no answer for a reason other than time: a connection refused, a host
// not found, a URL that does not parse (a *url.Error, as http.Client and
// http.NewRequest return them).
func transportFailed(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !ue.Timeout()
}

// probe sends server/discover at rev and, on a DiscoverResult, readies the
// session in the stateless era.
func (s *Session) probe(ctx context.Context, rev *revision.Revision, info, caps jsontext.Value) error {
	meta := jsontext.Value(`{}`)
	q, _ := jsontext.AppendQuote(nil, rev.Name)
	meta, _ = wire.SetMember(meta, MetaProtocolVersion, q)
	meta, _ = wire.SetMember(meta, MetaClientCapabilities, caps)
	meta, _ = wire.SetMember(meta, MetaClientInfo, info)
	c := s.opts.Cache
	if c == nil {
		c = cache.New(cache.Options{})
	}
	s.mu.Lock()
	s.rev, s.ownCaps = rev, cloneValue(caps)
	s.mc = &modernClient{meta: meta, cache: c}
	s.mu.Unlock()
	timeout := s.opts.ProbeTimeout
	if timeout == 0 {
		timeout = DefaultProbeTimeout
	}
	pctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	raw, err := s.Call(pctx, "server/discover", nil)
	if err != nil {
		return err
	}
	if versions, ok := wire.Member(raw, "supportedVersions"); ok {
		var names []string
		if wire.DecodeValue(versions, &names) == nil && !slices.Contains(names, rev.Name) {
			return fmt.Errorf("server/discover: the server answered at %s but lists only %v", rev.Name, names)
		}
	}
	peerCaps, _ := wire.Member(raw, "capabilities")
	metaOut, _ := wire.Member(raw, "_meta")
	info2, _ := wire.Member(metaOut, MetaServerInfo)
	s.mu.Lock()
	s.peerCaps = cloneValue(peerCaps)
	s.peerInfo = cloneValue(info2)
	s.state = stateReady
	s.mu.Unlock()
	return nil
}

// fallback initializes a legacy session after the probe found no server of
// the stateless era (why is the probe's failure, nil when the era was
// known).
func (s *Session) fallback(ctx context.Context, key string, info, caps jsontext.Value, why error) error {
	if revision.Negotiate("", s.supported()) == nil {
		if why != nil {
			return fmt.Errorf("connect: the server does not speak the stateless era (server/discover: %w), and this binary links no revision with initialize to fall back to: import one, such as protocol/mcp20251125, or all of them with protocol/revisions", why)
		}
		return errors.New("connect: the server speaks only the initialize era, and this binary links no revision with initialize: import one, such as protocol/mcp20251125, or all of them with protocol/revisions")
	}
	if err := s.initializeWith(ctx, info, caps); err != nil {
		if why != nil {
			return fmt.Errorf("connect: server/discover failed (%v), and so did the fallback: %w", why, err)
		}
		return fmt.Errorf("connect: %w", err)
	}
	if key != "" && why != nil {
		// Only a probe that failed says the server is legacy: a client
		// told to speak no revision of the stateless era learnt nothing.
		eras.Store(key, EraLegacy)
	}
	return nil
}

// initializeWith runs Initialize with the client's info and capabilities.
func (s *Session) initializeWith(ctx context.Context, info, caps jsontext.Value) error {
	params := jsontext.Value(`{"protocolVersion":""}`)
	params, _ = wire.SetMember(params, "capabilities", caps)
	params, _ = wire.SetMember(params, "clientInfo", info)
	_, err := s.Initialize(ctx, rawAppender(params))
	return err
}

// Era returns the era of the session: EraModern for a client of the
// stateless era that found such a server, EraLegacy once initialize was
// exchanged, EraUnknown before either.
func (s *Session) Era() Era {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.mc != nil && s.state != stateNew:
		return EraModern
	case s.rev != nil && s.rev.Handshake():
		return EraLegacy
	}
	return EraUnknown
}

// ModernError reports whether e is an error only a server of the
// stateless era sends (a recognised modern error means a modern
// server): UnsupportedProtocolVersion naming the supported revisions,
// MissingRequiredClientCapability or HeaderMismatch. A client that falls
// back to an older transport on an HTTP 4xx does not when its body is one
// (2026-07-28, see docs/requirements.md#era-detection).
func ModernError(e *jsonrpc.Error) bool { return e != nil && modernError(e) }

// modernError reports whether e is an error only a server of the stateless
// era sends (see ModernError).
func modernError(e *jsonrpc.Error) bool {
	switch e.Code {
	case UnsupportedProtocolVersion:
		return len(supportedOf(e)) > 0
	case MissingRequiredClientCapability, HeaderMismatch:
		return true
	}
	return false
}

// supportedOf returns data.supported of an UnsupportedProtocolVersion error.
func supportedOf(e *jsonrpc.Error) []string {
	raw, ok := wire.Member(e.Data, "supported")
	if !ok {
		return nil
	}
	var names []string
	if wire.DecodeValue(raw, &names) != nil {
		return nil
	}
	return names
}

// commonModern returns the newest stateless revision in names that the
// handler can speak (its own, or one it converts to), or nil.
func (s *Session) commonModern(names []string) *revision.Revision {
	own := s.handler.Revision()
	for _, r := range modernRevisions(s.supported()) {
		if slices.Contains(names, r.Name) && (r == own || canConvert(own, r)) {
			return r
		}
	}
	return nil
}

// commonLegacy reports whether names has a revision with initialize that
// this client supports.
func (s *Session) commonLegacy(names []string) bool {
	for _, n := range names {
		if r, ok := revision.Lookup(n); ok && r.Handshake() && (s.supported() == nil || slices.Contains(s.supported(), n)) {
			return true
		}
	}
	return false
}

// appendValue encodes v, an object the caller gives (nil for {}).
func appendValue(v wire.Appender, what string) (jsontext.Value, error) {
	if v == nil {
		return jsontext.Value(`{}`), nil
	}
	raw, err := v.AppendJSON(nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %s: %w", what, err)
	}
	if len(raw) == 0 {
		return jsontext.Value(`{}`), nil
	}
	if jsontext.Value(raw).Kind() != '{' {
		return nil, fmt.Errorf("connect: %s: not a JSON object", what)
	}
	return raw, nil
}

// withModernMeta adds the client's _meta members to a request's params
// (raw, nil for none), keeping the members of _meta the caller set. Params
// that carry the whole envelope already (encoded by AppendJSONWithMeta, see
// encodeParams) are returned as they are.
func (mc *modernClient) withModernMeta(raw jsontext.Value) (jsontext.Value, error) {
	if len(raw) == 0 {
		raw = jsontext.Value(`{}`)
	}
	meta, ok := wire.Member(raw, "_meta")
	if !ok || meta.Kind() != '{' {
		return wire.SetMember(raw, "_meta", mc.meta)
	}
	if !slices.ContainsFunc(envelopeKeys, func(k string) bool { return !wire.Has(meta, k) }) {
		return raw, nil
	}
	meta, err := wire.MergeMembers(meta, mc.meta) // the caller's own values win
	if err != nil {
		return nil, err
	}
	return wire.SetMember(raw, "_meta", meta)
}

// clientOfModern reports whether this is a client whose handler speaks the
// stateless era (connected in either era).
func (s *Session) clientOfModern() bool {
	return s.role == Client && Modern(s.handler)
}

// inputMethods are the methods whose results may ask for input.
var inputMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// completeRounds takes a result a client of the stateless era received for
// method and returns the complete one: a result without resultType is
// complete (from a legacy server) and gets resultType "complete" for
// the handler's types; an InputRequiredResult is answered by the handler and
// the request sent again with the answers, at most MaxInputRounds
// times; a result of a resultType that one of the client's extensions
// follows (ResultFollower) is completed by it, unless the call asked not
// to (WithoutFollow).
func (s *Session) completeRounds(ctx context.Context, method string, params jsontext.Value, o callOptions, raw jsontext.Value) (jsontext.Value, error) {
	for round := 1; ; round++ {
		if raw.Kind() != '{' {
			return raw, nil
		}
		rt, ok := wire.MemberString(raw, "resultType")
		if !ok {
			if wire.Has(raw, "resultType") {
				return nil, fmt.Errorf("%s result: /resultType: not a string", method)
			}
			return legacyResult(method, raw)
		}
		switch rt {
		case "complete":
			return raw, nil
		case "input_required":
		default:
			if res, ok, err := s.followResult(ctx, rt, method, params, raw, o); ok {
				return res, err
			}
			return nil, fmt.Errorf("%s result: /resultType: unrecognised value %q", method, rt)
		}
		if !inputMethods[method] {
			return nil, fmt.Errorf("%s result: the server asked for input, which only tools/call, prompts/get and resources/read may do", method)
		}
		if round > MaxInputRounds {
			return nil, fmt.Errorf("%s: the server asked for input %d times; giving up (at most %d rounds)", method, round, MaxInputRounds)
		}
		next, err := s.answerInput(ctx, method, params, raw)
		if err != nil {
			return nil, err
		}
		if raw, err = s.call(ctx, method, rawAppender(next), o); err != nil {
			return nil, err
		}
	}
}

// answerInput has the handler answer the inputRequests of an
// InputRequiredResult, and returns the params of the retry: the original
// ones plus inputResponses and the requestState, verbatim.
func (s *Session) answerInput(ctx context.Context, method string, params, res jsontext.Value) (jsontext.Value, error) {
	reqs, hasReqs := wire.Member(res, "inputRequests")
	state, hasState := wire.Member(res, "requestState")
	if !hasReqs && !hasState {
		return nil, fmt.Errorf("%s result: an InputRequiredResult with neither inputRequests nor requestState", method)
	}
	if len(params) == 0 {
		params = jsontext.Value(`{}`)
	}
	var err error
	if hasReqs {
		var m map[string]jsontext.Value
		if err := wire.DecodeValue(reqs, &m); err != nil {
			return nil, fmt.Errorf("%s result: /inputRequests: %w", method, err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		answers := make(map[string]jsontext.Value, len(m))
		for _, k := range keys {
			a, err := s.answerOne(ctx, k, m[k])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			answers[k] = a
		}
		out, err := encodeSorted(answers)
		if err != nil {
			return nil, err
		}
		if params, err = wire.SetMember(params, "inputResponses", out); err != nil {
			return nil, err
		}
	}
	if hasState {
		if params, err = wire.SetMember(params, "requestState", state); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// answerOne has the handler answer the input request req, under key.
func (s *Session) answerOne(ctx context.Context, key string, req jsontext.Value) (jsontext.Value, error) {
	method, _ := wire.MemberString(req, "method")
	params, _ := wire.Member(req, "params")
	md := s.handler.Revision().Find(method)
	if md == nil || !md.Embedded {
		return nil, fmt.Errorf("/inputRequests/%s: %q is not an input request of revision %s", key, method, s.handler.Revision().Name)
	}
	s.mu.Lock()
	own := s.ownCaps
	s.mu.Unlock()
	if md.Gate != "" && !HasCapability(own, md.Gate) {
		return nil, fmt.Errorf("/inputRequests/%s: the server asked for %s, but this client did not declare the capability %s", key, method, md.Gate)
	}
	if method == "elicitation/create" {
		if mode, ok := elicitationModeOK(own, params); !ok {
			return nil, fmt.Errorf("/inputRequests/%s: the server asked for elicitation mode %q, which this client did not declare", key, mode)
		}
	}
	hctx := withRequest(ctx, s, wire.ID{}, wire.ID{})
	if s.mw == nil {
		return s.answerInputRequest(hctx, key, method, params)
	}
	s.mu.Lock()
	rev := s.rev
	s.mu.Unlock()
	r := &Request{Method: method, Params: params, Revision: rev, Era: EraModern, Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		return s.answerInputRequest(ctx, key, r.Method, r.Params)
	}
	return through(hctx, s.mw, r, s.log)
}

// answerInputRequest has the handler answer one input request (answerOne
// without middleware).
func (s *Session) answerInputRequest(ctx context.Context, key, method string, params jsontext.Value) (jsontext.Value, error) {
	res, err := s.handler.HandleRequest(ctx, s, method, params)
	if err != nil {
		return nil, fmt.Errorf("/inputRequests/%s (%s): %w", key, method, err)
	}
	if res == nil {
		return nil, fmt.Errorf("/inputRequests/%s (%s): the handler returned no result", key, method)
	}
	b, err := res.AppendJSON(nil)
	if err != nil {
		return nil, fmt.Errorf("/inputRequests/%s (%s) result: %w", key, method, err)
	}
	return b, nil
}

// isAnswer reports whether err is the server's answer (a JSON-RPC error),
// as opposed to a failure to get one.
func isAnswer(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je)
}

// envelopeStub stands in for the envelope when params whose _meta requires
// it are encoded for a legacy session, which gets no envelope.
var envelopeStub = jsontext.Value(`{"` + MetaProtocolVersion + `":"","` + MetaClientCapabilities + `":{}}`)

// envelopeKeys are the _meta members of the envelope.
var envelopeKeys = []string{MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo}

// encodeParams encodes the params of a call of a client of the stateless
// era: with the envelope of mc in _meta, or, on a legacy session (mc nil),
// without any.
func encodeParams(params wire.Appender, mc *modernClient) (jsontext.Value, error) {
	ma, ok := params.(wire.MetaAppender)
	switch {
	case mc != nil && ok:
		return ma.AppendJSONWithMeta(nil, mc.meta)
	case mc != nil:
		if raw, isRaw := params.(rawAppender); isRaw {
			// Encoded already (params through middleware): read in place,
			// not copied first, as withModernMeta does not change it.
			return mc.withModernMeta(jsontext.Value(raw))
		}
		raw, err := params.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		return mc.withModernMeta(raw)
	case !ok:
		return params.AppendJSON(nil)
	}
	raw, err := ma.AppendJSONWithMeta(nil, envelopeStub)
	if err != nil {
		return nil, err
	}
	meta, _ := wire.Member(raw, "_meta")
	if meta, err = wire.DeleteMembers(meta, envelopeKeys...); err != nil {
		return nil, err
	}
	if string(meta) == "{}" {
		return removeMember(raw, "_meta")
	}
	return wire.SetMember(raw, "_meta", meta)
}

// legacyResult gives a result from a server of the initialize era what the
// types of the stateless era require of it: resultType "complete"
// and, for a cacheable method, the caching hints of a result that must not
// be reused, ttlMs 0 (absent is stale at once) and cacheScope
// "private" (docs/requirements.md#legacy-results).
func legacyResult(method string, raw jsontext.Value) (jsontext.Value, error) {
	raw, err := wire.SetMember(raw, "resultType", jsontext.Value(`"complete"`))
	if err != nil || !cache.Cacheable(method) {
		return raw, err
	}
	if !wire.Has(raw, "ttlMs") {
		if raw, err = wire.SetMember(raw, "ttlMs", jsontext.Value(`0`)); err != nil {
			return nil, err
		}
	}
	if !wire.Has(raw, "cacheScope") {
		raw, err = wire.SetMember(raw, "cacheScope", jsontext.Value(`"private"`))
	}
	return raw, err
}

// ToolLister is implemented by transports that mirror tool arguments into
// headers, as the x-mcp-header annotations of the tool's inputSchema say
// (streamhttp.Client in the stateless era): they learn the
// annotations from the answers to tools/list. When NeedsToolList reports
// that none was seen yet, a client of the stateless era lists the tools
// before its first tools/call.
type ToolLister interface {
	NeedsToolList() bool
}

// maxListPages bounds the tools/list pages read before a first tools/call.
const maxListPages = 100

// listToolsFirst lists the server's tools, page by page, when the transport
// needs to have seen them before a tools/call (ToolLister). Failures are
// left to the tools/call: the server says what it misses.
func (s *Session) listToolsFirst(ctx context.Context) {
	tl, ok := s.t.(ToolLister)
	if !ok || !tl.NeedsToolList() {
		return
	}
	params := jsontext.Value(`{}`)
	for range maxListPages {
		res, err := s.Call(ctx, "tools/list", rawAppender(params))
		if err != nil {
			s.log.Debug("mcp: listing the tools before a tools/call failed", "err", err)
			return
		}
		cursor, ok := wire.Member(res, "nextCursor")
		if !ok || cursor.Kind() != '"' {
			return
		}
		if params, err = wire.SetMember(jsontext.Value(`{}`), "cursor", cursor); err != nil {
			return
		}
	}
}
