package ssehttp

import (
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/session"
)

// SessionOf returns the session sid of s, or nil.
func SessionOf(s *Server, sid string) *session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.sessions[sid]; c != nil {
		return c.sess
	}
	return nil
}

// Held is what session sid of s holds, for tests: its unwritten messages
// and their bytes, and how many writers wait for room.
type Held struct{ Queued, Bytes, Waiting int }

// HeldBy reports what session sid of s holds; ok is false when there is
// no such session.
func HeldBy(s *Server, sid string) (h Held, ok bool) {
	s.mu.Lock()
	c := s.sessions[sid]
	s.mu.Unlock()
	if c == nil {
		return Held{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return Held{Queued: len(c.queue), Bytes: int(c.queueBytes), Waiting: c.waiting}, true
}

// Sessions returns how many sessions s has that have not ended: they hold
// a place of MaxSessions (one whose id is forgotten holds it until its
// handlers have returned).
func Sessions(s *Server) int { return s.quota.Live() }

// QueuedBy reports how many messages c holds for Read.
func QueuedBy(c *Client) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// SetRecordTTL sets how long the records of s's sessions live in its
// fleet's store unrenewed; call it before s serves a request.
func SetRecordTTL(s *Server, d time.Duration) { s.recordTTL = d }

// ServeRelayed serves r as a POST another instance of s's fleet carried
// to s for principal.
func ServeRelayed(s *Server, w http.ResponseWriter, r *http.Request, principal string) {
	s.serveRelayed(w, r, principal)
}

// Kill stops s as if its process had died: its tunnel stops, its streams
// end, and its sessions' records stay in the fleet's store.
func Kill(s *Server) {
	s.dead.Store(true)
	if s.tunnel != nil {
		s.tunnel.Close()
	}
	s.mu.Lock()
	s.closed = true
	list := make([]*conn, 0, len(s.sessions))
	for _, c := range s.sessions {
		list = append(list, c)
	}
	s.mu.Unlock()
	for _, c := range list {
		c.Close()
	}
	s.streams.Wait()
}
