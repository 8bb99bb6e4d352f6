package streamhttp

import (
	"strings"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The handlers of this package's internal tests: an empty StandardServer
// of 2025-11-25 (a new one for each call) and the Handler method of one
// of 2026-07-28. handlers_test.go, an external test file, sets them: the
// revision packages import this package, so its internal tests cannot.
var (
	NewTestHandler       func() session.Handler
	NewModernTestHandler func() session.Handler
)

// SetWriteHook makes the Write of the sessions of s call hook with its
// data after its first look at whether the session has ended, before it
// takes the session's lock. Set it before any session starts.
func SetWriteHook(s *Server, hook func(data []byte)) { s.testHookWrite = hook }

// TransportOf returns the transport of session sid of s, or nil.
func TransportOf(s *Server, sid string) transport.Transport {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.sessions[sid]; c != nil {
		return c
	}
	return nil
}

// Held is what a session of s holds, for tests: its SSE streams, the
// events and bytes its streams keep in the MemoryStore, how many of its
// writers wait for room, its events not sent yet, its SSE connections, and
// the streams it retains and the bytes they count (see
// ServerOptions.SessionRetentionBytes).
type Held struct {
	Streams, Events, Bytes, Waiting, Unsent, Attached int
	Retained                                          int
	RetainedBytes                                     int64
}

// HeldBy reports what session sid of s holds; ok is false when s has no
// such session or its store is not a MemoryStore (or a test's wrapper of
// one, with a method Memory() *MemoryStore).
func HeldBy(s *Server, sid string) (h Held, ok bool) {
	s.mu.Lock()
	c := s.sessions[sid]
	s.mu.Unlock()
	m, isMem := s.store.(*MemoryStore)
	if w, ok := s.store.(interface{ Memory() *MemoryStore }); ok {
		m, isMem = w.Memory(), true // a test's wrapper
	}
	if c == nil || !isMem {
		return Held{}, false
	}
	c.mu.Lock()
	h.Streams = len(c.streams)
	h.Waiting = c.waiting
	h.Unsent = int(c.unsentEvents)
	h.Attached = c.attached
	h.Retained = len(c.finished)
	h.RetainedBytes = c.retained
	c.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, ms := range m.streams {
		if !strings.HasPrefix(id, sid+"-") {
			continue
		}
		for _, ev := range ms.evs {
			h.Events++
			h.Bytes += len(ev.Data)
		}
	}
	return h, true
}

// Retained reports the streams the sessions of s retain and the bytes
// they count (see ServerOptions.ServerRetentionBytes), for tests.
func Retained(s *Server) (streams int, bytes int64) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.retained.Len(), s.retainedBytes
}

// StreamOverhead is what a retained stream counts besides its events.
const StreamOverhead = streamOverhead

// Queued is what a Client holds for Read, for tests: the payloads and
// their bytes, and how many stream readers wait for room.
type Queued struct {
	Payloads, Bytes, Waiting int
}

// QueuedBy reports what c holds for Read.
func QueuedBy(c *Client) Queued {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.conn
	q := Queued{Payloads: len(g.queue), Waiting: g.waiting}
	for _, p := range g.queue {
		q.Bytes += len(p)
	}
	return q
}

// Kill makes s stop as an instance that dies does: it no longer listens
// in its fleet, and its sessions end without ending their records or
// their GET streams' events, nor telling their clients: what another
// instance needs to carry them on stays in the fleet's stores.
func Kill(s *Server) {
	if s.tunnel != nil {
		s.tunnel.Close()
	}
	s.mu.Lock()
	for _, c := range s.sessions {
		c.handedOver.Store(true)
	}
	s.mu.Unlock()
	s.Close()
}

// Owns reports whether session sid lives on s.
func Owns(s *Server, sid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sid] != nil
}
