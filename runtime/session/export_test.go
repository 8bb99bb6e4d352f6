package session

import (
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

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

// NewProcessKey gives the default StateSealer a new random key, as a
// restart of the process would, and puts the previous one back when t
// ends. A test that calls it must not run in parallel with others that use
// the default sealer.
func NewProcessKey(t testing.TB) {
	prev := processSealer.Load()
	processSealer.Store(&reqSealer{&reqstate.Sealer{Ring: reqstate.NewEphemeralRing()}})
	t.Cleanup(func() { processSealer.Store(prev) })
}

// Answering returns how many answers of s wait to be written (or are
// being written): tests wait for it to know that an answer is blocked.
func Answering(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answering
}

// MaxParked is how many bytes of payloads the reader parks at most before
// it waits (see waitRoom).
const MaxParked = maxParked

// Parked returns the bytes of payloads parked by the reader of s.
func Parked(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parkedLen
}

// UnknownHint is unknownHint, which says what to do about a revision the
// binary does not link (every test binary of the package links them all).
var UnknownHint = unknownHint

var PayloadStart = payloadStart

// HasExtensions is hasExtensions, for the tests.
var HasExtensions = hasExtensions

// CountScans counts, until t ends, the scans of a stateless request's
// params (ScanParams and every other) and the digests of them that bind a
// requestState, in the whole process. A test that calls it must not run in
// parallel with others that serve stateless requests.
func CountScans(t testing.TB) (scans, digests *atomic.Int64) {
	scans, digests = new(atomic.Int64), new(atomic.Int64)
	scanCount.Store(scans)
	digestCount.Store(digests)
	t.Cleanup(func() {
		scanCount.Store(nil)
		digestCount.Store(nil)
	})
	return scans, digests
}
