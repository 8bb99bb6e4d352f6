// Package session is the MCP session loop: one reader per connection,
// handlers run concurrently, responses matched to pending calls by ID, the
// initialize lifecycle with version negotiation across every revision
// package linked into the binary, capability gating both ways, cancellation,
// progress, ping, logging levels, request timeouts and clean shutdown. A
// server session of the initialize era can be carried on by another
// process from a snapshot of its state (LegacyState, Resume).
//
// The engine works on raw JSON and the method tables of runtime/revision;
// generated packages give it typed Server and Client bindings. When the
// negotiated revision differs from the one a handler's types speak, messages
// are converted by strict re-decoding: what the handler sends is decoded with
// the negotiated revision's types (members that revision lacks are dropped, so
// newer fields never leak to an older peer) and encoded again. The client's
// initialize params, capabilities included, are converted the same way to
// the revision it offers. What a client receives is checked and decoded
// keeping union variants the revision does not know, verbatim (see
// UnmarshalReceived and Options.RejectUnknownVariants); a server is strict.
//
// Goroutines: payloads come from one reader per connection, or are pushed
// by the transport on the goroutine that received them (transport.Pusher,
// ItemPusher; a PushOnly transport has no reader). Requests run on worker
// goroutines that are reused from request to request (on a PushOnly
// transport, one that ends with the request), or on the pushing goroutine
// when the transport says it waits for the answer anyway; notifications are handled one at a time,
// in order, on a worker that runs while any are queued (at most 256: past
// that, whoever delivers the next one waits). While MaxInFlight requests
// run or wait for their answers to be written, the reader reads on only
// while this side awaits answers to calls of its own, and then keeps the
// requests it reads for later (see Options.MaxInFlight). On a byte stream
// (InputEnder: stdio) the answers are written in order by one goroutine,
// never by the reader, so that the reader never waits for the peer to read.
//
// Ending: when the peer closes the connection, the transport fails, or
// Close is called, the session stops reading and fails its pending calls
// with an error wrapping ErrClosed and what ended the connection; the
// requests it already received are still answered (their handlers get
// Options.DrainTimeout before their contexts are cancelled), the
// notifications it already queued get the same time to be handled, and
// only then is the transport closed and Wait returns. On stdio, answers
// the peer does not take are given up once no write has gone through for
// Options.StallTimeout (ErrPeerNotReading): a peer that stopped reading
// cannot keep the session, or the process, alive.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Role is the side of the session this process plays.
type Role uint8

// The roles.
const (
	Client Role = iota + 1
	Server
)

func (r Role) String() string {
	if r == Client {
		return "client"
	}
	return "server"
}

// Handler answers the peer's requests and notifications. Generated packages
// implement it around their typed Server and Client interfaces.
type Handler interface {
	// Revision is the revision whose types the handler speaks.
	Revision() *revision.Revision
	// HandleRequest answers a request; params were already checked against the
	// negotiated revision. It returns the result, or an error: a
	// *jsonrpc.Error chooses the code, any other error is -32603.
	HandleRequest(ctx context.Context, s *Session, method string, params jsontext.Value) (wire.Appender, error)
	// HandleNotification handles a notification. Notifications are handled one
	// at a time, in order, off the reader goroutine.
	HandleNotification(ctx context.Context, s *Session, method string, params jsontext.Value)
}

// Options configure a session. The zero value is usable.
type Options struct {
	// Revisions are the revisions this side supports; nil means every one
	// registered in the binary (linked by importing its package). A name
	// not linked in is an error (see CheckRevisions), which a server
	// reports before it starts (the generated Serve, the servers of
	// streamhttp and ssehttp).
	Revisions []string
	// MaxInFlight is the most peer requests handled at once. Default 64.
	//
	// On a transport the session reads from (stdio), a request counts
	// until its answer has been written (or its write failed), and the
	// answer to a batch counts as one while it waits to be written: a peer
	// that does not read its answers holds the session back from reading
	// more, so the memory and goroutines it costs stay bounded. When
	// MaxInFlight count, the session reads no further until one is done,
	// unless this side awaits answers to calls of its own: those answers
	// must be read, or a handler waiting for one would never end (and two
	// sessions that each wait for the other to read would never move
	// again). It then reads on, and handles each answer and notification
	// at once; each payload that carries requests is kept, in order, until
	// there is room to handle it, and only once the payloads kept reach
	// 1 MiB (each counted at its length plus 256 bytes) does the reader
	// wait too. So a session holds at most MaxInFlight requests, and
	// requests waiting for room of 1 MiB plus one payload, and it reads
	// the answers to its calls as long as the peer's requests it has not
	// answered fit in that. A request the peer cancels
	// (notifications/cancelled) while it waits is dropped, unanswered.
	// When the session ends (its input ended, or it was closed), each
	// request still waiting is answered with error -32000 (Busy), as one
	// that arrives then is.
	//
	// Requests beyond MaxInFlight that arrive anyway (in a batch, or
	// pushed by the transport as Streamable HTTP does) are answered with
	// error -32000 (Busy); for that refusal a request counts while its
	// handler runs, so that a peer that sends its next request as soon as
	// it has an answer is not refused.
	MaxInFlight int
	// CallTimeout bounds every outgoing request unless its context has an
	// earlier deadline; on expiry the request is cancelled. Default
	// 60s; negative means no timeout.
	CallTimeout time.Duration
	// DrainTimeout bounds how long a session that is ending (the peer
	// closed its side, the transport failed, or Close was called) lets the
	// handlers of requests already received run before it cancels their
	// contexts. Either way each of those requests is answered, if the
	// transport still takes the answer, before the transport is closed
	// (on stdio, see StallTimeout for a peer that does not take it).
	// Notifications already queued get the same time to be handled; past
	// it, the session ends without waiting for their handlers, whose
	// context it cancels.
	//
	// Default DefaultDrainTimeout; negative cancels the handlers at once.
	DrainTimeout time.Duration
	// StallTimeout bounds, on a byte-stream transport (InputEnder:
	// stdio's), how long a peer that stopped reading can hold the session
	// once nothing else does: from the moment the transport's input has
	// ended (the session, held back, may not have read all of it yet, see
	// MaxInFlight) or the session began to end (Close, SIGTERM in the
	// examples, or the end of the input itself), the session gives up as
	// soon as a write to the peer has been waiting for StallTimeout with
	// no write going through meanwhile. Time spent waiting before that
	// moment does not count. It then gives up the messages still waiting
	// to be written (their handlers may still be running; a write already
	// under way stays blocked in the transport's Write until it returns,
	// which closing the transport may cause) and ends; Wait returns an
	// error wrapping ErrPeerNotReading. A peer that reads, however slowly,
	// lets a write through now and then and is waited for, and so is one
	// that pauses for less than StallTimeout; a write goes through when the
	// whole message has, so a peer that takes longer than StallTimeout to
	// read one message counts as one that stopped. Before its input ends
	// and while the session is not ending, a session waits for its peer to
	// read for as long as it takes (stdio.WithWriteTimeout bounds that).
	//
	// Default DefaultStallTimeout; negative never gives up (a peer that
	// stops reading then keeps the session, and its process, until it
	// reads or closes its end). Transports that are not InputEnders
	// ignore it.
	StallTimeout time.Duration
	// Logger receives diagnostics (malformed messages, late responses). Default:
	// discard.
	Logger *slog.Logger
	// RejectUnknownVariants makes a client as strict with what the server
	// sends as a server is with what it receives. A union value whose tag
	// names no variant of the revision (a content block of a type it does
	// not have, such as a "resource_link" block in a 2025-03-26 session)
	// then fails the call, is answered with -32602, or drops the
	// notification. By default (false) a client keeps such a value as the
	// generated package's UnknownVariant, its JSON kept verbatim and encoded
	// unchanged, and uses the rest of the message (see UnmarshalReceived).
	// A server is always strict: this option changes nothing there.
	RejectUnknownVariants bool
	// Sealer seals the requestState of the stateless era's multi
	// round-trip requests (see Ask). Default: one key made at random per
	// process (reqstate.NewEphemeralRing), so that the state of a round is
	// only good for the process that issued it; servers behind a load
	// balancer share a key ring instead (SealWith, reqstate.OpenKeyFile) and
	// a StateAudience. A retry whose state was sealed by a key the ring
	// does not have (an earlier process's, a retired one) starts the
	// request over, without its inputResponses.
	Sealer StateSealer
	// StateAudience names the endpoint in every requestState this server
	// seals, and a state opens only at a server with the same audience
	// (see StateAudienceOf). Default: a value unique to the server (each
	// Stateless, and each Session that serves stateless requests), so that
	// two servers in one process, or two processes sharing a key ring, do
	// not accept each other's states. The instances of one deployment
	// behind a load balancer, which share the Sealer's keys, must share it
	// too: set it to the same value everywhere, such as the endpoint's
	// public URL. So must a server whose keys outlive its process (a ring
	// from reqstate.ParseKeys), for the states it sealed before a restart
	// to open after it: with the default, they fail with -32602 as sealed
	// for another endpoint. Two endpoints that share keys but serve
	// different tools or users must not share it.
	StateAudience string
	// ProbeTimeout bounds how long Connect waits for the answer to its
	// server/discover probe before it takes the server for one of the
	// initialize era. Default DefaultProbeTimeout; negative means
	// no bound but the context's.
	ProbeTimeout time.Duration
	// Cache holds the results a client of the stateless era received that
	// the server marked cacheable. Default: one cache per
	// session; share one between sessions to the same server.
	Cache *cache.Cache
	// Middleware wraps the handling of the requests and notifications this
	// side receives and sends (see Middleware for which): the first is the
	// outermost, called first. A Stateless server uses it too. Nil costs
	// nothing.
	Middleware []Middleware
	// Extensions are the extensions a client uses (see ClientExtension):
	// Connect declares each in the client's capabilities, the client may
	// call their requests, and a ResultFollower among them completes the
	// results of its resultType. Connect refuses a list with a nil entry,
	// an ID twice, a method of the handler's revision or a resultType
	// followed twice. A server's extensions are its handler's
	// (ExtensionHandler): a server ignores this.
	Extensions []ClientExtension
	// OnLegacyState, when not nil, is called on a server with the
	// session's LegacyState after each change of it: initialize answered,
	// notifications/initialized received, logging/setLevel accepted, and a
	// resources/subscribe or unsubscribe that the engine keeps (see
	// LegacyState.Subscriptions) and that changed the set. It is called
	// before the answer that reports the change is sent, so that a store it
	// writes to has the change before the client can act on it elsewhere;
	// on the goroutine that made the change, never with the session's lock
	// held, one call at a time per session, each with a snapshot taken
	// after the one before (so in the order of the changes; two changes
	// close together may both be in the first of their two calls). It
	// must return soon: the session waits for it. A transport that lets
	// another instance carry the session on (Resume) saves the state
	// with it. Sessions of the stateless era and clients never call it.
	OnLegacyState func(LegacyState)
}

// DefaultDrainTimeout is Options.DrainTimeout's default. It is shorter than
// stdio.DefaultGrace, so that a client closing a stdio server waits for the
// server's answers rather than killing it.
const DefaultDrainTimeout = 3 * time.Second

// DefaultStallTimeout is Options.StallTimeout's default: long enough for a
// consumer that pauses (a pipeline stage that is busy, a terminal scrolled
// back), short enough that a process whose peer stopped reading ends on its
// own.
const DefaultStallTimeout = 30 * time.Second

// Busy is the error code for a request refused because MaxInFlight requests
// are already being handled, or because it arrived while the session was
// ending.
const Busy = -32000

// ErrClosed is returned by calls on a closed session. It is wrapped, with
// what ended the connection, by the error of a call the session ended
// (for instance "session closed: stdio: the server process exited: exit
// status 3", or "session closed: ssehttp: the SSE stream broke:
// unexpected EOF"): test it with errors.Is.
var ErrClosed = errors.New("session closed")

// ErrPeerNotReading is wrapped by the error Wait returns when the session
// gave up messages it could not write because the peer stopped reading
// them (see Options.StallTimeout).
var ErrPeerNotReading = errors.New("the peer stopped reading")

// closedError is the error of calls the session ended for cause.
type closedError struct{ cause error }

func (e *closedError) Error() string {
	if e.cause == io.EOF {
		return ErrClosed.Error() + ": the peer closed the connection (EOF)"
	}
	return ErrClosed.Error() + ": " + e.cause.Error()
}

func (e *closedError) Unwrap() []error { return []error{ErrClosed, e.cause} }

// InputEnder is implemented by transports over a byte stream that read
// ahead of Read, as stdio's do: InputEnded returns a channel that is
// closed once the transport has reached the end of its input (or failed
// reading it), possibly while payloads read before the end still wait for
// Read. A session that holds back from reading because MaxInFlight
// requests wait for their answers learns from it that the peer has ended
// its input. On such a transport a write that does not go through means
// that the peer is not reading (a write there waits for nothing else), so
// the session gives up on a peer that stopped reading (see
// Options.StallTimeout) instead of waiting for room that will never come,
// or for answers it cannot deliver. Its writes are serialized anyway, so
// the session writes its answers on it from one goroutine, in order, and
// the reader never waits for a write.
//
// ReadAhead is called when the session stops reading for a while (it
// waits for room, see MaxInFlight): the transport then reads ahead of
// Read, within a bound of its own, so that it sees the end of the input,
// until the next Read. A transport that read ahead all the time would cost
// a reader that keeps up a wake-up and a read per message instead of
// reading what arrived together in one go.
type InputEnder interface {
	InputEnded() <-chan struct{}
	ReadAhead()
}

type state uint8

const (
	stateNew          state = iota // before initialize
	stateInitializing              // initialize answered, initialized not yet seen
	stateReady
	stateClosed // ending: nothing new is handled or called; answers are still written
)

// Session is one MCP connection.
type Session struct {
	role     Role
	pushOnly bool        // the transport is a PushOnly: no reader runs, and workers are not kept (spawn)
	finished atomic.Bool // the session has ended; set under mu, with done closed if made

	t       transport.Transport
	handler Handler
	opts    Options
	log     *slog.Logger
	mw      HandlerFunc // Options.Middleware chained; nil without any

	life    endCtx // the session's lifetime (ctx): cancelled once its handlers are done
	reading endCtx // the reader's (readCtx): cancelled when the session starts ending

	mu        sync.Mutex
	rev       *revision.Revision // negotiated
	ownCaps   jsontext.Value
	peerCaps  jsontext.Value
	peerInfo  jsontext.Value
	nextID    int64
	pending   map[wire.ID]chan callResult // made by the first call
	inflight  map[wire.ID]*handlerCtx     // requests whose handler runs; made by the first
	answering int                         // answers (to a request or a batch) being written: they hold back the reader too (waitRoom)
	parked    []parked                    // payloads with requests, read while full, waiting for room (waitRoom)
	parkedLen int                         // their sizes in all (see maxParked)
	progress  map[wire.ID]func(Progress)  // made by the first call that has one
	logLevel  int                         // index in logLevels; messages below are not sent
	logSet    bool                        // logging/setLevel was accepted (LegacyState's LogLevel)
	modern    bool                        // a server whose handler speaks the stateless era (see Modern)
	ended     bool                        // the transport is closed, or about to be
	abort     bool                        // Abort was called: no drain
	state     state                       // where the session is in its lifecycle
	noteBusy  bool                        // a worker is running noteQ (runNotes)
	mc        *modernClient               // a client in the stateless era (see Connect); nil otherwise
	malformed string                      // the start of the first payload that was not JSON-RPC (ConnectTimeoutError.NotJSONRPC), "" for none
	listens   map[wire.ID]*Subscription   // open subscriptions/listen calls, by request id
	subs      map[string]bool             // resources/subscribe kept by the engine (modern handler, legacy session)
	closeErr  error                       // what calls get once the session is ending: ErrClosed, wrapped with the cause
	draining  chan struct{}               // closed by Abort to cut a drain short; nil without a drain
	after     *endAfter                   // called once the session has ended (AfterFunc), the latest first
	tools     *toolCheck                  // a client's knowledge of the server's tools (UnusableTools); nil on a server
	audience  string                      // the StateAudience of the stateless requests it serves, made by the first (see stateAudience)
	unfollow  func()                      // ends the subscription of follow; called by end
	fol       *follower                   // the events of follow to send; made by the first (heard)

	stateMu sync.Mutex // held while Options.OnLegacyState runs: one call at a time (legacyChanged)

	room     sync.Cond      // on mu: broadcast when a handler ends, a call starts, noteQ shrinks or the session ends (see waitRoom, queueNote)
	handlers sync.WaitGroup // request handlers and batch answers; Add only while not stateClosed
	notes    sync.WaitGroup // runNotes workers started while not stateClosed
	work     chan func()    // hands a request to an idle worker goroutine
	noteQ    []note         // notifications waiting for their handler, in order; at most maxQueuedNotes
	done     chan struct{}  // made by the first Done, or closed once the session has ended (see isDone)
	afterRan sync.WaitGroup // done once the functions of AfterFunc have returned
	err      error

	// What only a session on a byte-stream transport (InputEnder) has;
	// nil elsewhere (the sessions of the HTTP servers), so that those
	// do not carry it.
	*outbox
}

// outbox is the part of a Session on a byte-stream transport
// (InputEnder). Its answers are queued by writeAnswer and written in
// order by runOut, so that the reader never waits for a write; its
// writes are watched, and a peer that stops reading is given up
// (watchWrites).
type outbox struct {
	ahead   InputEnder // the transport, which reads ahead on demand (readAhead)
	outQ    [][]byte   // answers waiting to be written, from outHead on; each counts in answering
	outHead int
	outBusy bool      // runOut is running
	outIdle sync.Cond // on the session's mu: signalled when runOut stops
	outRun  func()    // s.runOut, made once

	watch    *writeWatch
	stalled  chan struct{} // closed once the peer is taken for one that stopped reading
	stallErr error         // why stalled was closed
}

// writeWatch follows the session's writes to the transport: started and
// finished, and once watchWrites has started (watching) when the last one
// went through or began while none was waiting (lastWrite).
type writeWatch struct {
	writes, wrote atomic.Int64
	watching      atomic.Bool
	lastWrite     atomic.Int64 // since epoch
	epoch         time.Time    // the session's start: a monotonic time base
}

// parked is a payload the reader read while full: the requests (and
// invalid items, which are answered too) of one message or batch, which
// wait for room to be handled (see waitRoom).
type parked struct {
	items []jsonrpc.Item
	batch bool
	size  int // the payload's length plus parkedOverhead
}

// maxParked bounds the payloads the reader parks (see waitRoom): it reads
// on while their sizes in all, each plus parkedOverhead for its decoded
// form, are below it.
const (
	maxParked      = 1 << 20
	parkedOverhead = 256
)

type callResult struct {
	raw jsontext.Value
	err error
}

type note struct {
	method string
	params jsontext.Value
}

// New starts a session on t. The reader runs until the transport ends or
// Close is called; Wait returns why. A server whose handler is an
// OptionsHandler runs with MergeOptions(h, opts).
func New(role Role, t transport.Transport, h Handler, opts Options) *Session {
	s := newSession(role, t, h, opts)
	s.start()
	return s
}

// newSession makes a session on t without starting it: the transport is
// not told of it and nothing is read until start.
func newSession(role Role, t transport.Transport, h Handler, opts Options) *Session {
	if role == Server {
		opts = MergeOptions(h, opts)
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 64
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.DrainTimeout == 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	if opts.StallTimeout == 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	log := opts.Logger
	if log == nil {
		log = discardLog
	}
	s := &Session{role: role, t: t, handler: h, opts: opts, log: log}
	if role == Client {
		s.tools = &toolCheck{}
	}
	s.afterRan.Add(1) // Done by drain once the session has ended
	if _, ok := t.(PushOnly); !ok {
		s.work = make(chan func()) // a PushOnly transport's session keeps no workers (spawn)
	}
	s.room.L = &s.mu
	s.modern = role == Server && Modern(h)
	s.mw = chain(opts.Middleware)
	return s
}

// start hands the session to its transport (a pushing one may deliver a
// payload at once) and starts its reader.
func (s *Session) start() {
	t := s.t
	if p, ok := t.(transport.Pusher); ok {
		p.SetPush(s.payload)
	}
	if p, ok := t.(ItemPusher); ok {
		p.SetPushItems(func(vals context.Context, items []jsonrpc.Item, batch, inline bool) {
			s.items(vals, items, batch, inline) // a nil vals stays nil
		})
	}
	if ie, ok := t.(InputEnder); ok {
		// Only such a session gives up a peer that stopped reading: on
		// other transports, stalledCh is nil and never fires.
		s.outbox = &outbox{
			ahead:   ie,
			watch:   &writeWatch{epoch: time.Now()},
			stalled: make(chan struct{}),
		}
		s.outIdle.L = &s.mu
		s.outRun = s.runOut
		go s.watchInput(ie.InputEnded())
	}
	if _, ok := t.(PushOnly); ok {
		// Nothing to read: the session ends by Close or Abort.
		s.pushOnly = true
		return
	}
	go s.read()
}

// PushOnly is implemented by transports that hand every payload to the
// session through push (transport.Pusher, ItemPusher), never through Read,
// and whose connection ends only when the session is ended by a call of
// Close or Abort (which their own code makes when the peer goes away): the
// sessions of the Streamable HTTP and HTTP+SSE servers. The session then
// never calls Read, and runs no reader goroutine; nor does it keep a
// worker goroutine waiting for the next request once its handlers have
// returned: an idle session holds no goroutine. PushOnly is never called:
// implementing it says so.
type PushOnly interface {
	PushOnly()
}

// Role returns the side this session plays.
func (s *Session) Role() Role { return s.role }

// UnmarshalReceived decodes raw, a result, params or notification params the
// peer sent, into u, by this side's rules. A server decodes strictly
// (wire.Unmarshal). A client keeps union variants the revision does not know
// (wire.UnmarshalKeepUnknown), unless Options.RejectUnknownVariants is set.
// The generated bindings decode what they receive with it; a nil s decodes
// strictly.
func (s *Session) UnmarshalReceived(raw jsontext.Value, u wire.Unmarshaler) error {
	if s.keepsUnknown() {
		return wire.UnmarshalKeepUnknown(raw, u)
	}
	return wire.Unmarshal(raw, u)
}

// keepsUnknown reports whether this side keeps unknown union variants in
// what it receives (see UnmarshalReceived).
func (s *Session) keepsUnknown() bool {
	return s != nil && s.role == Client && !s.opts.RejectUnknownVariants
}

// Revision returns the negotiated revision, or nil before initialize.
func (s *Session) Revision() *revision.Revision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev
}

// PeerCapabilities returns the capabilities object the peer declared in the
// initialize exchange, as raw JSON.
func (s *Session) PeerCapabilities() jsontext.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peerCaps
}

// PeerInfo returns the peer's Implementation object (clientInfo or
// serverInfo), as raw JSON.
func (s *Session) PeerInfo() jsontext.Value {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peerInfo
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = make(chan struct{}) // made on demand: an idle session holds none
		if s.finished.Load() {
			close(s.done)
		}
	}
	return s.done
}

// discardLog is the logger of sessions without Options.Logger.
var discardLog = slog.New(slog.DiscardHandler)

// ctx is the session's lifetime, the context of its notification
// handlers: cancelled once its request handlers are done.
func (s *Session) ctx() context.Context { return &s.life }

// readCtx is the reader's context: cancelled when the session starts
// ending.
func (s *Session) readCtx() context.Context { return &s.reading }

// AfterFunc arranges for f to be called once the session has ended (after
// Done is closed), on a goroutine of the session's, or on a new one if it
// has ended already. Unlike a goroutine waiting on Done, it costs no
// goroutine while the session lives: a server that keeps a record per
// session can drop it this way. Close and Abort return after the functions
// registered before the session ended have returned, so that what they
// record (a metric, say) is there for whatever the caller does next; f may
// call Wait, but must not call Close or Abort, which would wait for it.
func (s *Session) AfterFunc(f func()) {
	s.mu.Lock()
	if !s.isDone() { // finished is set under mu, with after taken
		s.after = &endAfter{f: f, next: s.after}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	go f()
}

// isDone reports whether the session has ended (Done is closed).
func (s *Session) isDone() bool { return s.finished.Load() }

// Wait blocks until the session ends and returns why: nil when the peer
// closed the connection or Close was called.
func (s *Session) Wait() error {
	<-s.Done()
	return s.err
}

// Close ends the session and returns what Wait returns. It ends as it does
// when the peer closes the connection: reading stops, pending calls fail
// with ErrClosed, the requests already received are answered (their
// handlers run for up to Options.DrainTimeout before their contexts are
// cancelled, and are waited for; requests still waiting for room, see
// Options.MaxInFlight, get Busy), and then the transport is closed. A
// handler that ignores its context delays Close until it returns. On a
// byte-stream transport, Close waits for the answers to be written as long
// as the peer takes one now and then (see Options.StallTimeout).
func (s *Session) Close() error {
	s.shutdown(nil)
	<-s.Done()
	s.afterRan.Wait()
	return s.err
}

// Abort ends the session as Close does, except that the handlers of the
// requests in flight have their contexts cancelled at once instead of
// running for up to Options.DrainTimeout: for a transport whose peer is
// gone, which nothing they answer could reach (the SSE stream of an
// HTTP+SSE session closed, say). What they still answer is written if the
// transport takes it. Abort waits for them to return, as Close does; after
// Close began, it cuts the drain short.
func (s *Session) Abort() error {
	s.mu.Lock()
	s.abort = true
	s.mu.Unlock()
	s.shutdown(nil)
	s.mu.Lock()
	if s.draining != nil {
		close(s.draining)
		s.draining = nil
	}
	s.mu.Unlock()
	<-s.Done()
	s.afterRan.Wait()
	return s.err
}

// shutdown starts ending the session (see Close); reason is what Wait will
// return, nil for a normal end, and what pending calls fail with besides
// ErrClosed. Only the first call counts.
func (s *Session) shutdown(reason error) { s.end(reason, reason) }

// end is shutdown for a session whose connection ended for cause (the
// transport's error, io.EOF included), which pending calls fail with
// besides ErrClosed; nil when this side ended it.
func (s *Session) end(reason, cause error) {
	s.mu.Lock()
	if s.state == stateClosed {
		s.mu.Unlock()
		return
	}
	if !s.abort {
		s.draining = make(chan struct{}) // closed by Abort
	}
	s.state = stateClosed
	s.closeErr = ErrClosed
	if cause != nil {
		s.closeErr = &closedError{cause}
	}
	for id, ch := range s.pending {
		ch <- callResult{err: s.closeErr}
		delete(s.pending, id)
	}
	// Requests read and kept for later are answered: nothing new is
	// handled, so with Busy (the answers this side awaits, which made the
	// reader read them, will not come). drain waits for those answers too.
	refuse := s.parked
	s.parked, s.parkedLen = nil, 0
	unfollow := s.unfollow
	s.unfollow = nil
	if len(refuse) > 0 {
		s.handlers.Add(1)
	}
	s.room.Broadcast()
	s.mu.Unlock()
	s.reading.cancel()
	if unfollow != nil {
		unfollow()
	}
	if len(refuse) > 0 {
		go s.refuseParked(refuse)
	}
	go s.drain(reason)
}

// refuseParked answers the requests of payloads parked when the session
// began to end (see end) with Busy, and invalid items with their error.
func (s *Session) refuseParked(ps []parked) {
	defer s.handlers.Done()
	for _, p := range ps {
		answers := make([]*jsonrpc.Message, 0, len(p.items))
		for _, it := range p.items {
			if it.Err != nil {
				answers = append(answers, errorMessage(it.ID, it.Err))
				continue
			}
			answers = append(answers, errorMessage(it.Msg.ID, &jsonrpc.Error{Code: Busy, Message: fmt.Sprintf("the session is ending: %s not handled", it.Msg.Method)}))
		}
		if !p.batch {
			s.writeMessage(answers[0])
			continue
		}
		b, err := jsonrpc.AppendBatch(nil, answers)
		if err != nil {
			s.log.Error("mcp: cannot encode a batch response", "err", err)
			continue
		}
		s.writeAnswer(b)
	}
}

// drain lets the handlers in flight answer, cancelling them past the drain
// limit, then closes the transport and marks the session done. No handler
// can start any more: they are added only before stateClosed. Answers that
// cannot be written because the peer stopped reading are given up
// (watchWrites).
func (s *Session) drain(reason error) {
	if s.outbox != nil {
		s.watchWrites()
	}
	drained := make(chan struct{})
	go func() {
		s.handlers.Wait()
		// Every answer is queued: wait until they are written.
		s.mu.Lock()
		for s.outbox != nil && s.outBusy {
			s.outIdle.Wait()
		}
		s.mu.Unlock()
		close(drained)
	}()
	// Notification handlers queued before the end get the same time, but
	// the session does not wait for them past it: they have no answer to
	// send, and their context ends with the session's.
	quiet := make(chan struct{})
	go func() {
		<-drained
		s.notes.Wait()
		close(quiet)
	}()
	s.mu.Lock()
	abort := s.draining // nil after Abort
	s.mu.Unlock()
	if d := s.opts.DrainTimeout; d > 0 && abort != nil {
		t := time.NewTimer(d)
		select {
		case <-quiet:
		case <-t.C:
		case <-abort:
		case <-s.stalledCh():
		}
		t.Stop()
	}
	s.mu.Lock()
	for _, hc := range s.inflight {
		hc.cancel() // by the session: what the handler returns is still answered
	}
	s.mu.Unlock()
	select {
	case <-drained:
	case <-s.stalledCh():
		// The peer stopped reading: what is still to be written is given
		// up, and its goroutines left blocked in the transport's Write
		// (closing the transport below may end it).
	}
	s.life.cancel()
	s.mu.Lock()
	s.ended = true
	s.room.Broadcast()
	s.mu.Unlock()
	err := s.t.Close()
	if reason != nil {
		err = reason
	}
	s.mu.Lock()
	if stall := s.stallError(); stall != nil && stall != reason {
		if reason == nil {
			err = stall
		} else {
			err = errors.Join(reason, stall)
		}
	}
	s.mu.Unlock()
	s.err = err
	s.mu.Lock()
	s.finished.Store(true)
	if s.done != nil {
		close(s.done)
	}
	var after []func()
	for a := s.after; a != nil; a = a.next {
		after = append(after, a.f)
	}
	s.after = nil
	s.mu.Unlock()
	defer s.afterRan.Done()
	for i := len(after) - 1; i >= 0; i-- {
		after[i]() // in the order they were registered
	}
}

// spawn runs fn on an idle worker goroutine, or a new one. Workers wait for
// more work until the session ends: reusing them saves starting a goroutine
// and growing its stack for every request. On a PushOnly transport, fn
// runs on a goroutine of its own that ends with it.
func (s *Session) spawn(fn func()) {
	if s.pushOnly {
		// Its requests come on the goroutines of the transport's own
		// (an HTTP request's): a worker kept idle between them would
		// cost a goroutine per idle session.
		go fn()
		return
	}
	select {
	case s.work <- fn:
	default:
		go s.worker(fn)
	}
}

func (s *Session) worker(fn func()) {
	for {
		fn()
		select {
		case fn = <-s.work:
		case <-s.ctx().Done():
			return
		}
	}
}

// read is the one reader of the connection.
func (s *Session) read() {
	for {
		if p, ok := s.waitRoom(); ok {
			s.items(nil, p.items, p.batch, false)
			continue
		}
		data, err := s.t.Read(s.readCtx())
		if errors.Is(err, transport.ErrSkipped) {
			// One payload lost, the connection fine: say so and read on.
			s.log.Debug("mcp: payload skipped by the transport", "err", err)
			s.received([]jsonrpc.Item{{Err: &jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: err.Error()}}}, false, 0)
			continue
		}
		if err != nil {
			reason := err
			if errors.Is(err, context.Canceled) || isEOF(err) {
				reason = nil
			}
			s.end(reason, err)
			return
		}
		items, batch, e := s.decode(data)
		if e != nil {
			items, batch = []jsonrpc.Item{{Err: e}}, false // answered with e
		}
		s.received(items, batch, len(data))
	}
}

// received handles a payload the reader read: at once when there is room
// (see waitRoom), as always when nothing waits; otherwise (this side
// awaits answers to its calls, so the reader read on while full) the
// answers and notifications in it at once, and what needs an answer is
// parked until there is room, after what was parked before.
func (s *Session) received(items []jsonrpc.Item, batch bool, size int) {
	s.mu.Lock()
	park := len(s.parked) > 0 || s.full()
	s.mu.Unlock()
	if !park {
		s.items(nil, items, batch, false)
		return
	}
	var keep []jsonrpc.Item
	for _, it := range items {
		if answered(it) {
			keep = append(keep, it)
		}
	}
	if len(keep) > 0 {
		// Parked first, so that a cancellation later in a batch finds it.
		s.mu.Lock()
		closed := s.state == stateClosed
		if !closed {
			p := parked{keep, batch, size + parkedOverhead}
			s.parked = append(s.parked, p)
			s.parkedLen += p.size
		}
		s.mu.Unlock()
		if closed {
			s.items(nil, keep, batch, false) // the session is ending: refused
		}
	}
	for _, it := range items {
		if !answered(it) {
			s.item(nil, it, batch, false, nil) // a response or notification: no answer
		}
	}
}

// popParked removes and returns the first parked payload. mu is held.
func (s *Session) popParked() parked {
	p := s.parked[0]
	s.parked[0] = parked{}
	s.parked = s.parked[1:]
	s.parkedLen -= p.size
	if len(s.parked) == 0 {
		s.parked = nil // an idle session keeps no queue
	}
	return p
}

// unpark drops the parked request id, which the peer cancelled before it
// was handled: a cancelled request gets no answer. It reports whether
// there was one. mu is held.
func (s *Session) unpark(id wire.ID) bool {
	for i, p := range s.parked {
		if p.batch || p.items[0].Err != nil || p.items[0].Msg.ID != id || p.items[0].Msg.Method == "initialize" {
			continue
		}
		s.parked = append(s.parked[:i], s.parked[i+1:]...)
		s.parkedLen -= p.size
		if len(s.parked) == 0 {
			s.parked = nil
		}
		s.room.Broadcast() // the reader may wait for room in the queue
		return true
	}
	return false
}

// waitRoom holds the reader back while MaxInFlight requests are being
// handled or answered, so that a peer that sends faster than the handlers
// answer (a file piped into a stdio server), or than it reads the answers,
// is slowed down by its transport instead of being refused with Busy. It
// returns the first parked payload once there is room for it (ok), or
// says to read (not ok).
//
// While this side has calls of its own in flight, it does not hold the
// reader back for room: the answers to those calls must be read, or a
// handler waiting for one would never end (its call would time out), and
// two sessions whose answers wait for each other to read would never move
// again. The reader then reads on, handles answers and notifications at
// once, and parks the payloads that carry requests (received), up to
// maxParked of them: only past that does it wait, so that a peer that
// never reads cannot make it hold more. Requests pushed by the transport
// (transport.Pusher) are not held back: past MaxInFlight they get Busy.
func (s *Session) waitRoom() (p parked, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.state != stateClosed {
		if !s.full() {
			if len(s.parked) > 0 {
				return s.popParked(), true
			}
			return parked{}, false
		}
		if len(s.pending) > 0 && s.parkedLen < maxParked {
			return parked{}, false
		}
		s.readAhead()
		s.room.Wait()
	}
	return parked{}, false
}

// readAhead tells a transport that reads ahead (InputEnder) that the
// reader stops reading for a while, so that the end of the input is seen
// meanwhile.
func (s *Session) readAhead() {
	if s.outbox != nil {
		s.ahead.ReadAhead()
	}
}

// full reports whether MaxInFlight requests are being handled or answered
// (see waitRoom). mu is held.
func (s *Session) full() bool {
	return len(s.inflight)+s.answering >= s.opts.MaxInFlight
}

// watchInput waits for the end of the transport's input (InputEnder), and
// then starts watchWrites: the reader may not see that end, held back
// while answers wait to be written, and a peer that stopped reading as
// well must not keep the session waiting.
func (s *Session) watchInput(ended <-chan struct{}) {
	select {
	case <-ended:
		s.watchWrites()
	case <-s.Done():
	}
}

// watchWrites starts, once, the watch for a peer that stopped reading
// (Options.StallTimeout): on a goroutine that runs until the session is
// done, it ends the session (stall) once a write has been waiting for
// StallTimeout with none going through meanwhile, counting from the later
// of the watch's start, the last write that went through, and the start
// of a write while none was waiting (send keeps the last two in lastWrite).
func (s *Session) watchWrites() {
	d := s.opts.StallTimeout
	if s.outbox == nil {
		return
	}
	w := s.watch
	if d < 0 || w == nil || s.isDone() || !w.watching.CompareAndSwap(false, true) {
		return
	}
	done := s.Done()
	go func() {
		start := int64(time.Since(w.epoch))
		t := time.NewTimer(d)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-done:
				return
			}
			if w.writes.Load() == w.wrote.Load() {
				t.Reset(d) // nothing waits: a write that starts later is timed from its start
				continue
			}
			since := max(start, w.lastWrite.Load())
			if wait := time.Duration(since) + d - time.Since(w.epoch); wait > 0 {
				t.Reset(wait)
				continue
			}
			s.mu.Lock()
			queued := len(s.outQ) - s.outHead
			s.mu.Unlock()
			waiting := w.writes.Load() - w.wrote.Load() + int64(queued)
			s.stall(fmt.Errorf("session: %w: no message could be written for %v, %d still waiting; they were given up", ErrPeerNotReading, d, waiting))
			return
		}
	}()
}

// stalledCh is closed once the peer is taken for one that stopped
// reading; nil (never closed) where the writes are not watched.
func (s *Session) stalledCh() <-chan struct{} {
	if s.outbox == nil {
		return nil
	}
	return s.stalled
}

// stallError is why stalledCh was closed, or nil; s.mu is held.
func (s *Session) stallError() error {
	if s.outbox == nil {
		return nil
	}
	return s.stallErr
}

// stall ends the session for a peer that stopped reading (watchWrites).
func (s *Session) stall(err error) {
	s.mu.Lock()
	if s.stallErr == nil {
		s.stallErr = err
		close(s.stalled)
	}
	s.mu.Unlock()
	s.log.Debug("mcp: ending the session", "err", err)
	s.shutdown(err)
}

// maxQueuedNotes bounds the notifications waiting for their handler: past
// it, whoever delivers the next one (the reader, or a pushing transport)
// waits, which slows the peer down.
const maxQueuedNotes = 256

// queueNote queues a notification for its handler. Notifications are
// handled one at a time, in order, by runNotes on a worker goroutine that
// is started when the queue fills from empty: an idle session holds
// neither a queue nor a goroutine for them.
func (s *Session) queueNote(n note) {
	s.mu.Lock()
	for len(s.noteQ) >= maxQueuedNotes && !s.ended {
		s.readAhead()
		s.room.Wait()
	}
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.noteQ = append(s.noteQ, n)
	start := !s.noteBusy
	s.noteBusy = true
	// A worker started before the session began to end is waited for, as
	// request handlers are, for up to DrainTimeout (drain).
	tracked := start && s.state != stateClosed
	if tracked {
		s.notes.Add(1)
	}
	s.mu.Unlock()
	switch {
	case tracked:
		s.spawn(s.runTrackedNotes)
	case start:
		s.spawn(s.runNotes)
	}
}

// runTrackedNotes is runNotes for a worker drain waits for.
func (s *Session) runTrackedNotes() {
	defer s.notes.Done()
	s.runNotes()
}

// runNotes handles the queued notifications until none is left.
func (s *Session) runNotes() {
	for {
		s.mu.Lock()
		if len(s.noteQ) == 0 {
			s.noteQ = nil // an idle session keeps no queue
			s.noteBusy = false
			s.mu.Unlock()
			return
		}
		n := s.noteQ[0]
		s.noteQ[0] = note{}
		s.noteQ = s.noteQ[1:]
		s.room.Broadcast()
		s.mu.Unlock()
		s.handleNotification(n.method, n.params)
	}
}

// write sends one payload, logging failures: a peer that cannot be written to
// ends the session through its reader. The context is never cancelled: an
// answer written while the session ends must not be refused for it (the
// transport's Close is what stops a write for good).
func (s *Session) write(data []byte) {
	if err := s.send(context.Background(), data); err != nil {
		s.log.Debug("mcp: write failed", "err", err)
	}
}

// writeAnswer sends an answer (to a request, a batch, or a malformed
// payload). On a byte-stream transport it is queued for runOut, which
// writes the answers in order, and counts toward MaxInFlight until
// written: so whoever answers, the reader included, never waits for the
// peer to read, and what the queue holds is bounded by MaxInFlight (see
// waitRoom). Elsewhere it is written at once.
func (s *Session) writeAnswer(data []byte) {
	if s.outbox == nil {
		s.write(data)
		return
	}
	s.mu.Lock()
	s.answering++
	s.outQ = append(s.outQ, data)
	start := !s.outBusy
	s.outBusy = true
	s.mu.Unlock()
	if start {
		s.spawn(s.outRun)
	}
}

// runOut writes the queued answers (writeAnswer) until none is left.
func (s *Session) runOut() {
	for {
		s.mu.Lock()
		if s.outHead == len(s.outQ) {
			s.outQ, s.outHead = s.outQ[:0], 0
			if cap(s.outQ) > 64 {
				s.outQ = nil // do not keep a queue grown by a burst
			}
			s.outBusy = false
			s.outIdle.Broadcast()
			s.mu.Unlock()
			return
		}
		b := s.outQ[s.outHead]
		s.outQ[s.outHead] = nil
		s.outHead++
		s.mu.Unlock()
		s.write(b)
		s.mu.Lock()
		s.answering--
		s.room.Broadcast() // the reader may wait for room (waitRoom)
		s.mu.Unlock()
	}
}

// send writes one payload to the transport, counting it for watchWrites
// where the writes are watched. Every write of the session goes through
// it.
func (s *Session) send(ctx context.Context, data []byte) error {
	if s.outbox == nil {
		return s.t.Write(ctx, data)
	}
	w := s.watch
	if w == nil {
		return s.t.Write(ctx, data)
	}
	watching := w.watching.Load()
	if w.writes.Add(1) == w.wrote.Load()+1 && watching {
		w.lastWrite.Store(int64(time.Since(w.epoch))) // none was waiting: the wait starts now
	}
	err := s.t.Write(ctx, data)
	if watching || w.watching.Load() {
		w.lastWrite.Store(int64(time.Since(w.epoch)))
	}
	w.wrote.Add(1)
	return err
}

// writeMessage encodes an answer and sends it (writeAnswer).
func (s *Session) writeMessage(m *jsonrpc.Message) {
	b, err := m.AppendJSON(nil)
	if err != nil {
		s.log.Error("mcp: cannot encode a message", "method", m.Method, "err", err)
		if m.Kind == jsonrpc.Response {
			// The result was not encodable: answer with an error instead.
			b, _ = (&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.InternalError, Message: "result cannot be encoded: " + err.Error()}}).AppendJSON(nil)
		} else {
			return
		}
	}
	s.writeAnswer(b)
}

func errorMessage(id wire.ID, e *jsonrpc.Error) *jsonrpc.Message {
	return &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: id, Error: e}
}

// payload handles one payload: a message or a batch. When inline is set, a
// single request is handled on the calling goroutine (transport.Pusher).
func (s *Session) payload(data []byte, inline bool) { s.payloadFrom(nil, data, inline) }

// payloadFrom is payload for a payload that came with the values vals
// (see ItemPusher), nil for none.
func (s *Session) payloadFrom(vals valuer, data []byte, inline bool) {
	items, batch, e := s.decode(data)
	if e != nil {
		s.writeMessage(errorMessage(wire.ID{}, e))
		return
	}
	s.items(vals, items, batch, inline)
}

// decode decodes a payload, a batch only if the negotiated revision has
// them; a malformed one gives the error to answer it with.
func (s *Session) decode(data []byte) ([]jsonrpc.Item, bool, *jsonrpc.Error) {
	s.mu.Lock()
	batching := s.rev != nil && s.rev.Batching
	s.mu.Unlock()
	// The transport hands data over (transport.Transport), so the messages
	// may alias it.
	items, batch, err := jsonrpc.DecodeOwned(data, batching)
	if err != nil {
		var de *jsonrpc.DecodeError
		e := &jsonrpc.Error{Code: jsonrpc.ParseError, Message: err.Error()}
		if errors.As(err, &de) {
			e = de.RPCError()
		}
		s.log.Debug("mcp: malformed payload", "err", err)
		s.mu.Lock()
		if s.malformed == "" {
			s.malformed = payloadStart(data)
		}
		s.mu.Unlock()
		return nil, false, e
	}
	return items, batch, nil
}

// ItemPusher is implemented by transports that decode each payload
// themselves (to route it, as the Streamable HTTP server does) and can hand
// the session the decoded messages instead of the bytes, which saves
// decoding them twice. It is transport.Pusher for decoded payloads: the
// session calls SetPushItems once, before its first Read, and push behaves
// as transport.Pusher's does. The items must come from jsonrpc.Decode or
// jsonrpc.DecodeOwned, with batching only when the negotiated revision has
// batches (Revision().Batching): a transport that decoded a batch for a
// session that has none answers it with an error itself.
//
// vals, when not nil, is a context whose values the handlers of the
// requests among items see in theirs (not its deadline or cancellation):
// the Streamable HTTP server passes the POST's, with its HTTPRequest (see
// WithHTTPRequest), so that handlers see the HTTP request that carried
// theirs, and whatever an http.Handler around the server put in its
// context.
type ItemPusher interface {
	SetPushItems(push func(vals context.Context, items []jsonrpc.Item, batch, inline bool))
}

// valuer is the part of a context.Context whose values a handler's context
// carries (see ItemPusher); nil for none.
type valuer interface{ Value(key any) any }

// items handles the messages of one payload (see payload).
func (s *Session) items(vals valuer, items []jsonrpc.Item, batch, inline bool) {
	if !batch {
		s.item(vals, items[0], false, inline, nil)
		return
	}
	// A batch is answered with one array of the responses to its requests,
	// once all are done; a batch of notifications and responses gets none.
	// Its answer is written before the session ends, as a handler's is.
	s.mu.Lock()
	if s.state == stateClosed {
		s.mu.Unlock()
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	var (
		mu        sync.Mutex
		responses []*jsonrpc.Message
		wg        sync.WaitGroup
	)
	reply := func(m *jsonrpc.Message) {
		if m != nil {
			mu.Lock()
			responses = append(responses, m)
			mu.Unlock()
		}
		wg.Done()
	}
	for _, it := range items {
		if answered(it) {
			wg.Add(1)
		}
		s.item(vals, it, true, false, reply)
	}
	go func() {
		defer s.handlers.Done()
		wg.Wait()
		if len(responses) == 0 {
			return
		}
		b, err := jsonrpc.AppendBatch(nil, responses)
		if err != nil {
			s.log.Error("mcp: cannot encode a batch response", "err", err)
			return
		}
		// The answer counts toward MaxInFlight until it is written.
		s.mu.Lock()
		s.answering++
		s.mu.Unlock()
		s.writeAnswer(b)
		s.mu.Lock()
		s.answering--
		s.room.Broadcast()
		s.mu.Unlock()
	}()
}

// A replier takes the answer to a request or an invalid item: nil for a
// request the peer cancelled, which gets no answer. A nil replier writes the
// answer as a message of its own.
type replier func(*jsonrpc.Message)

// answer passes m to reply, or writes it when reply is nil.
func (s *Session) answer(reply replier, m *jsonrpc.Message) {
	if reply != nil {
		reply(m)
	} else if m != nil {
		s.writeMessage(m)
	}
}

// item handles one message; reply is called exactly once for each request
// and each invalid item (see replier).
func (s *Session) item(vals valuer, it jsonrpc.Item, inBatch, inline bool, reply replier) {
	if it.Err != nil {
		switch it.Kind {
		case jsonrpc.Notification:
			// A notification is never answered, even a malformed one.
			s.log.Debug("mcp: malformed notification ignored", "err", it.Err)
		case jsonrpc.Response, jsonrpc.ErrorResponse:
			// A malformed answer fails the call it answers, if known.
			if it.ID.IsValid() {
				s.response(&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: it.ID, Error: it.Err})
			}
		default:
			s.answer(reply, errorMessage(it.ID, it.Err))
		}
		return
	}
	m := it.Msg
	switch m.Kind {
	case jsonrpc.Request:
		if inBatch && m.Method == "initialize" {
			s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: "initialize must not be part of a batch"}))
			return
		}
		s.request(vals, m, inline, reply)
	case jsonrpc.Notification:
		s.notification(m)
	case jsonrpc.Response, jsonrpc.ErrorResponse:
		s.response(m)
	}
}

// answered reports whether an item gets a response.
func answered(it jsonrpc.Item) bool {
	if it.Err != nil {
		return it.Kind != jsonrpc.Notification && it.Kind != jsonrpc.Response && it.Kind != jsonrpc.ErrorResponse
	}
	return it.Msg.Kind == jsonrpc.Request
}

func (s *Session) response(m *jsonrpc.Message) {
	s.mu.Lock()
	ch, ok := s.pending[m.ID]
	delete(s.pending, m.ID)
	s.mu.Unlock()
	if !ok {
		// A late answer to a cancelled call, or a stray one.
		s.log.Debug("mcp: response to no pending request", "id", m.ID)
		return
	}
	if m.Kind == jsonrpc.ErrorResponse {
		ch <- callResult{err: m.Error}
		return
	}
	ch <- callResult{raw: m.Result}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// Transport returns the transport the session runs on.
func (s *Session) Transport() transport.Transport { return s.t }
