package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Subscription is an open subscriptions/listen stream of a client of the
// stateless era (see
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
// The server's notifications on it (the list
// changes and resource updates the filter asked for) reach the client's
// handler like any other notification, and drop the cached results they
// concern.
type Subscription struct {
	s      *Session
	id     wire.ID
	cancel context.CancelFunc

	ackOnce sync.Once
	acked   chan struct{}
	ack     jsontext.Value // the acknowledged filter

	done chan struct{}
	err  error // why the stream ended; nil for a graceful end by the server
}

// Listen sends subscriptions/listen with params (a
// SubscriptionsListenRequestParams: the notifications wanted) and returns
// once the server acknowledged it, with the subset it granted in
// Acknowledged. The subscription lasts until ctx ends, Close is called, the
// server ends it or the connection drops; Done tells when, Err why.
// It is not bound by Options.CallTimeout.
//
// Listen needs a session in the stateless era (Era() == EraModern); on a
// legacy session the handler hears of list changes without asking, and of
// resource updates after resources/subscribe.
func (s *Session) Listen(ctx context.Context, params wire.Appender) (*Subscription, error) {
	if s.Era() != EraModern {
		return nil, errors.New("subscriptions/listen: the session is not in the stateless era (use resources/subscribe on a legacy session)")
	}
	s.mu.Lock()
	mc := s.mc
	s.mu.Unlock()
	lctx, cancel := context.WithCancel(ctx)
	sub := &Subscription{s: s, cancel: cancel, acked: make(chan struct{}), done: make(chan struct{})}
	listen := func(ctx context.Context, params wire.Appender, sent func(wire.ID)) (jsontext.Value, error) {
		if params != nil {
			raw, err := encodeParams(params, mc)
			if err != nil {
				return nil, fmt.Errorf("subscriptions/listen params: %w", err)
			}
			params = rawAppender(raw)
		}
		return s.call(ctx, "subscriptions/listen", params, callOptions{noLimit: true, onID: func(id wire.ID) {
			s.mu.Lock()
			if s.listens == nil {
				s.listens = map[wire.ID]*Subscription{}
			}
			sub.id = id
			s.listens[id] = sub
			s.mu.Unlock()
			if sent != nil {
				sent(id)
			}
		}})
	}
	var r *Request
	if s.mw != nil {
		raw, err := s.appendParams("subscriptions/listen", params)
		if err != nil {
			cancel()
			return nil, err
		}
		r = &Request{Method: "subscriptions/listen", Params: raw, Outgoing: true, Revision: s.Revision(), Era: EraModern, Session: s}
		r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
			return listen(ctx, paramsOf(r.Params), func(id wire.ID) { r.ID = id })
		}
	}
	go func() {
		defer close(sub.done)
		var err error
		if r != nil {
			// The middleware sees the whole subscription as one request,
			// from its start until the stream ends.
			_, err = through(lctx, s.mw, r, s.log)
		} else {
			_, err = listen(lctx, params, nil)
		}
		s.mu.Lock()
		if s.listens[sub.id] == sub {
			delete(s.listens, sub.id)
		}
		s.mu.Unlock()
		sub.err = err
	}()
	select {
	case <-sub.acked:
		return sub, nil
	case <-sub.done:
		if sub.err == nil {
			sub.err = errors.New("subscriptions/listen: the server ended the subscription before acknowledging it")
		}
		return nil, sub.err
	case <-ctx.Done():
		cancel()
		<-sub.done
		return nil, fmt.Errorf("subscriptions/listen: %w", ctx.Err())
	}
}

// Acknowledged returns the notifications filter the server granted, as raw
// JSON (a SubscriptionFilter).
func (sub *Subscription) Acknowledged() jsontext.Value { return sub.ack }

// Done is closed when the subscription has ended.
func (sub *Subscription) Done() <-chan struct{} { return sub.done }

// Err returns why the subscription ended once Done is closed: nil when the
// server ended it gracefully, the context's error after Close or the end of
// the context given to Listen, another error when the connection dropped.
func (sub *Subscription) Err() error {
	select {
	case <-sub.done:
		return sub.err
	default:
		return nil
	}
}

// Close ends the subscription (on stdio with notifications/cancelled, over
// HTTP by closing the stream) and waits until it has ended.
func (sub *Subscription) Close() error {
	sub.cancel()
	<-sub.done
	return nil
}

// acknowledge records the server's acknowledgement of a listen stream.
func (s *Session) acknowledge(params jsontext.Value) {
	meta, _ := wire.Member(params, "_meta")
	raw, ok := wire.Member(meta, MetaSubscriptionID)
	if !ok {
		return
	}
	var id wire.ID
	if wire.Unmarshal(raw, &id) != nil {
		return
	}
	s.mu.Lock()
	sub := s.listens[id]
	s.mu.Unlock()
	if sub == nil {
		return
	}
	sub.ackOnce.Do(func() {
		sub.ack, _ = wire.Member(params, "notifications")
		sub.ack = cloneValue(sub.ack)
		close(sub.acked)
	})
}
