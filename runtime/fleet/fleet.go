// Package fleet holds the seams that let several instances of one MCP
// server serve the sessions of the initialize era (revisions 2025-03-26
// to 2025-11-25) behind a plain round-robin load balancer, with no session
// affinity: a store of the sessions' records, which every instance reads,
// and a relay, which carries messages from one instance to another.
//
// A legacy session lives on one instance, its owner: the instance that
// answered its initialize, or the one that took it over. Its record in the
// SessionStore names the owner, the principal (the user) it belongs to,
// and what it negotiated. A request for the session that reaches another
// instance is carried to the owner through the Relay (see Tunnel), and the
// owner's answer is carried back, byte for byte: the session's state,
// in-flight requests and streams stay in one place, so cancellation, the
// answers to the server's own requests and the order of notifications are
// what they are on one instance. When the owner is gone (no instance
// listens at its address), the instance that got the request claims the
// session in the store and carries it on from its record.
//
// The stateless era (2026-07-28) needs none of this: its requests carry
// everything needed to answer them. Package runtime/reqstate shares the
// keys of its multi round-trip state; session.Bus carries the changes that
// subscriptions/listen streams hear; runtime/tasks.Store keeps tasks.
//
// MemorySessionStore and MemoryRelay are in-process implementations, for
// tests and for several servers in one process; the module
// github.com/mcpgen/mcpgen/redis implements both on Redis.
package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"
)

// ErrNotFound is returned by a SessionStore for a session it does not
// hold: one that never existed, was deleted, or expired.
var ErrNotFound = errors.New("fleet: no such session in the store")

// Record is what a SessionStore keeps of one legacy session.
type Record struct {
	// Owner is the ID of the instance that serves the session (see
	// Node.ID); "" while no instance does.
	Owner string
	// Principal is the user the session belongs to ("" for none).
	Principal string
	// State is the session's negotiated state, in a form the transport
	// chose (JSON of session.LegacyState); the store does not read it.
	State []byte
}

// SessionStore keeps the records of the legacy sessions of a fleet, each
// under its session id, for a time to live that each write renews.
// Implementations must be safe for concurrent use, and keep a session id
// out of their logs and errors.
type SessionStore interface {
	// Create stores rec under id, for ttl (none when ttl <= 0), unless id
	// is taken; it reports whether it stored it.
	Create(ctx context.Context, id string, rec Record, ttl time.Duration) (bool, error)
	// Load returns the record of id, or an error wrapping ErrNotFound.
	Load(ctx context.Context, id string) (Record, error)
	// Save replaces the state of id and renews its ttl if owner still owns
	// it, and reports whether it did: false when another instance claimed
	// it, or the record is gone.
	Save(ctx context.Context, id, owner string, state []byte, ttl time.Duration) (bool, error)
	// Claim makes owner the owner of id if its owner is from, and returns
	// the record as it is after the call: its Owner is owner if the claim
	// succeeded, and another instance's if it lost the race. The error
	// wraps ErrNotFound when id has no record.
	Claim(ctx context.Context, id, from, owner string, ttl time.Duration) (Record, error)
	// Delete removes the record of id; a missing record is no error.
	Delete(ctx context.Context, id string) error
}

// Relay carries messages between the instances of a fleet. Each instance
// listens at an address of its own (its Node ID); any instance sends to any
// address. A message is delivered at most once, to the listeners that
// listen at its address when it is sent, in the order one sender sent
// them; one that no instance listens for is dropped, and Send says so.
// Implementations must be safe for concurrent use.
type Relay interface {
	// Listen calls fn with each message sent to addr from the time it
	// returns until stop is called, in order, on one goroutine: fn must
	// not block. The msg it gets is fn's to keep.
	Listen(ctx context.Context, addr string, fn func(msg []byte)) (stop func(), err error)
	// Send sends msg to the listeners of addr, and reports whether at least
	// one of them got it: false means that no instance listens at addr
	// (the instance is gone).
	Send(ctx context.Context, addr string, msg []byte) (bool, error)
}

// Node is one instance of a fleet: its ID, the fleet's SessionStore and
// Relay. A transport given a Node (streamhttp.ServerOptions.Fleet,
// ssehttp.ServerOptions.Fleet) keeps its legacy sessions' records in the
// store and carries requests to their owners through the relay.
type Node struct {
	// ID names this instance in the fleet, unique among the instances
	// that run at once; NewNode makes one at random. A restarted instance
	// gets a new one.
	ID string
	// Sessions is the fleet's store of session records.
	Sessions SessionStore
	// Relay carries requests to the owners of sessions and their answers
	// back.
	Relay Relay
	// Timeout bounds each call to the store or the relay (default 5
	// seconds): when the engine behind them is unreachable, a request that
	// needs it fails with a clear error within it rather than hanging.
	Timeout time.Duration
}

// Context returns the context of one call to the store or the relay: the
// values of parent, not its cancellation (a record is written or deleted
// even when the client has gone), and Timeout (5 seconds when not set).
func (n *Node) Context(parent context.Context) (context.Context, context.CancelFunc) {
	d := n.Timeout
	if d <= 0 {
		d = 5 * time.Second
	}
	return context.WithTimeout(context.WithoutCancel(parent), d)
}

// Open stores the record of a new session owned by this instance, for
// principal and ttl, under a new random id (32 hex digits), which it
// returns. A transport opens the record before the session starts: a
// request for the session may reach another instance as soon as its
// client learns the id.
func (n *Node) Open(ctx context.Context, principal string, ttl time.Duration) (string, error) {
	for range 3 {
		id := NewSessionID()
		ok, err := n.Sessions.Create(ctx, id, Record{Owner: n.ID, Principal: principal}, ttl)
		if err != nil {
			return "", err
		}
		if ok {
			return id, nil
		}
	}
	return "", errors.New("fleet: three random session ids in a row were taken")
}

// NewSessionID returns a random session id: 128 bits, as 32 lower-case
// hex digits.
func NewSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
