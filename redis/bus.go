package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/session"
	goredis "github.com/redis/go-redis/v9"
)

// DefaultBusBuffer is the number of events a Bus holds in each direction
// when BusOptions.Buffer is 0.
const DefaultBusBuffer = 1024

// MaxEventBytes bounds the encoded size of an event on the channel: a
// larger event is not sent to the other instances (Publish logs it), and a
// larger message received is dropped.
const MaxEventBytes = 1 << 20

// busVersion is the version of the form of the events on the channel.
const busVersion = 1

// closeTimeout bounds the time Close spends sending the events still
// queued.
const closeTimeout = 5 * time.Second

// BusOptions configures a Bus. The zero value is ready to use.
type BusOptions struct {
	// Buffer bounds the events the Bus holds in each direction: published
	// here and not yet sent to Redis, and received from Redis and not yet
	// delivered. Past it an event is dropped (and logged), so that a Redis
	// that is slow or away costs a bounded amount of memory. 0 means
	// DefaultBusBuffer.
	Buffer int
	// Logger receives what goes wrong: events not sent to or dropped
	// before the other instances, malformed messages on the channel, the
	// subscription restored after a lost connection. Events and messages
	// themselves are never logged. nil means no logging.
	Logger *slog.Logger
}

// Bus is a session.Bus shared by the instances of a fleet over Redis
// Pub/Sub, on the channel prefix + ":bus".
//
// Publish delivers an event to the subscribers of this instance at once,
// on the caller's goroutine as the in-process Bus does, and queues it for
// the others: one goroutine sends the queue to Redis in order, so the
// events of one instance reach every other instance in the order they
// were published. An instance recognises its own events when Redis echoes
// them and does not deliver them a second time. Events from other
// instances are delivered on one goroutine, in the order Redis sent them.
//
// Pub/Sub delivers at most once: an instance whose connection to Redis is
// lost misses the events published until go-redis has reconnected and
// subscribed again (which it does by itself; the Bus logs it). Meanwhile
// Check fails, so that the runtime refuses new subscriptions/listen
// streams rather than open ones that would miss those events. Listeners
// of subscriptions/listen announce changes, not state, so a client that
// must not miss one reads the list again when its stream restarts.
//
// On the channel each event is one JSON object, version 1:
//
//	{"v":1,"origin":"<instance id>","method":"<notification method>","uri":"<resource URI>","data":<JSON value>}
//
// where origin is a random id of the publishing Bus, method is
// session.Event.Method (never empty), and uri and data, present only when
// not empty, are session.Event.URI and session.Event.Data. Members not
// listed are ignored, so that a later version 1 may add some; a message of
// another version, or not of this form, is dropped and logged.
type Bus struct {
	client  goredis.UniversalClient
	channel string
	id      string
	log     *slog.Logger
	ps      *goredis.PubSub

	mu     sync.RWMutex
	closed bool
	next   uint64
	subs   map[uint64]func(session.Event)

	out      chan []byte // encoded events for the other instances
	dropping atomic.Bool // out was full; cleared when the sender drains it
	stopCtx  context.Context
	stop     context.CancelFunc
	wg       sync.WaitGroup
}

var (
	_ session.Bus        = (*Bus)(nil)
	_ session.BusChecker = (*Bus)(nil)
)

// NewBus returns a Bus of the fleet named prefix on client, subscribed to
// its channel: an event any instance publishes after NewBus returns
// reaches this one. It fails if Redis does not confirm the subscription
// before ctx ends. Close the Bus when done; the client stays the
// caller's.
func NewBus(ctx context.Context, client goredis.UniversalClient, prefix string, opts BusOptions) (*Bus, error) {
	if client == nil {
		return nil, errors.New("redis.NewBus: the client is nil")
	}
	if prefix == "" {
		return nil, errors.New("redis.NewBus: the prefix is empty; give the fleet a name, shared by its instances")
	}
	if opts.Buffer < 0 {
		return nil, fmt.Errorf("redis.NewBus: BusOptions.Buffer is %d; want 0 (the default, %d) or more", opts.Buffer, DefaultBusBuffer)
	}
	if opts.Buffer == 0 {
		opts.Buffer = DefaultBusBuffer
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var id [16]byte
	rand.Read(id[:])
	channel := prefix + ":bus"
	ps := client.Subscribe(ctx, channel)
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, fmt.Errorf("redis.NewBus: subscribe to channel %q: %w", channel, err)
	}
	b := &Bus{
		client:  client,
		channel: channel,
		id:      hex.EncodeToString(id[:]),
		log:     log.With("channel", channel),
		ps:      ps,
		subs:    map[uint64]func(session.Event){},
		out:     make(chan []byte, opts.Buffer),
	}
	b.stopCtx, b.stop = context.WithCancel(context.Background())
	in := ps.ChannelWithSubscriptions(goredis.WithChannelSize(opts.Buffer))
	b.wg.Add(2)
	go b.send()
	go b.receive(in)
	return b, nil
}

// Publish implements session.Bus: it delivers ev to this instance's
// subscribers, then queues it for the other instances. It does not wait
// for Redis. After Close it does nothing.
func (b *Bus) Publish(ev session.Event) {
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return
	}
	fns := b.subscribers()
	msg, err := encodeEvent(b.id, ev)
	switch {
	case err != nil:
		b.log.Warn("redis bus: event not sent to the other instances", "method", ev.Method, "error", err)
	default:
		select {
		case b.out <- msg:
		default:
			if !b.dropping.Swap(true) {
				b.log.Warn("redis bus: events dropped before the other instances: the queue for Redis is full; dropping until it drains", "buffer", cap(b.out))
			}
		}
	}
	b.mu.RUnlock()
	for _, fn := range fns {
		fn(ev)
	}
}

// Subscribe implements session.Bus: fn is called for every event published
// on any instance until cancel is called or the Bus is closed. fn must not
// block: it runs on the publisher's goroutine for this instance's events,
// and on the one goroutine that delivers the others'.
func (b *Bus) Subscribe(fn func(session.Event)) (cancel func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return func() {}
	}
	b.next++
	id := b.next
	b.subs[id] = fn
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

// Close sends the events still queued for the other instances (for at
// most 5 seconds), unsubscribes, and ends every subscription: once it has
// returned no subscriber is called with an event from another instance,
// and Publish and Subscribe do nothing. It does not close the client.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.subs = nil
	close(b.out) // no Publish is sending: they hold the read lock
	b.mu.Unlock()
	t := time.AfterFunc(closeTimeout, b.stop)
	defer t.Stop()
	err := b.ps.Close()
	b.wg.Wait()
	b.stop()
	if err != nil {
		return fmt.Errorf("redis bus: close the subscription to channel %q: %w", b.channel, err)
	}
	return nil
}

// Check implements session.BusChecker, so that a subscriptions/listen
// stream is refused while this instance cannot hear the others: it sends
// PING on the connection that holds the Bus's subscription, which go-redis
// opens again (and subscribes again) first if it was lost, then PING on
// the client and waits for the answer (the subscription's PING is only
// written: a write to a server that has just gone can still succeed). It
// fails when Redis cannot be reached within ctx and the client's dial
// timeout and retries, and after Close.
func (b *Bus) Check(ctx context.Context) error {
	b.mu.RLock()
	closed := b.closed
	b.mu.RUnlock()
	if closed {
		return errors.New("redis bus: closed")
	}
	err := b.ps.Ping(ctx)
	if err == nil {
		err = b.client.Ping(ctx).Err()
	}
	if err != nil {
		return fmt.Errorf("redis bus: the subscription to channel %q is down (PING failed; go-redis reconnects by itself): %w", b.channel, err)
	}
	return nil
}

// subscribers returns the subscribers' functions; b.mu is held.
func (b *Bus) subscribers() []func(session.Event) {
	fns := make([]func(session.Event), 0, len(b.subs))
	for _, fn := range b.subs {
		fns = append(fns, fn)
	}
	return fns
}

// send publishes the queued events in order until the queue is closed.
// A failure is logged once per run of failures, and its end once too.
func (b *Bus) send() {
	defer b.wg.Done()
	failed := 0
	for msg := range b.out {
		err := b.client.Publish(b.stopCtx, b.channel, msg).Err()
		switch {
		case err != nil && failed == 0:
			b.log.Warn("redis bus: events not sent to the other instances: PUBLISH failed; go-redis reconnects by itself", "error", err)
			failed++
		case err != nil:
			failed++
		case failed > 0:
			b.log.Info("redis bus: PUBLISH works again", "events_not_sent", failed)
			failed = 0
		}
		if len(b.out) == 0 && b.dropping.Swap(false) {
			b.log.Info("redis bus: the queue for Redis has drained; events are sent again")
		}
	}
}

// receive delivers the events of the other instances until the
// subscription is closed.
func (b *Bus) receive(in <-chan any) {
	defer b.wg.Done()
	for m := range in {
		switch m := m.(type) {
		case *goredis.Subscription:
			// NewBus consumed the first confirmation: this one follows a
			// reconnection.
			if m.Kind == "subscribe" {
				b.log.Warn("redis bus: subscribed again after the connection to Redis was lost; events other instances published meanwhile were missed")
			}
		case *goredis.Message:
			if m.Channel != b.channel {
				continue
			}
			origin, ev, err := decodeEvent([]byte(m.Payload))
			if err != nil {
				b.log.Warn("redis bus: malformed message dropped", "bytes", len(m.Payload), "error", err)
				continue
			}
			if origin == b.id {
				continue // delivered by Publish already
			}
			b.mu.RLock()
			fns := b.subscribers()
			b.mu.RUnlock()
			for _, fn := range fns {
				fn(ev)
			}
		}
	}
}

// wireEvent is the form of an event on the channel (see Bus).
type wireEvent struct {
	V      int            `json:"v"`
	Origin string         `json:"origin"`
	Method string         `json:"method"`
	URI    string         `json:"uri,omitzero"`
	Data   jsontext.Value `json:"data,omitzero"`
}

// encodeEvent returns the message of ev published by the Bus origin.
func encodeEvent(origin string, ev session.Event) ([]byte, error) {
	if ev.Method == "" {
		return nil, errors.New("the event has no method")
	}
	b, err := json.Marshal(wireEvent{V: busVersion, Origin: origin, Method: ev.Method, URI: ev.URI, Data: ev.Data})
	if err != nil {
		return nil, fmt.Errorf("encode the event: %w", err)
	}
	if len(b) > MaxEventBytes {
		return nil, fmt.Errorf("the event is %d bytes encoded, more than MaxEventBytes (%d)", len(b), MaxEventBytes)
	}
	return b, nil
}

// decodeEvent returns the origin and the event of a message on the
// channel, or what is wrong with it.
func decodeEvent(msg []byte) (origin string, ev session.Event, err error) {
	if len(msg) > MaxEventBytes {
		return "", ev, fmt.Errorf("the message is %d bytes, more than MaxEventBytes (%d)", len(msg), MaxEventBytes)
	}
	var w wireEvent
	if err := json.Unmarshal(msg, &w); err != nil {
		return "", ev, fmt.Errorf("not an event object: %w", err)
	}
	switch {
	case w.V != busVersion:
		return "", ev, fmt.Errorf("/v: version %d, want %d (an instance of another mcpgen version on the channel?)", w.V, busVersion)
	case w.Origin == "":
		return "", ev, errors.New("/origin: missing or empty")
	case w.Method == "":
		return "", ev, errors.New("/method: missing or empty")
	}
	if w.Data.Kind() == 'n' {
		w.Data = nil // null: no data
	}
	return w.Origin, session.Event{Method: w.Method, URI: w.URI, Data: w.Data}, nil
}
