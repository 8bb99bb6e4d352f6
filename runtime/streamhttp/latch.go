package streamhttp

import (
	"sync"
	"sync/atomic"
)

// latch is a signal set once, like a channel that is closed once, whose
// channel is made only when something waits on it: a session that nothing
// waits on (an idle one) holds none.
type latch struct {
	set atomic.Bool
	mu  sync.Mutex
	ch  chan struct{} // made by the first wait; closed by fire
}

// isSet reports whether fire was called.
func (l *latch) isSet() bool { return l.set.Load() }

// wait returns a channel that is closed once fire is called (at once if it
// was).
func (l *latch) wait() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ch == nil {
		l.ch = make(chan struct{})
		if l.set.Load() {
			close(l.ch)
		}
	}
	return l.ch
}

// fire sets l and wakes whatever waits on it; it is called once.
func (l *latch) fire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set.Swap(true) {
		return
	}
	if l.ch != nil {
		close(l.ch)
	}
}
