package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ServeFunc serves an HTTP request carried from another instance, for the
// principal that instance found: a transport's own handler, which trusts
// the principal and the checks of Host and Origin the other instance made.
type ServeFunc func(w http.ResponseWriter, r *http.Request, principal string)

// Tunnel carries HTTP requests to the instance that owns their session,
// and its answers back, through a Node's Relay: Forward on the instance
// the load balancer chose, ServeFunc on the owner. An answer streams: an
// SSE stream the owner writes reaches the client as it is written.
//
// Only what the owner needs crosses: the method, the path and query, the
// Host, the body, the request's headers but those that carry credentials
// (Authorization, Cookie, Proxy-Authorization) and hop-by-hop ones, the
// client's address (RemoteAddr, for logs), and the principal the
// forwarding instance found. The context of the
// carried request holds nothing that middleware in front of the
// forwarding instance put there.
type Tunnel struct {
	node  *Node
	addr  string // where it listens: the node's ID, and "/" and the service if any
	svc   string
	serve ServeFunc
	log   *slog.Logger
	stop  func()

	next    atomic.Int64
	mu      sync.Mutex
	waiting map[string]*forward           // requests this instance forwarded, by key
	running map[string]context.CancelFunc // requests it serves for others
	closed  bool
	served  sync.WaitGroup
	done    chan struct{} // closed by Close: the watch ends

	maxQueued    int
	heartbeat    time.Duration
	writeTimeout time.Duration
	goneWaits    []time.Duration
}

// TunnelOptions configure a Tunnel.
type TunnelOptions struct {
	// Logger gets what goes wrong; nothing when nil.
	Logger *slog.Logger
	// MaxQueued bounds the pieces of one answer that wait for its client
	// (default 1024): a client that reads slower than the owner writes is
	// cut off past it, and resumes its stream with Last-Event-ID.
	MaxQueued int
	// Heartbeat is how often a forwarding instance checks that the owner
	// still listens, and still serves the request, while it waits for an
	// answer (default 5 seconds).
	Heartbeat time.Duration
	// WriteTimeout bounds each write of a carried answer to its client
	// (default 30 seconds): a client that stops reading is cut off, and
	// resumes its stream with Last-Event-ID.
	WriteTimeout time.Duration
	// GoneWaits are the pauses before each new try to reach an owner no
	// instance listens for, before Forward gives up with ErrOwnerGone
	// (default 20, 80, 300 and 600 milliseconds: an owner whose relay
	// subscribes again after a Redis restart is not taken for gone).
	GoneWaits []time.Duration
	// Service tells apart the tunnels of several transports on one Node
	// (such as "sse" for HTTP+SSE beside Streamable HTTP): a tunnel
	// listens at the node's ID and "/" and its service, and forwards to the
	// same service of the owner. "" for none.
	Service string
}

// forward is a request this instance forwarded, waiting for its answer.
type forward struct {
	frames chan *frame
	over   atomic.Bool // a frame did not fit in frames
}

// NewTunnel starts a Tunnel on node, listening at node.ID for requests
// to serve with serve and for the answers to those it forwards. Close
// stops it.
func NewTunnel(ctx context.Context, node *Node, serve ServeFunc, opts TunnelOptions) (*Tunnel, error) {
	if node == nil || node.Relay == nil || node.ID == "" {
		return nil, errors.New("fleet: NewTunnel needs a Node with an ID and a Relay")
	}
	if strings.ContainsAny(opts.Service, "./") {
		return nil, fmt.Errorf("fleet: TunnelOptions.Service %q has a dot or a slash", opts.Service)
	}
	t := &Tunnel{node: node, svc: opts.Service, addr: address(node.ID, opts.Service), serve: serve, log: opts.Logger, waiting: map[string]*forward{}, running: map[string]context.CancelFunc{}, done: make(chan struct{})}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	stop, err := node.Relay.Listen(ctx, t.addr, t.receive)
	if err != nil {
		return nil, fmt.Errorf("fleet: listening for the tunnel at this instance's address: %w", err)
	}
	t.stop = stop
	t.maxQueued, t.heartbeat = opts.MaxQueued, opts.Heartbeat
	if t.maxQueued <= 0 {
		t.maxQueued = 1024
	}
	if t.heartbeat <= 0 {
		t.heartbeat = 5 * time.Second
	}
	if t.writeTimeout = opts.WriteTimeout; t.writeTimeout <= 0 {
		t.writeTimeout = 30 * time.Second
	}
	if t.goneWaits = opts.GoneWaits; t.goneWaits == nil {
		t.goneWaits = defaultGoneWaits
	}
	go t.watch()
	return t, nil
}

// watch ends the requests this instance serves for an instance that is
// gone: an answer that writes nothing for long (an idle GET stream) would
// otherwise never find out. Each heartbeat, it pings every instance it
// serves once; one that no longer listens has its requests cancelled.
func (t *Tunnel) watch() {
	tick := time.NewTicker(t.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			return
		case <-tick.C:
		}
		byFrom := map[string][]context.CancelFunc{}
		t.mu.Lock()
		for key, cancel := range t.running {
			from, _, _ := cutLast(key, '.')
			byFrom[from] = append(byFrom[from], cancel)
		}
		t.mu.Unlock()
		for from, cancels := range byFrom {
			ok, err := t.send(context.Background(), from, &frame{Op: opPing, Key: from + ".0"})
			if err == nil && !ok {
				t.log.Warn("mcp fleet: the instance a carried answer went to is gone; its requests end here", "requests", len(cancels))
				for _, cancel := range cancels {
					cancel()
				}
			}
		}
	}
}

// Close stops listening, cancels the requests this instance serves for
// others and waits for them to return, and ends the answers it is
// carrying for its own clients (each as a broken connection: the client
// resumes its stream on another instance).
func (t *Tunnel) Close() {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	for _, cancel := range t.running {
		cancel()
	}
	close(t.done)
	t.mu.Unlock()
	t.stop()
	t.served.Wait()
}

// address is where the tunnel of service listens on the instance id.
func address(id, service string) string {
	if service == "" {
		return id
	}
	return id + "/" + service
}

func (t *Tunnel) timeout() time.Duration {
	if t.node.Timeout > 0 {
		return t.node.Timeout
	}
	return 5 * time.Second
}

// send sends f to addr within the node's timeout.
func (t *Tunnel) send(ctx context.Context, addr string, f *frame) (bool, error) {
	msg, err := f.encode()
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.timeout())
	defer cancel()
	return t.node.Relay.Send(ctx, addr, msg)
}

// receive is the relay's callback: it must not block.
func (t *Tunnel) receive(msg []byte) {
	f, err := decodeFrame(msg)
	if err != nil {
		t.log.Warn("mcp fleet: a tunnel message was refused", "err", err)
		return
	}
	switch f.Op {
	case opRequest:
		t.start(f)
	case opCancel:
		t.mu.Lock()
		cancel := t.running[f.Key]
		t.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case opPing:
		// A request this instance no longer serves, whose answer is not
		// on its way: it was lost (the forwarding instance could not be
		// reached for a moment, and the request was cancelled here), or its
		// end was. Tell the forwarding instance, which waits for it.
		t.mu.Lock()
		running := t.running[f.Key] != nil
		t.mu.Unlock()
		// (A ping whose key is this instance's own is the owner's check
		// that this instance still listens: see watch.) Sent on a
		// goroutine of its own: receive must not block.
		if from, _, ok := cutLast(f.Key, '.'); !running && ok && from != "" && from != t.addr {
			go t.send(context.Background(), from, &frame{Op: opEnd, Key: f.Key})
		}
	default:
		t.mu.Lock()
		fw := t.waiting[f.Key]
		t.mu.Unlock()
		if fw == nil {
			return // its client went away
		}
		select {
		case fw.frames <- f:
		default:
			fw.over.Store(true)
		}
	}
}

// hopHeaders are not carried: they belong to one connection, or carry
// credentials, which the owner needs not (the principal goes instead).
var hopHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length"}

// ErrOwnerGone is returned by Forward when no instance listens at the
// owner's address, and still none after TunnelOptions.GoneWaits: the
// owner is gone, and the caller may claim the session.
var ErrOwnerGone = errors.New("fleet: the instance that owns the session is gone")

// defaultGoneWaits are TunnelOptions.GoneWaits by default: about a second
// in all. An owner whose connection to the relay's engine broke a moment
// ago (a network blip, a restart of the engine) listens again once it has
// reconnected by itself: taken for gone meanwhile, its session would be
// claimed by another instance while it still serves it.
var defaultGoneWaits = []time.Duration{20 * time.Millisecond, 80 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond}

// Forward carries r, whose body was read as body, to the instance whose
// Node ID is owner (its tunnel of the same service), for principal, and
// writes its answer on w. It returns ErrOwnerGone (wrapped) when owner is
// gone before the request reached it (no instance listened at its address
// through TunnelOptions.GoneWaits), with nothing written on w; another
// error when the relay failed, or the answer was lost, before anything was
// written. Once the answer has started, Forward returns nil: if the owner
// goes away or the answer is cut, the response ends early, as when a
// connection breaks, and the client resumes its stream.
func (t *Tunnel) Forward(w http.ResponseWriter, r *http.Request, body []byte, owner, principal string) error {
	key := t.addr + "." + strconv.FormatInt(t.next.Add(1), 10)
	owner = address(owner, t.svc)
	h := r.Header.Clone()
	for _, k := range hopHeaders {
		h.Del(k)
	}
	fw := &forward{frames: make(chan *frame, t.maxQueued)}
	t.mu.Lock()
	t.waiting[key] = fw
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiting, key)
		t.mu.Unlock()
	}()
	req := &frame{Op: opRequest, Key: key, Method: r.Method, Target: r.URL.RequestURI(), Header: h, Principal: principal, Host: r.Host, Remote: r.RemoteAddr, payload: body}
	ok, err := t.send(r.Context(), owner, req)
	for _, d := range t.goneWaits {
		if err != nil || ok {
			break
		}
		// No one listens at the owner's address: it may be gone, or its
		// relay may be subscribing again (after Redis restarted, an
		// instance resubscribes a moment after the others can publish).
		// A session must not be taken from an owner that is alive.
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
		case <-r.Context().Done():
			tm.Stop()
			return fmt.Errorf("fleet: carrying the request to the instance that owns the session: %w", r.Context().Err())
		}
		ok, err = t.send(r.Context(), owner, req)
	}
	if err != nil {
		return fmt.Errorf("fleet: carrying the request to the instance that owns the session: %w", err)
	}
	if !ok {
		return ErrOwnerGone
	}
	rc := http.NewResponseController(w)
	deadline := func() { rc.SetWriteDeadline(time.Now().Add(t.writeTimeout)) }
	started := false
	var seq int64
	tick := time.NewTicker(t.heartbeat)
	defer tick.Stop()
	cancel := func() {
		t.send(r.Context(), owner, &frame{Op: opCancel, Key: key})
	}
	for {
		select {
		case f := <-fw.frames:
			switch f.Op {
			case opHead:
				if started {
					continue
				}
				started = true
				for k, v := range f.Header {
					w.Header()[k] = v
				}
				deadline()
				w.WriteHeader(f.Status)
				if len(f.payload) > 0 { // the first piece of the body
					if f.Seq != 1 {
						cancel()
						return nil
					}
					seq = 1
					if _, err := w.Write(f.payload); err != nil {
						cancel()
						return nil
					}
				}
				rc.Flush()
			case opData:
				if !started || f.Seq != seq+1 {
					t.log.Warn("mcp fleet: a piece of a carried answer was lost; the response ends early", "want", seq+1, "got", f.Seq)
					cancel()
					return t.cut(started, w)
				}
				seq = f.Seq
				deadline()
				if _, err := w.Write(f.payload); err != nil {
					cancel()
					return nil
				}
				if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
					cancel()
					return nil
				}
			case opEnd:
				if !started {
					return fmt.Errorf("fleet: the owner ended the answer before its head (it was lost on its way)")
				}
				return nil
			}
			if fw.over.Load() {
				t.log.Warn("mcp fleet: a carried answer outran its client; the response ends early")
				cancel()
				return t.cut(started, w)
			}
		case <-r.Context().Done():
			cancel()
			return nil
		case <-t.done:
			// This instance is leaving: the client resumes elsewhere.
			cancel()
			return t.cut(started, w)
		case <-tick.C:
			if ok, err := t.send(r.Context(), owner, &frame{Op: opPing, Key: key}); err == nil && !ok {
				t.log.Warn("mcp fleet: the instance that served a carried request is gone; the response ends early")
				return t.cut(started, w)
			}
		}
	}
}

// cut ends a forwarded answer early: nothing more is written, and before
// anything was, the caller gets an error to answer with.
func (t *Tunnel) cut(started bool, _ http.ResponseWriter) error {
	if !started {
		return errors.New("fleet: the answer of the instance that owns the session was lost on its way")
	}
	return nil
}

// start serves a request another instance carried here, on a goroutine of
// its own.
func (t *Tunnel) start(f *frame) {
	from, _, ok := cutLast(f.Key, '.')
	if !ok || from == "" {
		t.log.Warn("mcp fleet: a tunnel request was refused: its key names no instance")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.mu.Lock()
	if t.closed || t.running[f.Key] != nil {
		t.mu.Unlock()
		cancel()
		return
	}
	t.running[f.Key] = cancel
	t.served.Add(1)
	t.mu.Unlock()
	go func() {
		defer func() {
			t.mu.Lock()
			delete(t.running, f.Key)
			t.mu.Unlock()
			cancel()
			t.served.Done()
		}()
		r, err := http.NewRequestWithContext(ctx, f.Method, f.Target, bytes.NewReader(f.payload))
		if err != nil {
			t.log.Warn("mcp fleet: a tunnel request was refused", "err", err)
			return
		}
		r.Header = f.Header
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Host = f.Host
		r.RemoteAddr = f.Remote
		r.RequestURI = f.Target
		r.ContentLength = int64(len(f.payload))
		rw := &relayWriter{t: t, ctx: ctx, cancel: cancel, to: from, key: f.Key, header: http.Header{}}
		t.serve(rw, r, f.Principal)
		rw.finish()
	}()
}

// cutLast splits s at its last sep.
func cutLast(s string, sep byte) (before, after string, ok bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// relayWriter is the http.ResponseWriter of a carried request: what is
// written goes back to the forwarding instance at each Flush, and at the
// end.
type relayWriter struct {
	t      *Tunnel
	ctx    context.Context
	cancel context.CancelFunc
	to     string
	key    string
	header http.Header
	status int
	sent   bool // the head went
	buf    bytes.Buffer
	seq    int64
	failed bool
}

func (w *relayWriter) Header() http.Header { return w.header }

func (w *relayWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *relayWriter) Write(p []byte) (int, error) {
	if w.failed {
		return 0, io.ErrClosedPipe
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.buf.Write(p)
}

// Flush sends what was written; it fails (and the request's context ends)
// when the forwarding instance is gone.
func (w *relayWriter) FlushError() error {
	if w.failed {
		return io.ErrClosedPipe
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.sent {
		// The head carries the first piece of the body, if any: one
		// message fewer.
		w.sent = true
		head := &frame{Op: opHead, Key: w.key, Status: w.status, Header: w.header}
		if w.buf.Len() > 0 {
			w.seq++
			head.Seq, head.payload = w.seq, w.buf.Bytes()
		}
		ok := w.post(head)
		w.buf.Reset()
		if !ok {
			return io.ErrClosedPipe
		}
		return nil
	}
	if w.buf.Len() == 0 {
		return nil
	}
	w.seq++
	ok := w.post(&frame{Op: opData, Key: w.key, Seq: w.seq, payload: w.buf.Bytes()})
	w.buf.Reset()
	if !ok {
		return io.ErrClosedPipe
	}
	return nil
}

// Flush implements http.Flusher.
func (w *relayWriter) Flush() { w.FlushError() }

// post sends f to the forwarding instance, and reports whether it got it.
func (w *relayWriter) post(f *frame) bool {
	ok, err := w.t.send(w.ctx, w.to, f)
	if err != nil || !ok {
		w.failed = true
		w.cancel()
		if err != nil {
			w.t.log.Debug("mcp fleet: a carried answer could not go back", "err", err)
		}
		return false
	}
	return true
}

// finish sends what is left and the end.
func (w *relayWriter) finish() {
	if w.failed {
		return
	}
	if w.FlushError() != nil {
		return
	}
	w.post(&frame{Op: opEnd, Key: w.key})
}
