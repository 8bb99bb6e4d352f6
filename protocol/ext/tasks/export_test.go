package tasks

import (
	"context"
	"time"
)

// FollowerSleeping returns a Follower that waits between polls with sleep
// instead of a timer, for tests that look at the intervals.
func FollowerSleeping(sleep func(ctx context.Context, d time.Duration) error) Follower {
	sl := sleeper(sleep)
	return Follower{sleep: &sl}
}

// Interval runs the poll interval rule on the pollIntervalMs given in
// turn (nil for none) and returns the interval after each.
func Interval(ms ...*int64) []time.Duration {
	var f following
	var out []time.Duration
	for _, m := range ms {
		f.setInterval(m)
		out = append(out, f.interval)
	}
	return out
}
