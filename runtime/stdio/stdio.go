// Package stdio is the MCP stdio transport
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio):
// JSON-RPC messages
// exchanged as newline-delimited lines, the server over its standard input
// and output, the client over the pipes of the server process it started.
//
// New frames any reader and writer (the server side: os.Stdin and
// os.Stdout). Command starts a server process and returns a *Process, the
// client side, whose Close performs the stdio shutdown sequence
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio).
// Both implement transport.Transport.
//
// Framing: each message is one line ending in "\n". Read tolerates a
// "\r" before the "\n", skips blank lines, and accepts a last line that has
// no newline before the end of input. Write rejects a payload that contains a
// raw "\n" or "\r" byte; JSON from this module's encoders never does (those
// characters are always escaped inside strings and never used as
// whitespace), so such a payload is a programming error. Neither side
// checks that the payload is UTF-8 or JSON: that is the codec's business.
//
// A peer that stops reading, while it keeps its end open, makes a Write
// block once the pipe is full. What that costs is bounded without any
// option: a session (runtime/session) takes no more requests while
// MaxInFlight answers wait to be written (it reads on only while it awaits
// answers to calls of its own, and then keeps the requests it reads for
// later until they reach 1 MiB), the transport reads at most MaxReadAhead
// bytes ahead of it, and once the input has ended or the session is
// closed (SIGTERM, say), the session gives up the answers still to be
// written as soon as no write has gone through for its StallTimeout
// (session.DefaultStallTimeout, 30 s), so Serve returns, with an error
// wrapping session.ErrPeerNotReading. A consumer that pauses for less
// than that loses nothing. WithWriteTimeout (off by default) bounds each
// write as well, also before the input ends, for a peer that keeps its
// end open and never reads again.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// DefaultMaxMessageSize is the longest line Read accepts unless
// WithMaxMessageSize says otherwise: 64 MiB.
const DefaultMaxMessageSize = 64 << 20

// DefaultGrace is how long Process.Close waits at each step of the shutdown
// sequence unless WithGrace says otherwise.
const DefaultGrace = 5 * time.Second

// ErrMessageTooLarge is wrapped by the error Read returns for a line longer
// than the maximum message size. The line is skipped: the next Read returns
// the line after it.
var ErrMessageTooLarge = errors.New("stdio: message too large")

// ErrInvalidMessage is wrapped by the error Write returns for a payload that
// cannot be framed: an empty one, or one with a raw newline or carriage
// return byte.
var ErrInvalidMessage = errors.New("stdio: invalid message")

// An Option configures New or Command.
type Option func(*config)

type config struct {
	maxSize   int
	stderr    io.Writer
	stderrSet bool
	grace     time.Duration
	bufSize   int // the reader's buffer; 0 is 64 KiB (tests set it small)
	// writeTimeout bounds each Write; 0 is no limit.
	writeTimeout time.Duration
}

func newConfig(opts []Option) config {
	c := config{maxSize: DefaultMaxMessageSize, grace: DefaultGrace}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithMaxMessageSize sets the longest line, in bytes and without its line
// ending, that Read accepts (default DefaultMaxMessageSize). Read buffers at
// most about this much per message. n <= 0 keeps the default.
func WithMaxMessageSize(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxSize = n
		}
	}
}

// WithStderr sets where Command forwards the server's standard error when
// cmd.Stderr is nil (default os.Stderr). nil discards it. The client never
// reads stderr as a sign of failure. New ignores this option.
func WithStderr(w io.Writer) Option {
	return func(c *config) {
		c.stderr = w
		c.stderrSet = true
	}
}

// WithGrace sets how long Process.Close waits for the server to exit after
// closing its stdin, and again after SIGTERM, before escalating (default
// DefaultGrace). d <= 0 escalates at once. New ignores this option.
func WithGrace(d time.Duration) Option {
	return func(c *config) {
		c.grace = max(d, 0)
	}
}

// WithWriteTimeout bounds each Write to d (default: no limit; d <= 0 keeps
// that). A peer that stops reading while it keeps its end open makes
// writes block once the pipe is full; with no limit, a write then waits
// until the peer reads, or Close closes the writer (when that interrupts
// it). With d, a write that has not completed within d fails with an
// error wrapping os.ErrDeadlineExceeded that says the peer is not reading;
// the line may be cut off, so the transport is broken: later Writes fail
// the same way at once, and Read returns that error, which ends a session
// over it.
//
// On a writer with write deadlines (an *os.File that the runtime poller
// handles, such as the pipes of Command or os.Pipe; anything with a
// SetWriteDeadline method that works) the limit is a deadline set before
// each write. Otherwise (os.Stdout is usually a blocking file without
// deadlines) each write runs on a goroutine of the Transport and Write
// stops waiting for it after d; a write that never returns keeps that
// goroutine until Close makes it return, if closing the writer does.
//
// No limit is the default because a peer may stop reading for a while on
// purpose (it holds back a side that sends faster than it can handle, or
// it is paused in a debugger), and such a peer must not lose its answers;
// nor is a limit needed to bound what a peer that never reads again
// costs: a session over the transport takes no more requests while
// MaxInFlight answers wait to be written, and once its input ends or it
// is closed it gives up the answers that do not go through when none has
// for its StallTimeout (see the package documentation). What the limit
// adds is an end to a session whose peer keeps its end open and never
// reads: choose d longer than the pauses a legitimate peer makes (the
// examples use 30 s).
func WithWriteTimeout(d time.Duration) Option {
	return func(c *config) {
		c.writeTimeout = max(d, 0)
	}
}

// Transport is a newline-delimited JSON transport over a reader and a
// writer. It implements transport.Transport.
type Transport struct {
	max     int
	br      *bufio.Reader
	w       io.Writer
	closers []io.Closer // closed by Close
	// drain makes the reading goroutine read and discard the rest of the
	// input after Close instead of stopping (Process: the child must not
	// block writing to a pipe nobody reads).
	drain bool

	// Writing. sem is the write lock: a channel so that waiting for it
	// honours ctx.
	sem  chan struct{}
	wbuf []byte
	// WithWriteTimeout: the limit, w's deadlines when it has them, and
	// otherwise the goroutine that writes (writeLoop: wreq, wres) and the
	// timer that bounds the wait for it. Guarded by sem.
	wtimeout time.Duration
	dl       writeDeadliner
	wreq     chan []byte
	wres     chan writeResult
	wtimer   *time.Timer
	// werr is set (under sem) when a write timed out, before wfailed is
	// closed: the transport is broken.
	werr    error
	wfailed chan struct{}

	// Reading: readLoop runs in its own goroutine, started by the first Read,
	// and queues each line (or a non-fatal error) in q for Read: one line
	// ahead, or up to MaxReadAhead bytes after ReadAhead. When it stops it sets rerr, closes ended, then
	// closes readerDone.
	startOnce  sync.Once
	qmu        sync.Mutex
	q          []readResult  // lines read and not yet returned by Read, in order
	qBuf       [1]readResult // q's own array, used while q holds at most one line
	qBytes     int           // their length in all
	qReady     chan struct{} // capacity 1: a line was queued
	qRoom      chan struct{} // capacity 1: Read took a line, or ReadAhead was called
	ahead      atomic.Bool   // ReadAhead was called, and Read has not been since
	ended      chan struct{} // closed once the input has ended (rerr is set)
	readerDone chan struct{}
	rerr       error
	skipping   bool  // in the rest of an oversized line (readLoop only)
	pending    error // error to return after a last unterminated line (readLoop only)

	done      chan struct{} // closed by Close
	closeOnce sync.Once
	closeErr  error
}

type readResult struct {
	data []byte
	err  error
}

type writeResult struct {
	n   int
	err error
}

// writeDeadliner is a writer with write deadlines, as *os.File.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

var (
	_ transport.Transport = (*Transport)(nil)
	_ transport.Describer = (*Transport)(nil)
)

// pipeInfo is what every stdio transport tells of its connection.
var pipeInfo = transport.Info{Network: "pipe"}

// Describe implements transport.Describer: the network is "pipe", the
// standard input and output of a process; there is no address, and no
// session id.
func (t *Transport) Describe() transport.Info { return pipeInfo }

// New returns a transport that reads lines from r and writes lines to w: the
// server side over os.Stdin and os.Stdout, or either side over any pipes.
// Of the options only WithMaxMessageSize and WithWriteTimeout apply.
//
// Read runs the blocking reads of r in one goroutine, started by the first
// Read, so that Read can honour ctx. Close closes r and w when they implement
// io.Closer (once if they are the same object); closing the writer is how a
// server signals shutdown to its client. If Close does not unblock a
// pending r.Read (os.Stdin usually is such a reader: a blocking file that
// closing does not interrupt), that goroutine stays until the read returns;
// Read and Close return at once regardless. To keep w open after Close,
// hide its Close method: New(os.Stdin, struct{ io.Writer }{os.Stdout}).
func New(r io.Reader, w io.Writer, opts ...Option) *Transport {
	t := newTransport(r, w, newConfig(opts))
	if c, ok := r.(io.Closer); ok {
		t.closers = append(t.closers, c)
	}
	if c, ok := w.(io.Closer); ok && !same(r, w) {
		t.closers = append(t.closers, c)
	}
	return t
}

func newTransport(r io.Reader, w io.Writer, c config) *Transport {
	bufSize := c.bufSize
	if bufSize <= 0 {
		bufSize = 64 << 10
	}
	if c.maxSize+2 < bufSize {
		bufSize = c.maxSize + 2
	}
	t := &Transport{
		max:        c.maxSize,
		br:         bufio.NewReaderSize(r, bufSize),
		w:          w,
		sem:        make(chan struct{}, 1),
		wtimeout:   c.writeTimeout,
		wfailed:    make(chan struct{}),
		qReady:     make(chan struct{}, 1),
		qRoom:      make(chan struct{}, 1),
		ended:      make(chan struct{}),
		readerDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
	t.q = t.qBuf[:0]
	if d, ok := w.(writeDeadliner); ok && t.wtimeout > 0 && d.SetWriteDeadline(time.Time{}) == nil {
		t.dl = d // a file without deadlines says so (os.ErrNoDeadline)
	}
	return t
}

// same reports whether a and b are the same comparable value.
func same(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}

// Read returns the next message: one line without its line ending. Blank
// lines are skipped. A line longer than the maximum message size yields an
// error wrapping ErrMessageTooLarge that names the limit; that line is
// skipped and the transport stays usable, so the caller may Read again
// (a session answers such input with a parse error, or gives up). Read
// returns io.EOF at the end of the input and after Close, and ctx.Err()
// when ctx is done first; a Read abandoned that way loses no data.
// Other errors from the reader are final and wrapped.
//
// One line is read ahead of Read; after ReadAhead, lines are read ahead
// up to MaxReadAhead bytes, so that the end of the input is seen
// (InputEnded) while a caller that holds back from reading, as a session
// does while it has MaxInFlight requests to answer, has lines still to
// read.
func (t *Transport) Read(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case <-t.done:
		return nil, io.EOF
	default:
	}
	t.start()
	for {
		t.qmu.Lock()
		if len(t.q) > 0 {
			r := t.q[0]
			t.q[0] = readResult{}
			t.q = t.q[1:]
			if len(t.q) == 0 {
				// Keep a small queue for the next line, which then costs
				// no allocation; not one grown by reading ahead.
				t.q = t.qBuf[:0]
			}
			t.qBytes -= len(r.data)
			t.ahead.Store(false)
			t.qmu.Unlock()
			select {
			case t.qRoom <- struct{}{}:
			default:
			}
			return r.data, r.err
		}
		t.qmu.Unlock()
		select {
		case <-t.qReady:
		case <-t.ended:
			t.qmu.Lock()
			empty := len(t.q) == 0
			t.qmu.Unlock()
			if empty {
				return nil, t.rerr
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.done:
			return nil, io.EOF
		case <-t.wfailed:
			return nil, t.werr
		}
	}
}

// MaxReadAhead is how many bytes of lines a Transport reads ahead of Read
// at most after ReadAhead (beyond one line, which is always read): 1 MiB. While a session
// holds back from reading, the end of the input is seen when the peer
// closes its end having sent up to about that much ahead (a pipe itself
// holds 64 KiB on Linux by default). The end of the input of a peer that
// sent more than that ahead, and stopped reading, is seen only as the
// lines before it are read; closing the session (SIGTERM, say), or
// WithWriteTimeout, ends such a session.
const MaxReadAhead = 1 << 20

// InputEnded returns a channel that is closed once the reader has reached
// the end of the input, or failed, or stopped after Close: possibly while
// lines read before the end still wait for Read. A session holding back
// from reading (runtime/session's MaxInFlight) learns from it that the peer
// has ended its input (see session.InputEnder).
func (t *Transport) InputEnded() <-chan struct{} { return t.ended }

// ReadAhead lets the transport read lines ahead of Read, up to
// MaxReadAhead bytes, until the next Read: a caller about to stop reading
// for a while (a session waiting for room, see session.InputEnder) calls
// it to learn of the end of the input meanwhile. Otherwise the transport
// reads one line ahead, so that lines that arrive together are read
// together.
func (t *Transport) ReadAhead() {
	t.ahead.Store(true)
	select {
	case t.qRoom <- struct{}{}:
	default:
	}
}

func (t *Transport) start() {
	t.startOnce.Do(func() { go t.readLoop() })
}

func (t *Transport) readLoop() {
	defer close(t.readerDone)
	for {
		line, err := t.readLine()
		if err != nil && !errors.Is(err, ErrMessageTooLarge) {
			if err != io.EOF {
				err = fmt.Errorf("stdio: read: %w", err)
			}
			t.stopReading(err)
			return
		}
		if !t.queue(readResult{line, err}) {
			if t.drain {
				_, _ = io.Copy(io.Discard, t.br)
			}
			t.stopReading(io.EOF)
			return
		}
	}
}

// queue queues r for Read, waiting while a line is queued already (or,
// after ReadAhead, while the lines queued fill MaxReadAhead). It reports
// false once Close was called.
func (t *Transport) queue(r readResult) bool {
	for {
		select {
		case <-t.done:
			return false
		default:
		}
		t.qmu.Lock()
		if len(t.q) == 0 || t.ahead.Load() && t.qBytes+len(r.data) <= MaxReadAhead {
			t.q = append(t.q, r)
			t.qBytes += len(r.data)
			t.qmu.Unlock()
			select {
			case t.qReady <- struct{}{}:
			default:
			}
			return true
		}
		t.qmu.Unlock()
		select {
		case <-t.qRoom:
		case <-t.done:
			return false
		}
	}
}

// isClosed reports whether Close was called.
func (t *Transport) isClosed() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// stopReading records why reading stopped and says so (InputEnded).
func (t *Transport) stopReading(err error) {
	t.rerr = err
	close(t.ended)
}

// readLine returns the next non-blank line, without its line ending, in a
// new slice; or a *tooLarge error after which the rest of that line is
// skipped; or the reader's error.
func (t *Transport) readLine() ([]byte, error) {
	if t.pending != nil {
		return nil, t.pending
	}
	var buf []byte
	for {
		chunk, err := t.br.ReadSlice('\n')
		if t.skipping {
			switch err {
			case nil:
				t.skipping = false
			case bufio.ErrBufferFull:
			default:
				return nil, err
			}
			continue
		}
		if err == bufio.ErrBufferFull {
			// No line ending yet. The line is too long if even a "\r" as
			// its last byte would leave more than max bytes.
			if len(buf)+len(chunk) > t.max+1 {
				t.skipping = true
				return nil, t.tooLarge()
			}
			buf = append(buf, chunk...)
			continue
		}
		// chunk ends the line: with "\n", or at the end of input or a read
		// error (err != nil), in which case a last unterminated line is
		// still returned, and err after it.
		line := chunk
		if buf != nil {
			buf = append(buf, chunk...)
			line = buf
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		// Too large comes first: a line over the limit is one whether or not
		// it fit in the buffer, blank or not.
		if len(line) > t.max {
			if err != nil {
				t.pending = err
			}
			return nil, t.tooLarge()
		}
		if blank(line) {
			if err != nil {
				return nil, err
			}
			buf = buf[:0]
			continue
		}
		if err != nil {
			t.pending = err
		}
		if buf == nil {
			line = bytes.Clone(line) // chunk is bufio's buffer
		}
		return line, nil
	}
}

func (t *Transport) tooLarge() error {
	return &tooLargeError{max: t.max}
}

// tooLargeError is the error for a line over the limit: it wraps
// ErrMessageTooLarge, and transport.ErrSkipped since the line is skipped.
type tooLargeError struct{ max int }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%v: line longer than the limit of %d bytes, skipped", ErrMessageTooLarge, e.max)
}

func (e *tooLargeError) Unwrap() []error { return []error{ErrMessageTooLarge, transport.ErrSkipped} }

// blank reports whether line holds only JSON whitespace without newlines.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Write sends data as one line: data+"\n", in a single Write call to the
// underlying writer. Concurrent Writes are serialized, so lines never
// interleave. data must be non-empty and contain no raw "\n" or "\r" byte
// (an error wrapping ErrInvalidMessage otherwise). ctx is honoured while
// waiting for another Write to finish; the underlying Write itself cannot be
// interrupted except by Close (for writers whose Close does that) or by
// WithWriteTimeout. After Close, Write returns an error wrapping
// net.ErrClosed.
func (t *Transport) Write(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkFrame(data); err != nil {
		return err
	}
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-t.done:
		return errClosed
	}
	defer func() { <-t.sem }()
	select {
	case <-t.done:
		return errClosed
	default:
	}
	if t.werr != nil {
		return t.werr
	}
	buf := append(append(t.wbuf[:0], data...), '\n')
	var (
		n     int
		err   error
		owned = true // buf is not held by a write still under way
	)
	switch {
	case t.wtimeout <= 0:
		n, err = t.w.Write(buf)
	case t.dl != nil:
		if err = t.dl.SetWriteDeadline(time.Now().Add(t.wtimeout)); err == nil {
			n, err = t.w.Write(buf)
		}
	default:
		n, owned, err = t.writeAsync(buf)
	}
	if cap(buf) <= 1<<20 && owned {
		t.wbuf = buf[:0]
	} else {
		t.wbuf = nil // do not keep a huge buffer for the next small message
	}
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The line may be cut off: nothing more can be framed.
			t.werr = fmt.Errorf("stdio: write: the peer is not reading: a %d-byte line was not written within %v, so the transport is broken: %w", len(buf), t.wtimeout, err)
			close(t.wfailed)
			return t.werr
		}
		return fmt.Errorf("stdio: write: %w", err)
	}
	return nil
}

// errWriteTimeout is what writeAsync reports when the write outlasts the
// limit: os.ErrDeadlineExceeded, as a writer with deadlines reports it.
var errWriteTimeout = fmt.Errorf("write timed out: %w", os.ErrDeadlineExceeded)

// writeAsync writes buf on writeLoop's goroutine and waits at most
// wtimeout for it. owned is false when the write is still under way: buf
// must not be reused. The write lock is held.
func (t *Transport) writeAsync(buf []byte) (n int, owned bool, err error) {
	if t.wreq == nil {
		t.wreq = make(chan []byte)
		t.wres = make(chan writeResult, 1)
		t.wtimer = time.NewTimer(t.wtimeout)
		go t.writeLoop()
	} else {
		t.wtimer.Reset(t.wtimeout)
	}
	select {
	case t.wreq <- buf: // writeLoop is idle: the previous write returned
	case <-t.done:
		t.wtimer.Stop()
		return 0, true, errClosed
	}
	select {
	case r := <-t.wres:
		t.wtimer.Stop()
		return r.n, true, r.err
	case <-t.wtimer.C:
		return 0, false, errWriteTimeout
	}
}

// writeLoop makes the writes of writeAsync until Close.
func (t *Transport) writeLoop() {
	for {
		select {
		case buf := <-t.wreq:
			n, err := t.w.Write(buf)
			t.wres <- writeResult{n, err} // room: one write at a time
		case <-t.done:
			return
		}
	}
}

var errClosed = fmt.Errorf("stdio: transport closed: %w", net.ErrClosed)

func checkFrame(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: empty payload", ErrInvalidMessage)
	}
	i := bytes.IndexByte(data, '\n')
	if j := bytes.IndexByte(data, '\r'); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i >= 0 {
		return fmt.Errorf("%w: raw line break at byte %d (messages contain no embedded newline)", ErrInvalidMessage, i)
	}
	return nil
}

// Close makes pending and later Reads return io.EOF and later Writes fail,
// and closes the reader and writer given to New if they are io.Closers. It
// returns the errors of those Close calls. Close is idempotent.
func (t *Transport) Close() error {
	t.closeOnce.Do(func() {
		close(t.done)
		var errs []error
		for _, c := range t.closers {
			if err := c.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
				errs = append(errs, err)
			}
		}
		t.closeErr = errors.Join(errs...)
	})
	return t.closeErr
}
