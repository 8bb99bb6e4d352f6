package session

// BeginShutdown starts ending s as end of input does, without waiting for
// it to end: tests use it to send a request to a session that is draining.
func BeginShutdown(s *Session) { s.shutdown(nil) }
