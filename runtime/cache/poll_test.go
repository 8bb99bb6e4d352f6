package cache

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestBackoffNext(t *testing.T) {
	fixed := func(f float64) func() float64 { return func() float64 { return f } }
	tests := []struct {
		name    string
		b       Backoff
		ttl     time.Duration
		attempt int
		want    time.Duration
	}{
		{"ttl is the base", Backoff{Rand: fixed(0)}, 10 * time.Second, 0, 10 * time.Second},
		{"short ttl raised to Min", Backoff{Rand: fixed(0)}, 0, 0, time.Second},
		{"negative ttl raised to Min", Backoff{Rand: fixed(0)}, -time.Hour, 0, time.Second},
		{"custom Min", Backoff{Min: 5 * time.Second, Rand: fixed(0)}, time.Second, 0, 5 * time.Second},
		{"doubles", Backoff{Rand: fixed(0)}, 10 * time.Second, 3, 80 * time.Second},
		{"negative attempt is 0", Backoff{Rand: fixed(0)}, 10 * time.Second, -4, 10 * time.Second},
		{"capped at Max", Backoff{Rand: fixed(0)}, 10 * time.Minute, 3, time.Hour},
		{"custom Max", Backoff{Max: time.Minute, Rand: fixed(0)}, 10 * time.Second, 10, time.Minute},
		{"huge attempt", Backoff{Rand: fixed(0)}, time.Second, math.MaxInt, time.Hour},
		{"ttl beyond Max is the cap", Backoff{Rand: fixed(0)}, 3 * time.Hour, 5, 3 * time.Hour},
		{"jitter half by default", Backoff{Rand: fixed(0.5)}, 10 * time.Second, 0, 12500 * time.Millisecond},
		{"jitter near its top", Backoff{Rand: fixed(0.999)}, 10 * time.Second, 1, 20*time.Second + 9990*time.Millisecond},
		{"custom jitter", Backoff{Jitter: 0.1, Rand: fixed(0.5)}, 10 * time.Second, 0, 10500 * time.Millisecond},
		{"jitter after the cap", Backoff{Max: time.Minute, Rand: fixed(0.5)}, time.Second, 20, 75 * time.Second},
		{"out-of-range draw is 0", Backoff{Rand: fixed(7)}, 10 * time.Second, 0, 10 * time.Second},
		{"NaN draw is 0", Backoff{Rand: fixed(math.NaN())}, 10 * time.Second, 0, 10 * time.Second},
		{"NaN jitter is the default", Backoff{Jitter: math.NaN(), Rand: fixed(0.5)}, 10 * time.Second, 0, 12500 * time.Millisecond},
		{"infinite jitter saturates", Backoff{Jitter: math.Inf(1), Rand: fixed(0.5)}, 10 * time.Second, 0, math.MaxInt64},
		{"infinite jitter, zero draw", Backoff{Jitter: math.Inf(1), Rand: fixed(0)}, 10 * time.Second, 0, 10 * time.Second},
		{"maximal ttl saturates", Backoff{Rand: fixed(0.5)}, math.MaxInt64, 3, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Next(tt.ttl, tt.attempt); got != tt.want {
				t.Errorf("Next(%v, %d) = %v, want %v", tt.ttl, tt.attempt, got, tt.want)
			}
		})
	}
}

// TestNextPollJitter draws many delays with a seeded source and checks that
// they stay within the documented range and are spread over it.
func TestNextPollJitter(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	b := Backoff{Rand: src.Float64}
	const ttl = 30 * time.Second
	for attempt := range 4 {
		lo := ttl << attempt
		hi := lo + lo/2
		seen := map[time.Duration]bool{}
		var below, above int
		for range 200 {
			d := b.Next(ttl, attempt)
			if d < lo || d >= hi {
				t.Fatalf("attempt %d: delay %v outside [%v, %v)", attempt, d, lo, hi)
			}
			seen[d] = true
			if d < lo+lo/4 {
				below++
			} else {
				above++
			}
		}
		// 200 draws from a uniform spread fall on both halves and rarely
		// repeat; a missing jitter gives one value.
		if len(seen) < 150 || below < 50 || above < 50 {
			t.Errorf("attempt %d: %d distinct delays, %d in the lower half, %d in the upper", attempt, len(seen), below, above)
		}
	}
	// The default source, through NextPoll, stays in range too.
	for range 50 {
		if d := NextPoll(ttl, 2); d < 4*ttl || d >= 6*ttl {
			t.Fatalf("NextPoll(%v, 2) = %v, outside [%v, %v)", ttl, d, 4*ttl, 6*ttl)
		}
	}
}
