package session

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// handlerCtx is the context a request's handler runs with: it carries the
// request (see FromContext, RequestID, ReportProgress) and is cancelled by
// the session, when the peer cancels the request or the session ends. It is
// one allocation where context.WithCancel and a value would take several,
// and it is not registered with a parent: the session cancels every request
// in flight itself.
//
// It implements the AfterFunc method the context package looks for, so
// contexts derived from it (context.WithTimeout, say) are cancelled with it
// without a goroutine each.
type handlerCtx struct {
	info requestInfo

	mu    sync.Mutex
	done  chan struct{} // made by the first Done, or closed at cancel
	state ctxState      // not an error value: c stays within 128 bytes
	after []*afterFunc
}

// ctxState is whether and why a handlerCtx was cancelled.
type ctxState uint8

const (
	ctxLive ctxState = iota
	ctxCancelled
	ctxCancelledByPeer // by notifications/cancelled: no answer
)

type afterFunc struct{ f func() }

var _ context.Context = (*handlerCtx)(nil)

func newHandlerCtx(s *Session, id, token wire.ID) *handlerCtx {
	return &handlerCtx{info: requestInfo{s: s, id: id, token: token}}
}

// Deadline implements context.Context: a handler has no deadline.
func (c *handlerCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done implements context.Context.
func (c *handlerCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.state != ctxLive {
			close(c.done)
		}
	}
	c.linkLocked()
	return c.done
}

// Err implements context.Context.
func (c *handlerCtx) Err() error {
	c.mu.Lock()
	live := c.state == ctxLive
	c.mu.Unlock()
	if live {
		if mi := c.info.mod(); mi == nil || mi.parent == nil || mi.parent.Err() == nil {
			return nil
		}
		c.cancel()
	}
	return context.Canceled
}

// linkLocked makes c cancelled with the context a stateless request was
// served with (its HTTP request's, see Stateless.Serve) the first time
// anything watches c for cancellation: a handler that never does costs no
// registration with that context. c.mu is held.
func (c *handlerCtx) linkLocked() {
	mi := c.info.mod()
	if mi == nil || mi.parent == nil || mi.unlink != nil || c.state != ctxLive {
		return
	}
	mi.unlink = context.AfterFunc(mi.parent, c.cancel)
}

// unlink undoes linkLocked, once c is cancelled.
func (c *handlerCtx) unlink() {
	c.mu.Lock()
	var stop func() bool
	if mi := c.info.mod(); mi != nil {
		stop, mi.unlink = mi.unlink, func() bool { return false }
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Value implements context.Context.
func (c *handlerCtx) Value(key any) any { return c.info.value(key) }

// AfterFunc arranges for f to run in its own goroutine once c is cancelled
// (at once if it is already), as context.AfterFunc does; stop unregisters it
// and reports whether that kept f from running.
func (c *handlerCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.state != ctxLive {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.after = append(c.after, a)
	c.linkLocked()
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if i := slices.Index(c.after, a); i >= 0 {
			c.after = slices.Delete(c.after, i, i+1)
			return true
		}
		return false
	}
}

// cancel cancels c with context.Canceled; later calls do nothing.
func (c *handlerCtx) cancel() { c.cancelFor(ctxCancelled) }

// cancelByPeer cancels c because the peer cancelled the request, which
// then gets no answer.
func (c *handlerCtx) cancelByPeer() { c.cancelFor(ctxCancelledByPeer) }

// cancelledByPeer reports whether c was cancelled by cancelByPeer.
func (c *handlerCtx) cancelledByPeer() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == ctxCancelledByPeer
}

func (c *handlerCtx) cancelFor(why ctxState) {
	c.mu.Lock()
	if c.state != ctxLive {
		c.mu.Unlock()
		return
	}
	c.state = why
	if c.done != nil {
		close(c.done)
	}
	after := c.after
	c.after = nil
	c.mu.Unlock()
	for _, a := range after {
		go a.f()
	}
}
