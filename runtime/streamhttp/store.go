package streamhttp

import (
	"sync"
)

// Event is one SSE event a stream carried.
type Event struct {
	// Seq numbers the events of a stream from 1.
	Seq int64
	// Data is the JSON-RPC message.
	Data []byte
}

// EventStore keeps the events of SSE streams so that a client can resume a
// dropped stream with Last-Event-ID. The Server decides how
// long each event is needed (see ServerOptions.ReplayEvents and
// StreamRetention) and tells the store with Discard and Drop.
// Implementations must be safe for concurrent use.
type EventStore interface {
	// Append records data as the next event of stream and returns its
	// sequence number: 1 for a stream's first event, then one more for each
	// event, without gaps.
	Append(stream string, data []byte) (int64, error)
	// After returns the events of stream with a sequence number above seq
	// that were not discarded, in order; ok is false when the store does not
	// know the stream.
	After(stream string, seq int64) (events []Event, ok bool, err error)
	// Discard forgets the events of stream numbered up to and including
	// seq: they are no longer needed for resumption. Later events keep their
	// numbers.
	Discard(stream string, seq int64)
	// Drop forgets a stream.
	Drop(stream string)
}

// LastSeqer is implemented by an EventStore that tells the number of the
// last event appended to a stream, whether the store still keeps it or
// not (ok is false for a stream it does not know). An instance of a fleet
// that carries a session on after its owner died asks it, so that the
// session's GET stream numbers on where it stopped even when the events
// it kept were all discarded. MemoryStore and the Redis EventStore
// implement it.
type LastSeqer interface {
	LastSeq(stream string) (seq int64, ok bool, err error)
}

// MemoryStore is the default EventStore: it keeps the events of each
// stream in memory until the Server discards them or drops the stream.
type MemoryStore struct {
	mu      sync.Mutex
	streams map[string]*memStream
}

// memStream is a stream's kept events: consecutive, the newest numbered
// next-1.
type memStream struct {
	next int64
	evs  []Event
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{streams: map[string]*memStream{}} }

// Append implements EventStore.
func (m *MemoryStore) Append(stream string, data []byte) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.streams[stream]
	if ms == nil {
		ms = &memStream{next: 1}
		m.streams[stream] = ms
	}
	seq := ms.next
	ms.next++
	ms.evs = append(ms.evs, Event{Seq: seq, Data: append([]byte(nil), data...)})
	return seq, nil
}

// After implements EventStore.
func (m *MemoryStore) After(stream string, seq int64) ([]Event, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, ok := m.streams[stream]
	if !ok {
		return nil, false, nil
	}
	i := ms.index(seq + 1)
	if i >= len(ms.evs) {
		return nil, true, nil
	}
	return append([]Event(nil), ms.evs[i:]...), true, nil
}

// index is the position in evs of the first event numbered seq or above.
func (ms *memStream) index(seq int64) int {
	if len(ms.evs) == 0 {
		return 0
	}
	return int(min(max(seq-ms.evs[0].Seq, 0), int64(len(ms.evs))))
}

// LastSeq implements LastSeqer.
func (m *MemoryStore) LastSeq(stream string) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, ok := m.streams[stream]
	if !ok {
		return 0, false, nil
	}
	return ms.next - 1, true, nil
}

// Discard implements EventStore.
func (m *MemoryStore) Discard(stream string, seq int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.streams[stream]
	if ms == nil {
		return
	}
	n := ms.index(seq + 1)
	clear(ms.evs[:n]) // the array outlives the slice: let the data go now
	ms.evs = ms.evs[n:]
}

// Drop implements EventStore.
func (m *MemoryStore) Drop(stream string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.streams, stream)
}
