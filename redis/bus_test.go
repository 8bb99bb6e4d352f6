package redis_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// waitTimeout bounds every wait for an event in these tests.
const waitTimeout = 10 * time.Second

// collector records the events a subscriber is given.
type collector struct {
	mu     sync.Mutex
	evs    []session.Event
	notify chan struct{}
}

func newCollector() *collector { return &collector{notify: make(chan struct{}, 1)} }

func (c *collector) add(ev session.Event) {
	c.mu.Lock()
	c.evs = append(c.evs, ev)
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *collector) events() []session.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.evs)
}

// waitFor waits until the last event received is last, and returns all.
func (c *collector) waitFor(t *testing.T, last session.Event) []session.Event {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		evs := c.events()
		if n := len(evs); n > 0 && sameEvent(evs[n-1], last) {
			return evs
		}
		select {
		case <-c.notify:
		case <-deadline:
			t.Fatalf("event %+v not received within %v; received %d: %+v", last, waitTimeout, len(evs), evs)
		}
	}
}

func sameEvent(a, b session.Event) bool {
	return a.Method == b.Method && a.URI == b.URI && bytes.Equal(a.Data, b.Data)
}

// syncBuffer is a log destination safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newBus returns a Bus of the fleet "test" on srv, closed at the end.
func newBus(t *testing.T, srv *redistest.Server, log *syncBuffer) *redis.Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	var opts redis.BusOptions
	if log != nil {
		opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	}
	b, err := redis.NewBus(ctx, srv.Client(), "test", opts)
	if err != nil {
		t.Fatalf("NewBus: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBusFanOut(t *testing.T) {
	srv := redistest.Start(t)
	buses := []*redis.Bus{newBus(t, srv, nil), newBus(t, srv, nil)}
	tests := []struct {
		name string
		from int // the instance that publishes
		ev   session.Event
	}{
		{name: "list changed from A", from: 0, ev: session.Event{Method: session.ToolsListChanged}},
		{name: "resource updated from B", from: 1, ev: session.Event{Method: session.ResourceUpdated, URI: "file:///a.txt"}},
		{name: "extension data from A", from: 0, ev: session.Event{Method: "notifications/tasks", Data: jsontext.Value(`{"taskId":"t1","status":"working"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cols := make([]*collector, len(buses))
			for i, b := range buses {
				cols[i] = newCollector()
				cancel := b.Subscribe(cols[i].add)
				defer cancel()
			}
			buses[tt.from].Publish(tt.ev)
			// A sentinel from the other instance: when it has arrived
			// everywhere, so has any echo of the event.
			sentinel := session.Event{Method: session.PromptsListChanged, URI: "sentinel:" + tt.name}
			other := buses[1-tt.from]
			cols[1-tt.from].waitFor(t, tt.ev)
			other.Publish(sentinel)
			for i, c := range cols {
				got := c.waitFor(t, sentinel)
				if len(got) != 2 || !sameEvent(got[0], tt.ev) {
					t.Errorf("instance %d received %+v, want %+v once, then the sentinel", i, got, tt.ev)
				}
			}
		})
	}
}

func TestBusOrderPerPublisher(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newBus(t, srv, nil), newBus(t, srv, nil)
	tests := []struct {
		name string
		n    int
	}{
		{name: "one", n: 1},
		{name: "500", n: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ca, cb := newCollector(), newCollector()
			defer a.Subscribe(ca.add)()
			defer b.Subscribe(cb.add)()
			var want []session.Event
			for i := range tt.n {
				ev := session.Event{Method: session.ResourceUpdated, URI: fmt.Sprintf("file:///%s/%d", tt.name, i)}
				want = append(want, ev)
				a.Publish(ev)
			}
			if got := cb.waitFor(t, want[len(want)-1]); !slices.EqualFunc(got, want, sameEvent) {
				t.Fatalf("B received %d events, want the %d A published in order; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
			sentinel := session.Event{Method: session.ToolsListChanged, URI: "sentinel"}
			b.Publish(sentinel)
			if got := ca.waitFor(t, sentinel); !slices.EqualFunc(got, append(want, sentinel), sameEvent) {
				t.Fatalf("A received %d events, want its own %d once each, in order, then the sentinel; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(got, want []session.Event) int {
	for i := range min(len(got), len(want)) {
		if !sameEvent(got[i], want[i]) {
			return i
		}
	}
	return min(len(got), len(want))
}

func TestBusClose(t *testing.T) {
	srv := redistest.Start(t)
	a, b, c := newBus(t, srv, nil), newBus(t, srv, nil), newBus(t, srv, nil)
	ca, cc := newCollector(), newCollector()
	a.Subscribe(ca.add)
	c.Subscribe(cc.add)
	first := session.Event{Method: session.ToolsListChanged}
	b.Publish(first)
	ca.waitFor(t, first)
	cc.waitFor(t, first)
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	a.Publish(session.Event{Method: session.PromptsListChanged}) // does nothing
	late := session.Event{Method: session.ResourcesListChanged}
	b.Publish(late)
	if got := cc.waitFor(t, late); len(got) != 2 {
		t.Errorf("the open instance received %+v, want the two events of B only (nothing from the closed one)", got)
	}
	if got := ca.events(); len(got) != 1 {
		t.Errorf("the closed instance's subscriber received %+v, want only the event before Close", got)
	}
}

func TestBusMalformedMessages(t *testing.T) {
	srv := redistest.Start(t)
	var log syncBuffer
	a, b := newBus(t, srv, &log), newBus(t, srv, nil)
	ca := newCollector()
	a.Subscribe(ca.add)
	raw := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	tests := []struct {
		name, msg, logged string
	}{
		{name: "not JSON", msg: "hello", logged: "not an event object"},
		{name: "other version", msg: `{"v":2,"origin":"x","method":"m"}`, logged: "version 2"},
		{name: "no method", msg: `{"v":1,"origin":"x"}`, logged: "/method"},
		{name: "no origin", msg: `{"v":1,"method":"m"}`, logged: "/origin"},
		{name: "wrong type", msg: `{"v":1,"origin":"x","method":7}`, logged: "not an event object"},
		{name: "too big", msg: strings.Repeat(" ", redis.MaxEventBytes+1), logged: "more than MaxEventBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := raw.Publish(ctx, "test:bus", tt.msg).Err(); err != nil {
				t.Fatalf("PUBLISH: %v", err)
			}
			next := session.Event{Method: session.ResourceUpdated, URI: "after:" + tt.name}
			b.Publish(next)
			got := ca.waitFor(t, next)
			for _, ev := range got {
				if !strings.HasPrefix(ev.URI, "after:") {
					t.Errorf("a malformed message was delivered as %+v", ev)
				}
			}
			if !strings.Contains(log.String(), tt.logged) {
				t.Errorf("log has no %q:\n%s", tt.logged, log.String())
			}
		})
	}
	if strings.Contains(log.String(), "hello") {
		t.Errorf("the log holds a message's content:\n%s", log.String())
	}
}

func TestBusRedisRestarted(t *testing.T) {
	srv := redistest.Start(t)
	var log syncBuffer
	a, b := newBus(t, srv, &log), newBus(t, srv, nil)
	ca := newCollector()
	a.Subscribe(ca.add)
	srv.Restart()
	// Until both have reconnected, an event may be lost (Pub/Sub is at
	// most once): publish one a round until one arrives, bounded.
	deadline := time.After(waitTimeout)
	for i := 0; ; i++ {
		ev := session.Event{Method: session.ResourceUpdated, URI: fmt.Sprintf("after-restart:%d", i)}
		b.Publish(ev)
		select {
		case <-ca.notify:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no event arrived within %v of the restart; log:\n%s", waitTimeout, log.String())
		}
		if len(ca.events()) > 0 {
			break
		}
	}
	if !strings.Contains(log.String(), "subscribed again") {
		t.Errorf("the lost connection is not logged:\n%s", log.String())
	}
}

func TestNewBusErrors(t *testing.T) {
	srv := redistest.Start(t)
	stopped := redistest.Start(t)
	stopped.Stop()
	tests := []struct {
		name   string
		prefix string
		opts   redis.BusOptions
		srv    *redistest.Server
		want   string
	}{
		{name: "empty prefix", prefix: "", srv: srv, want: "prefix is empty"},
		{name: "negative buffer", prefix: "p", opts: redis.BusOptions{Buffer: -1}, srv: srv, want: "Buffer is -1"},
		{name: "Redis away", prefix: "p", srv: stopped, want: `subscribe to channel "p:bus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			b, err := redis.NewBus(ctx, tt.srv.Client(), tt.prefix, tt.opts)
			if err == nil {
				b.Close()
				t.Fatal("NewBus succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewBus: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestBusCheck: Check tells whether the Bus hears the other instances:
// nil while Redis is up, an error naming the channel while it is away
// (returned before the context ends), nil again once it is back (the
// subscription restored, the same Bus hearing other instances again), and
// an error after Close.
func TestBusCheck(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newBus(t, srv, nil), newBus(t, srv, nil)
	check := func(t *testing.T) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		err := a.Check(ctx)
		if ctx.Err() != nil {
			t.Fatalf("Check did not return before its context ended: %v", err)
		}
		return err
	}
	steps := []struct {
		name   string
		before func()
		err    string // in Check's error; "" for none
	}{
		{name: "up"},
		{name: "Redis away", before: srv.Stop, err: `redis bus: the subscription to channel "test:bus" is down`},
		{name: "Redis back", before: srv.Restart},
		{name: "closed", before: func() { a.Close() }, err: "redis bus: closed"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.before != nil {
				st.before()
			}
			err := check(t)
			switch {
			case st.err == "" && err != nil:
				t.Fatalf("Check: %v, want nil", err)
			case st.err != "" && (err == nil || !strings.Contains(err.Error(), st.err)):
				t.Fatalf("Check: %v, want an error saying %q", err, st.err)
			}
			if st.name != "Redis back" {
				return
			}
			// Subscribed again: b's events reach a (published until one
			// does, at most 100 times: b may not have reconnected yet).
			col := newCollector()
			cancel := a.Subscribe(col.add)
			defer cancel()
			ev := session.Event{Method: session.ResourceUpdated, URI: "file:///back"}
			for try := 0; len(col.events()) == 0; try++ {
				if try == 100 {
					t.Fatal("no event of the other instance reached the Bus after Redis came back, in 100 tries")
				}
				b.Publish(ev)
				select {
				case <-col.notify:
				case <-time.After(100 * time.Millisecond):
				}
			}
		})
	}
}
