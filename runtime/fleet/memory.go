package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// NewNode returns a Node with a random ID, on the given store and relay.
func NewNode(sessions SessionStore, relay Relay) *Node {
	b := make([]byte, 8)
	rand.Read(b)
	return &Node{ID: hex.EncodeToString(b), Sessions: sessions, Relay: relay}
}

// MemorySessionStore is a SessionStore in the memory of one process, for
// tests and for several servers in one process. Expired records are
// removed when they are next read, and by a sweep on writes, so that it
// holds no more than the live ones and those written since the last sweep.
type MemorySessionStore struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu    sync.Mutex
	recs  map[string]memRecord
	swept time.Time
}

type memRecord struct {
	Record
	expires time.Time // zero: never
}

// NewMemorySessionStore returns an empty MemorySessionStore.
func NewMemorySessionStore() *MemorySessionStore {
	return &MemorySessionStore{recs: map[string]memRecord{}}
}

func (m *MemorySessionStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

// liveLocked returns the live record of id.
func (m *MemorySessionStore) liveLocked(id string, now time.Time) (memRecord, bool) {
	r, ok := m.recs[id]
	if ok && !r.expires.IsZero() && !now.Before(r.expires) {
		delete(m.recs, id)
		return memRecord{}, false
	}
	return r, ok
}

// sweepLocked removes expired records, at most once a second.
func (m *MemorySessionStore) sweepLocked(now time.Time) {
	if now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	for id := range m.recs {
		m.liveLocked(id, now)
	}
}

func clone(r Record) Record {
	r.State = append([]byte(nil), r.State...)
	return r
}

// Create implements SessionStore.
func (m *MemorySessionStore) Create(_ context.Context, id string, rec Record, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweepLocked(now)
	if _, ok := m.liveLocked(id, now); ok {
		return false, nil
	}
	m.recs[id] = memRecord{Record: clone(rec), expires: expiry(now, ttl)}
	return true, nil
}

// Load implements SessionStore.
func (m *MemorySessionStore) Load(_ context.Context, id string) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.liveLocked(id, m.now())
	if !ok {
		return Record{}, ErrNotFound
	}
	return clone(r.Record), nil
}

// Save implements SessionStore.
func (m *MemorySessionStore) Save(_ context.Context, id, owner string, state []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r, ok := m.liveLocked(id, now)
	if !ok || r.Owner != owner {
		return false, nil
	}
	r.State = append([]byte(nil), state...)
	r.expires = expiry(now, ttl)
	m.recs[id] = r
	return true, nil
}

// Claim implements SessionStore.
func (m *MemorySessionStore) Claim(_ context.Context, id, from, owner string, ttl time.Duration) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r, ok := m.liveLocked(id, now)
	if !ok {
		return Record{}, ErrNotFound
	}
	if r.Owner == from {
		r.Owner = owner
		r.expires = expiry(now, ttl)
		m.recs[id] = r
	}
	return clone(r.Record), nil
}

// Delete implements SessionStore.
func (m *MemorySessionStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, id)
	return nil
}

// Len returns the number of live records.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	n := 0
	for id := range m.recs {
		if _, ok := m.liveLocked(id, now); ok {
			n++
		}
	}
	return n
}

// MemoryRelay is a Relay in the memory of one process, for tests and for
// several servers in one process. Each listener has a queue of its own,
// bounded by MaxQueued messages (default 4096): a message sent to a
// listener whose queue is full is dropped for it, as a relay on a network
// drops what a slow subscriber cannot take.
type MemoryRelay struct {
	// MaxQueued bounds each listener's queue; 0 means 4096.
	MaxQueued int

	mu        sync.Mutex
	listeners map[string]map[*memListener]bool
}

type memListener struct {
	fn    func([]byte)
	mu    sync.Mutex
	queue [][]byte
	busy  bool
	done  bool
	max   int
}

// NewMemoryRelay returns a MemoryRelay with no listeners.
func NewMemoryRelay() *MemoryRelay {
	return &MemoryRelay{listeners: map[string]map[*memListener]bool{}}
}

// Listen implements Relay.
func (m *MemoryRelay) Listen(_ context.Context, addr string, fn func([]byte)) (func(), error) {
	if fn == nil {
		return nil, fmt.Errorf("fleet: Listen: nil func")
	}
	l := &memListener{fn: fn, max: m.MaxQueued}
	if l.max <= 0 {
		l.max = 4096
	}
	m.mu.Lock()
	if m.listeners[addr] == nil {
		m.listeners[addr] = map[*memListener]bool{}
	}
	m.listeners[addr][l] = true
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			delete(m.listeners[addr], l)
			if len(m.listeners[addr]) == 0 {
				delete(m.listeners, addr)
			}
			m.mu.Unlock()
			l.mu.Lock()
			l.done = true
			l.queue = nil
			l.mu.Unlock()
		})
	}, nil
}

// Send implements Relay.
func (m *MemoryRelay) Send(ctx context.Context, addr string, msg []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.Lock()
	ls := make([]*memListener, 0, len(m.listeners[addr]))
	for l := range m.listeners[addr] {
		ls = append(ls, l)
	}
	m.mu.Unlock()
	for _, l := range ls {
		l.put(append([]byte(nil), msg...))
	}
	return len(ls) > 0, nil
}

// put queues msg for l and starts its runner if none runs.
func (l *memListener) put(msg []byte) {
	l.mu.Lock()
	if l.done || len(l.queue) >= l.max {
		l.mu.Unlock()
		return
	}
	l.queue = append(l.queue, msg)
	start := !l.busy
	l.busy = true
	l.mu.Unlock()
	if start {
		go l.run()
	}
}

// run calls fn with the queued messages, in order, until none is left.
func (l *memListener) run() {
	for {
		l.mu.Lock()
		if len(l.queue) == 0 || l.done {
			l.busy = false
			l.mu.Unlock()
			return
		}
		msg := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		l.mu.Unlock()
		l.fn(msg)
	}
}
