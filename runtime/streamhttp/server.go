// Package streamhttp is MCP's Streamable HTTP transport (revisions
// 2025-03-26, 2025-06-18 and 2025-11-25): Server, a net/http handler that
// runs one session per Mcp-Session-Id, and Client, the client transport.
//
// A session speaks the revision negotiated by its initialize, whatever the
// transport: a client that asks for 2024-11-05, whose own HTTP transport is
// HTTP+SSE, gets it here too when the binary links it, as the lifecycle's
// version negotiation says
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation).
// For the clients of HTTP+SSE itself, the specification's advice is to keep
// the old endpoints beside this one
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility):
// see package ssehttp.
//
// A Server whose handler speaks a stateless revision (2026-07-28 on, see
// session.Modern) serves that era on the same endpoint too: a POST that
// names no session and whose request carries its revision in _meta is
// answered on its own, with no session, once its headers agree with its
// body: MCP-Protocol-Version with _meta, Mcp-Method with the method,
// Mcp-Name with the name or URI, and the Mcp-Param headers with the
// arguments the called tool marks with x-mcp-header, which the handler
// reports through session.ToolHeaderHandler (see package mcpheader). A
// header that is missing, repeated, extra or different is answered 400
// with JSON-RPC error -32020 (HeaderMismatch). A GET or DELETE that names no session is 405
// there; those of legacy sessions are served as below.
//
// The server answers each POSTed request on an SSE stream of its own (or
// as JSON, if configured), sends what a handler sends while answering it on
// that stream, and everything else on the client's GET stream; every SSE
// event has an ID that names its stream, and a client that lost a stream
// resumes it with GET and Last-Event-ID (events are kept in an EventStore).
// Requests whose Host or Origin is not allowed are refused with 403, bodies
// are limited, idle sessions are reaped, and the number of live sessions is
// bounded (ServerOptions.MaxSessions), and so is each principal's
// (MaxSessionsPerPrincipal: by default a hundredth of MaxSessions, at
// least 10; 429 beyond).
//
// A session belongs to the principal (the user) of its initialize: by
// default the one an authorization layer in front put in the request's
// context, as bearer.Protect does (session.PrincipalOf). A request that
// names the session but speaks for another principal, or for none, is
// answered 404 exactly as for a session that does not exist, whatever its
// method: a session id that leaks lets no one else send requests in the
// session, resume its streams or end it (ServerOptions.Principal,
// UnboundSessions).
//
// Logs never hold a session id, nor an SSE event id (which holds it): a
// session is named by its tag, the first 8 hex digits of the SHA-256 of
// its id (sessionTag=…; a stream by the tag and its number), which tells
// sessions apart without giving the id back.
//
// Server.Close shuts down gracefully: new requests are refused with 503,
// the requests already received are answered (within the session's
// Options.DrainTimeout), each answer is written on its open stream, and
// each stream still open ends with an SSE event of type "session-ended",
// which tells the Client that the session is gone; see Close for the
// order, and for its use with http.Server.Shutdown.
//
// Memory is bounded. Of the events already sent on a stream, only the
// resumption window is kept (ServerOptions.ReplayEvents, ReplayBytes: by
// default the newest 256 events within 1 MiB); resuming from an older event
// is answered with 410 Gone and a -32600 error rather than replayed with a
// gap. A POST's stream whose events, its answer included, all went out to a
// connected client is dropped at once: nothing is left to resume. One whose
// connection broke first is retained, once complete, for StreamRetention,
// within SessionRetentionBytes per session and ServerRetentionBytes in all
// (the oldest dropped first); resuming a dropped stream is 410 too.
// Events not yet sent (the client is not connected, or not reading) are
// limited per stream and per session (StreamBufferEvents, StreamBufferBytes,
// SessionBufferEvents, SessionBufferBytes). When a message does not fit: a
// response is kept anyway, so that no answer is lost; a message a handler
// sends while answering a request waits for room until the request's
// context ends (backpressure: only that handler waits); any other message,
// such as a list_changed broadcast, is refused with an error wrapping
// ErrStreamFull. A client that keeps a connection open but stops reading
// does not hold it either: a write that does not complete within
// ServerOptions.WriteTimeout ends the connection, and its stream waits,
// resumable, for the client to come back.
//
// An idle server session (initialized, no stream open) holds about 1.4 KiB
// of heap and no goroutine: its requests run on goroutines that end with
// them (session.PushOnly); once a session has ended, the server holds
// nothing of it (BenchmarkIdleSession: Go 1.26, amd64, sessions at
// 2025-11-25 sharing one StandardServer of mcp20260728, which serves both
// eras).
//
// A request the transport refuses (a bad header, no such session, a body
// too large, …) gets an HTTP error status and JSON-RPC error responses that
// carry the ids of the body's requests, when they could be read; see
// ServeHTTP. The Client gives such an error response to its caller: the
// error of its Write wraps the *jsonrpc.Error.
//
// The Client's memory is bounded too: what its streams deliver waits for
// Read in a queue limited by ClientOptions.MaxQueued and MaxQueuedBytes
// (past them, it reads its streams no further until Read makes room), and
// a message, JSON body or SSE event, is at most 64 MiB.
package streamhttp

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/internal/httpguard"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/internal/quota"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ServerOptions configure a Server. The zero value serves loopback clients
// with SSE answers.
type ServerOptions struct {
	// Session configures each session.
	Session session.Options
	// JSONResponse answers requests with one application/json body instead
	// of an SSE stream; messages a handler sends while answering then go on
	// the GET stream.
	JSONResponse bool
	// AllowedHosts are the Host header values accepted, as host names (any
	// port) or host:port. Default: localhost, 127.0.0.1 and ::1, against DNS
	// rebinding. "*" allows any host.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values accepted ("*" for any).
	// Default: http and https origins on the allowed hosts. Requests without
	// Origin are not browsers and are accepted.
	AllowedOrigins []string
	// MaxBodyBytes limits a POST body (413 beyond). Default 4 MiB.
	MaxBodyBytes int64
	// IdleTimeout ends a session that saw no request and has no open stream
	// for this long. Default 10 minutes; negative means never.
	IdleTimeout time.Duration
	// Retry is sent as the SSE retry field on 2025-11-25 streams, telling a
	// client how long to wait before reconnecting. Zero sends none.
	Retry time.Duration
	// EventStore keeps SSE events for resumption. Default: a MemoryStore.
	EventStore EventStore
	// StreamRetention is how long a POST's SSE stream stays resumable once
	// it is complete (every response it owes was written) when its
	// connection broke before it delivered every event: it is retained,
	// then a timer drops it with its events, and resuming it is answered
	// with 410 Gone. A stream whose events all went out to a connected
	// client, its response included, is not retained: it is dropped at
	// once, since no client needs to resume it. Default 30 seconds;
	// negative keeps the retained streams until the session ends (within
	// the bounds below).
	StreamRetention time.Duration
	// SessionRetentionBytes and ServerRetentionBytes bound what retained
	// streams (see StreamRetention) hold, in bytes: those of one session,
	// and those of all the sessions of the Server. A stream counts the
	// bytes of the events it keeps, plus 512 for its bookkeeping. When a
	// stream is retained beyond a bound, the oldest retained streams are
	// dropped first, with their events (resuming one is then answered with
	// 410 Gone, as after StreamRetention); a stream larger than a bound on
	// its own is not retained at all. Defaults DefaultSessionRetentionBytes
	// (8 MiB) and DefaultServerRetentionBytes (64 MiB); negative means no
	// limit.
	SessionRetentionBytes int64
	ServerRetentionBytes  int64
	// ReplayEvents and ReplayBytes are each stream's resumption window: of
	// the events already sent on a stream, the newest ReplayEvents, within
	// ReplayBytes, stay in the EventStore for a client that resumes with
	// Last-Event-ID; older ones are discarded. Resuming from an event before
	// the window is answered with 410 Gone and a -32600 error, not replayed
	// with a gap. Defaults 256 events and 1 MiB; negative means no limit.
	ReplayEvents int
	ReplayBytes  int64
	// StreamBufferEvents and StreamBufferBytes limit the events of one
	// stream that are not sent yet (its client is not connected, or not
	// reading). Defaults 1024 events and 4 MiB; negative means no limit.
	StreamBufferEvents int
	StreamBufferBytes  int64
	// SessionBufferEvents and SessionBufferBytes limit the events not sent
	// yet across all streams of a session. Defaults 4096 events and 16 MiB;
	// negative means no limit.
	//
	// A message always fits a buffer that holds nothing, whatever its size.
	// A response that does not fit is kept anyway (no answer is lost); a
	// message a handler sends while answering a request waits for room
	// until the request's context ends (backpressure; the error then wraps
	// ErrStreamFull and the context's error); any other message is refused
	// at once with an error wrapping ErrStreamFull.
	SessionBufferEvents int
	SessionBufferBytes  int64
	// MaxSessions is the most sessions alive at once. An initialize beyond it
	// is refused with 503 Service Unavailable and a JSON-RPC error (code
	// session.Busy) carrying its id. A session keeps its place until it
	// has ended, however it ends (DELETE, idle, Server.Close): its id is
	// unknown at once, but its place is freed only once the handlers of
	// its requests have returned (see session.Options.DrainTimeout) and
	// its streams have ended. Default 10,000 (an idle session costs the
	// memory stated in the package doc); negative means no limit.
	MaxSessions int
	// MaxSessionsPerPrincipal is the most sessions alive at once of one
	// principal (see Principal), so that one user cannot take every place
	// of MaxSessions from the others. An initialize beyond it is refused
	// with 429 Too Many Requests and a JSON-RPC error (code session.Busy)
	// carrying its id and naming the limit; a session of the principal
	// frees a place once it has ended, as for MaxSessions. Only requests
	// that speak for a principal (not "") count: without an authorization
	// layer in front, MaxSessions alone applies.
	//
	// Default: MaxSessions/100, at least 10 (DefaultMaxSessionsPerPrincipal,
	// 100, with the default MaxSessions, and when MaxSessions is
	// negative). Negative means no limit per principal: one principal may
	// then hold every session MaxSessions allows.
	MaxSessionsPerPrincipal int
	// WriteTimeout bounds each write to an SSE stream's connection (and
	// of a JSON answer): a write that does not complete within it, because
	// the client stopped reading while its connection stays open, ends
	// that connection. Its stream detaches and stays resumable within its
	// resumption window: the events not written are kept, and the session
	// can be reaped once idle. Default DefaultWriteTimeout; negative means
	// no limit. It is set with http.ResponseController.SetWriteDeadline,
	// and has no effect where the ResponseWriter does not support that.
	WriteTimeout time.Duration
	// Principal names who a request speaks for, such as the issuer and
	// subject of its access token; "" is none. Default: the principal an
	// authorization layer in front of the Server put in the request's
	// context (session.PrincipalOf), as bearer.Protect does.
	//
	// A session belongs to the principal of its initialize: a POST, GET
	// (Last-Event-ID resumption included) or DELETE naming the session
	// whose principal differs, or has none while the session has one, is
	// refused with 404 and the same JSON-RPC error as for a session that
	// does not exist, so that a session id that leaks is of no use with
	// another principal's token and its existence is not revealed. A
	// session opened without a principal serves only requests without one.
	Principal func(*http.Request) string
	// UnboundSessions turns that binding off: a request naming a session
	// is served in it whoever it speaks for. It gives up the protection of
	// one user's session from another user: anyone with a valid token who
	// learns a session id can then send requests in the session, resume
	// its streams with Last-Event-ID (reading the answers it was sent) and
	// end it with DELETE. Set it only when every client shares one trust
	// domain, or when the application binds sessions itself. The
	// per-principal limit (MaxSessionsPerPrincipal) still applies.
	UnboundSessions bool
	// Gate, when set, decides whether a request may be served at all,
	// such as by an API key (see RequireHeader): it is called for every
	// request that passed the Host and Origin checks, before anything else
	// is done with it, and a non-nil error refuses the request with 401
	// Unauthorized and, as the body, a JSON-RPC error (code -32600, the
	// message "unauthorized: " and the error's text): one for each request
	// of a POST body, carrying its id (the body is read up to 64 KiB to
	// find them; an array gets an array), or one without an id for a GET,
	// a DELETE or a body without requests. When the error, or one it
	// wraps, has a method Challenge() string, its result is sent as the
	// WWW-Authenticate header (RFC 9110 section 11.6.1). The error's text
	// goes to the client: it must not hold a secret. For OAuth, use
	// runtime/bearer in front of the Server instead.
	Gate func(r *http.Request) error
	// Fleet, when set, makes the server one instance of a fleet that
	// serves legacy sessions behind a load balancer with no session
	// affinity: each session's record is kept in Fleet.Sessions, a request
	// for a session another instance owns is carried to it through
	// Fleet.Relay, and one whose owner is gone is carried on here from its
	// record. EventStore must then be shared by the fleet too: it keeps
	// the events of the GET streams, which a client resumes on any
	// instance; the POST streams' events stay in this instance's memory.
	// See docs/fleet.md.
	Fleet *fleet.Node
	// Logger receives diagnostics. Default: discard. What it is given
	// holds no session id, nor a token: a session is named by its tag (see
	// the package doc).
	Logger *slog.Logger
}

// RequireHeader returns a gate for ServerOptions.Gate that lets through a
// request whose header name (such as "X-API-Key") holds one of keys,
// exactly, once; empty keys are ignored. Without a header name or a
// non-empty key the gate is misconfigured: it says so once, at ERROR
// level, to slog.Default(), and refuses every request saying so. A missing, repeated or wrong header is refused with an error
// that names the header, never the value sent, and asks for the
// challenge APIKey header="<name>". Keys are compared by their SHA-256
// digests, in constant time.
func RequireHeader(name string, keys ...string) func(*http.Request) error {
	return httpguard.RequireHeader(name, keys...)
}

// DefaultWriteTimeout is the default of ServerOptions.WriteTimeout.
const DefaultWriteTimeout = 30 * time.Second

// DefaultMaxSessions is the default of ServerOptions.MaxSessions.
const DefaultMaxSessions = 10_000

// DefaultMaxSessionsPerPrincipal is the default of
// ServerOptions.MaxSessionsPerPrincipal with the default MaxSessions or
// none; with another MaxSessions, the default is a hundredth of it, at
// least 10.
const DefaultMaxSessionsPerPrincipal = DefaultMaxSessions / 100

// DefaultSessionRetentionBytes and DefaultServerRetentionBytes are the
// defaults of ServerOptions.SessionRetentionBytes and ServerRetentionBytes.
const (
	DefaultSessionRetentionBytes = 8 << 20
	DefaultServerRetentionBytes  = 64 << 20
)

// Server serves MCP sessions over Streamable HTTP.
type Server struct {
	newHandler func() session.Handler
	badOptions error              // what is wrong with the options: every request is refused
	stateless  *session.Stateless // when the handler speaks the stateless era
	opts       ServerOptions
	guard      httpguard.Guard // AllowedHosts, AllowedOrigins
	store      EventStore
	local      EventStore    // the events of POST streams: store, but in a fleet (see storeFor)
	fleet      *fleet.Node   // ServerOptions.Fleet
	tunnel     *fleet.Tunnel // in a fleet: carries requests to the owners of sessions
	log        *slog.Logger

	quota *quota.Sessions // MaxSessions, MaxSessionsPerPrincipal
	// live counts the sessions that have not ended: Add in newConn, Done
	// when conn.Close has finished. Close waits for it, so also for the
	// sessions a DELETE or the reaper forgot just before.
	live sync.WaitGroup

	mu        sync.Mutex
	sessions  map[string]*conn
	peak      int // the most sessions since sessions was made (see forget)
	closed    bool
	stop      chan struct{}
	closeDone chan struct{} // closed when Close has returned
	shutting  atomic.Bool   // closed, read without mu

	// testHookWrite, when set (by tests only), is called by conn.Write
	// with its data after its first look at closed, before it takes mu.
	testHookWrite func(data []byte)

	// The streams the sessions retain, oldest first, and their bytes (see
	// ServerOptions.ServerRetentionBytes). rmu is taken after a conn's mu,
	// never before.
	rmu           sync.Mutex
	retained      list.List // of retainedRef
	retainedBytes int64
}

// retainedRef is an entry of Server.retained.
type retainedRef struct {
	c  *conn
	st *stream
}

// NewServer returns a Server that gives each new session the handler
// newHandler returns (for a generated package: func() session.Handler {
// return mcp.NewServerHandler(srv) }, or a StandardServer's Handler
// method). Sessions and stateless requests run with
// session.MergeOptions(handler, opts.Session). When those options name a
// revision not linked into the binary (see session.CheckRevisions), the
// error is logged once, at ERROR level, to opts.Logger or else
// slog.Default(), and every request is refused with 500 and a JSON-RPC
// error that says it.
func NewServer(newHandler func() session.Handler, opts ServerOptions) *Server {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.AllowedHosts == nil {
		opts.AllowedHosts = httpguard.DefaultHosts()
	}
	if opts.StreamRetention == 0 {
		opts.StreamRetention = 30 * time.Second
	}
	orDefault(&opts.ReplayEvents, 256)
	orDefault(&opts.ReplayBytes, 1<<20)
	orDefault(&opts.StreamBufferEvents, 1024)
	orDefault(&opts.StreamBufferBytes, 4<<20)
	orDefault(&opts.SessionBufferEvents, 4096)
	orDefault(&opts.SessionBufferBytes, 16<<20)
	orDefault(&opts.SessionRetentionBytes, DefaultSessionRetentionBytes)
	orDefault(&opts.ServerRetentionBytes, DefaultServerRetentionBytes)
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerPrincipal == 0 {
		opts.MaxSessionsPerPrincipal = quota.DefaultPerPrincipal(opts.MaxSessions)
	}
	if opts.Principal == nil {
		opts.Principal = quota.PrincipalOf
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	s := &Server{newHandler: newHandler, opts: opts, guard: httpguard.Guard{Hosts: opts.AllowedHosts, Origins: opts.AllowedOrigins}, store: opts.EventStore, log: opts.Logger, quota: quota.New(opts.MaxSessions, opts.MaxSessionsPerPrincipal), sessions: map[string]*conn{}, stop: make(chan struct{}), closeDone: make(chan struct{})}
	if s.store == nil {
		s.store = NewMemoryStore()
	}
	s.local = s.store
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	h := newHandler()
	if s.badOptions = httpguard.CheckRevisions("streamhttp", h, opts.Session, opts.Logger); s.badOptions != nil {
		return s
	}
	if session.Modern(h) {
		s.stateless = session.NewStateless(h, opts.Session)
	}
	if opts.Fleet != nil {
		if eff := session.MergeOptions(h, opts.Session); s.stateless != nil && (eff.Sealer == nil || eff.StateAudience == "") {
			s.log.Warn("mcp http: ServerOptions.Fleet is set, but the session options have no Sealer with the fleet's keys, or no StateAudience: a requestState sealed on this instance opens on no other, and a request that asks for input fails when its retry lands elsewhere (see docs/fleet.md)")
		}
		if s.badOptions = s.joinFleet(opts.Fleet); s.badOptions != nil {
			s.log.Error("mcp http: joining the fleet", "err", s.badOptions)
			return s
		}
	}
	if opts.IdleTimeout > 0 {
		go s.reap()
	}
	return s
}

// orDefault sets a zero limit to def.
func orDefault[T int | int64](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// ErrStreamFull is wrapped by the error a session's write gets when the SSE
// stream the message belongs to, or its session, holds as many unsent
// events as ServerOptions allow: the client is not reading.
var ErrStreamFull = errors.New("SSE stream full: the client is not reading it")

// Close shuts the server down gracefully and returns once every session
// has ended. In order:
//
//  1. It stops accepting: an initialize is refused with 503 Service
//     Unavailable, and so is a POST that carries requests in a live
//     session, with a JSON-RPC error (code session.Busy) for each request,
//     carrying its id; a POST of notifications and responses only is still
//     taken, and a GET still opens or resumes a stream.
//  2. It drains: every session ends at the same time, as
//     session.Session.Close ends it. The handlers of the requests already
//     received run for up to Options.DrainTimeout before their contexts
//     are cancelled, and each answer is put on its request's stream.
//  3. It flushes: each SSE stream that a connection carries gets every
//     event not written yet, the answers included, then a last event of
//     type "session-ended" whose data is a JSON object with a "reason"
//     (here "the server is shutting down"), which tells the Client that
//     the session is gone; then its response ends. Each write is bounded
//     by WriteTimeout, and the wait for the flush of a session to
//     WriteTimeout too (DefaultWriteTimeout when WriteTimeout is
//     negative).
//  4. It forgets the sessions and their streams: a request naming one is
//     then answered 404, which tells a client that the session is gone.
//
// It returns once the sessions a DELETE or the idle reaper ended just
// before have ended too (their handlers returned, their streams flushed),
// within the same limits.
//
// In a fleet (ServerOptions.Fleet), Close hands the sessions over instead
// of ending them: step 3 writes no session-ended event, step 4 keeps their
// records and GET streams in the fleet's stores, released, and the next
// request for one, on any instance, carries it on there. A client whose
// stream ended resumes it with Last-Event-ID, as after a broken
// connection. A rolling restart of the fleet thus ends no session.
//
// Close does not close connections: with an http.Server, call its
// Shutdown, registering Close with RegisterOnShutdown, so that the
// connections end once their streams have. Calling Close again waits until
// the first call has returned.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.closeDone
		return
	}
	s.closed = true
	s.shutting.Store(true)
	close(s.stop)
	if s.stateless != nil {
		s.stateless.Close() // listen streams end with their result
	}
	conns := make([]*conn, 0, len(s.sessions))
	for _, c := range s.sessions {
		conns = append(conns, c)
		c.mu.Lock()
		c.endReason = "the server is shutting down"
		c.mu.Unlock()
		if s.fleet != nil {
			// Handed over: another instance carries it on.
			c.handedOver.Store(true)
			c.release.Store(true)
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.sess.Close() })
	}
	wg.Wait()
	// The sessions forgotten before s.sessions was listed, ending on their
	// own goroutines (no newConn adds one once closed is set).
	s.live.Wait()
	if s.tunnel != nil {
		s.tunnel.Close()
	}
	close(s.closeDone)
}

func (s *Server) reap() {
	t := time.NewTicker(max(s.opts.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		var idle, live []*conn
		s.mu.Lock()
		for _, c := range s.sessions {
			live = append(live, c)
			c.mu.Lock()
			if c.attached == 0 && time.Since(c.lastSeen) > s.opts.IdleTimeout {
				idle = append(idle, c)
			}
			c.mu.Unlock()
		}
		s.mu.Unlock()
		s.renew(live)
		for _, c := range idle {
			s.log.Debug("mcp http: idle session ended", "sessionTag", c.tag())
			s.forget(c)
		}
		closeIdle(idle)
	}
}

// reapWorkers is how many goroutines end the sessions of one round of
// reaping.
const reapWorkers = 8

// closeIdle ends the sessions of idle on at most reapWorkers goroutines,
// not waited for: a session that drains (a handler still running) must not
// hold up the others, nor the next round of reaping. Not a goroutine per
// session: when thousands of sessions expire at once, as when clients
// vanish without DELETE, thousands of goroutines would start, and the Go
// runtime keeps the record of every goroutine it ever ran at once.
func closeIdle(idle []*conn) {
	var next atomic.Int64
	for range min(len(idle), reapWorkers) {
		go func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(idle)) {
					return
				}
				idle[i].sess.Close()
			}
		}()
	}
}

// httpError answers with status and, as the body, a JSON-RPC error without
// an id (see refusal; no revision known).
func httpError(w http.ResponseWriter, status int, code int64, format string, args ...any) {
	refuse(w, refusal{}, status, code, format, args...)
}

// ServeHTTP implements http.Handler: POST, GET and DELETE on one endpoint.
//
// A request it refuses gets an HTTP error status and, as the body, JSON-RPC
// errors: one for each request of a POST body whose id could be read, with
// that id (an array for a batch), else one without an id, which leaves the
// id out at 2025-11-25 (or when no revision is known) and writes "id": null
// before it, as JSON-RPC 2.0 prescribes (the earlier schemas allow no
// error without an id). MCP-Protocol-Version is checked before
// Mcp-Session-Id, so that an unsupported revision is reported as such.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.guard.Check(r); err != nil {
		httpError(w, http.StatusForbidden, jsonrpc.InvalidRequest, "%v", err)
		return
	}
	if s.badOptions != nil {
		httpError(w, http.StatusInternalServerError, jsonrpc.InternalError, "%v", s.badOptions)
		return
	}
	if g := httpguard.Gate(s.opts.Gate, r, s.opts.MaxBodyBytes); g != nil {
		if g.Challenge != "" {
			w.Header().Set("WWW-Authenticate", g.Challenge)
		}
		refuse(w, refusal{ids: g.IDs, batch: g.Batch, rev: claimedRevision(r)}, http.StatusUnauthorized, jsonrpc.InvalidRequest, "%s", g.Message)
		return
	}
	if s.fleet != nil && s.forward(w, r) {
		return
	}
	s.dispatch(w, r)
}

// dispatch serves r by its method.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodGet:
		s.get(w, r)
	case http.MethodDelete:
		s.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, jsonrpc.InvalidRequest, "method %s is not allowed", r.Method)
	}
}

func accepts(r *http.Request, types ...string) bool {
	for _, t := range types {
		if !acceptsType(r.Header.Values("Accept"), t) {
			return false
		}
	}
	return true
}

// acceptsType reports whether the Accept header values list the media type
// t (or */*), ignoring parameters and case.
func acceptsType(values []string, t string) bool {
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			mt, _, _ := strings.Cut(part, ";")
			if mt = strings.TrimSpace(mt); strings.EqualFold(mt, t) || mt == "*/*" {
				return true
			}
		}
	}
	return false
}

// checkVersion validates MCP-Protocol-Version: a missing header
// means 2025-03-26 ([protocol version header]); a present one must name a revision linked in. It is
// checked before the session id, so that an unsupported version is
// reported as such. On success, it notes the revision in rf.
//
// [protocol version header]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header
func checkVersion(w http.ResponseWriter, r *http.Request, rf *refusal) bool {
	v := r.Header.Get(versionKey)
	if v == "" {
		return true
	}
	if _, ok := revision.Lookup(v); !ok {
		refuse(w, *rf, http.StatusBadRequest, jsonrpc.InvalidRequest, "unsupported MCP-Protocol-Version %q", v)
		return false
	}
	rf.rev = v
	return true
}

// lookup finds the session a request names and notes it in
// rf.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, rf *refusal) *conn {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		refuse(w, *rf, http.StatusBadRequest, jsonrpc.InvalidRequest, "missing Mcp-Session-Id header")
		return nil
	}
	s.mu.Lock()
	c := s.sessions[sid]
	s.mu.Unlock()
	if c != nil && !s.opts.UnboundSessions && s.principalOf(r) != c.principal {
		// Answered as a session that does not exist: the caller learns
		// nothing of it. The log names it by its tag only (a session id
		// lets anyone bound to it use it).
		s.log.Warn("mcp http: a request names a session of another principal; answered as if it did not exist",
			"sessionTag", c.tag(), "method", r.Method, "remote", r.RemoteAddr)
		c = nil
	}
	if c == nil {
		refuse(w, *rf, http.StatusNotFound, jsonrpc.InvalidRequest, "%s", errNoSession)
		return nil
	}
	rf.conn = c
	return c
}

// errNoSession is the message of the refusal of a request naming a
// session that does not exist, has ended, or belongs to another
// principal. It does not repeat the id: the client knows which it sent,
// and what it logs of the message then holds none.
const errNoSession = "no such session: the Mcp-Session-Id names no session, one that has ended, or one of another user; start a new one with initialize"

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	// The body is read first: every refusal echoes the ids of its requests
	// (see refusal).
	var rf refusal
	body, err := readBody(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), r.ContentLength)
	if err != nil {
		rf.ids, rf.batch = peekRequestIDs(body)
		rf.rev = claimedRevision(r)
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(w, rf, http.StatusRequestEntityTooLarge, jsonrpc.InvalidRequest, "body larger than %d bytes", s.opts.MaxBodyBytes)
			return
		}
		refuse(w, rf, http.StatusBadRequest, jsonrpc.ParseError, "reading the body: %v", err)
		return
	}
	items, batch, decodeErr := jsonrpc.DecodeOwned(body, true) // body is not changed: the session may get it as is
	var requests []wire.ID
	var invalid *jsonrpc.Error // of the first message that is not valid
	initialize := false
	requested := "" // the revision an initialize asks for
	for _, it := range items {
		if it.Err != nil {
			if invalid == nil {
				invalid = it.Err
			}
			continue
		}
		if it.Msg.Kind == jsonrpc.Request {
			requests = append(requests, it.Msg.ID)
			if it.Msg.Method == "initialize" {
				initialize = true
				requested, _ = wire.MemberString(it.Msg.Params, "protocolVersion")
			}
		}
	}
	rf.items, rf.batch = items, batch
	if !accepts(r, "application/json", "text/event-stream") {
		refuse(w, rf, http.StatusNotAcceptable, jsonrpc.InvalidRequest, "Accept must list application/json and text/event-stream")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		refuse(w, rf, http.StatusUnsupportedMediaType, jsonrpc.InvalidRequest, "Content-Type must be application/json, not %q", ct)
		return
	}
	if decodeErr != nil {
		var de *jsonrpc.DecodeError
		code := int64(jsonrpc.ParseError)
		if errors.As(decodeErr, &de) {
			code = de.Code
		}
		rf.rev = claimedRevision(r)
		refuse(w, rf, http.StatusBadRequest, code, "%v", decodeErr)
		return
	}
	if invalid != nil {
		refuse(w, rf, http.StatusBadRequest, invalid.Code, "%s", invalid.Message)
		return
	}
	if stateless, sp := s.isStateless(r, items, initialize); stateless {
		s.postStateless(w, r, rf, items, batch, sp)
		return
	}
	var c *conn
	if initialize {
		if r.Header.Get("Mcp-Session-Id") != "" {
			refuse(w, rf, http.StatusBadRequest, jsonrpc.InvalidRequest, "initialize must not carry an Mcp-Session-Id")
			return
		}
		var status int
		var e *jsonrpc.Error
		if c, status, e = s.newConn(r); e != nil {
			refuse(w, rf, status, e.Code, "%s", e.Message)
			return
		}
		w.Header().Set("Mcp-Session-Id", c.id)
	} else {
		if !checkVersion(w, r, &rf) {
			return
		}
		if c = s.lookup(w, r, &rf); c == nil {
			return
		}
	}
	if !initialize && len(requests) > 0 && s.shutting.Load() {
		refuse(w, rf, http.StatusServiceUnavailable, session.Busy, "the server is shutting down: the request was not handled")
		return
	}
	c.touch()
	if batch && !initialize {
		// Batches were decoded to route them; the session decodes with
		// batches only if its revision has them.
		if rev := c.sess.Revision(); rev == nil || !rev.Batching {
			refuse(w, rf, http.StatusBadRequest, jsonrpc.InvalidRequest, "batches are not part of this revision")
			return
		}
	}
	p := posted{body: body, items: items, batch: batch, vals: session.WithHTTPRequest(r.Context(), r)}
	if len(requests) == 0 {
		// Only notifications and responses: accepted.
		if !c.deliver(p, false) {
			refuse(w, rf, http.StatusNotFound, jsonrpc.InvalidRequest, "session ended")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st, err := c.openStream(requests, s.opts.JSONResponse)
	if err != nil {
		refuse(w, rf, http.StatusBadRequest, jsonrpc.InvalidRequest, "%v", err)
		return
	}
	// With JSON answers, this goroutine waits for the answer anyway: a single
	// request is handled on it. An SSE answer must start streaming while
	// the handler runs (progress, requests to the client), so not then.
	if !c.deliver(p, s.opts.JSONResponse) {
		refuse(w, rf, http.StatusNotFound, jsonrpc.InvalidRequest, "session ended")
		return
	}
	if s.opts.JSONResponse {
		c.serveJSON(w, r, st, rf)
		if initialize {
			c.mu.Lock()
			c.idleLocked()
			c.mu.Unlock()
		}
		return
	}
	prime := c.polling()
	if initialize {
		// Not negotiated yet: prime only a client that asked for polling.
		prime = requested >= "2025-11-25"
	}
	c.serveSSE(w, r, st, 0, prime)
	if initialize {
		c.mu.Lock()
		c.idleLocked()
		c.mu.Unlock()
	}
}

// idleLocked gives back the tables of streams and requests of a session
// that has none, once its initialize is answered: a Go map keeps its
// memory once emptied, and many sessions are never used again (the next
// request makes them anew, once).
func (c *conn) idleLocked() {
	if len(c.streams) == 0 {
		c.streams = nil
	}
	if len(c.byReq) == 0 {
		c.byReq = nil
	}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if s.sessionless(w, r) {
		return
	}
	if !accepts(r, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, jsonrpc.InvalidRequest, "Accept must list text/event-stream")
		return
	}
	var rf refusal
	if !checkVersion(w, r, &rf) {
		return
	}
	c := s.lookup(w, r, &rf)
	if c == nil {
		return
	}
	c.touch()
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		id, seq, ok := parseEventID(last)
		c.mu.Lock()
		st := c.streams[id]
		if st == nil && id == c.id+"-0" {
			st = c.standaloneLocked() // not used yet
		}
		dropped := ok && st == nil && c.hadStreamLocked(id)
		c.mu.Unlock()
		if dropped {
			httpError(w, http.StatusGone, jsonrpc.InvalidRequest, "Last-Event-ID: the stream was dropped: it was delivered, or it was retained for longer than %v or beyond %d bytes; its events are beyond the resumption window", c.srv.opts.StreamRetention, c.srv.opts.SessionRetentionBytes)
			return
		}
		if !ok || st == nil {
			// Never replay another session's stream.
			httpError(w, http.StatusBadRequest, jsonrpc.InvalidRequest, "Last-Event-ID names no stream of this session")
			return
		}
		c.serveSSE(w, r, st, seq, false)
		return
	}
	c.mu.Lock()
	st := c.standaloneLocked()
	busy := st.attached
	after := st.delivered
	c.mu.Unlock()
	if busy {
		httpError(w, http.StatusConflict, jsonrpc.InvalidRequest, "the session already has a GET stream")
		return
	}
	c.serveSSE(w, r, st, after, c.polling())
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	if s.sessionless(w, r) {
		return
	}
	var rf refusal
	if !checkVersion(w, r, &rf) {
		return
	}
	c := s.lookup(w, r, &rf)
	if c == nil {
		return
	}
	// The session leaves the map before the 204: a request sent after the
	// answer finds no session, not one that is ending.
	s.forget(c)
	s.log.Debug("mcp http: session ended by DELETE", "sessionTag", c.tag())
	c.sess.Close()
	w.WriteHeader(http.StatusNoContent)
}

// sessionless answers a GET or DELETE that names no session on a server
// whose handler speaks the stateless era with 405 Method Not Allowed and
// "Allow: POST", and reports whether it did: a client of that era
// only POSTs, and the GET stream and DELETE belong to legacy sessions,
// whose requests carry their Mcp-Session-Id and are served as before. On a
// server of a legacy handler only, such a request stays a 400 for the
// missing session id.
func (s *Server) sessionless(w http.ResponseWriter, r *http.Request) bool {
	if s.stateless == nil || r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	w.Header().Set("Allow", http.MethodPost)
	httpError(w, http.StatusMethodNotAllowed, jsonrpc.InvalidRequest,
		"%s without an Mcp-Session-Id is not allowed: requests of revision 2026-07-28 and later are POSTed, and %s belongs to a session opened with initialize", r.Method, r.Method)
	return true
}

// forget removes c from the sessions: later requests naming it get 404.
// Its place (and its principal's) is freed only once it has ended
// (conn.Close).
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	if s.sessions[c.id] == c {
		delete(s.sessions, c.id)
		if n := len(s.sessions); s.peak > 256 && n < s.peak/4 {
			// A Go map keeps the memory of its most entries: after a
			// peak of sessions, give it back (amortized: the peak is
			// then the length).
			m := make(map[string]*conn, n)
			for id, c := range s.sessions {
				m[id] = c
			}
			s.sessions, s.peak = m, n
		}
	}
	s.mu.Unlock()
}

// errClosing refuses an initialize (503) once Close was called, as a
// request in a live session is then refused: with session.Busy.
var errClosing = &jsonrpc.Error{Code: session.Busy, Message: "the server is shutting down: the initialize was not handled"}

// newConn starts a session for the initialize r, or returns the HTTP
// status and the error that refuse it: 503 when the server is closing or
// has MaxSessions sessions, 429 when r's principal has
// MaxSessionsPerPrincipal.
func (s *Server) newConn(r *http.Request) (*conn, int, *jsonrpc.Error) {
	principal := s.principalOf(r)
	id := ""
	if s.fleet != nil {
		var err error
		ctx, cancel := s.fleet.Context(r.Context())
		id, err = s.fleet.Open(ctx, principal, s.recordTTL())
		cancel()
		if err != nil {
			s.log.Warn("mcp http: initialize refused: the fleet's session store did not answer", "err", err)
			return nil, http.StatusServiceUnavailable, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: fmt.Sprintf("the session could not be recorded: the fleet's session store did not answer (%v); try again", err)}
		}
	} else {
		id = fleet.NewSessionID()
	}
	c := s.makeConn(r, id, principal)
	h := s.newHandler()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, http.StatusServiceUnavailable, errClosing
	}
	if limit := s.quota.Acquire(c.principal); limit != nil {
		s.mu.Unlock()
		if limit.PerPrincipal {
			s.log.Warn("mcp http: initialize refused: the principal has too many sessions", "max", limit.Max, "remote", r.RemoteAddr)
			return nil, http.StatusTooManyRequests, &jsonrpc.Error{Code: session.Busy, Message: fmt.Sprintf("this user (principal) has reached its limit of %d sessions at once; end one with DELETE, or try again once one has ended", limit.Max)}
		}
		s.log.Warn("mcp http: initialize refused: too many sessions", "max", limit.Max)
		return nil, http.StatusServiceUnavailable, &jsonrpc.Error{Code: session.Busy, Message: fmt.Sprintf("the server has reached its limit of %d sessions; try again later", limit.Max)}
	}
	// The session is started before the conn is published: it sets c.push,
	// and other requests may find c at once. Its place is given back when
	// it has ended (conn.Close).
	s.live.Add(1) // Done by conn.Close
	c.sess = session.New(session.Server, c, h, s.sessionOptions(c))
	s.sessions[c.id] = c
	s.peak = max(s.peak, len(s.sessions))
	s.mu.Unlock()
	s.log.Debug("mcp http: session opened", "sessionTag", c.tag(), "remote", r.RemoteAddr)
	return c, 0, nil
}

// makeConn returns the conn of the session id, not started; r is the
// request that opened it, or carried it to this instance.
func (s *Server) makeConn(r *http.Request, id, principal string) *conn {
	host, port := httpmsg.SplitAddr(r.RemoteAddr)
	c := &conn{
		srv:       s,
		id:        id,
		principal: principal,
		host:      host,
		port:      uint16(port), // SplitAddr's port is at most 65535
		proto:     httpmsg.ProtoVersion(r.ProtoMajor, r.ProtoMinor),
		lastSeen:  time.Now(),
		// Stream 0 is the GET stream, made by its first use
		// (standaloneLocked): an idle session holds none.
		nextStream: 1,
	}
	return c
}

// conn is one session over HTTP, and the session's transport.
type conn struct {
	srv       *Server
	id        string
	principal string // ServerOptions.Principal of the initialize; "" for none
	// What Describe returns besides the constants: the client's address
	// and port, and the HTTP version, of the request that opened the
	// session (or carried it to this instance).
	host  string
	proto string
	port  uint16

	sess *session.Session
	// Set by the session before it starts.
	push      func(data []byte, inline bool)
	pushItems func(vals context.Context, items []jsonrpc.Item, batch, inline bool)

	closeOnce sync.Once
	ending    latch // set when the session has ended: its streams flush and end
	closed    latch // set once they have: the streams are dropped

	mu         sync.Mutex
	streams    map[string]*stream
	byReq      map[wire.ID]*stream
	standalone *stream     // the GET stream; nil until it is used (standaloneLocked)
	finished   []*stream   // retained: complete POST streams with no connection, oldest first
	retained   int64       // the bytes of the events of finished
	expiry     *time.Timer // drops finished streams after StreamRetention
	nextStream int
	attached   int           // open SSE connections
	detached   chan struct{} // once ending, closed when attached falls to 0
	endReason  string        // the reason of the session-ended event; "" for "the session ended"
	lastSeen   time.Time
	saved      time.Time   // in a fleet: when the record was last written (see renew)
	handedOver atomic.Bool // in a fleet: another instance carries the session on; its record and GET stream stay
	release    atomic.Bool // in a fleet: handed over by Close, its record released for any instance to claim
	// Events not yet sent, over all streams, and the writers that wait for
	// room; room is closed when events are sent or dropped.
	unsentEvents int64
	unsentBytes  int64
	waiting      int
	room         chan struct{}
}

// stream is one SSE stream: a POST's answer, or the GET stream.
type stream struct {
	id        string
	pending   pendingSet // requests it still owes a response to
	done      bool       // every response is on it
	json      [][]byte   // JSON answer mode: the responses
	json1     [1][]byte  // where json starts: one response takes no allocation
	ct        [1]string  // the values of the Content-Type of a JSON answer
	wake      chan struct{}
	attached  bool
	opening   bool          // a POST's stream its connection has not taken yet
	delivered int64         // the last event sent to a connection
	drop      chan struct{} // closed to make the attached connection end
	finished  time.Time     // when it was retained (see retainLocked); zero when it is not
	held      int64         // the bytes of its events when it was retained
	elem      *list.Element // its entry in Server.retained, while retained
	// The events the store keeps: first…last, their sizes, and the bytes
	// of those sent (first…delivered, the resumption window) and unsent.
	first, last            int64
	sizes                  []int
	sentBytes, unsentBytes int64
}

// newStreamLocked opens the next POST stream.
func (c *conn) newStreamLocked() *stream {
	id := c.id + "-" + c.epoch() + strconv.Itoa(c.nextStream)
	c.nextStream++
	return c.addStreamLocked(id)
}

// standaloneLocked returns the GET stream, made on its first use.
func (c *conn) standaloneLocked() *stream {
	if c.standalone == nil {
		c.standalone = c.addStreamLocked(c.id + "-0") // the same on every instance of a fleet
	}
	return c.standalone
}

// addStreamLocked makes the stream id.
func (c *conn) addStreamLocked(id string) *stream {
	st := &stream{id: id, wake: make(chan struct{}, 1), drop: make(chan struct{}), first: 1}
	if c.streams == nil {
		c.streams = map[string]*stream{} // see idleLocked
	}
	c.streams[id] = st
	return st
}

// tag names the session in logs, which never hold its id (httpmsg.Tag).
func (c *conn) tag() string { return httpmsg.Tag(c.id) }

// streamTag names the stream id of c in logs: the session's tag and the
// stream's number.
func (c *conn) streamTag(id string) string {
	if n, ok := strings.CutPrefix(id, c.id); ok {
		return c.tag() + n
	}
	return httpmsg.Tag(id)
}

func (c *conn) touch() {
	c.mu.Lock()
	c.lastSeen = time.Now()
	c.mu.Unlock()
}

// openStream opens the stream that answers requests.
func (c *conn) openStream(requests []wire.ID, json bool) (*stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range requests {
		if c.byReq[id] != nil {
			return nil, fmt.Errorf("request ID %v is already in use", id)
		}
	}
	if len(c.finished) > 0 {
		c.dropFinishedLocked(time.Now())
	}
	var st *stream
	if json {
		// A JSON answer is not an SSE stream: no id, no events to resume,
		// nothing to keep once it is answered. Its wake channel is made
		// only when serveJSON has to wait (see there): most answers are in
		// by then.
		st = &stream{}
		st.json = st.json1[:0]
	} else {
		st = c.newStreamLocked()
		st.opening = true // its POST's connection is about to carry it
	}
	if c.byReq == nil {
		c.byReq = map[wire.ID]*stream{} // see idleLocked
	}
	for _, id := range requests {
		st.pending.add(id)
		c.byReq[id] = st
	}
	return st, nil
}

// SetPush implements transport.Pusher: POST bodies go to the session on the
// goroutine of their HTTP request.
func (c *conn) SetPush(push func(data []byte, inline bool)) { c.push = push }

// SetPushItems implements session.ItemPusher: the messages of POST bodies,
// decoded to route them, go to the session as they are.
// The values of a POST's context (session.WithHTTPRequest) go with them.
func (c *conn) SetPushItems(push func(vals context.Context, items []jsonrpc.Item, batch, inline bool)) {
	c.pushItems = push
}

// posted is a POST body and its messages.
type posted struct {
	body  []byte
	items []jsonrpc.Item
	batch bool
	vals  context.Context // the POST's context, with its session.HTTPRequest
}

var (
	_ session.ItemPusher = (*conn)(nil)
	_ session.PushOnly   = (*conn)(nil)
)

// PushOnly implements session.PushOnly: every POST is pushed (deliver),
// and the session ends only by its Close (DELETE, idle expiry,
// Server.Close), so it needs no reader, and an idle one no goroutine.
func (c *conn) PushOnly() {}

// deliver hands a POST body to the session: its decoded messages, or its
// bytes (inline as for transport.Pusher). It reports false when the
// session has ended.
func (c *conn) deliver(p posted, inline bool) bool {
	if c.pushItems == nil && c.push == nil {
		return false // sessions always take pushes (session.New sets them)
	}
	if c.closed.isSet() {
		return false
	}
	if c.pushItems != nil {
		c.pushItems(p.vals, p.items, p.batch, inline)
	} else {
		c.push(p.body, inline)
	}
	return true
}

// Describe implements transport.Describer: the connection of the request
// that opened the session (or carried it to this instance, in a fleet),
// whose peer is the client, and the session id.
func (c *conn) Describe() transport.Info {
	return transport.Info{
		Network:         "tcp",
		Protocol:        "http",
		ProtocolVersion: c.proto,
		Address:         c.host,
		Port:            int(c.port),
		SessionID:       c.id,
	}
}

// epoch is, in a fleet, this instance's ID and a dot, and "" elsewhere:
// the POST streams of two owners of a session never share an id.
func (c *conn) epoch() string {
	if c.srv.fleet == nil {
		return ""
	}
	return c.srv.fleet.ID + "."
}

// Read implements transport.Transport. The session does not call it (see
// PushOnly): every POST is pushed. It reports the end of the session.
func (c *conn) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-c.closed.wait():
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements transport.Transport: it puts a message on the stream it
// belongs to (exactly one). Once the session has ended, it returns
// net.ErrClosed: its streams are dropped.
func (c *conn) Write(ctx context.Context, data []byte) error {
	if c.closed.isSet() {
		return net.ErrClosed
	}
	first := jsontext.Value(data)
	if first.Kind() == '[' {
		first = firstElement(first) // a batch of responses: route by its first
	}
	_, isMethod := wire.Member(first, "method")
	evict := false // a stream was retained beyond ServerRetentionBytes
	if h := c.srv.testHookWrite; h != nil {
		h(data)
	}
	c.mu.Lock()
	defer func() {
		c.mu.Unlock()
		if evict {
			c.srv.evictRetained()
		}
	}()
	if c.endedLocked() {
		return net.ErrClosed
	}
	if !isMethod {
		// A response: on the stream of the request it answers.
		raw, ok := wire.Member(first, "id")
		var id wire.ID
		if ok {
			id, ok = readID(raw)
		}
		if ok {
			if st := c.byReq[id]; st != nil {
				if jsontext.Value(data).Kind() == '[' {
					st.pending.each(func(rid wire.ID) { delete(c.byReq, rid) })
					st.pending.clear()
				} else {
					delete(c.byReq, id)
					st.pending.remove(id)
				}
				if st.pending.len() == 0 {
					st.done = true
					defer func() { evict = c.retainLocked(st) }() // once the response is in
				}
				// Kept even beyond the buffer limits: no answer is lost.
				return c.appendLocked(st, data)
			}
		}
		c.srv.log.Debug("mcp http: response for no open stream dropped", "sessionTag", c.tag())
		return nil
	}
	// A request or notification: on the stream of the request its handler
	// answers, if that stream is still open, else on the GET stream.
	rid, handler := session.RequestID(ctx)
	var st *stream
	if handler && !c.srv.opts.JSONResponse {
		st = c.byReq[rid]
	}
	if st == nil {
		st = c.standaloneLocked()
	}
	// A handler waits for room; other writers (broadcasts, the engine's own
	// messages) may have no context that ever ends, and must not stall.
	for !c.roomLocked(st, len(data)) {
		full := fmt.Errorf("%w: stream %s holds %d unsent events (%d bytes), session %s %d (%d bytes); the limits are %d events and %d bytes per stream, %d and %d per session",
			ErrStreamFull, c.streamTag(st.id), st.last-st.delivered, st.unsentBytes, c.tag(), c.unsentEvents, c.unsentBytes,
			c.srv.opts.StreamBufferEvents, c.srv.opts.StreamBufferBytes, c.srv.opts.SessionBufferEvents, c.srv.opts.SessionBufferBytes)
		if !handler {
			return full
		}
		if c.room == nil {
			c.room = make(chan struct{})
		}
		room := c.room
		c.waiting++
		c.mu.Unlock()
		var err error
		select {
		case <-room:
		case <-ctx.Done():
			err = fmt.Errorf("%w; waiting for room ended: %w", full, ctx.Err())
		case <-c.closed.wait():
			err = net.ErrClosed
		}
		c.mu.Lock()
		c.waiting--
		if err != nil {
			return err
		}
		if c.endedLocked() {
			return net.ErrClosed
		}
	}
	return c.appendLocked(st, data)
}

// endedLocked reports whether the session has ended and dropped, or is
// dropping, its streams (c.mu is held: Close drops them under it once
// closed is closed). A Write that finds it so must not append: that would
// make the store recreate a dropped stream, which nothing would drop again.
func (c *conn) endedLocked() bool { return c.closed.isSet() }

// roomLocked reports whether an event of n bytes fits the unsent events of
// st and of the session. A message always fits an empty buffer.
func (c *conn) roomLocked(st *stream, n int) bool {
	o := &c.srv.opts
	if unsent := st.last - st.delivered; unsent > 0 &&
		(over(unsent+1, int64(o.StreamBufferEvents)) || over(st.unsentBytes+int64(n), o.StreamBufferBytes)) {
		return false
	}
	return c.unsentEvents == 0 ||
		!over(c.unsentEvents+1, int64(o.SessionBufferEvents)) && !over(c.unsentBytes+int64(n), o.SessionBufferBytes)
}

// over reports whether v is above limit; a negative limit is none.
func over(v, limit int64) bool { return limit >= 0 && v > limit }

// freedLocked wakes the writers that wait for room.
func (c *conn) freedLocked() {
	if c.room != nil {
		close(c.room)
		c.room = nil
	}
}

func firstElement(v jsontext.Value) jsontext.Value {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return nil
	}
	e, err := d.ReadValue()
	if err != nil {
		return nil
	}
	return e.Clone()
}

func (c *conn) appendLocked(st *stream, data []byte) error {
	if c.srv.opts.JSONResponse && st != c.standalone {
		st.json = append(st.json, data) // the session hands data over (transport.Transport)
	} else {
		seq, err := c.srv.storeFor(st.id).Append(st.id, data)
		if err != nil {
			return fmt.Errorf("event store: %w", err)
		}
		if seq != st.last+1 {
			c.renumberLocked(st, seq)
		}
		n := int64(len(data))
		st.last = seq
		st.sizes = append(st.sizes, len(data))
		st.unsentBytes += n
		c.unsentEvents++
		c.unsentBytes += n
	}
	select {
	case st.wake <- struct{}{}: // nil (not taken) for a JSON answer no one waits for yet
	default:
	}
	return nil
}

// renumberLocked starts st over at seq, the number the store gave its
// next event, apart from the ones st holds: a shared store lost the stream
// (it expired), or numbered it on from another instance's events. What
// st held is forgotten; a connection that carries it ends, and its client
// resumes or opens a new stream.
func (c *conn) renumberLocked(st *stream, seq int64) {
	c.srv.log.Warn("mcp http: the event store numbered a stream's event apart from the ones before; the stream starts over there", "stream", c.streamTag(st.id), "want", st.last+1, "got", seq)
	c.unsentEvents -= st.last - st.delivered
	c.unsentBytes -= st.unsentBytes
	st.unsentBytes, st.sentBytes, st.sizes = 0, 0, nil
	st.first, st.last, st.delivered = seq, seq-1, seq-1
	if st.attached {
		close(st.drop)
		st.drop = make(chan struct{})
		st.attached = false
	}
	c.freedLocked()
}

// Close implements transport.Transport: the session ended (however it
// ended: DELETE, idle, Server.Close, its peer), after its last answer was
// written and its handlers returned. The session leaves the server's
// sessions (a request naming it gets 404), the SSE connections still open
// write what their streams hold and a session-ended event, and end (see
// serveSSE); once they have, or the flush limit passed, the streams are
// dropped with their events, and the session's place (MaxSessions,
// MaxSessionsPerPrincipal) is freed: this is the one place that frees it,
// once, whichever way the session ended.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.srv.forget(c)
		c.mu.Lock()
		c.ending.fire()
		var detached chan struct{}
		if c.attached > 0 {
			c.detached = make(chan struct{})
			detached = c.detached
		}
		c.mu.Unlock()
		if detached != nil {
			limit := c.srv.opts.WriteTimeout
			if limit <= 0 {
				limit = DefaultWriteTimeout
			}
			t := time.NewTimer(limit)
			select {
			case <-detached:
			case <-t.C:
				c.srv.log.Warn("mcp http: a session ended before its SSE connections took their last events", "limit", limit)
			}
			t.Stop()
		}
		c.closed.fire()
		c.mu.Lock()
		if c.expiry != nil {
			c.expiry.Stop()
		}
		c.srv.rmu.Lock()
		for _, st := range c.finished {
			c.srv.unlistRetainedLocked(st)
		}
		c.srv.rmu.Unlock()
		c.finished, c.retained = nil, 0
		for id := range c.streams {
			c.dropEvents(id)
		}
		c.mu.Unlock()
		c.endRecord()
		c.srv.quota.Release(c.principal)
		c.srv.live.Done()
	})
	return nil
}

func (c *conn) serveJSON(w http.ResponseWriter, r *http.Request, st *stream, rf refusal) {
	for {
		c.mu.Lock()
		done, out := st.done, st.json
		if !done && st.wake == nil {
			// The answer is not in yet: from now on, appendLocked wakes
			// this wait (under c.mu, so no append is missed).
			st.wake = make(chan struct{}, 1)
		}
		c.mu.Unlock()
		if done {
			c.arm(c.writeDeadline(w))
			st.ct[0] = "application/json"
			w.Header()["Content-Type"] = st.ct[:] // canonical already: no Set, no slice of its own
			if len(out) == 1 {
				w.Write(out[0])
				return
			}
			w.Write([]byte("["))
			for i, m := range out {
				if i > 0 {
					w.Write([]byte(","))
				}
				w.Write(bytes.TrimSuffix(bytes.TrimPrefix(m, []byte("[")), []byte("]")))
			}
			w.Write([]byte("]"))
			return
		}
		select {
		case <-st.wake:
		case <-r.Context().Done():
			return
		case <-c.closed.wait():
			c.mu.Lock()
			done := st.done
			c.mu.Unlock()
			if done {
				continue // answered as the session ended
			}
			refuse(w, rf, http.StatusNotFound, jsonrpc.InvalidRequest, "session ended")
			return
		}
	}
}

// writeDeadliner is what http.ResponseController.SetWriteDeadline calls.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// writeDeadline returns what sets w's write deadline, looking through
// wrappers as http.ResponseController does (without its allocations), or
// nil when there is none or ServerOptions.WriteTimeout is negative.
func (c *conn) writeDeadline(w http.ResponseWriter) writeDeadliner {
	if c.srv.opts.WriteTimeout <= 0 {
		return nil
	}
	for {
		switch t := w.(type) {
		case writeDeadliner:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// arm bounds the writes to d that follow to ServerOptions.WriteTimeout
// from now. It reports false when d has no deadlines.
func (c *conn) arm(d writeDeadliner) bool {
	return d != nil && d.SetWriteDeadline(time.Now().Add(c.srv.opts.WriteTimeout)) == nil
}

// flush flushes w, returning the error when w reports one (FlushError, as
// net/http's ResponseWriter does): the write timed out, or the client went
// away.
func flush(w http.ResponseWriter, fl http.Flusher) error {
	if fe, ok := w.(interface{ FlushError() error }); ok {
		return fe.FlushError()
	}
	fl.Flush()
	return nil
}

// serveSSE writes the events of st after seq to w until the stream is done
// (it then ends the response), the client goes away (which is not a
// cancellation), a write fails or takes longer than WriteTimeout (the
// client is not reading), a handler drops the connection, or the session
// ends (it then writes what st holds and a session-ended event first).
// Events whose write failed are not taken as sent: the stream stays
// resumable from the client's last event. A POST's stream whose events all
// went out is dropped at once: nothing is left to resume.
func (c *conn) serveSSE(w http.ResponseWriter, r *http.Request, st *stream, seq int64, prime bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, jsonrpc.InternalError, "streaming is not supported by this ResponseWriter")
		return
	}
	c.mu.Lock()
	if c.closed.isSet() {
		c.mu.Unlock()
		httpError(w, http.StatusNotFound, jsonrpc.InvalidRequest, "session ended")
		return
	}
	if st.id != "" && seq > st.last && c.streams[st.id] == st {
		last := st.last
		c.mu.Unlock()
		httpError(w, http.StatusGone, jsonrpc.InvalidRequest, "Last-Event-ID (event %d of its stream): the stream has no such event (its last is %d): its events were lost; open a new stream without Last-Event-ID", seq, last)
		return
	}
	if st.id != "" && (c.streams[st.id] != st || seq < st.first-1) {
		// Dropped since it was looked up, or seq is before the window.
		gone := fmt.Sprintf("Last-Event-ID (event %d of its stream): the events after it are beyond the resumption window (the stream keeps events %d to %d, at most %d within %d bytes once sent)",
			seq, st.first, st.last, c.srv.opts.ReplayEvents, c.srv.opts.ReplayBytes)
		if c.streams[st.id] != st {
			gone = fmt.Sprintf("Last-Event-ID (event %d of its stream): the stream was dropped: it was delivered, or it was retained for longer than %v or beyond %d bytes; its events are beyond the resumption window", seq, c.srv.opts.StreamRetention, c.srv.opts.SessionRetentionBytes)
		}
		c.mu.Unlock()
		httpError(w, http.StatusGone, jsonrpc.InvalidRequest, "%s", gone)
		return
	}
	if !st.finished.IsZero() {
		c.unretainLocked(st) // resumed: kept until this connection ends too
	}
	st.opening = false
	if st.attached {
		// A newer connection takes the stream over from an older one.
		close(st.drop)
		st.drop = make(chan struct{})
	}
	st.attached = true
	drop := st.drop
	c.attached++
	c.mu.Unlock()
	complete := false // every event of the done stream went out on w
	defer func() {
		evict := false
		c.mu.Lock()
		if st.drop == drop {
			st.attached = false
			if complete && st.done && st.delivered == st.last {
				c.dropStreamLocked(st) // delivered: nothing to resume
			} else {
				evict = c.retainLocked(st)
			}
		}
		c.attached--
		if c.attached == 0 && c.detached != nil {
			close(c.detached) // the session's Close waits for this
			c.detached = nil
		}
		c.lastSeen = time.Now()
		c.mu.Unlock()
		if evict {
			c.srv.evictRetained()
		}
	}()
	// Each batch of writes gets WriteTimeout: a client that keeps its
	// connection open but stops reading does not hold this goroutine (and
	// the stream) once the socket buffers are full.
	dl := c.writeDeadline(w)
	timed := c.arm(dl)
	if timed {
		// The end of the response (written once this returns, possibly
		// after a long wait for events) gets a fresh limit; net/http
		// clears it after the response.
		defer c.arm(dl)
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if prime {
		// An event with an ID and no data primes Last-Event-ID (SSE polling, from 2025-11-25).
		fmt.Fprintf(w, "id: %s_%d\n", st.id, seq)
		if c.srv.opts.Retry > 0 {
			fmt.Fprintf(w, "retry: %d\n", c.srv.opts.Retry.Milliseconds())
		}
		io.WriteString(w, "data: \n\n")
	}
	if err := flush(w, fl); err != nil {
		c.srv.log.Debug("mcp http: SSE write failed; the connection ends", "stream", c.streamTag(st.id), "err", err)
		return
	}
	for {
		// Whether st is done, or the session ended, is read before its
		// events: what the session appended before is among them.
		c.mu.Lock()
		done := st.done
		c.mu.Unlock()
		ending := c.ending.isSet()
		evs, _, err := c.srv.storeFor(st.id).After(st.id, seq)
		if err != nil {
			c.srv.log.Error("mcp http: event store", "err", err)
			return
		}
		if len(evs) > 0 {
			if timed {
				c.arm(dl)
			}
			var werr error
			for _, ev := range evs {
				if _, werr = fmt.Fprintf(w, "id: %s_%d\nevent: message\ndata: %s\n\n", st.id, ev.Seq, ev.Data); werr != nil {
					break
				}
			}
			if werr == nil {
				werr = flush(w, fl)
			}
			if werr != nil {
				// The client stopped reading (WriteTimeout) or went away:
				// these events are not sent; the client resumes before them.
				c.srv.log.Debug("mcp http: SSE write failed; the connection ends", "stream", c.streamTag(st.id), "err", werr)
				return
			}
			seq = evs[len(evs)-1].Seq
			c.mu.Lock()
			if st.drop == drop { // only the connection that carries st moves its window
				c.sentLocked(st, seq)
			}
			more := st.last > seq || st.drop != drop
			c.mu.Unlock()
			if more {
				continue
			}
			// Nothing was appended since: the store need not be read
			// again (a shared one is a round trip away), and done and
			// ending, read before these events, still say what to do.
		}
		if ending && !c.handedOver.Load() {
			// The session ended after its last answer: tell the client
			// (not when another instance of the fleet carries it on).
			if timed {
				c.arm(dl)
			}
			c.writeEnded(w, fl)
		}
		if done {
			complete = true
			return
		}
		if ending {
			return
		}
		select {
		case <-st.wake:
		case <-r.Context().Done():
			return
		case <-drop:
			return
		case <-c.ending.wait():
		}
	}
}

// sessionEndedEvent is the type of the SSE event that tells a client its
// session ended: the last event of each stream still open when it ends.
// Its data is a JSON object whose "reason" member says why. It has no id,
// so it does not move Last-Event-ID; a client that does not know the type
// skips it (EventSource dispatches an event to the listeners of its type
// only, and a client of MCP reads the "message" events).
const sessionEndedEvent = "session-ended"

// writeEnded writes the session-ended event on w.
func (c *conn) writeEnded(w http.ResponseWriter, fl http.Flusher) {
	c.mu.Lock()
	reason := c.endReason
	c.mu.Unlock()
	if reason == "" {
		reason = "the session ended"
	}
	b, _ := jsontext.AppendQuote([]byte("event: "+sessionEndedEvent+"\ndata: {\"reason\":"), reason) // valid UTF-8: ours
	b = append(b, "}\n\n"...)
	if _, err := w.Write(b); err == nil {
		flush(w, fl) // the last write: its error changes nothing
	}
}

// sentLocked records that the events of st up to seq went out on its
// connection: they move from the unsent buffer to the resumption window,
// and the events that fall out of the window are discarded.
func (c *conn) sentLocked(st *stream, seq int64) {
	if seq <= st.delivered {
		return // a resumed connection replaying the window
	}
	var n int64
	for s := st.delivered + 1; s <= seq; s++ {
		n += int64(st.sizes[s-st.first])
	}
	st.unsentBytes -= n
	st.sentBytes += n
	c.unsentEvents -= seq - st.delivered
	c.unsentBytes -= n
	st.delivered = seq
	o := &c.srv.opts
	keep := st.first
	for keep <= seq && (over(seq-keep+1, int64(o.ReplayEvents)) || over(st.sentBytes, o.ReplayBytes)) {
		st.sentBytes -= int64(st.sizes[keep-st.first])
		keep++
	}
	if keep > st.first {
		c.srv.storeFor(st.id).Discard(st.id, keep-1)
		st.sizes = st.sizes[keep-st.first:]
		st.first = keep
	}
	c.freedLocked()
}

// streamOverhead is what a retained stream counts toward the retention
// bounds besides its events: its bookkeeping here and in the event store.
const streamOverhead = 512

// retainLocked retains st if it is a complete POST stream that no
// connection carries (its connection broke before it delivered every
// event): StreamRetention from now, the expiry timer drops it with its
// events, and the session's retained streams stay within
// SessionRetentionBytes, the oldest dropped first. It reports whether the
// server's retained streams are now beyond ServerRetentionBytes: the
// caller then calls Server.evictRetained, without holding c.mu.
func (c *conn) retainLocked(st *stream) bool {
	if st == c.standalone || st.id == "" || !st.done || st.attached || st.opening || !st.finished.IsZero() {
		return false
	}
	if c.closed.isSet() {
		return false // the session dropped every stream
	}
	o := &c.srv.opts
	st.finished = time.Now()
	st.held = st.sentBytes + st.unsentBytes + streamOverhead
	c.finished = append(c.finished, st)
	c.retained += st.held
	for len(c.finished) > 0 && over(c.retained, o.SessionRetentionBytes) {
		c.dropStreamLocked(c.finished[0]) // the oldest, st last
	}
	if st.finished.IsZero() {
		return false // larger than the bound on its own
	}
	s := c.srv
	s.rmu.Lock()
	st.elem = s.retained.PushBack(retainedRef{c, st})
	s.retainedBytes += st.held
	full := over(s.retainedBytes, o.ServerRetentionBytes)
	s.rmu.Unlock()
	if o.StreamRetention > 0 && len(c.finished) == 1 {
		// Otherwise the timer is set for an older one.
		if c.expiry == nil {
			c.expiry = time.AfterFunc(o.StreamRetention, c.expire)
		} else {
			c.expiry.Reset(o.StreamRetention)
		}
	}
	return full
}

// unretainLocked ends the retention of st (retained): it was resumed, or
// it is dropped.
func (c *conn) unretainLocked(st *stream) {
	if i := slices.Index(c.finished, st); i >= 0 {
		c.finished = slices.Delete(c.finished, i, i+1)
	}
	c.retained -= st.held
	if st.elem != nil {
		c.srv.rmu.Lock()
		c.srv.unlistRetainedLocked(st)
		c.srv.rmu.Unlock()
	}
	st.finished, st.held = time.Time{}, 0
}

// unlistRetainedLocked takes st off the server's list of retained streams
// (ServerRetentionBytes); rmu is held.
func (s *Server) unlistRetainedLocked(st *stream) {
	if st.elem == nil {
		return
	}
	s.retained.Remove(st.elem)
	s.retainedBytes -= st.held
	st.elem = nil
}

// dropStreamLocked forgets st, a POST's stream, with its events: it was
// delivered, or its retention ended. Resuming it is then answered with 410.
func (c *conn) dropStreamLocked(st *stream) {
	if !st.finished.IsZero() {
		c.unretainLocked(st)
	}
	delete(c.streams, st.id)
	c.dropEvents(st.id)
	c.unsentEvents -= st.last - st.delivered
	c.unsentBytes -= st.unsentBytes
	st.delivered, st.unsentBytes = st.last, 0
	c.freedLocked()
}

// evictRetained drops the oldest streams the sessions retain until they
// are within ServerRetentionBytes. No conn's mu may be held.
func (s *Server) evictRetained() {
	for {
		s.rmu.Lock()
		e := s.retained.Front()
		if e == nil || !over(s.retainedBytes, s.opts.ServerRetentionBytes) {
			s.rmu.Unlock()
			return
		}
		ref := e.Value.(retainedRef)
		s.rmu.Unlock()
		ref.c.mu.Lock()
		if ref.st.elem == e { // still retained: not resumed or dropped meanwhile
			ref.c.dropStreamLocked(ref.st)
		}
		ref.c.mu.Unlock()
	}
}

// expire runs on the expiry timer: it drops the streams whose retention
// ended, and sets the timer for the next.
func (c *conn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.dropFinishedLocked(now)
	if len(c.finished) > 0 {
		c.expiry.Reset(c.finished[0].finished.Add(c.srv.opts.StreamRetention).Sub(now))
	}
}

// dropFinishedLocked forgets the retained streams older than
// StreamRetention at now, with their events.
func (c *conn) dropFinishedLocked(now time.Time) {
	if c.srv.opts.StreamRetention < 0 {
		return // kept until the session ends
	}
	for len(c.finished) > 0 && now.Sub(c.finished[0].finished) >= c.srv.opts.StreamRetention {
		c.dropStreamLocked(c.finished[0])
	}
}

// hadStreamLocked reports whether id names a stream this session had.
func (c *conn) hadStreamLocked(id string) bool {
	if id == c.id+"-0" {
		return true
	}
	epoch := c.epoch()
	n, ok := strings.CutPrefix(id, c.id+"-"+epoch)
	if !ok && epoch != "" {
		// In a fleet, a POST stream of an owner before this one: it was
		// answered there, and went with it.
		rest, _ := strings.CutPrefix(id, c.id+"-")
		owner, num, found := strings.Cut(rest, ".")
		i, err := strconv.Atoi(num)
		return found && owner != "" && err == nil && i > 0 && strconv.Itoa(i) == num
	}
	i, err := strconv.Atoi(n)
	return ok && err == nil && i >= 0 && i < c.nextStream && strconv.Itoa(i) == n
}

// polling reports whether the session's revision has SSE polling: priming
// events and retry (2025-11-25).
func (c *conn) polling() bool {
	rev := c.sess.Revision()
	return rev != nil && rev.Name >= "2025-11-25"
}

func parseEventID(s string) (stream string, seq int64, ok bool) {
	i := strings.LastIndexByte(s, '_')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// CloseSSEStream ends the HTTP connection that carries the answer to the
// request whose handler ctx belongs to, without ending the stream: the
// client reconnects with GET and Last-Event-ID after the retry interval and
// receives the rest (SSE polling). It reports whether there was such
// a connection and it was closed.
//
// Only sessions at 2025-11-25 or later poll: below it, a stream has no
// priming event and the client is not told to reconnect, so closing the
// connection would lose the answer. There CloseSSEStream does nothing and
// reports false; the answer goes on the open connection.
func CloseSSEStream(ctx context.Context) bool {
	s, ok := session.FromContext(ctx)
	if !ok {
		return false
	}
	c, ok := s.Transport().(*conn)
	if !ok {
		return false
	}
	id, ok := session.RequestID(ctx)
	if !ok || !c.polling() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.byReq[id]
	if st == nil || !st.attached {
		return false
	}
	close(st.drop)
	st.drop = make(chan struct{})
	st.attached = false
	return true
}
