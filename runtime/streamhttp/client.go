package streamhttp

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
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/internal/sse"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ErrSessionExpired is wrapped by the error Write returns when the server
// answers 404 to a request that carried a session id: the server ended the
// session (see [Session Management]). The Client forgets the session id,
// and once the answers it already received are read, Read returns an error
// that wraps it too, so that the session using the Client ends (its Done
// closes, and Wait returns that error). So does a server that says, with a
// last SSE event of type "session-ended", that it ended the session
// (Server.Close sends one, naming the reason). To go on, initialize again,
// which with the generated packages means: close the session that used the
// Client, then Connect again with the same *Client (see Client.Close).
//
// [Session Management]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
var ErrSessionExpired = errors.New("streamhttp: session expired")

// The defaults of ClientOptions.
const (
	DefaultMaxRetries  = 5
	DefaultClientRetry = time.Second
	clientCloseTimeout = 5 * time.Second // bound of the DELETE that Close sends
	clientMaxPayload   = 64 << 20        // longest JSON body, SSE line or SSE event
)

// DefaultMaxQueued and DefaultMaxQueuedBytes are the defaults of
// ClientOptions.MaxQueued and MaxQueuedBytes.
const (
	DefaultMaxQueued      = 4096
	DefaultMaxQueuedBytes = 16 << 20
)

// ClientOptions configure a Client. The zero value is usable.
type ClientOptions struct {
	// HTTPClient sends the requests. Default: a client of its own, on a clone
	// of http.DefaultTransport, whose idle connections Close closes. Its
	// Timeout must be zero (or long): it would cut SSE streams, which last as
	// long as the requests they answer, or the session (the GET stream).
	// Contexts bound the requests instead.
	HTTPClient *http.Client
	// Header holds extra headers for every request, such as Authorization.
	// The headers of the transport itself (Accept, Content-Type,
	// Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID) override
	// these.
	Header http.Header
	// MaxRetries is how many times in a row a dropped SSE stream is
	// reconnected without receiving an event. Default
	// DefaultMaxRetries; negative means never reconnect. The standalone GET
	// stream, given up after that many failures (dropped connections, 5xx
	// statuses), is opened again by the next Write.
	MaxRetries int
	// DefaultRetry is how long to wait before reconnecting a stream whose
	// server sent no SSE retry field. Default DefaultClientRetry.
	DefaultRetry time.Duration
	// Logger receives diagnostics (dropped streams, reconnections, the
	// standalone GET stream's fate). Default: discard.
	Logger *slog.Logger
	// MaxQueued and MaxQueuedBytes limit what the Client holds for Read:
	// the messages its SSE streams delivered that the session has not read
	// yet (a session stops reading while its notification handler is
	// behind). When they are reached, the stream's reader waits for Read to
	// make room, so the server's writes wait too (TCP flow control):
	// nothing is dropped. A payload always fits an empty queue, whatever
	// its size; a JSON body, which the Write that POSTed it waits for, is
	// queued (or pushed to the session) without waiting. Defaults
	// DefaultMaxQueued payloads and DefaultMaxQueuedBytes; negative means
	// no limit.
	MaxQueued      int
	MaxQueuedBytes int64
}

// Client is the client side of the [Streamable HTTP] transport (2025-03-26
// to 2025-11-25, and the stateless era) for one MCP endpoint URL. It implements transport.Transport: give it to a
// generated package's Connect.
//
// Each Write is one POST. Its answer, a JSON body or an SSE stream
// (read in the background), is queued for Read, as is everything the
// server sends on the standalone GET stream, which the Client opens once
// the session is initialized. Streams that drop before they
// delivered the responses to the requests they carry are resumed with GET
// and Last-Event-ID ([resumability]), after the server's retry delay.
// When a stream cannot be resumed (the server answers 410 Gone, or another
// error status), the calls still waiting on it fail at once: see
// IsAnswerLost. A GET stream whose resumption gets 410 is opened afresh.
//
// The Client learns the session id from the answer to the POST of the
// initialize request and the negotiated protocol revision from the
// initialize response itself, and sends them on every later request
// ([session management], [protocol version header]); the initialize
// request is sent without them.
//
// What the streams deliver waits in a queue for Read, which is bounded
// (ClientOptions.MaxQueued, MaxQueuedBytes): when the session does not
// keep up, the streams are read no further until it does.
//
// When the server ends the session (it answers 404 to a request naming
// it, or ends a stream with a "session-ended" event, as Server.Close
// does), Read returns an error wrapping ErrSessionExpired once it returned
// what arrived before: the session using the Client ends, and its Wait
// says why.
//
// [Streamable HTTP]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
// [resumability]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery
// [session management]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
// [protocol version header]: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#protocol-version-header
type Client struct {
	endpoint   string
	hc         *http.Client
	ownHC      bool
	header     http.Header
	maxRetries int
	retry      time.Duration
	log        *slog.Logger
	maxQueued  int   // 0: no limit
	maxBytes   int64 // 0: no limit
	peer       httpmsg.Peer

	mu   sync.Mutex
	conn *clientConn // the current connection; replaced by Close after expiry
	push func(data []byte, inline bool)
}

// clientConn is what one session's use of a Client owns: the queue, the
// session's ids, and the goroutines reading streams. Close ends it. Its
// mutable fields are guarded by Client.mu.
type clientConn struct {
	ctx    context.Context // cancelled by Close: aborts every request and stream
	cancel context.CancelFunc
	wg     sync.WaitGroup // stream goroutines
	done   chan struct{}  // closed by Close
	notify chan struct{}  // signals a queued payload (capacity 1)

	closed     bool
	queue      [][]byte
	queueBytes int64         // the bytes of queue
	waiting    int           // stream readers waiting for room in queue
	room       chan struct{} // closed by Read when it makes room for waiters
	sessionID  string
	expired    bool        // a 404 ended the session
	ended      error       // why the server ended the session, for Read
	posts      int         // POST streams being read, whose answers Read returns before ended
	version    string      // negotiated revision, from the initialize response
	initID     wire.ID     // id of the initialize request awaiting its response
	initSeen   bool        // the initialize response arrived
	getStarted bool        // the standalone GET stream was opened for this session
	modern     *modernConn // the stateless era's state; nil until a stateless request
}

var _ transport.Transport = (*Client)(nil)

// NewClient returns a client transport for the MCP endpoint at endpoint
// (an http or https URL). It sends nothing until the first Write.
func NewClient(endpoint string, opts ClientOptions) *Client {
	c := &Client{
		endpoint:   endpoint,
		hc:         opts.HTTPClient,
		header:     opts.Header.Clone(),
		maxRetries: opts.MaxRetries,
		retry:      opts.DefaultRetry,
		log:        opts.Logger,
	}
	if c.hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		c.hc = &http.Client{Transport: tr}
		c.ownHC = true
	}
	if c.maxRetries == 0 {
		c.maxRetries = DefaultMaxRetries
	}
	if c.maxRetries < 0 {
		c.maxRetries = 0
	}
	if c.retry <= 0 {
		c.retry = DefaultClientRetry
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	orDefault(&opts.MaxQueued, DefaultMaxQueued)
	orDefault(&opts.MaxQueuedBytes, DefaultMaxQueuedBytes)
	c.maxQueued, c.maxBytes = max(opts.MaxQueued, 0), max(opts.MaxQueuedBytes, 0)
	if u, err := url.Parse(endpoint); err == nil {
		c.peer.SetURL(u)
	}
	c.conn = newClientConn()
	return c
}

func newClientConn() *clientConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &clientConn{
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
		notify: make(chan struct{}, 1),
	}
}

// SessionID returns the session id the server assigned, or "" before
// initialization, when the server uses no sessions, and after the session
// expired or was closed.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn.sessionID
}

// ProtocolVersion returns the protocol revision negotiated by the
// initialize exchange, or "" before it.
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn.version
}

// Describe implements transport.Describer: the server's host and port as
// the endpoint URL names them, the HTTP version of the latest response,
// and the session id once the server assigned one ("" in the stateless
// era).
func (c *Client) Describe() transport.Info {
	c.mu.Lock()
	sid := c.conn.sessionID
	c.mu.Unlock()
	return c.peer.Info(sid)
}

var errClientClosed = fmt.Errorf("streamhttp: client closed: %w", net.ErrClosed)

// Read returns the next payload the server sent (a JSON-RPC message, or a
// batch in 2025-03-26), from any of the Client's streams and JSON bodies,
// in the order they arrived. It returns io.EOF after Close, ctx.Err() when
// ctx ends first, and an error wrapping ErrSessionExpired once the server
// ended the session (see ErrSessionExpired) and the POST streams open then
// have ended.
func (c *Client) Read(ctx context.Context) ([]byte, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.mu.Lock()
		g := c.conn
		if g.closed {
			c.mu.Unlock()
			return nil, io.EOF
		}
		if len(g.queue) > 0 {
			p := g.queue[0]
			g.queue[0] = nil
			g.queue = g.queue[1:]
			g.queueBytes -= int64(len(p))
			if g.room != nil {
				close(g.room) // wakes the stream readers waiting for room
				g.room = nil
			}
			c.mu.Unlock()
			return p, nil
		}
		if g.ended != nil && g.posts == 0 {
			// The server ended the session, and every answer that came
			// was read.
			err := g.ended
			c.mu.Unlock()
			return nil, err
		}
		c.mu.Unlock()
		select {
		case <-g.notify:
		case <-g.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write POSTs data, one JSON-RPC payload, to the endpoint and
// returns once the server's answer has begun: 202 Accepted, a JSON
// body, which is read and queued for Read before Write returns, or an SSE
// stream, which is read in the background. ctx bounds the wait for
// the answer's headers and a JSON body; if it ends first, the request is
// abandoned (the connection dropped: the server is not told to cancel, so
// a session that wants that sends notifications/cancelled).
// The POST's context carries the values of ctx (an OpenTelemetry span, an
// httptrace.ClientTrace), so the http.Client's transport sees them.
//
// A status of 400 or above is an error that names it and quotes the start
// of the body; a 404 to a request that carried a session id wraps
// ErrSessionExpired, and a JSON body that is an error response to
// one of the POST's requests (or one without an id) has its *jsonrpc.Error
// wrapped: it is the request's answer. After Close, Write fails with an error
// wrapping net.ErrClosed.
//
// The POST of the initialize request carries neither Mcp-Session-Id nor
// MCP-Protocol-Version, and starts a new session: the session id is taken
// from the answer. Once the session is initialized, the first POST after
// the initialize response (notifications/initialized) also opens the
// standalone GET stream in the background.
func (c *Client) Write(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(data) == 0 {
		return errors.New("streamhttp: empty payload")
	}
	var one [1]clientMessage
	msgs := clientScanInto(&one, data)
	var requests []wire.ID
	initialize := false
	var initID wire.ID
	for _, m := range msgs {
		if m.kind == jsonrpc.Request {
			requests = append(requests, m.id)
			if m.method == "initialize" {
				initialize, initID = true, m.id
			}
		}
	}

	c.mu.Lock()
	g := c.conn
	if g.closed {
		c.mu.Unlock()
		return errClientClosed
	}
	if g.expired && !initialize {
		c.mu.Unlock()
		return fmt.Errorf("%w: initialize again (close the session, then Connect again with this Client)", ErrSessionExpired)
	}
	sid, version := g.sessionID, g.version
	if initialize {
		// A new session (sent without a session id).
		sid, version = "", ""
		g.initID, g.initSeen, g.version = initID, false, ""
	}
	c.mu.Unlock()
	var mp modernPost
	modern := false
	if sid == "" && !initialize {
		if mp, modern = c.modernOf(g, data, msgs); modern && c.cancelModern(g, mp) {
			return nil
		}
	}

	// The request ends with the connection (Close cancels g.ctx), or with
	// ctx while its answer is awaited: a child context only when ctx can end.
	reqCtx, cancelReq := g.ctx, context.CancelFunc(func() {})
	stop := func() bool { return true }
	if ctx.Done() != nil {
		reqCtx, cancelReq = context.WithCancel(g.ctx)
		stop = context.AfterFunc(ctx, cancelReq)
	}
	req, err := http.NewRequestWithContext(withValues(reqCtx, ctx), http.MethodPost, c.endpoint, bytes.NewReader(data))
	if err != nil {
		stop()
		cancelReq()
		return fmt.Errorf("streamhttp: %w", err)
	}
	c.setPostHeaders(req.Header, sid, version)
	if modern {
		if err := c.modernHeaders(g, req.Header, mp); err != nil {
			stop()
			cancelReq()
			return err
		}
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		stop()
		cancelReq()
		return c.requestError(ctx, g, "POST", err)
	}
	c.peer.Saw(resp)

	if initialize && resp.StatusCode/100 == 2 {
		newSID := resp.Header.Get("Mcp-Session-Id")
		if !clientValidSessionID(newSID) {
			stop()
			resp.Body.Close()
			cancelReq()
			return fmt.Errorf("streamhttp: the server sent an invalid Mcp-Session-Id %q (it must be visible ASCII)", newSID)
		}
		c.mu.Lock()
		g.sessionID, g.expired, g.getStarted = newSID, false, false
		c.mu.Unlock()
		c.log.Debug("streamhttp: initialize answered", "status", resp.StatusCode, "sessionTag", httpmsg.Tag(newSID))
	}

	switch {
	case resp.StatusCode >= 400:
		stop()
		err := c.statusError(g, "POST", resp, sid, "", requests)
		cancelReq()
		return err
	case resp.StatusCode/100 != 2:
		stop()
		resp.Body.Close()
		cancelReq()
		return fmt.Errorf("streamhttp: POST %s: unexpected status %s", c.endpoint, resp.Status)
	}

	switch httpmsg.MediaType(resp.Header.Get("Content-Type")) {
	case "text/event-stream":
		if !stop() {
			// ctx ended as the answer arrived: the stream is already cut.
			resp.Body.Close()
			cancelReq()
			return c.requestError(ctx, g, "POST", ctx.Err())
		}
		pending := map[wire.ID]bool{}
		for _, id := range requests {
			pending[id] = true
		}
		c.log.Debug("streamhttp: POST answered with an SSE stream", "requests", len(requests))
		forget := func() {}
		if modern && mp.msg.id.IsValid() {
			forget = c.trackStream(g, mp.msg.id, cancelReq)
		}
		c.mu.Lock()
		g.posts++
		c.mu.Unlock()
		if !c.spawn(g, func() {
			defer c.postEnded(g)
			defer forget()
			c.postStream(g, sid, resp.Body, cancelReq, pending, modern)
		}) {
			c.postEnded(g)
			forget()
			resp.Body.Close()
			cancelReq()
			return errClientClosed
		}
	case "application/json":
		body, err := readBody(io.LimitReader(resp.Body, clientMaxPayload+1), resp.ContentLength)
		stop()
		resp.Body.Close()
		cancelReq()
		if err != nil {
			return c.requestError(ctx, g, "POST", fmt.Errorf("reading the body: %w", err))
		}
		if len(body) > clientMaxPayload {
			return fmt.Errorf("streamhttp: POST %s: the JSON body exceeds %d bytes", c.endpoint, clientMaxPayload)
		}
		if len(bytes.TrimSpace(body)) > 0 {
			c.deliver(g, body, true)
		}
	default:
		// 202 Accepted, or another 2xx without a body.
		stop()
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancelReq()
		if n > 0 && resp.StatusCode != http.StatusAccepted {
			return fmt.Errorf("streamhttp: POST %s: %s with unsupported Content-Type %q", c.endpoint, resp.Status, resp.Header.Get("Content-Type"))
		}
	}

	if !initialize {
		if ready := c.maybeOpenGET(g); ready != nil {
			// Wait until the GET stream is open (or refused) before the
			// session sends anything else: a server may send its first
			// requests there as soon as the session is initialized, and drop
			// them if no GET stream is open yet.
			t := time.NewTimer(getReadyWait)
			select {
			case <-ready:
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
	}
	return nil
}

// getReadyWait bounds how long the Write that initializes the session
// waits for the GET stream to open.
const getReadyWait = 2 * time.Second

// setPostHeaders is setHeaders for a POST, with its Content-Type and
// Accept: the values of the four share one array, one allocation instead
// of one per header.
func (c *Client) setPostHeaders(h http.Header, sid, version string) {
	for k, vs := range c.header {
		h[k] = append([]string(nil), vs...)
	}
	vals := [...]string{"application/json", "application/json, text/event-stream", sid, version}
	h["Content-Type"] = vals[0:1:1]
	h["Accept"] = vals[1:2:2]
	if sid != "" {
		h["Mcp-Session-Id"] = vals[2:3:3]
	}
	if version != "" {
		h["Mcp-Protocol-Version"] = vals[3:4:4]
	}
}

// setHeaders sets the extra headers and the session headers on h.
func (c *Client) setHeaders(h http.Header, sid, version string) {
	for k, vs := range c.header {
		h[k] = append([]string(nil), vs...)
	}
	vals := [...]string{sid, version}
	if sid != "" {
		h["Mcp-Session-Id"] = vals[0:1:1]
	}
	if version != "" {
		h["Mcp-Protocol-Version"] = vals[1:2:2]
	}
}

// requestError explains a failed request: ctx's error when it ended the
// wait, net.ErrClosed when Close did, err otherwise.
func (c *Client) requestError(ctx context.Context, g *clientConn, method string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("streamhttp: %s %s: %w", method, c.endpoint, ctxErr)
	}
	if g.ctx.Err() != nil {
		return errClientClosed
	}
	return fmt.Errorf("streamhttp: %s %s: %w", method, c.endpoint, err)
}

// statusError turns an error status into an error, closing the body; a 404
// to a request that carried the session id sid expires the session. When
// the body is the server's JSON-RPC error response to one of requests (the
// ids of the POST's requests), or one without an id (the server could not
// read it), the error wraps that *jsonrpc.Error: it is the request's answer.
// In the body, the session id sid and the event id lastID (the request's
// Last-Event-ID, "" for none) are replaced by their tags: a server may
// quote them, and the error goes to the caller and into logs.
func (c *Client) statusError(g *clientConn, method string, resp *http.Response, sid, lastID string, requests []wire.ID) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, clientErrorBodyLength))
	resp.Body.Close()
	body = httpmsg.Hide(body, lastID, sid) // the event id may hold sid: first
	msg := fmt.Sprintf("streamhttp: %s %s: %s", method, c.endpoint, resp.Status)
	if excerpt := httpmsg.Excerpt(body); excerpt != "" {
		msg += ": " + excerpt
	}
	if hint := httpmsg.AuthHint(resp.StatusCode, resp.Header); hint != "" {
		msg += ": " + hint
	}
	e := &clientStatusError{msg: msg, status: resp.StatusCode}
	if resp.StatusCode == http.StatusNotFound && sid != "" {
		c.expire(g, sid, fmt.Errorf("%w: the server ended the session (%s)", ErrSessionExpired, msg))
		e.msg = fmt.Sprintf("%v (%s)", ErrSessionExpired, msg)
		e.errs = append(e.errs, ErrSessionExpired)
	}
	if len(requests) > 0 && httpmsg.MediaType(resp.Header.Get("Content-Type")) == "application/json" {
		if rpcErr := clientErrorAnswer(body, requests); rpcErr != nil {
			e.errs = append(e.errs, rpcErr)
		}
	}
	return e
}

// clientErrorBodyLength bounds how much of an error status's body is read.
const clientErrorBodyLength = 64 << 10

// clientStatusError is the error of a request refused with an error status:
// its message names the request, the status and the start of the body; it
// wraps ErrSessionExpired and the server's JSON-RPC error, when there are.
type clientStatusError struct {
	msg    string
	status int
	errs   []error
}

func (e *clientStatusError) Error() string   { return e.msg }
func (e *clientStatusError) Unwrap() []error { return e.errs }

// AuthorizationFailed reports whether the status is 401 (Unauthorized) or
// 403 (Forbidden), which say nothing of the server's era: Connect reports
// them rather than fall back to initialize (see session.AuthorizationError).
func (e *clientStatusError) AuthorizationFailed() bool {
	return e.status == http.StatusUnauthorized || e.status == http.StatusForbidden
}

// eventIDTag names an SSE event id in logs, which never hold it: a
// server's event ids may embed its session id (this package's Server's
// do), which is a credential (httpmsg.Tag). An empty id stays empty.
func eventIDTag(id string) string {
	if id == "" {
		return ""
	}
	return httpmsg.Tag(id)
}

// StatusCode returns the HTTP status of the answer that made a Client's
// Write fail (404, say), or 0 when err is not such an error (the request
// could not be sent, the answer could not be read). A client that falls
// back to another transport on a 4xx looks at it (see package ssehttp).
func StatusCode(err error) int {
	var e *clientStatusError
	if errors.As(err, &e) {
		return e.status
	}
	return 0
}

// clientErrorAnswer returns the error of the first error response in body
// (a message or a batch) whose id is one of requests or absent, or nil.
func clientErrorAnswer(body []byte, requests []wire.ID) *jsonrpc.Error {
	items, _, err := jsonrpc.Decode(body, true)
	if err != nil {
		return nil
	}
	for _, it := range items {
		m := it.Msg
		if m == nil || m.Kind != jsonrpc.ErrorResponse || m.Error == nil {
			continue
		}
		if !m.ID.IsValid() || slices.Contains(requests, m.ID) {
			return m.Error
		}
	}
	return nil
}

// expire forgets the session id sid if it is still the current one: the
// server ended the session, as why (which wraps ErrSessionExpired) says.
// Read returns why once it returned what was received before.
func (c *Client) expire(g *clientConn, sid string, why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sid == "" || g.sessionID != sid {
		return
	}
	g.sessionID = ""
	g.expired = true
	g.ended = why
	c.log.Info("streamhttp: the server ended the session", "sessionTag", httpmsg.Tag(sid)) // why may quote the session id: not logged
	select {
	case g.notify <- struct{}{}: // Read may have to return why
	default:
	}
}

// postEnded notes that the reading of a POST's stream ended.
func (c *Client) postEnded(g *clientConn) {
	c.mu.Lock()
	g.posts--
	c.mu.Unlock()
	select {
	case g.notify <- struct{}{}: // Read may have to return g.ended
	default:
	}
}

// sessionEnded reports whether the server ended the session of g.
func (c *Client) sessionEnded(g *clientConn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return g.ended
}

// maxEndReason bounds the reason of a session-ended event that an error
// quotes.
const maxEndReason = 200

// endReason returns the reason a session-ended event's data gives (a JSON
// object with a "reason" string), as printable ASCII of at most
// maxEndReason bytes; "no reason given" when it gives none.
func endReason(data []byte) string {
	r, ok := wire.MemberString(jsontext.Value(data), "reason")
	if !ok {
		return "no reason given"
	}
	b := make([]byte, 0, min(len(r), maxEndReason))
	for i := 0; i < len(r) && len(b) < maxEndReason; i++ {
		if ch := r[i]; ch >= 0x20 && ch < 0x7f {
			b = append(b, ch)
		} else {
			b = append(b, '?')
		}
	}
	if len(b) == 0 {
		return "no reason given"
	}
	return string(b)
}

// clientValidSessionID reports whether s is a valid session id (visible
// ASCII) or empty (no session).
func clientValidSessionID(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// spawn runs f in a goroutine that Close waits for, unless g is closed.
func (c *Client) spawn(g *clientConn, f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		f()
	}()
	return true
}

// deliver queues a payload for Read, noting the initialize response in it,
// and returns the ids of the responses it carries. With pushable set (a
// JSON body, which the writer of its POST waits for), the payload goes to
// the session's push function instead, when the session set one
// (transport.Pusher). A payload from a stream (pushable unset) first waits
// until the queue has room for it (ClientOptions.MaxQueued), or g closes.
func (c *Client) deliver(g *clientConn, data []byte, pushable bool) []wire.ID {
	data = c.toolsAnswer(g, data)
	var answered []wire.ID
	c.mu.Lock()
	// A pushed JSON answer is looked into only for the initialize response.
	scan := !pushable || c.push == nil || g.initID.IsValid()
	c.mu.Unlock()
	var msgs []clientMessage
	var one [1]clientMessage
	if scan {
		msgs = clientScanInto(&one, data)
	}
	c.mu.Lock()
	for _, m := range msgs {
		if m.kind != jsonrpc.Response && m.kind != jsonrpc.ErrorResponse || !m.id.IsValid() {
			continue
		}
		answered = append(answered, m.id)
		if g.initID.IsValid() && m.id == g.initID {
			g.initID = wire.ID{}
			if m.kind == jsonrpc.Response && m.version != "" {
				g.version = m.version
				g.initSeen = true
			}
		}
	}
	if g.closed {
		c.mu.Unlock()
		return answered
	}
	if push := c.push; pushable && push != nil {
		c.mu.Unlock()
		push(data, false)
		return answered
	}
	if !pushable {
		// A stream's reader waits for room (ClientOptions.MaxQueued).
		for !g.closed && c.queueFull(g, len(data)) {
			if g.room == nil {
				g.room = make(chan struct{})
			}
			room := g.room
			g.waiting++
			c.mu.Unlock()
			select {
			case <-room:
			case <-g.done:
			}
			c.mu.Lock()
			g.waiting--
		}
		if g.closed {
			c.mu.Unlock()
			return answered
		}
	}
	g.queue = append(g.queue, data)
	g.queueBytes += int64(len(data))
	select {
	case g.notify <- struct{}{}:
	default:
	}
	c.mu.Unlock()
	return answered
}

// queueFull reports whether a payload of n bytes must wait for room in g's
// queue: the queue is not empty and holds as many payloads or bytes as the
// limits allow. c.mu is held.
func (c *Client) queueFull(g *clientConn, n int) bool {
	if len(g.queue) == 0 {
		return false
	}
	return c.maxQueued > 0 && len(g.queue) >= c.maxQueued ||
		c.maxBytes > 0 && g.queueBytes+int64(n) > c.maxBytes
}

// SetPush implements transport.Pusher: the JSON answers to POSTs go to the
// session on the goroutine that wrote the POST. SSE events are still read
// with Read.
func (c *Client) SetPush(push func(data []byte, inline bool)) {
	c.mu.Lock()
	c.push = push
	c.mu.Unlock()
}

// --- Streams -----------------------------------------------------------------

// clientStream is the state of one logical SSE stream across reconnections.
type clientStream struct {
	sid    string        // the session it belongs to; "" for none
	lastID string        // of the last event dispatched
	retry  time.Duration // from the server's retry field; 0 when none
}

// read reads the events of one connection of the stream, queuing their
// payloads, until it ends. It reports whether at least one event arrived
// and calls answered with the response ids of each payload.
func (c *Client) readStream(g *clientConn, body io.Reader, st *clientStream, answered func([]wire.ID)) (progress bool, err error) {
	r := sse.NewReader(body, st.lastID, clientMaxPayload)
	for {
		ev, err := r.Next()
		if retry, ok := r.Retry(); ok {
			st.retry = retry
		}
		if err != nil {
			if errors.Is(err, sse.ErrTooLarge) {
				err = fmt.Errorf("streamhttp: %w", err)
			}
			return progress, err
		}
		progress = true
		st.lastID = r.LastID()
		if ev.Type == sessionEndedEvent {
			c.expire(g, st.sid, fmt.Errorf("%w: the server ended the session: %s", ErrSessionExpired, endReason(ev.Data)))
			continue
		}
		if ev.Type != "" && ev.Type != "message" {
			c.log.Debug("streamhttp: SSE event of an unknown type skipped", "event", ev.Type)
			continue
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue // a priming event
		}
		ids := c.deliver(g, ev.Data, false)
		if answered != nil && len(ids) > 0 && !jsontext.Value(ev.Data).IsValid() {
			// No JSON: the session cannot read whose answer it is, so the
			// requests are still waiting for theirs (the scan that found
			// the ids does not check the whole payload).
			ids = nil
		}
		if answered != nil {
			answered(ids)
		}
	}
}

// wait sleeps before a reconnection: the server's retry delay (which it
// MUST honour) or DefaultRetry. It reports false if Close came first.
func (c *Client) wait(g *clientConn, st *clientStream) bool {
	d := st.retry
	if d <= 0 {
		d = c.retry
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-g.ctx.Done():
		return false
	}
}

// postStream reads the SSE stream that answered a POST until it ends, and
// while responses to the requests the POST carried (pending) are missing,
// resumes it with GET and Last-Event-ID. If it cannot, it
// queues an error response for each request still unanswered, so that
// calls fail instead of waiting for their timeout.
//
// The stream of a stateless request (modern) is never resumed.
func (c *Client) postStream(g *clientConn, sid string, body io.ReadCloser, cancel context.CancelFunc, pending map[wire.ID]bool, modern bool) {
	st := &clientStream{sid: sid}
	answered := func(ids []wire.ID) {
		for _, id := range ids {
			delete(pending, id)
		}
	}
	_, err := c.readStream(g, body, st, answered)
	body.Close()
	cancel()
	c.log.Debug("streamhttp: SSE stream ended", "lastEventIDTag", eventIDTag(st.lastID), "unanswered", len(pending), "why", clientStreamEnd(err))
	failures := 0
	for len(pending) > 0 {
		if g.ctx.Err() != nil {
			return
		}
		if modern {
			c.abandon(g, pending, fmt.Sprintf("the SSE stream of a stateless request ended (%v) before its answer; it cannot be resumed: send the request again", clientStreamEnd(err)))
			return
		}
		if ended := c.sessionEnded(g); ended != nil {
			c.abandon(g, pending, fmt.Sprintf("the SSE stream ended (%v) before the answer, and the session with it: %v", clientStreamEnd(err), ended))
			return
		}
		if st.lastID == "" {
			c.abandon(g, pending, fmt.Sprintf("the SSE stream ended (%v) before any event id, so it cannot be resumed", clientStreamEnd(err)))
			return
		}
		if failures >= c.maxRetries {
			c.abandon(g, pending, fmt.Sprintf("the SSE stream could not be resumed after %d attempts (last: %v)", failures, clientStreamEnd(err)))
			return
		}
		c.log.Debug("streamhttp: resuming an SSE stream", "lastEventIDTag", eventIDTag(st.lastID), "pending", len(pending), "after", clientStreamEnd(err))
		if !c.wait(g, st) {
			return
		}
		var progress, retry bool
		progress, retry, err = c.resume(g, st, answered)
		if g.ctx.Err() != nil {
			return
		}
		if !retry {
			c.abandon(g, pending, fmt.Sprintf("the SSE stream could not be resumed from its last event (tag %s): %v", eventIDTag(st.lastID), err))
			return
		}
		if progress {
			failures = 0
		} else {
			failures++
		}
	}
}

// clientStreamEnd describes why a stream ended.
func clientStreamEnd(err error) string {
	if err == nil || errors.Is(err, io.EOF) {
		return "closed by the server"
	}
	return err.Error()
}

// resume GETs the stream st from its last event id and reads it until it
// ends. retry is false when trying again is pointless (an error status).
func (c *Client) resume(g *clientConn, st *clientStream, answered func([]wire.ID)) (progress, retry bool, err error) {
	resp, cancel, sid, err := c.get(g, st.lastID)
	if err != nil {
		return false, true, err
	}
	defer cancel()
	if resp.StatusCode != http.StatusOK {
		err := c.statusError(g, "GET", resp, sid, st.lastID, nil)
		return false, resp.StatusCode >= 500, err
	}
	if mt := httpmsg.MediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		return false, false, fmt.Errorf("GET %s: Content-Type %q, want text/event-stream", c.endpoint, mt)
	}
	progress, err = c.readStream(g, resp.Body, st, answered)
	resp.Body.Close()
	return progress, true, err
}

// get sends a GET for an SSE stream, resuming after lastID when it
// is not empty. It returns the response, the function that releases it,
// and the session id it carried.
func (c *Client) get(g *clientConn, lastID string) (*http.Response, context.CancelFunc, string, error) {
	c.mu.Lock()
	sid, version := g.sessionID, g.version
	c.mu.Unlock()
	ctx, cancel := context.WithCancel(g.ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint, nil)
	if err != nil {
		cancel()
		return nil, nil, "", err
	}
	c.setHeaders(req.Header, sid, version)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		cancel()
		return nil, nil, "", err
	}
	c.peer.Saw(resp)
	return resp, cancel, sid, nil
}

// answerLostData is the Data of the error responses a Client makes up for
// the requests whose answers are lost (see IsAnswerLost).
var answerLostData = jsontext.Value(`{"streamhttp":"answer lost"}`)

// IsAnswerLost reports whether err, the error of a call made through a
// Client, says that the call's answer is lost: the SSE stream that was to
// carry it broke and could not be resumed (the server answered the
// resumption with 410 Gone because the events after the client's last one
// are beyond its resumption window or the stream was dropped, or with
// another error status; or the stream had no event id to resume from; or
// MaxRetries reconnections in a row brought nothing). The server may have
// handled the request: the caller decides whether to send it again.
//
// Such a call fails as soon as the Client gives up on the stream, with a
// *jsonrpc.Error of code jsonrpc.InternalError whose message begins with
// "streamhttp: answer lost:" and says why. (The answer reaches the session
// as a JSON-RPC error response, so no Go error can be wrapped in it.)
func IsAnswerLost(err error) bool {
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.InternalError {
		return false
	}
	v, _ := wire.MemberString(e.Data, "streamhttp")
	return v == "answer lost"
}

// abandon queues an error response for each request in pending: their
// stream is lost (see IsAnswerLost).
func (c *Client) abandon(g *clientConn, pending map[wire.ID]bool, why string) {
	c.log.Warn("streamhttp: giving up on an SSE stream: its answers are lost", "reason", why, "unanswered", len(pending))
	for id := range pending {
		b, err := jsonrpc.Encode(&jsonrpc.Message{
			Kind:  jsonrpc.ErrorResponse,
			ID:    id,
			Error: &jsonrpc.Error{Code: jsonrpc.InternalError, Message: "streamhttp: answer lost: " + why, Data: answerLostData},
		})
		if err == nil {
			c.deliver(g, b, false)
		}
	}
}

// maybeOpenGET opens the standalone GET stream once the session is
// initialized, if it is not open yet. It returns a channel closed when the
// first attempt has its answer (the stream is open, or refused), or nil
// when it opened nothing.
func (c *Client) maybeOpenGET(g *clientConn) <-chan struct{} {
	c.mu.Lock()
	if g.getStarted || !g.initSeen || g.closed {
		c.mu.Unlock()
		return nil
	}
	g.getStarted = true
	sid := g.sessionID
	c.mu.Unlock()
	ready := make(chan struct{})
	c.spawn(g, func() { c.getStream(g, sid, ready) })
	return ready
}

// getStream keeps the standalone GET stream of session sid open:
// what arrives on it is queued for Read; after a drop it reconnects with
// Last-Event-ID, up to MaxRetries times in a row without an event;
// after that, or a 5xx status as often, it stops until the next Write opens
// the stream again. A resumption refused with 410 Gone (the client fell
// behind the server's resumption window: the messages in between are lost)
// is followed by a fresh stream without Last-Event-ID, and a 409 Conflict
// (the server has not noticed the drop yet) by another attempt; both count
// as failures. It stops for good on 405 (no stream offered), on
// another error status below 500 (404: the session expired), when the
// session changes, and at Close.
func (c *Client) getStream(g *clientConn, sid string, ready chan struct{}) {
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	defer signal()
	st := &clientStream{sid: sid}
	failures := 0
	for {
		c.mu.Lock()
		same := g.sessionID == sid
		c.mu.Unlock()
		if !same || g.ctx.Err() != nil {
			return
		}
		resp, cancel, _, err := c.get(g, st.lastID)
		signal()
		if g.ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
				cancel()
			}
			return
		}
		var progress bool
		switch {
		case err != nil:
		case resp.StatusCode == http.StatusMethodNotAllowed:
			resp.Body.Close()
			cancel()
			c.log.Debug("streamhttp: the server offers no GET stream (405)")
			return
		case resp.StatusCode == http.StatusGone && st.lastID != "",
			resp.StatusCode == http.StatusConflict:
			// 410: the events after st.lastID are beyond the server's
			// resumption window; a fresh stream, without Last-Event-ID,
			// carries what comes next. 409: the server still holds the
			// dropped connection as the session's GET stream, until it
			// notices the drop. Both are tried again as a failure.
			err = c.statusError(g, "GET", resp, sid, st.lastID, nil)
			cancel()
			if resp.StatusCode == http.StatusGone {
				c.log.Warn("streamhttp: the GET stream cannot be resumed: messages the server sent on it are lost; opening a fresh one", "lastEventIDTag", eventIDTag(st.lastID), "err", err)
				st.lastID = ""
			}
		case resp.StatusCode != http.StatusOK:
			err = c.statusError(g, "GET", resp, sid, st.lastID, nil)
			cancel()
			if resp.StatusCode < 500 {
				c.log.Warn("streamhttp: the GET stream was refused", "err", err)
				return
			}
		case httpmsg.MediaType(resp.Header.Get("Content-Type")) != "text/event-stream":
			resp.Body.Close()
			cancel()
			c.log.Warn("streamhttp: the GET stream is not an SSE stream", "contentType", resp.Header.Get("Content-Type"))
			return
		default:
			c.log.Debug("streamhttp: the GET stream is open", "lastEventIDTag", eventIDTag(st.lastID))
			progress, err = c.readStream(g, resp.Body, st, nil)
			resp.Body.Close()
			cancel()
		}
		if g.ctx.Err() != nil || c.sessionEnded(g) != nil {
			return
		}
		if progress {
			failures = 0
		} else {
			failures++
		}
		if failures > c.maxRetries {
			c.log.Warn("streamhttp: giving up on the GET stream until the next Write", "attempts", failures, "err", clientStreamEnd(err))
			c.mu.Lock()
			if g.sessionID == sid {
				g.getStarted = false // the next Write opens it again
			}
			c.mu.Unlock()
			return
		}
		c.log.Debug("streamhttp: reconnecting the GET stream", "lastEventIDTag", eventIDTag(st.lastID), "after", clientStreamEnd(err))
		if !c.wait(g, st) {
			return
		}
	}
}

// --- Close -------------------------------------------------------------------

// Close ends the session: it makes pending and later Reads return io.EOF
// and later Writes fail, aborts every request and stream in flight, and
// waits for the goroutines reading streams. If the server assigned a
// session id, Close first tells the server with DELETE (405, the
// server not letting clients end sessions, and 404 are fine), bounded by
// 5 seconds; a failure of the DELETE is Close's error. Close is
// idempotent.
//
// After the session expired (a Write failed with ErrSessionExpired), Close
// instead resets the Client so that it can serve a new session: this is
// how a caller starts over. Close the session that used the Client
// (its Close calls this Close), then Connect again with the same *Client:
//
//	if errors.Is(err, streamhttp.ErrSessionExpired) {
//		cs.Close()
//		cs, err = mcp20251125.Connect(ctx, client, &mcp20251125.ClientOptions{Info: info, Capabilities: caps, Session: opts})
//	}
func (c *Client) Close() error {
	c.mu.Lock()
	g := c.conn
	if g.closed {
		c.mu.Unlock()
		return nil
	}
	g.closed = true
	if g.expired {
		c.conn = newClientConn() // ready for a new session
	}
	sid, version := g.sessionID, g.version
	g.sessionID = ""
	g.queue, g.queueBytes = nil, 0
	c.mu.Unlock()

	close(g.done)
	g.cancel()
	var err error
	if sid != "" {
		err = c.deleteSession(sid, version)
	}
	g.wg.Wait()
	if c.ownHC {
		c.hc.CloseIdleConnections()
	}
	return err
}

// deleteSession ends session sid on the server.
func (c *Client) deleteSession(sid, version string) error {
	ctx, cancel := context.WithTimeout(context.Background(), clientCloseTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.endpoint, nil)
	if err != nil {
		return fmt.Errorf("streamhttp: %w", err)
	}
	c.setHeaders(req.Header, sid, version)
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("streamhttp: DELETE %s: %w", c.endpoint, err)
	}
	c.peer.Saw(resp)
	switch {
	case resp.StatusCode/100 == 2, resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusNotFound:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, clientErrorBodyLength))
	resp.Body.Close()
	excerpt := httpmsg.Excerpt(httpmsg.Hide(body, sid))
	msg := fmt.Sprintf("streamhttp: DELETE %s: %s", c.endpoint, resp.Status)
	if excerpt != "" {
		msg += ": " + excerpt
	}
	return errors.New(msg)
}

// AuthContext names the authorization the Client's requests carry, for
// session.AuthContexter (a client of the stateless era keeps its cached
// "private" results apart per authorization): what the HTTP client's
// transport says when it implements AuthContext() string (as
// runtime/oauth's does), else a digest of ClientOptions.Header's
// Authorization, else "".
func (c *Client) AuthContext() string {
	return httpmsg.AuthContext(c.hc.Transport, c.header)
}

// requestContext is the context of a POST: it ends with its Context (the
// connection's, or a child of it that ctx also ends), and carries the
// values of the context the message was written with, so that what the
// caller put there reaches the http.Client's transport: an OpenTelemetry
// span that otelhttp makes the parent of the HTTP span, an
// httptrace.ClientTrace, a RoundTripper's per-call settings.
type requestContext struct {
	context.Context
	values context.Context
}

// Value returns the Context's value for key if it has one, else the
// caller's. The connection's context derives from context.Background and
// holds no values of its own: the only key it answers is the one by
// which the context package finds the cancelable parent, so that a
// context derived from the request's (net/http derives one per request)
// is canceled with it without a goroutine.
func (c *requestContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}

// withValues returns the context of a POST that ends with reqCtx and
// carries the values of ctx: reqCtx itself when ctx is a root context,
// which has none.
func withValues(reqCtx, ctx context.Context) context.Context {
	if ctx == context.Background() || ctx == context.TODO() {
		return reqCtx
	}
	return &requestContext{Context: reqCtx, values: ctx}
}
