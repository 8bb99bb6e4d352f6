package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/fleet"
	goredis "github.com/redis/go-redis/v9"
)

// DefaultRelayQueue is the number of messages a Relay holds for each
// listener when RelayOptions.MaxQueued is 0.
const DefaultRelayQueue = 4096

// relayChannelSize is the size of the buffer between go-redis's reader and
// the Relay's dispatcher, which never blocks for long.
const relayChannelSize = 1024

// RelayOptions configures a Relay. The zero value gives the defaults.
type RelayOptions struct {
	// MaxQueued bounds the messages received and not yet handed to each
	// listener's fn; past it a message is dropped for that listener (and
	// logged), as Pub/Sub drops what a slow subscriber cannot take. 0
	// means DefaultRelayQueue.
	MaxQueued int
	// Logger receives what goes wrong: messages dropped for a slow
	// listener, the subscriptions restored after a lost connection.
	// Messages and addresses are never logged. nil means no logging.
	Logger *slog.Logger
}

// Relay is a fleet.Relay on Redis Pub/Sub, shared by the instances of a
// fleet: a message sent to an address is published on the channel
// prefix + ":relay:" + the address, and Send reports whether any
// subscriber received it (the count PUBLISH returns).
//
// Each Relay has one Pub/Sub connection, opened by the first Listen, which
// subscribes to the channel of an address when its first listener comes
// and unsubscribes when its last one stops: Listen returns once Redis has
// confirmed the subscription, so a message sent after it reaches the
// listener. One goroutine reads the connection and hands each message to
// the queues of the address's listeners, in the order Redis sent them,
// and never waits for a listener: each queue holds up to
// RelayOptions.MaxQueued messages and its own goroutine calls fn with them
// in order; a message for a full queue is dropped for that listener.
//
// Pub/Sub delivers at most once: when the connection to Redis is lost,
// the messages sent until go-redis has reconnected and subscribed again
// (which it does by itself; the Relay logs it) reach no one, and their
// Send reports false or fails, as for an instance that is gone.
//
// Close the Relay when done; the client stays the caller's.
type Relay struct {
	client goredis.UniversalClient
	prefix string
	max    int
	log    *slog.Logger

	mu     sync.Mutex
	closed bool
	ps     *goredis.PubSub // nil until the first Listen
	chans  map[string]*relayChan
	sent   map[string]uint64 // SUBSCRIBEs written, by channel
	acked  map[string]uint64 // their confirmations received, by channel
	wg     sync.WaitGroup
}

// relayChan is the listeners of one channel.
type relayChan struct {
	listeners map[*relayListener]struct{}
	want      uint64        // the confirmation that makes it subscribed
	ready     chan struct{} // closed once confirmed
}

// relayListener is one Listen's queue.
type relayListener struct {
	fn   func([]byte)
	max  int
	mu   sync.Mutex
	q    [][]byte
	busy bool // a goroutine is delivering q
	done bool
	drop bool // dropping since the queue was last drained
}

var _ fleet.Relay = (*Relay)(nil)

// NewRelay returns the Relay of the fleet named prefix on client. It does
// not contact Redis: the first Listen does.
func NewRelay(client goredis.UniversalClient, prefix string, opts RelayOptions) (*Relay, error) {
	switch {
	case client == nil:
		return nil, errors.New("redis.NewRelay: the client is nil")
	case prefix == "":
		return nil, errors.New("redis.NewRelay: the prefix is empty; give the fleet a name, shared by its instances")
	case opts.MaxQueued < 0:
		return nil, fmt.Errorf("redis.NewRelay: RelayOptions.MaxQueued is %d; want 0 (the default, %d) or more", opts.MaxQueued, DefaultRelayQueue)
	}
	if opts.MaxQueued == 0 {
		opts.MaxQueued = DefaultRelayQueue
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Relay{
		client: client,
		prefix: prefix,
		max:    opts.MaxQueued,
		log:    log,
		chans:  map[string]*relayChan{},
		sent:   map[string]uint64{},
		acked:  map[string]uint64{},
	}, nil
}

// channel returns the channel of addr.
func (r *Relay) channel(addr string) string { return r.prefix + ":relay:" + addr }

// Listen implements fleet.Relay: it returns once Redis has confirmed the
// subscription to addr's channel, and fails if it has not before ctx ends.
func (r *Relay) Listen(ctx context.Context, addr string, fn func(msg []byte)) (stop func(), err error) {
	if fn == nil {
		return nil, errors.New("redis.Relay: listen: nil func")
	}
	ch := r.channel(addr)
	l := &relayListener{fn: fn, max: r.max}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errors.New("redis.Relay: listen: the relay is closed")
	}
	if r.ps == nil {
		r.ps = r.client.Subscribe(context.Background())
		in := r.ps.ChannelWithSubscriptions(goredis.WithChannelSize(relayChannelSize))
		r.wg.Add(1)
		go r.dispatch(in)
	}
	c := r.chans[ch]
	if c == nil {
		c = &relayChan{listeners: map[*relayListener]struct{}{}, ready: make(chan struct{})}
		if err := r.ps.Subscribe(ctx, ch); err != nil {
			// go-redis keeps the channel in its set all the same, and
			// would subscribe to it when it reconnects: take it out.
			_ = r.ps.Unsubscribe(ctx, ch)
			r.mu.Unlock()
			return nil, fmt.Errorf("redis.Relay: listen: subscribe: %w", err)
		}
		r.sent[ch]++
		c.want = r.sent[ch]
		r.chans[ch] = c
	}
	c.listeners[l] = struct{}{}
	r.mu.Unlock()
	stop = func() { r.stop(ch, c, l) }
	select {
	case <-c.ready:
		return stop, nil
	case <-ctx.Done():
		stop()
		return nil, fmt.Errorf("redis.Relay: listen: Redis did not confirm the subscription: %w", ctx.Err())
	}
}

// stop removes l from the listeners of ch, and unsubscribes when it was
// the last one. A second call does nothing.
func (r *Relay) stop(ch string, c *relayChan, l *relayListener) {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return
	}
	l.done = true
	l.q = nil
	l.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(c.listeners, l)
	if len(c.listeners) > 0 || r.chans[ch] != c || r.closed {
		return
	}
	delete(r.chans, ch)
	if r.acked[ch] >= r.sent[ch] {
		delete(r.acked, ch) // no confirmation due
		delete(r.sent, ch)
	}
	// A failed UNSUBSCRIBE leaves the channel out of go-redis's set all the
	// same: the connection is reopened without it.
	ctx, cancel := context.WithTimeout(context.Background(), relayUnsubscribeTimeout)
	defer cancel()
	if err := r.ps.Unsubscribe(ctx, ch); err != nil {
		r.log.Warn("redis relay: UNSUBSCRIBE failed; go-redis drops the subscription when it reconnects", "error", err)
	}
}

// relayUnsubscribeTimeout bounds the writing of an UNSUBSCRIBE.
const relayUnsubscribeTimeout = 5 * time.Second

// dispatch hands the messages of the subscription to the listeners'
// queues until the subscription is closed.
func (r *Relay) dispatch(in <-chan any) {
	defer r.wg.Done()
	for m := range in {
		switch m := m.(type) {
		case *goredis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			r.mu.Lock()
			// A confirmation beyond those of the SUBSCRIBEs written follows
			// a reconnection: go-redis subscribed again by itself.
			r.acked[m.Channel] = min(r.acked[m.Channel]+1, r.sent[m.Channel])
			if c := r.chans[m.Channel]; c != nil && r.acked[m.Channel] >= c.want {
				select {
				case <-c.ready:
					// Confirmed before: this one follows a reconnection.
					r.log.Warn("redis relay: subscribed again after the connection to Redis was lost; messages sent meanwhile were lost")
				default:
					close(c.ready)
				}
			}
			if r.chans[m.Channel] == nil && r.acked[m.Channel] >= r.sent[m.Channel] {
				delete(r.acked, m.Channel) // no listener left nor confirmation due
				delete(r.sent, m.Channel)
			}
			r.mu.Unlock()
		case *goredis.Message:
			r.mu.Lock()
			c := r.chans[m.Channel]
			var ls []*relayListener
			if c != nil {
				select {
				case <-c.ready:
					ls = make([]*relayListener, 0, len(c.listeners))
					for l := range c.listeners {
						ls = append(ls, l)
					}
				default:
				}
			}
			r.mu.Unlock()
			for _, l := range ls {
				if !l.put([]byte(m.Payload)) {
					r.log.Warn("redis relay: messages dropped for a listener that does not keep up; dropping until its queue drains", "queue", l.max)
				}
			}
		}
	}
}

// put queues msg, and starts the goroutine that delivers the queue if
// none runs. It returns false when it drops msg for the first time since
// the queue last drained.
func (l *relayListener) put(msg []byte) bool {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return true
	}
	if len(l.q) >= l.max {
		first := !l.drop
		l.drop = true
		l.mu.Unlock()
		return !first
	}
	l.q = append(l.q, msg)
	start := !l.busy
	l.busy = true
	l.mu.Unlock()
	if start {
		go l.run()
	}
	return true
}

// run calls fn with the queued messages, in order, until none is left.
func (l *relayListener) run() {
	for {
		l.mu.Lock()
		if len(l.q) == 0 || l.done {
			l.busy = false
			l.drop = false
			l.mu.Unlock()
			return
		}
		msg := l.q[0]
		l.q[0] = nil
		l.q = l.q[1:]
		l.mu.Unlock()
		l.fn(msg)
	}
}

// Send implements fleet.Relay: it publishes msg on addr's channel and
// reports whether at least one subscriber, on any instance, received it.
func (r *Relay) Send(ctx context.Context, addr string, msg []byte) (bool, error) {
	n, err := r.client.Publish(ctx, r.channel(addr), msg).Result()
	if err != nil {
		return false, fmt.Errorf("redis.Relay: send: %w", err)
	}
	return n > 0, nil
}

// Close ends every listener and closes the Pub/Sub connection; Listen
// fails after it, Send still works. It does not close the client.
func (r *Relay) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	ps := r.ps
	var ls []*relayListener
	for _, c := range r.chans {
		for l := range c.listeners {
			ls = append(ls, l)
		}
	}
	r.chans = map[string]*relayChan{}
	r.mu.Unlock()
	for _, l := range ls {
		l.mu.Lock()
		l.done, l.q = true, nil
		l.mu.Unlock()
	}
	if ps == nil {
		return nil
	}
	err := ps.Close()
	r.wg.Wait()
	if err != nil {
		return fmt.Errorf("redis.Relay: close the Pub/Sub connection: %w", err)
	}
	return nil
}
