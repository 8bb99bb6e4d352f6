// Package ssehttp is MCP's HTTP+SSE transport of revision 2024-11-05
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse),
// which Streamable HTTP replaced in 2025-03-26 but which clients and
// servers still speak: Server, a net/http handler, and Client, the client
// transport, with NewAutoClient, which finds out which of the two HTTP
// transports a server at a URL speaks.
//
// # The transport
//
// A client opens a session with a GET that the server answers with a
// text/event-stream. The stream's first event is "endpoint", whose
// data is the URL the client POSTs its messages to: here the path
// of the GET itself (or ServerOptions.Endpoint) with the query
// ?sessionId=<32 hex digits> naming the session. Each client message (or
// batch, where the negotiated revision has them) is one POST to that URL,
// answered 202 Accepted with no body; the server's responses, requests
// and notifications all arrive as "message" events on the stream.
// The session lives as long as the stream: when the stream ends (the
// client closed it, a write to it failed or timed out, the server closed
// it), the session ends, its handlers' contexts are cancelled at once
// (session.Session.Abort: nothing they answer could reach the client), and
// a POST naming it gets 404. There is no resumption.
//
// One Server serves both methods, GET on the path it is mounted on and
// POST with ?sessionId, so that one line offers the old transport, beside
// the new one:
//
//	mux.Handle("/mcp", streamhttp.NewServer(newHandler, streamhttp.ServerOptions{}))
//	mux.Handle("/sse", ssehttp.NewServer(newHandler, ssehttp.ServerOptions{}))
//
// A client of either kind is then given one URL (the /mcp one: see
// NewAutoClient for how it falls back to /sse when it is given that one).
//
// # Bounds
//
// Requests whose Host or Origin header is not allowed are refused with 403
// (DNS rebinding; the same check and defaults as streamhttp's), a
// POST body is at most MaxBodyBytes (413 beyond), at most MaxSessions
// streams are open at once (503 beyond), and at most
// MaxSessionsPerPrincipal of one principal (by default a hundredth of
// MaxSessions, at least 10; 429 beyond). Memory per session is bounded:
// the messages waiting to be written to the stream are at most QueueEvents
// and QueueBytes (plus the batch being written). A response that does not
// fit waits for room, and is never dropped while the stream lives; a
// message a handler sends while answering a request waits for room until
// the request's context ends; any other message (a list_changed
// broadcast, say) is refused with an error wrapping ErrStreamFull. A
// client that keeps the connection open but stops reading does not hold
// the server either: a write that does not complete within WriteTimeout
// ends the stream, and with it the session. A client that closes its
// connection ends the session at once. One that vanished without closing
// it (its machine or network went down) is noticed through the keep-alive
// comments written every KeepAlive: once the operating system gives up on
// the connection (TCP's retransmission timeout, about 15 minutes on Linux
// by default) or its send buffer is full and a write times out, the write
// fails and the session is reaped.
//
// A request the Server refuses gets an HTTP error status and, as the body,
// a JSON-RPC error response: one per request of the POST body when its ids
// could be read, else one without an id.
//
// # Who may use a session
//
// A session belongs to the principal (the user) of its GET: by default the
// one an authorization layer in front put in the request's context, as
// bearer.Protect does (session.PrincipalOf). A POST that names the session
// but speaks for another principal, or for none, is answered 404 exactly
// as for a session that does not exist: a sessionId that leaks lets no one
// else send requests whose answers, and the requests for input their
// handlers make, would go to the session's stream (ServerOptions.Principal,
// UnboundSessions).
//
// # A fleet
//
// Several instances of one server may serve HTTP+SSE behind a round-robin
// load balancer with no session affinity (ServerOptions.Fleet, one
// fleet.Node each, on a store and a relay they share). A session's stream
// stays on the instance that answered its GET, which keeps the session's
// record (its owner and principal) in the fleet's store while the stream
// is open; a POST naming the session that reaches another instance is
// checked there (Host, Origin, Gate, principal) and carried to the owner,
// whose 202 comes back the same way, and the answers go out on the
// stream. The stream cannot move: when its instance goes, the session
// has ended, as when a connection breaks, and the client opens a new one
// (HTTP+SSE has no resumption). While the store cannot be reached, GETs
// and POSTs for other instances' sessions are refused with 503 within
// the Node's Timeout; POSTs to the instance holding the session are
// served.
//
// # Logs
//
// Logs never hold a sessionId: a session is named by its tag, the first 8
// hex digits of the SHA-256 of its id (sessionTag=…), which tells sessions
// apart without giving the id back; the Client logs and reports its
// endpoint without the query that holds the id.
package ssehttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
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
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The defaults of ServerOptions. DefaultMaxSessionsPerPrincipal is that of
// MaxSessionsPerPrincipal with the default MaxSessions or none; with
// another MaxSessions, the default is a hundredth of it, at least 10.
const (
	DefaultMaxBodyBytes            = 4 << 20
	DefaultMaxSessions             = 10_000
	DefaultMaxSessionsPerPrincipal = DefaultMaxSessions / 100
	DefaultQueueEvents             = 1024
	DefaultQueueBytes              = 4 << 20
	DefaultWriteTimeout            = 30 * time.Second
	DefaultKeepAlive               = 30 * time.Second
)

// ServerOptions configure a Server. The zero value serves loopback clients.
type ServerOptions struct {
	// Session configures each session.
	Session session.Options
	// Endpoint is the URL the endpoint event names for POSTs, before the
	// sessionId query is added: an absolute path such as "/messages" (the
	// Server must then be mounted there too), or any URL reference, which
	// the client resolves against the URL of its GET. Default: the path of
	// the GET as the client sent it, so that one mount serves both.
	Endpoint string
	// AllowedHosts are the Host header values accepted, as host names (any
	// port) or host:port. Default: localhost, 127.0.0.1 and ::1, against DNS
	// rebinding. "*" allows any host.
	AllowedHosts []string
	// AllowedOrigins are the Origin header values accepted ("*" for any).
	// Default: http and https origins on the allowed hosts. Requests without
	// Origin are not browsers and are accepted.
	AllowedOrigins []string
	// MaxBodyBytes limits a POST body (413 beyond). Default
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxSessions is the most sessions (open SSE streams) at once; a GET
	// beyond it is refused with 503. A session keeps its place until it
	// has ended: its stream closed and the handlers of its requests
	// returned (they are cancelled when the stream ends, and one that
	// ignores its context holds the place until it returns). Default
	// DefaultMaxSessions; negative means no limit.
	MaxSessions int
	// MaxSessionsPerPrincipal is the most sessions (open SSE streams) of
	// one principal at once (see Principal), so that one user cannot take
	// every place of MaxSessions from the others. A GET beyond it is
	// refused with 429 Too Many Requests and a JSON-RPC error (code
	// session.Busy, without an id: a GET carries no request) naming the
	// limit; a session of the principal frees a place once it has ended,
	// as for MaxSessions.
	// Only requests that speak for a principal (not "") count: without an
	// authorization layer in front, MaxSessions alone applies.
	//
	// Default: MaxSessions/100, at least 10 (DefaultMaxSessionsPerPrincipal,
	// 100, with the default MaxSessions, and when MaxSessions is
	// negative). Negative means no limit per principal: one principal may
	// then hold every stream MaxSessions allows.
	MaxSessionsPerPrincipal int
	// QueueEvents and QueueBytes limit the messages of a session waiting to
	// be written to its stream (see the package doc for what happens to a
	// message that does not fit). A message always fits an empty queue.
	// Defaults DefaultQueueEvents and DefaultQueueBytes; negative means no
	// limit.
	QueueEvents int
	QueueBytes  int64
	// WriteTimeout bounds each write to a stream: a write that does not
	// complete within it (the client stopped reading) ends the stream and
	// its session. Default DefaultWriteTimeout; negative means no limit. It
	// is set with http.ResponseController.SetWriteDeadline.
	WriteTimeout time.Duration
	// KeepAlive is how often an SSE comment is written to an idle stream,
	// so that a client that went away is noticed (and proxies keep the
	// connection). Default DefaultKeepAlive; negative means never.
	KeepAlive time.Duration
	// Principal names who a request speaks for, such as the issuer and
	// subject of its access token; "" is none. Default: the principal an
	// authorization layer in front of the Server put in the request's
	// context (session.PrincipalOf), as bearer.Protect does.
	//
	// A session belongs to the principal of its GET: a POST naming it
	// whose principal differs, or has none while the session has one, is
	// refused with 404 and the same JSON-RPC error as for a session that
	// does not exist, so that a session id that leaks is of no use with
	// another principal's token and its existence is not revealed. A
	// session opened without a principal takes only POSTs without one.
	Principal func(*http.Request) string
	// UnboundSessions turns that binding off: a POST naming a session is
	// delivered to it whoever it speaks for. It gives up the protection of
	// one user's session from another user: anyone with a valid token who
	// learns a session id can then send requests in the session, whose
	// answers go out on the victim's stream (and whose elicitation and
	// sampling requests reach the victim's client). Set it only when every
	// client shares one trust domain, or when the application binds
	// sessions itself. The per-principal limit (MaxSessionsPerPrincipal)
	// still applies.
	UnboundSessions bool
	// Gate, when set, decides whether a request may be served at all,
	// such as by an API key (see RequireHeader): it is called for every
	// request that passed the Host and Origin checks, before anything else
	// is done with it, and a non-nil error refuses the request with 401
	// Unauthorized and, as the body, a JSON-RPC error (code -32600, the
	// message "unauthorized: " and the error's text): one for each request
	// of a POST body, carrying its id (the body is read up to 64 KiB to
	// find them; an array gets an array), or one without an id for a GET
	// or a body without requests. When the error, or one it wraps, has a
	// method Challenge() string, its result is sent as the
	// WWW-Authenticate header (RFC 9110 section 11.6.1). The error's text
	// goes to the client: it must not hold a secret.
	Gate func(r *http.Request) error
	// Fleet, when set, makes the server one instance of a fleet behind a
	// load balancer with no session affinity: each session's record (its
	// owner, this instance, and its principal) is kept in Fleet.Sessions
	// while its stream is open, and a POST that reaches another instance
	// is carried to this one through Fleet.Relay (a fleet.Tunnel of the
	// service "sse"), which delivers it to the session as its own and
	// sends the 202 back; the answers go out on the stream, as always.
	// What crosses is the POST's method, URL, body and headers but those
	// that carry credentials, and the principal the receiving instance
	// found (after its Host, Origin and Gate checks): the owner trusts it
	// instead of calling Principal. Nothing else crosses: the stream is
	// served by the instance that opened it, and when that instance is
	// gone the session has ended (HTTP+SSE has no resumption), so a POST
	// naming it gets 404 and its record is deleted. A GET whose record
	// cannot be written is refused with 503 within Fleet.Timeout, as is a
	// POST for another instance's session while the store or the relay
	// does not answer. A Node without an ID, a SessionStore or a Relay
	// refuses every request with 500, as misconfigured revisions do.
	Fleet *fleet.Node
	// Logger receives diagnostics. Default: discard. What it is given
	// holds no session id, nor a token: a session is named by its tag (see
	// the package doc).
	Logger *slog.Logger
}

// RequireHeader returns a gate for ServerOptions.Gate that lets through a
// request whose header name (such as "X-API-Key") holds one of keys; it
// is streamhttp.RequireHeader, so that one gate serves both transports.
func RequireHeader(name string, keys ...string) func(*http.Request) error {
	return httpguard.RequireHeader(name, keys...)
}

// ErrStreamFull is wrapped by the error a session's write gets when its
// stream's queue is full (ServerOptions.QueueEvents, QueueBytes): the
// client is not reading.
var ErrStreamFull = errors.New("SSE stream full: the client is not reading it")

// Server serves MCP sessions over the HTTP+SSE transport: GET opens a
// session's stream, POST with ?sessionId carries its client's messages.
type Server struct {
	newHandler func() session.Handler
	badOptions error // what is wrong with the options: every request is refused
	opts       ServerOptions
	guard      httpguard.Guard
	log        *slog.Logger

	quota *quota.Sessions // MaxSessions, MaxSessionsPerPrincipal

	fleet  *fleet.Node   // ServerOptions.Fleet, once joined
	tunnel *fleet.Tunnel // in a fleet: carries POSTs to the instances that hold their sessions
	dead   atomic.Bool   // set by a test hook: the instance died, and leaves its records behind

	recordTTL time.Duration // in a fleet: how long a record lives unrenewed (recordTTL; tests shorten it)

	mu       sync.Mutex
	sessions map[string]*conn
	peak     int // the most sessions since sessions was made (see forget)
	closed   bool
	streams  sync.WaitGroup // GET handlers
}

// NewServer returns a Server that gives each new session the handler
// newHandler returns (for a generated package: func() session.Handler {
// return mcp.NewServerHandler(srv) }, or a StandardServer's Handler
// method). Sessions run with session.MergeOptions(handler,
// opts.Session). When those options name a revision not linked into the
// binary (see session.CheckRevisions), or a Fleet that cannot be joined,
// the error is logged once, at ERROR level, to opts.Logger or else
// slog.Default(), and every request is refused with 500 and a JSON-RPC
// error that says it.
func NewServer(newHandler func() session.Handler, opts ServerOptions) *Server {
	orDefault(&opts.MaxBodyBytes, DefaultMaxBodyBytes)
	orDefault(&opts.MaxSessions, DefaultMaxSessions)
	orDefault(&opts.MaxSessionsPerPrincipal, quota.DefaultPerPrincipal(opts.MaxSessions))
	if opts.Principal == nil {
		opts.Principal = quota.PrincipalOf
	}
	orDefault(&opts.QueueEvents, DefaultQueueEvents)
	orDefault(&opts.QueueBytes, DefaultQueueBytes)
	orDefault(&opts.WriteTimeout, DefaultWriteTimeout)
	orDefault(&opts.KeepAlive, DefaultKeepAlive)
	if opts.AllowedHosts == nil {
		opts.AllowedHosts = httpguard.DefaultHosts()
	}
	s := &Server{
		newHandler: newHandler,
		opts:       opts,
		guard:      httpguard.Guard{Hosts: opts.AllowedHosts, Origins: opts.AllowedOrigins},
		log:        opts.Logger,
		quota:      quota.New(opts.MaxSessions, opts.MaxSessionsPerPrincipal),
		sessions:   map[string]*conn{},
		recordTTL:  recordTTL,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.badOptions = httpguard.CheckRevisions("ssehttp", newHandler(), opts.Session, opts.Logger)
	if s.badOptions == nil && opts.Fleet != nil {
		if s.badOptions = s.joinFleet(opts.Fleet); s.badOptions != nil {
			logger := opts.Logger
			if logger == nil {
				logger = slog.Default() // a discarded log would hide it
			}
			logger.Error("mcp sse: every request is refused: " + s.badOptions.Error())
		}
	}
	return s
}

// orDefault sets a zero option to def.
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// over reports whether v is above limit; a negative limit is none.
func over(v, limit int64) bool { return limit >= 0 && v > limit }

// Close ends every session, each answering the requests it received as
// session.Session.Close does (within its Options.DrainTimeout; the answers
// go out on its stream, which then ends), and returns once their streams
// have ended. Later GETs are refused with 503. In a fleet, their records
// are deleted, and the server stops taking POSTs from other instances
// once its sessions have ended.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	list := make([]*conn, 0, len(s.sessions))
	for _, c := range s.sessions {
		list = append(list, c)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range list {
		wg.Go(func() { c.sess.Close() })
	}
	wg.Wait()
	s.streams.Wait()
	if s.tunnel != nil {
		s.tunnel.Close()
	}
}

// ServeHTTP implements http.Handler: GET opens a session's SSE stream, and
// POST delivers a message to the session its sessionId query names. Other
// methods get 405.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.guard.Check(r); err != nil {
		refuse(w, http.StatusForbidden, nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "%v", err))
		return
	}
	if s.badOptions != nil {
		refuse(w, http.StatusInternalServerError, nil, jsonrpc.Errorf(jsonrpc.InternalError, "%v", s.badOptions))
		return
	}
	if g := httpguard.Gate(s.opts.Gate, r, s.opts.MaxBodyBytes); g != nil {
		if g.Challenge != "" {
			w.Header().Set("WWW-Authenticate", g.Challenge)
		}
		// The session is not looked up (for the form of an error without an
		// id): a caller that was not let in learns nothing of it.
		refuse(w, http.StatusUnauthorized, &refusal{ids: g.IDs, batch: g.Batch}, jsonrpc.Errorf(jsonrpc.InvalidRequest, "%s", g.Message))
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.get(w, r)
	case http.MethodPost:
		s.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		refuse(w, http.StatusMethodNotAllowed, nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "method %s is not allowed: GET opens an SSE stream, POST sends a message", r.Method))
	}
}

// refusal is the body of a refused request: JSON-RPC errors for the
// requests of a POST body (ids), or one without an id; nullID writes that
// one's id as null (for a session of a revision before 2025-11-25, whose
// schema has no error without an id).
type refusal struct {
	ids    []wire.ID
	batch  bool
	nullID bool
}

// refuse answers status with a JSON-RPC error of e for each request of rf.
func refuse(w http.ResponseWriter, status int, rf *refusal, e *jsonrpc.Error) {
	if rf == nil {
		rf = &refusal{}
	}
	b, err := jsonrpc.AppendErrorResponses(nil, rf.ids, rf.batch, rf.nullID, e)
	if err != nil {
		http.Error(w, e.Message, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
}

// acceptsSSE reports whether r's Accept header, if it has one, lists
// text/event-stream, text/*, or */*.
func acceptsSSE(r *http.Request) bool {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "text/event-stream", "text/*", "*/*":
				return true
			}
		}
	}
	return false
}

// errClosing refuses a GET once Close was called.
var errClosing = errors.New("the server is closing")

// get opens a session and serves its stream until it ends.
func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if !acceptsSSE(r) {
		refuse(w, http.StatusNotAcceptable, nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "Accept must list text/event-stream: GET opens the SSE stream of a session"))
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		refuse(w, http.StatusInternalServerError, nil, jsonrpc.Errorf(jsonrpc.InternalError, "streaming is not supported by this ResponseWriter"))
		return
	}
	c, status, err := s.newConn(r)
	if err != nil {
		je, ok := err.(*jsonrpc.Error)
		if !ok {
			je = jsonrpc.Errorf(session.Busy, "%v", err)
		}
		refuse(w, status, nil, je)
		return
	}

	defer s.streams.Done()
	// The session's place is freed once it has ended, its stream and its
	// handlers (which Abort waits for) both: the one place that frees it.
	defer s.quota.Release(c.principal)
	endpoint, err := s.endpoint(r, c.id)
	if err != nil {
		s.forget(c)
		c.deleteRecord()
		c.sess.Abort()
		refuse(w, http.StatusInternalServerError, nil, jsonrpc.Errorf(jsonrpc.InternalError, "%v", err))
		return
	}
	s.log.Debug("mcp sse: session opened", "sessionTag", c.tag(), "remote", r.RemoteAddr)
	why := c.serve(w, r, endpoint)
	// The stream is over, and so is the session: nothing more reaches its
	// client. Its handlers are cancelled; Abort waits for them.
	c.end(why)
	s.forget(c)
	// In a fleet, its record goes with it (if this instance dies instead,
	// the record expires, or the first instance that finds it gone
	// deletes it).
	c.deleteRecord()
	c.sess.Abort()
	s.log.Debug("mcp sse: session ended", "sessionTag", c.tag(), "why", why)
}

// endpoint returns the URL of the endpoint event for session id: the
// Endpoint option or the path r was sent to, with ?sessionId=id.
func (s *Server) endpoint(r *http.Request, id string) (string, error) {
	ref := s.opts.Endpoint
	if ref == "" {
		// The path the client sent (RequestURI), not r.URL.Path, which a
		// http.StripPrefix in front of this handler has cut.
		ref = r.URL.EscapedPath()
		if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != "" {
			ref = u.EscapedPath()
		}
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("ssehttp: ServerOptions.Endpoint %q: %w", ref, err)
	}
	q := u.Query()
	q.Set("sessionId", id)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// newConn starts a session for the GET r, or returns the HTTP status and
// the error that refuse it: 503 when the server is closing or has
// MaxSessions sessions, 429 when r's principal has
// MaxSessionsPerPrincipal.
func (s *Server) newConn(r *http.Request) (*conn, int, error) {
	c := &conn{
		srv:    s,
		wake:   make(chan struct{}, 1),
		gone:   make(chan struct{}),
		closed: make(chan struct{}),
	}
	c.principal = s.principalOf(r)
	h := s.newHandler()
	if err := s.admit(r, c.principal); err != nil {
		return nil, err.status, err.err
	}
	if s.fleet == nil {
		c.id = fleet.NewSessionID()
	} else {
		// Outside s.mu: the store may take up to Node.Timeout.
		ctx, cancel := s.fleet.Context(r.Context())
		id, err := s.fleet.Open(ctx, c.principal, s.recordTTL)
		cancel()
		if err != nil {
			s.quota.Release(c.principal)
			s.log.Warn("mcp sse: stream refused: the fleet's session store did not answer", "err", err)
			return nil, http.StatusServiceUnavailable, jsonrpc.Errorf(jsonrpc.InternalError, "the session could not be recorded: the fleet's session store did not answer (%v); try again", err)
		}
		c.id = id
	}
	c.info = httpmsg.ServerInfo(r, c.id)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.quota.Release(c.principal)
		c.deleteRecord()
		return nil, http.StatusServiceUnavailable, errClosing
	}
	// Started before it is published: the session sets c's push function.
	c.sess = session.New(session.Server, c, h, s.opts.Session)
	s.sessions[c.id] = c
	s.peak = max(s.peak, len(s.sessions))
	s.streams.Add(1)
	s.mu.Unlock()
	return c, 0, nil
}

// refused is why a GET is refused, and its HTTP status.
type refused struct {
	status int
	err    error
}

// admit takes a place for a session of principal, or says why there is
// none: the server is closing (503), it has MaxSessions sessions (503), or
// the principal has MaxSessionsPerPrincipal (429).
func (s *Server) admit(r *http.Request, principal string) *refused {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return &refused{http.StatusServiceUnavailable, errClosing}
	}
	if limit := s.quota.Acquire(principal); limit != nil {
		if limit.PerPrincipal {
			s.log.Warn("mcp sse: stream refused: the principal has too many sessions", "max", limit.Max, "remote", r.RemoteAddr)
			return &refused{http.StatusTooManyRequests, fmt.Errorf("this user (principal) has reached its limit of %d sessions (open SSE streams) at once; close one, or try again once one has ended", limit.Max)}
		}
		s.log.Warn("mcp sse: stream refused: too many sessions", "max", limit.Max)
		return &refused{http.StatusServiceUnavailable, fmt.Errorf("the server has reached its limit of %d sessions; try again later", limit.Max)}
	}
	return nil
}

// forget removes c from the sessions: later POSTs naming it get 404. Its
// place (and its principal's) is freed only once it has ended (see get).
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

// validSessionID reports whether id has the form of the ids this Server
// makes: 32 lower-case hex digits.
func validSessionID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// post delivers the message of a POST to its session.
func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["sessionId"]
	switch {
	case len(ids) == 0:
		refuse(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.InvalidRequest,
			"missing sessionId query parameter: POST to the URL of the endpoint event of the session's SSE stream (open one with GET)"))
		return
	case len(ids) > 1 || !validSessionID(ids[0]):
		refuse(w, http.StatusBadRequest, nil, jsonrpc.Errorf(jsonrpc.InvalidRequest,
			"malformed sessionId %q: want the one query parameter of the endpoint event, 32 hex digits", strings.Join(ids, ",")))
		return
	}
	sid := ids[0]
	s.mu.Lock()
	c := s.sessions[sid]
	s.mu.Unlock()
	if c == nil && s.fleet != nil {
		if _, relayed := relayedPrincipal(r); !relayed {
			// Another instance may hold its stream. (One carried here
			// whose session is not here has ended.)
			s.forward(w, r, sid)
			return
		}
	}
	if c != nil && !s.opts.UnboundSessions && s.principalOf(r) != c.principal {
		// Answered as a session that does not exist: the caller learns
		// nothing of it. The log names it by its tag only (a session id
		// lets anyone bound to it use it).
		s.log.Warn("mcp sse: a POST names a session of another principal; answered as if it did not exist",
			"sessionTag", c.tag(), "remote", r.RemoteAddr)
		c = nil
	}
	if c == nil {
		refuse(w, http.StatusNotFound, nil, errSessionNotFound())
		return
	}
	rf := &refusal{nullID: c.nullID()}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(w, http.StatusRequestEntityTooLarge, rf, jsonrpc.Errorf(jsonrpc.InvalidRequest, "body larger than %d bytes", s.opts.MaxBodyBytes))
			return
		}
		refuse(w, http.StatusBadRequest, rf, jsonrpc.Errorf(jsonrpc.ParseError, "reading the body: %v", err))
		return
	}
	items, batch, decodeErr := jsonrpc.DecodeOwned(body, true) // body is not changed: the session may get it as is
	rf.ids = jsonrpc.RequestIDs(items)
	var invalid *jsonrpc.Error
	for _, it := range items {
		if it.Err != nil {
			invalid = it.Err
			break
		}
	}
	rf.batch = batch
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		refuse(w, http.StatusUnsupportedMediaType, rf, jsonrpc.Errorf(jsonrpc.InvalidRequest, "Content-Type must be application/json, not %q", ct))
		return
	}
	if decodeErr != nil {
		code := int64(jsonrpc.ParseError)
		var de *jsonrpc.DecodeError
		if errors.As(decodeErr, &de) {
			code = de.Code
		}
		refuse(w, http.StatusBadRequest, rf, jsonrpc.Errorf(code, "%v", decodeErr))
		return
	}
	if invalid != nil {
		refuse(w, http.StatusBadRequest, rf, invalid)
		return
	}
	if batch {
		if rev := c.sess.Revision(); rev != nil && !rev.Batching {
			refuse(w, http.StatusBadRequest, rf, jsonrpc.Errorf(jsonrpc.InvalidRequest, "batches are not part of revision %s", rev.Name))
			return
		}
	}
	if !c.deliver(session.WithHTTPRequest(r.Context(), r), body, items, batch) {
		refuse(w, http.StatusNotFound, rf, jsonrpc.Errorf(jsonrpc.InvalidRequest, "session ended"))
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// conn is one session over HTTP+SSE, and the session's transport.
type conn struct {
	srv       *Server
	id        string
	principal string         // ServerOptions.Principal of the GET; "" for none
	info      transport.Info // what Describe returns
	sess      *session.Session
	// Set by the session before it starts.
	push      func(data []byte, inline bool)
	pushItems func(vals context.Context, items []jsonrpc.Item, batch, inline bool)

	wake      chan struct{} // capacity 1: the queue has messages
	gone      chan struct{} // closed when the stream has ended
	closed    chan struct{} // closed by Close
	closeOnce sync.Once

	mu         sync.Mutex
	ended      bool          // gone is closed
	why        error         // why the stream ended
	queue      [][]byte      // messages not written yet
	queueBytes int64         // their bytes
	room       chan struct{} // closed when the queue shrinks; nil without waiters
	waiting    int           // writers waiting for room
}

var (
	_ session.ItemPusher = (*conn)(nil)
	_ transport.Pusher   = (*conn)(nil)
	_ session.PushOnly   = (*conn)(nil)
)

// PushOnly implements session.PushOnly: every POST is pushed (deliver),
// and the session ends only by its Abort, which get calls once the
// stream has ended, so it needs no reader goroutine.
func (c *conn) PushOnly() {}

// SetPush implements transport.Pusher: POST bodies go to the session on
// the goroutine of their HTTP request.
func (c *conn) SetPush(push func(data []byte, inline bool)) { c.push = push }

// SetPushItems implements session.ItemPusher: the messages of POST bodies,
// decoded to check them, go to the session as they are, with the values
// of their request's context (session.WithHTTPRequest).
func (c *conn) SetPushItems(push func(vals context.Context, items []jsonrpc.Item, batch, inline bool)) {
	c.pushItems = push
}

// deliver hands a POST's messages to the session, which starts their
// requests before it returns (the 202 does not wait for answers). It
// reports false when the session has ended.
func (c *conn) deliver(vals context.Context, body []byte, items []jsonrpc.Item, batch bool) bool {
	select {
	case <-c.gone:
		return false
	case <-c.closed:
		return false
	default:
	}
	switch {
	case c.pushItems != nil:
		c.pushItems(vals, items, batch, false)
	case c.push != nil:
		c.push(body, false)
	default:
		return false // sessions always take pushes
	}
	return true
}

// tag names the session in logs and errors, which never hold its id
// (httpmsg.Tag).
func (c *conn) tag() string { return httpmsg.Tag(c.id) }

// nullID reports whether an error without a request id is written with
// "id": null for this session: its revision is before 2025-11-25.
func (c *conn) nullID() bool {
	rev := c.sess.Revision()
	return rev != nil && rev.Name < "2025-11-25"
}

// Describe implements transport.Describer: the connection of the GET that
// opened the stream, whose peer is the client, and the session id.
func (c *conn) Describe() transport.Info { return c.info }

// Read implements transport.Transport: messages are pushed (see
// SetPushItems), so Read only reports the end of the session: io.EOF once
// the stream has ended or the transport is closed.
func (c *conn) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-c.gone:
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// isAnswer reports whether data, a payload the session writes, is a
// response or a batch of them.
func isAnswer(data []byte) bool {
	v := jsontext.Value(data)
	if v.Kind() == '[' {
		d := jsontext.NewDecoder(bytes.NewReader(data))
		if _, err := d.ReadToken(); err != nil {
			return false
		}
		first, err := d.ReadValue()
		if err != nil {
			return false
		}
		v = first
	}
	_, isMethod := wire.Member(v, "method")
	return !isMethod
}

// Write implements transport.Transport: it queues data for the stream.
// When the queue is full, a response waits for room until the stream
// ends, a message a handler sends waits until its request's context ends,
// and any other message is refused with an error wrapping ErrStreamFull.
// The transport keeps data until it is written.
func (c *conn) Write(ctx context.Context, data []byte) error {
	answer := -1 // not looked at yet
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if c.ended {
			return fmt.Errorf("ssehttp: session %s: the SSE stream has ended (%v): %w", c.tag(), c.why, net.ErrClosed)
		}
		if c.roomLocked(len(data)) {
			c.queue = append(c.queue, data)
			c.queueBytes += int64(len(data))
			select {
			case c.wake <- struct{}{}:
			default:
			}
			return nil
		}
		if answer < 0 {
			answer = 0
			if isAnswer(data) {
				answer = 1
			}
		}
		_, handler := session.RequestID(ctx)
		full := fmt.Errorf("%w: session %s holds %d unwritten messages (%d bytes); the limits are %d and %d bytes",
			ErrStreamFull, c.tag(), len(c.queue), c.queueBytes, c.srv.opts.QueueEvents, c.srv.opts.QueueBytes)
		if answer == 0 && !handler {
			return full
		}
		var done <-chan struct{}
		if answer == 0 {
			done = ctx.Done() // a handler's message: backpressure while its request lasts
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
		case <-c.gone:
		case <-done:
			err = fmt.Errorf("%w; waiting for room ended: %w", full, ctx.Err())
		}
		c.mu.Lock()
		c.waiting--
		if err != nil {
			return err
		}
	}
}

// roomLocked reports whether a message of n bytes fits the queue.
func (c *conn) roomLocked(n int) bool {
	o := &c.srv.opts
	return len(c.queue) == 0 ||
		!over(int64(len(c.queue))+1, int64(o.QueueEvents)) && !over(c.queueBytes+int64(n), o.QueueBytes)
}

// take returns the queued messages, emptying the queue, and wakes the
// writers waiting for room.
func (c *conn) take() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.queue
	c.queue, c.queueBytes = nil, 0
	if len(q) > 0 && c.room != nil {
		close(c.room)
		c.room = nil
	}
	return q
}

// end marks the stream ended: writes fail from now on, and the writers
// waiting for room return.
func (c *conn) end(why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.ended, c.why = true, why
	c.queue, c.queueBytes = nil, 0
	close(c.gone)
}

// Close implements transport.Transport: the session has ended. The stream
// writes what is queued, then ends.
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// errSessionEnded, errClientGone: why a stream ended.
var (
	errSessionEnded = errors.New("the session ended")
	errClientGone   = errors.New("the client closed the stream")
)

// serve writes the stream of c to w: the endpoint event, then the queued
// messages as they come, and keep-alive comments while idle. It returns
// why the stream ended: the client went away, a write failed or timed out
// (WriteTimeout), or the session ended (its last messages written).
func (c *conn) serve(w http.ResponseWriter, r *http.Request, endpoint string) error {
	o := &c.srv.opts
	rc := http.NewResponseController(w)
	// The stream lasts as long as the session: an http.Server's
	// ReadTimeout must not end it.
	_ = rc.SetReadDeadline(time.Time{})
	timed := o.WriteTimeout > 0 && rc.SetWriteDeadline(time.Now().Add(o.WriteTimeout)) == nil
	arm := func() {
		if timed {
			_ = rc.SetWriteDeadline(time.Now().Add(o.WriteTimeout))
		}
	}
	if timed {
		// The end of the response, written after this returns, gets a
		// fresh limit too.
		defer arm()
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 0, 512)
	buf = append(buf, "event: endpoint\ndata: "...)
	buf = append(buf, endpoint...)
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	// One ticker serves the keep-alive comments and, in a fleet, the
	// renewal of the session's record every third of its TTL: each is
	// done on the ticks at which it is due.
	var tick <-chan time.Time
	keepAlive, renew := o.KeepAlive, time.Duration(0)
	if c.srv.fleet != nil {
		renew = c.srv.recordTTL / 3
	}
	if period := tickPeriod(keepAlive, renew); period > 0 {
		t := time.NewTicker(period)
		defer t.Stop()
		tick = t.C
	}
	lastKeep, lastRenew := time.Now(), time.Now()
	closing := false
	for {
		if msgs := c.take(); len(msgs) > 0 {
			arm()
			for _, m := range msgs {
				buf = append(buf[:0], "event: message\ndata: "...)
				buf = appendData(buf, m)
				buf = append(buf, "\n\n"...)
				if _, err := w.Write(buf); err != nil {
					return err
				}
			}
			if cap(buf) > 64<<10 {
				buf = make([]byte, 0, 512) // keep no big buffer for a long stream
			}
			if err := rc.Flush(); err != nil {
				return err
			}
			continue // more may have come meanwhile
		}
		if closing {
			return errSessionEnded
		}
		select {
		case <-c.wake:
		case now := <-tick:
			if renew > 0 && due(now, lastRenew, renew) && !c.srv.dead.Load() {
				lastRenew = now
				c.renewRecord()
			}
			if keepAlive <= 0 || !due(now, lastKeep, keepAlive) {
				continue
			}
			lastKeep = now
			arm()
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return err
			}
			if err := rc.Flush(); err != nil {
				return err
			}
		case <-r.Context().Done():
			return errClientGone
		case <-c.closed:
			closing = true // write what the session answered last, then end
		}
	}
}

// tickPeriod is the period of a stream's ticker that serves keep-alive
// comments every keepAlive and renewals every renew (either <= 0 for
// never): the shorter; 0 for no ticker.
func tickPeriod(keepAlive, renew time.Duration) time.Duration {
	switch {
	case keepAlive <= 0:
		return max(renew, 0)
	case renew <= 0:
		return keepAlive
	}
	return min(keepAlive, renew)
}

// due reports whether something done every period, last at last, is due
// at the tick now: ticks may come a little early or late.
func due(now, last time.Time, period time.Duration) bool {
	return now.Sub(last) >= period-period/4
}

// appendData appends m as the value of an SSE data field: a JSON text
// the session encoded has no line breaks, but a line break in JSON white
// space would end the field, so each starts a new data line (which the
// client joins back with "\n").
func appendData(buf, m []byte) []byte {
	for {
		i := bytes.IndexAny(m, "\r\n")
		if i < 0 {
			return append(buf, m...)
		}
		buf = append(buf, m[:i]...)
		buf = append(buf, "\ndata: "...)
		if m[i] == '\r' && i+1 < len(m) && m[i+1] == '\n' {
			i++
		}
		m = m[i+1:]
	}
}
