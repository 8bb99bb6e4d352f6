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
// dropped stream with Last-Event-ID (T-R2, T-R3). Implementations must be
// safe for concurrent use.
type EventStore interface {
	// Append records data as the next event of stream and returns its
	// sequence number.
	Append(stream string, data []byte) (int64, error)
	// After returns the events of stream with a sequence number above seq, in
	// order; ok is false when the store does not know the stream.
	After(stream string, seq int64) (events []Event, ok bool, err error)
	// Drop forgets a stream.
	Drop(stream string)
}

// MemoryStore is the default EventStore: it keeps every event of a stream
// in memory until the stream is dropped (when its session ends).
type MemoryStore struct {
	mu      sync.Mutex
	streams map[string][]Event
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{streams: map[string][]Event{}} }

// Append implements EventStore.
func (m *MemoryStore) Append(stream string, data []byte) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	evs := m.streams[stream]
	seq := int64(len(evs) + 1)
	m.streams[stream] = append(evs, Event{Seq: seq, Data: append([]byte(nil), data...)})
	return seq, nil
}

// After implements EventStore.
func (m *MemoryStore) After(stream string, seq int64) ([]Event, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	evs, ok := m.streams[stream]
	if !ok {
		return nil, false, nil
	}
	if seq < 0 {
		seq = 0
	}
	if seq >= int64(len(evs)) {
		return nil, true, nil
	}
	return append([]Event(nil), evs[seq:]...), true, nil
}

// Drop implements EventStore.
func (m *MemoryStore) Drop(stream string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.streams, stream)
}
