package transport

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
)

// Pipe returns an in-memory, connected pair of transports: a.Write delivers
// to b.Read and b.Write delivers to a.Read, in order.
//
// Each Write copies its payload, so the caller may reuse the slice at once,
// and each Read returns a slice the caller owns. Queues are unbounded: Write
// never waits for the peer to read, so two ends that write to each other
// while neither is reading cannot deadlock (ends read with Read; see below
// for ends a session pushes to). Write is safe for concurrent use;
// payloads from concurrent Writes are delivered whole, in the order the
// Writes took effect.
//
// Close on either end closes the pair: Read on both ends first returns the
// payloads already written, then io.EOF; Write on both ends returns an error
// wrapping net.ErrClosed. Close is idempotent and returns nil.
//
// Read and Write return ctx.Err() when ctx is done (Write only before it took
// effect). A Read that returns because of ctx consumes nothing.
//
// Each end is a Pusher: once a session has set its push function on an end,
// payloads written to the other end go to the session on the writing
// goroutine (never inline) instead of through the queue, so that Write
// returns once the session has dealt with the payload: it checked the
// messages, matched responses to calls, queued notifications and started
// requests on their own goroutines. Such a Write can wait only when the
// session's notification queue is full. Payloads queued before SetPush are
// pushed first, in order. In-memory sessions save two goroutine hand-offs
// per call this way.
func Pipe() (a, b Transport) {
	s := &pipeState{}
	return &pipeEnd{s: s, rd: 0, wr: 1}, &pipeEnd{s: s, rd: 1, wr: 0}
}

// pipeState is what the two ends of a Pipe share. One mutex guards both
// directions: operations are short (no I/O under the lock).
type pipeState struct {
	mu     sync.Mutex
	closed bool
	q      [2]pipeQueue
	push   [2]func(data []byte, inline bool) // by queue: who takes its payloads
}

// pipeQueue is one direction of a Pipe.
type pipeQueue struct {
	msgs [][]byte
	// wake, when non-nil, is closed (and reset to nil) by the next Write to
	// this queue or by Close: it is how a Read waits for data.
	wake chan struct{}
}

func (q *pipeQueue) signal() {
	if q.wake != nil {
		close(q.wake)
		q.wake = nil
	}
}

// pipeEnd is one end of a Pipe: it reads queue rd and writes queue wr.
type pipeEnd struct {
	s      *pipeState
	rd, wr int
}

func (e *pipeEnd) Read(ctx context.Context) ([]byte, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.s.mu.Lock()
		q := &e.s.q[e.rd]
		if len(q.msgs) > 0 {
			m := q.msgs[0]
			q.msgs[0] = nil
			q.msgs = q.msgs[1:]
			if len(q.msgs) == 0 {
				q.msgs = nil // let the backing array go
			}
			e.s.mu.Unlock()
			return m, nil
		}
		if e.s.closed {
			e.s.mu.Unlock()
			return nil, io.EOF
		}
		if q.wake == nil {
			q.wake = make(chan struct{})
		}
		wake := q.wake
		e.s.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (e *pipeEnd) Write(ctx context.Context, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m := make([]byte, len(data))
	copy(m, data)
	e.s.mu.Lock()
	if e.s.closed {
		e.s.mu.Unlock()
		return fmt.Errorf("transport: write on closed pipe: %w", net.ErrClosed)
	}
	if push := e.s.push[e.wr]; push != nil {
		e.s.mu.Unlock()
		push(m, false)
		return nil
	}
	q := &e.s.q[e.wr]
	q.msgs = append(q.msgs, m)
	q.signal()
	e.s.mu.Unlock()
	return nil
}

// SetPush implements Pusher: payloads written to the other end go to push.
// What was queued before is pushed first, in order.
func (e *pipeEnd) SetPush(push func(data []byte, inline bool)) {
	for {
		e.s.mu.Lock()
		q := &e.s.q[e.rd]
		if len(q.msgs) == 0 || e.s.closed {
			e.s.push[e.rd] = push
			e.s.mu.Unlock()
			return
		}
		backlog := q.msgs
		q.msgs = nil
		e.s.mu.Unlock()
		for _, m := range backlog {
			push(m, false)
		}
	}
}

func (e *pipeEnd) Close() error {
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	if !e.s.closed {
		e.s.closed = true
		e.s.q[0].signal()
		e.s.q[1].signal()
	}
	return nil
}
