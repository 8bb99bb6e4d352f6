package dpop

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ReplayCache remembers the proofs a Verifier accepted, so that none is
// accepted twice (RFC 9449 section 11.1,
// https://www.rfc-editor.org/rfc/rfc9449#section-11.1).
type ReplayCache interface {
	// Seen records key until the time until, and reports whether it was
	// recorded already (a replay). key identifies one proof: a digest of
	// its jti and of its key's thumbprint, 64 hexadecimal digits. It must
	// record and test at once (atomically across a fleet). An error means
	// the proof cannot be checked now: the request is refused, to be
	// tried again, never let through.
	Seen(ctx context.Context, key string, until time.Time) (bool, error)
}

// DefaultReplayCacheSize is the size of a Verifier's default ReplayCache.
const DefaultReplayCacheSize = 100_000

// ErrReplayCacheFull is the error of a MemoryReplayCache that holds as
// many proofs as it may, none of them expired: the proof cannot be
// checked until some expire (a window later at most).
var ErrReplayCacheFull = errors.New("the DPoP replay cache is full")

// MemoryReplayCache is a ReplayCache in memory, for one server, bounded:
// when it is full of proofs that are not expired it refuses new ones
// (ErrReplayCacheFull) rather than forget one that may be replayed. Only
// proofs that passed every other check reach it. It is safe for
// concurrent use.
type MemoryReplayCache struct {
	size int
	now  func() time.Time

	mu    sync.Mutex
	seen  map[string]time.Time
	sweep time.Time // no entry expires before then
}

// NewMemoryReplayCache returns a MemoryReplayCache of at most size proofs
// (DefaultReplayCacheSize when size <= 0).
func NewMemoryReplayCache(size int) *MemoryReplayCache {
	if size <= 0 {
		size = DefaultReplayCacheSize
	}
	return &MemoryReplayCache{size: size, now: time.Now, seen: map[string]time.Time{}}
}

// Seen implements ReplayCache.
func (c *MemoryReplayCache) Seen(_ context.Context, key string, until time.Time) (bool, error) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.seen[key]; ok && now.Before(t) {
		return true, nil
	}
	if len(c.seen) >= c.size && !now.Before(c.sweep) {
		c.sweepLocked(now)
	}
	if _, ok := c.seen[key]; !ok && len(c.seen) >= c.size {
		return false, ErrReplayCacheFull
	}
	c.seen[key] = until
	if len(c.seen) == 1 || until.Before(c.sweep) {
		c.sweep = until
	}
	return false, nil
}

// sweepLocked drops the expired entries and notes when the next one
// expires. c.mu is held.
func (c *MemoryReplayCache) sweepLocked(now time.Time) {
	var next time.Time
	for k, t := range c.seen {
		if !now.Before(t) {
			delete(c.seen, k)
		} else if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	c.sweep = next
}

// Len returns the number of proofs held, expired ones included until they
// are swept.
func (c *MemoryReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}
