package ssehttp

import "github.com/mcpgen/mcpgen/runtime/session"

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
