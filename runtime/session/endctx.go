package session

import (
	"context"
	"sync"
	"time"
)

// endCtx is a context that the session ends itself: its lifetime
// (Session.life) or its reading (Session.reading). It is a field of the
// Session, not an allocation of its own, and makes its Done channel only
// when one is asked for: an idle session pays for neither, where
// context.WithCancel would cost a context, a cancel function, a channel
// and a table of children that stays once the children are done.
//
// It implements the AfterFunc method the context package looks for, so
// contexts derived from it (context.WithTimeout, say) are cancelled with it
// without a goroutine each.
type endCtx struct {
	mu    sync.Mutex
	done  chan struct{} // made by the first Done, or closed at cancel
	after *endAfter     // the functions of AfterFunc, the latest first
	ended bool
}

// endAfter is a function of endCtx.AfterFunc, in a list: a list head
// keeps the Session smaller than a slice would.
type endAfter struct {
	f    func()
	next *endAfter
}

var _ context.Context = (*endCtx)(nil)

// Deadline implements context.Context: it has no deadline.
func (c *endCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done implements context.Context.
func (c *endCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.ended {
			close(c.done)
		}
	}
	return c.done
}

// Err implements context.Context.
func (c *endCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return context.Canceled
	}
	return nil
}

// Value implements context.Context: it carries no value.
func (c *endCtx) Value(any) any { return nil }

// AfterFunc arranges for f to run in its own goroutine once c is cancelled
// (at once if it is already), as context.AfterFunc does; stop unregisters it
// and reports whether that kept f from running.
func (c *endCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	a := &endAfter{f: f, next: c.after}
	c.after = a
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for p := &c.after; *p != nil; p = &(*p).next {
			if *p == a {
				*p = a.next
				return true
			}
		}
		return false
	}
}

// cancel cancels c with context.Canceled; later calls do nothing.
func (c *endCtx) cancel() {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	if c.done != nil {
		close(c.done)
	}
	after := c.after
	c.after = nil
	c.mu.Unlock()
	for ; after != nil; after = after.next {
		go after.f()
	}
}
