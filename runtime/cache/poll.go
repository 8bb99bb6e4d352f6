package cache

import (
	"math"
	"math/rand/v2"
	"time"
)

// The defaults of Backoff.
const (
	DefaultPollMin    = time.Second
	DefaultPollMax    = time.Hour
	DefaultPollJitter = 0.5
)

// Backoff computes the delays of a client that polls a cacheable result. The
// ttlMs of a result is a hint, not a polling interval: a client that polls
// anyway must add jitter and backoff, so that many clients do not
// re-fetch together and an unchanged or failing server is asked ever less
// often. The zero value uses the defaults.
type Backoff struct {
	// Min is the shortest base delay, used when the TTL is shorter; 0 or
	// less means DefaultPollMin.
	Min time.Duration
	// Max caps the growth of the delay; a TTL longer than Max is the cap
	// instead, so that a client never polls before the TTL ends. 0 or less
	// means DefaultPollMax.
	Max time.Duration
	// Jitter is the most a delay is lengthened at random, as a fraction of
	// it; 0 or less means DefaultPollJitter.
	Jitter float64
	// Rand returns a random number in [0, 1); nil means math/rand/v2's
	// Float64. Tests inject a fixed sequence here.
	Rand func() float64
}

// Next returns the delay before poll number attempt (0 for the first, 1
// after one poll that found nothing new or failed, and so on; negative is
// 0) of a result whose TTL is ttl:
//
//	base  = max(ttl, Min)
//	delay = min(base × 2^attempt, max(Max, base))
//	Next  = delay + delay × Jitter × Rand()
//
// so it is never shorter than the TTL nor than Min, doubles with every
// attempt until the cap, and is spread at random over [delay, delay ×
// (1+Jitter)). A result beyond the range of time.Duration is its maximum.
func (b Backoff) Next(ttl time.Duration, attempt int) time.Duration {
	lo, hi, jitter := b.Min, b.Max, b.Jitter
	if lo <= 0 {
		lo = DefaultPollMin
	}
	if hi <= 0 {
		hi = DefaultPollMax
	}
	if jitter <= 0 || math.IsNaN(jitter) {
		jitter = DefaultPollJitter
	}
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	base := max(ttl, lo)
	limit := max(hi, base)
	delay := base
	// At most 63 doublings take any positive duration past the cap.
	for i := 0; i < attempt && delay < limit; i++ {
		if delay > limit/2 {
			delay = limit
			break
		}
		delay *= 2
	}
	delay = min(delay, limit)
	f := r()
	if f < 0 || f >= 1 || math.IsNaN(f) {
		f = 0
	}
	out := float64(delay) * (1 + jitter*f)
	if math.IsNaN(out) { // an infinite Jitter times a zero draw
		return delay
	}
	if out >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(out)
}

// NextPoll is Backoff{}.Next(ttl, attempt): the delay before poll number
// attempt of a result whose TTL is ttl, at least max(ttl, 1s), doubled with
// every attempt up to max(1h, ttl), and lengthened by up to half at random.
func NextPoll(ttl time.Duration, attempt int) time.Duration {
	return Backoff{}.Next(ttl, attempt)
}
