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
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/internal/sse"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The defaults of ClientOptions, the same as streamhttp's.
const (
	DefaultMaxQueued      = 4096
	DefaultMaxQueuedBytes = 16 << 20
	// MaxMessageBytes is the longest message (SSE event data, or line) a
	// Client reads: a longer one ends the stream.
	MaxMessageBytes = 64 << 20
)

// ClientOptions configure a Client. The zero value is usable.
type ClientOptions struct {
	// HTTPClient sends the requests. Default: a client of its own, on a
	// clone of http.DefaultTransport, whose idle connections Close closes.
	// Its Timeout must be zero (or long): it would cut the SSE stream,
	// which lasts as long as the session.
	HTTPClient *http.Client
	// Header holds extra headers for every request, such as Authorization.
	Header http.Header
	// MaxQueued and MaxQueuedBytes limit the messages the stream delivered
	// that the session has not read yet: past them, the stream is read no
	// further until Read makes room (so the server's writes wait too).
	// A message always fits an empty queue. Defaults DefaultMaxQueued and
	// DefaultMaxQueuedBytes; negative means no limit.
	MaxQueued      int
	MaxQueuedBytes int64
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
}

// Client is the client side of the HTTP+SSE transport for one
// SSE URL. It implements transport.Transport: give it to a generated
// package's Connect.
//
// The first Write (or Open) GETs the SSE URL and waits for the stream's
// first event, endpoint, whose data, resolved against the SSE URL, is
// where every message is POSTed; it must have the SSE URL's origin
// (scheme, host and port). The stream's message events are queued for
// Read, in a queue bounded as ClientOptions say. When the stream ends,
// Read returns, once the queue is empty, an error that says how: one
// wrapping io.EOF when the server ended it, or the error that broke it
// (such as io.ErrUnexpectedEOF for a dropped connection). The session is
// then over, and its calls in flight fail with that error: the transport
// has no resumption.
type Client struct {
	sseURL   *url.URL
	raw      string
	hc       *http.Client
	ownHC    bool
	header   http.Header
	log      *slog.Logger
	maxQ     int   // 0: no limit
	maxBytes int64 // 0: no limit
	peer     httpmsg.Peer

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the stream reader
	notify chan struct{}  // capacity 1: a message was queued
	ended  chan struct{}  // closed when the stream has ended
	done   chan struct{}  // closed by Close
	open   sync.Mutex     // held by Open while it connects

	mu         sync.Mutex
	endpoint   *url.URL // from the endpoint event; nil before
	sessionID  string   // the endpoint's sessionId; "" before
	closed     bool
	endErr     error // why the stream ended; nil for the server closing it
	queue      [][]byte
	queueBytes int64
	room       chan struct{} // closed by Read when it makes room; nil without a waiter
}

var _ transport.Transport = (*Client)(nil)

// NewClient returns a client transport for the server whose SSE stream is
// at sseURL (an http or https URL). It sends nothing until Open or the
// first Write.
func NewClient(sseURL string, opts ClientOptions) *Client {
	c := &Client{
		raw:    sseURL,
		hc:     opts.HTTPClient,
		header: opts.Header.Clone(),
		log:    opts.Logger,
		notify: make(chan struct{}, 1),
		ended:  make(chan struct{}),
		done:   make(chan struct{}),
	}
	c.sseURL, _ = url.Parse(sseURL) // checked by Open
	c.peer.SetURL(c.sseURL)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if c.hc == nil {
		c.hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		c.ownHC = true
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	orDefault(&opts.MaxQueued, DefaultMaxQueued)
	orDefault(&opts.MaxQueuedBytes, DefaultMaxQueuedBytes)
	c.maxQ, c.maxBytes = max(opts.MaxQueued, 0), max(opts.MaxQueuedBytes, 0)
	return c
}

// ServerKey returns the SSE URL: the server a session.Session remembers
// the protocol era of (session.ServerKeyer).
func (c *Client) ServerKey() string { return c.raw }

// Describe implements transport.Describer: the server's host and port as
// the SSE URL names them, the HTTP version of the latest response, and the
// sessionId of the endpoint the server gave, once it did.
func (c *Client) Describe() transport.Info {
	c.mu.Lock()
	sid := c.sessionID
	c.mu.Unlock()
	return c.peer.Info(sid)
}

// shownEndpoint returns u for logs and errors, which never hold its query:
// it names the session (?sessionId=…), which is a credential. The query
// is shown as "?…".
func shownEndpoint(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = "", false, "", ""
	if u.RawQuery != "" {
		return v.Redacted() + "?…"
	}
	return v.Redacted()
}

// Endpoint returns the URL messages are POSTed to, from the stream's
// endpoint event, or "" before Open succeeded.
func (c *Client) Endpoint() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.endpoint == nil {
		return ""
	}
	return c.endpoint.String()
}

var errClientClosed = fmt.Errorf("ssehttp: client closed: %w", net.ErrClosed)

// NotSSEError is the error Open returns when the server did not answer
// the GET with an SSE stream whose first event is endpoint: it does not
// speak the HTTP+SSE transport at that URL.
type NotSSEError struct {
	// Status is the HTTP status of the answer.
	Status int
	// Reason says what was wrong.
	Reason string
}

// Error implements error.
func (e *NotSSEError) Error() string {
	return "ssehttp: not an HTTP+SSE server: " + e.Reason
}

// Open GETs the SSE URL and waits, within ctx, for the stream's endpoint
// event; it returns nil at once when the stream is open already. After it
// fails, a later call tries again; after the stream ended, it fails.
// Write calls it.
func (c *Client) Open(ctx context.Context) error {
	c.open.Lock()
	defer c.open.Unlock()
	c.mu.Lock()
	closed, ep := c.closed, c.endpoint
	c.mu.Unlock()
	switch {
	case closed:
		return errClientClosed
	case ep != nil:
		select {
		case <-c.ended:
			return c.streamErr()
		default:
			return nil
		}
	}
	if c.sseURL == nil || (c.sseURL.Scheme != "http" && c.sseURL.Scheme != "https") || c.sseURL.Host == "" {
		return fmt.Errorf("ssehttp: %q is not an http or https URL", c.raw)
	}
	sctx, cancel := context.WithCancel(c.ctx)
	stop := context.AfterFunc(ctx, cancel) // until the endpoint event
	fail := func(err error) error {
		stop()
		cancel()
		if ctx.Err() != nil {
			return fmt.Errorf("ssehttp: GET %s: %w", c.raw, ctx.Err())
		}
		if c.ctx.Err() != nil {
			return errClientClosed
		}
		return err
	}
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, c.raw, nil)
	if err != nil {
		return fail(fmt.Errorf("ssehttp: %w", err))
	}
	c.setHeaders(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fail(fmt.Errorf("ssehttp: GET %s: %w", c.raw, err))
	}
	c.peer.Saw(resp)
	if resp.StatusCode != http.StatusOK {
		quoted := httpmsg.BodyExcerpt(resp.Body)
		resp.Body.Close()
		reason := fmt.Sprintf("GET %s: %s", c.raw, resp.Status)
		if quoted != "" {
			reason += ": " + quoted
		}
		return fail(&NotSSEError{Status: resp.StatusCode, Reason: reason})
	}
	if mt := httpmsg.MediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		return fail(&NotSSEError{Status: resp.StatusCode, Reason: fmt.Sprintf("GET %s: Content-Type %q, want text/event-stream", c.raw, mt)})
	}
	r := sse.NewReader(resp.Body, "", MaxMessageBytes)
	endpoint, err := firstEndpoint(r, c.sseURL)
	if err != nil {
		resp.Body.Close()
		var ns *NotSSEError
		if errors.As(err, &ns) {
			ns.Status = resp.StatusCode
			ns.Reason = fmt.Sprintf("GET %s: %s", c.raw, ns.Reason)
		} else {
			err = fmt.Errorf("ssehttp: GET %s: %w", c.raw, err)
		}
		return fail(err)
	}
	if !stop() {
		// ctx ended as the endpoint came: the stream is already cut.
		resp.Body.Close()
		return fail(ctx.Err())
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		resp.Body.Close()
		cancel()
		return errClientClosed
	}
	c.endpoint = endpoint
	c.sessionID = endpoint.Query().Get("sessionId")
	c.wg.Add(1)
	c.mu.Unlock()
	c.log.Debug("ssehttp: SSE stream open", "url", c.raw, "endpoint", shownEndpoint(endpoint), "endpointTag", httpmsg.Tag(endpoint.String()))
	go c.readStream(r, resp.Body, cancel)
	return nil
}

// firstEndpoint reads the first event of a stream, which must be
// endpoint, and returns its URL resolved against base. An error that says
// the server does not speak the transport is a *NotSSEError (its Status
// left to the caller).
func firstEndpoint(r *sse.Reader, base *url.URL) (*url.URL, error) {
	ev, err := r.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &NotSSEError{Reason: "the SSE stream ended before its endpoint event"}
		}
		return nil, fmt.Errorf("reading the endpoint event: %w", err)
	}
	if ev.Type != "endpoint" {
		typ := ev.Type
		if typ == "" {
			typ = "message"
		}
		return nil, &NotSSEError{Reason: fmt.Sprintf("the first SSE event is %q, not endpoint", typ)}
	}
	u, err := ResolveEndpoint(base, ev.Data)
	if err != nil {
		return nil, &NotSSEError{Reason: err.Error()}
	}
	return u, nil
}

// ResolveEndpoint resolves data, the data of an endpoint event, against
// base, the URL of the SSE stream, and returns the URL to POST messages
// to. It must be a URL reference on one line and resolve to base's
// origin: the same scheme, host and port (the default port of the scheme
// when none is given). A server of another origin is refused: a stream
// must not send the client's messages, and its credentials, elsewhere.
func ResolveEndpoint(base *url.URL, data []byte) (*url.URL, error) {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return nil, errors.New("the endpoint event has no URL")
	}
	if !utf8.ValidString(s) || strings.ContainsAny(s, "\r\n\x00") {
		return nil, fmt.Errorf("the endpoint event's data %q is not one URL", shownData(s))
	}
	ref, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("the endpoint event's URL: %w", err)
	}
	u := base.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", ""
	if origin(u) != origin(base) {
		return nil, fmt.Errorf("the endpoint %s is not of the SSE stream's origin %s", shownEndpoint(u), origin(base))
	}
	return u, nil
}

// queryValues returns the values of u's query (the endpoint's, which name
// the session) that an error must not quote, longest first (one may hold
// another): those of at least 8 bytes. A shorter one is no credential
// worth the name, and replacing it everywhere would garble what quotes it.
func queryValues(u *url.URL) []string {
	var vs []string
	for _, values := range u.Query() {
		for _, v := range values {
			if len(v) >= 8 {
				vs = append(vs, v)
			}
		}
	}
	slices.SortFunc(vs, func(a, b string) int { return len(b) - len(a) })
	return vs
}

// shownData returns the data of an endpoint event that is not one URL for
// an error, as shownEndpoint shows a URL: its query, which names the
// session, as "?…".
func shownData(s string) string {
	if i := strings.IndexByte(s, '?'); i >= 0 {
		return httpmsg.Excerpt([]byte(s[:i])) + "?…"
	}
	return httpmsg.Excerpt([]byte(s))
}

// origin returns scheme://host:port of u, lower case, with the scheme's
// default port when it has none.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// readStream reads the message events of the open stream until it ends.
func (c *Client) readStream(r *sse.Reader, body io.ReadCloser, cancel context.CancelFunc) {
	defer c.wg.Done()
	var err error
	for {
		var ev sse.Event
		if ev, err = r.Next(); err != nil {
			break
		}
		if ev.Type != "" && ev.Type != "message" {
			c.log.Debug("ssehttp: SSE event of another type skipped", "event", ev.Type)
			continue
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		if !c.deliver(ev.Data) {
			break // closed
		}
	}
	body.Close()
	cancel()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	c.mu.Lock()
	if c.closed {
		err = nil
	} else if err != nil {
		err = fmt.Errorf("ssehttp: the SSE stream broke: %w", err)
	}
	c.endErr = err
	c.mu.Unlock()
	c.log.Debug("ssehttp: SSE stream ended", "url", c.raw, "err", err)
	close(c.ended)
}

// deliver queues data for Read, waiting while the queue is full. It
// reports false once the Client is closed.
func (c *Client) deliver(data []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.closed && len(c.queue) > 0 &&
		(c.maxQ > 0 && len(c.queue) >= c.maxQ || c.maxBytes > 0 && c.queueBytes+int64(len(data)) > c.maxBytes) {
		if c.room == nil {
			c.room = make(chan struct{})
		}
		room := c.room
		c.mu.Unlock()
		select {
		case <-room:
		case <-c.done:
		}
		c.mu.Lock()
	}
	if c.closed {
		return false
	}
	c.queue = append(c.queue, data)
	c.queueBytes += int64(len(data))
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return true
}

// errStreamEnded is what Read returns once the server ended the stream.
var errStreamEnded = fmt.Errorf("ssehttp: the server ended the SSE stream: %w", io.EOF)

// streamErr returns why the stream ended: errStreamEnded when the server
// ended it.
func (c *Client) streamErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.endErr != nil {
		return c.endErr
	}
	return errStreamEnded
}

// Read returns the next message the server sent on the stream. Once the
// stream has ended and its messages were read, it returns an error that
// wraps io.EOF when the server ended the stream ("ssehttp: the server
// ended the SSE stream: EOF"), or the error that broke it ("ssehttp: the
// SSE stream broke: unexpected EOF"); after Close, io.EOF itself.
func (c *Client) Read(ctx context.Context) ([]byte, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, io.EOF
		}
		if len(c.queue) > 0 {
			p := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.queueBytes -= int64(len(p))
			if c.room != nil {
				close(c.room)
				c.room = nil
			}
			c.mu.Unlock()
			return p, nil
		}
		c.mu.Unlock()
		select {
		case <-c.notify:
		case <-c.ended:
			c.mu.Lock()
			empty := len(c.queue) == 0
			c.mu.Unlock()
			if empty {
				return nil, c.streamErr()
			}
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write POSTs data, one JSON-RPC payload, to the endpoint, opening the
// stream first if need be (Open, within ctx), and returns once the server
// accepted it (2xx; the answer comes on the stream). An error status is
// an error naming it and quoting the start of the body; when the body is
// a JSON-RPC error response (to one of the payload's requests, or
// without an id), the error wraps its *jsonrpc.Error.
func (c *Client) Write(ctx context.Context, data []byte) error {
	if len(data) == 0 {
		return errors.New("ssehttp: empty payload")
	}
	if err := c.Open(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	endpoint, shown, secrets := c.endpoint.String(), shownEndpoint(c.endpoint), queryValues(c.endpoint)
	c.mu.Unlock()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel) // Close aborts it
	defer stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("ssehttp: %w", err)
	}
	c.setHeaders(req.Header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		if c.ctx.Err() != nil {
			return errClientClosed
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = shown
		}
		return fmt.Errorf("ssehttp: POST %s: %w", shown, err)
	}
	c.peer.Saw(resp)
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	body = httpmsg.Hide(body, secrets...) // a server may quote them
	msg := fmt.Sprintf("ssehttp: POST %s: %s", shown, resp.Status)
	if e := httpmsg.Excerpt(body); e != "" {
		msg += ": " + e
	}
	if hint := httpmsg.AuthHint(resp.StatusCode, resp.Header); hint != "" {
		msg += ": " + hint
	}
	se := &statusError{msg: msg, status: resp.StatusCode}
	if httpmsg.MediaType(resp.Header.Get("Content-Type")) == "application/json" {
		se.rpc = errorAnswer(body)
	}
	return se
}

// statusError is the error of a POST refused with an error status.
type statusError struct {
	msg    string
	status int
	rpc    *jsonrpc.Error
}

func (e *statusError) Error() string { return e.msg }

// AuthorizationFailed reports whether the status is 401 (Unauthorized) or
// 403 (Forbidden), which say nothing of the server's era: Connect reports
// them rather than fall back to initialize (see session.AuthorizationError).
func (e *statusError) AuthorizationFailed() bool {
	return e.status == http.StatusUnauthorized || e.status == http.StatusForbidden
}
func (e *statusError) Unwrap() error {
	if e.rpc == nil {
		return nil
	}
	return e.rpc
}

// StatusCode returns the HTTP status of the answer that made a Client's
// Write fail, or 0 when err is not such an error.
func StatusCode(err error) int {
	var e *statusError
	if errors.As(err, &e) {
		return e.status
	}
	return 0
}

// errorAnswer returns the first error of an error response in body, or nil.
func errorAnswer(body []byte) *jsonrpc.Error {
	items, _, err := jsonrpc.Decode(body, true)
	if err != nil {
		return nil
	}
	for _, it := range items {
		if m := it.Msg; m != nil && m.Kind == jsonrpc.ErrorResponse && m.Error != nil {
			return m.Error
		}
	}
	return nil
}

// setHeaders sets the extra headers on h.
func (c *Client) setHeaders(h http.Header) {
	for k, vs := range c.header {
		h[k] = append([]string(nil), vs...)
	}
}

// Close ends the session: the stream is closed, a Write in flight is
// aborted, later Writes fail and Reads return io.EOF. It waits for the
// stream's reader. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.queue, c.queueBytes = nil, 0
	c.mu.Unlock()
	close(c.done)
	c.cancel()
	c.wg.Wait()
	if c.ownHC {
		c.hc.CloseIdleConnections()
	}
	return nil
}

// AuthContext names the authorization the Client's requests carry (see
// session.AuthContexter): what the HTTP client's transport says when it
// implements AuthContext() string (as runtime/oauth's does), else a digest
// of ClientOptions.Header's Authorization, else "".
func (c *Client) AuthContext() string {
	return httpmsg.AuthContext(c.hc.Transport, c.header)
}
