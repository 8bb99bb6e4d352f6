package session

// BeginShutdown starts ending s as end of input does, without waiting for
// it to end: tests use it to send a request to a session that is draining.
func BeginShutdown(s *Session) { s.shutdown(nil) }

// LearnTools feeds a tools/list result to a fresh client tool check and
// returns what it found unusable.
func LearnTools(res []byte) map[string]error {
	var tc toolCheck
	tc.learn(res, func(string, ...any) {})
	return tc.unusable()
}
