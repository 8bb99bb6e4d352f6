package redis_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/fleet/fleettest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	goredis "github.com/redis/go-redis/v9"
)

func newSessionStore(t *testing.T, client goredis.UniversalClient, prefix string) *redis.SessionStore {
	t.Helper()
	if prefix == "" {
		prefix = "test-" + tasks.NewID()
	}
	s, err := redis.NewSessionStore(client, prefix, redis.SessionStoreOptions{})
	if err != nil {
		t.Fatalf("NewSessionStore: %v", err)
	}
	return s
}

func newRelay(t *testing.T, client goredis.UniversalClient, prefix string, opts redis.RelayOptions) *redis.Relay {
	t.Helper()
	r, err := redis.NewRelay(client, prefix, opts)
	if err != nil {
		t.Fatalf("NewRelay: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Relay.Close: %v", err)
		}
	})
	return r
}

func newEventStore(t *testing.T, client goredis.UniversalClient, prefix string, opts redis.EventStoreOptions) *redis.EventStore {
	t.Helper()
	if prefix == "" {
		prefix = "test-" + tasks.NewID()
	}
	s, err := redis.NewEventStore(client, prefix, opts)
	if err != nil {
		t.Fatalf("NewEventStore: %v", err)
	}
	return s
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestSessionStoreContract(t *testing.T) {
	client := redistest.Start(t).Client()
	fleettest.RunSessionStore(t, func(t *testing.T) fleet.SessionStore {
		return newSessionStore(t, client, "")
	})
}

// TestRelayContract runs the Relay contract on two Relays, each with a
// client of its own, as two instances have.
func TestRelayContract(t *testing.T) {
	srv := redistest.Start(t)
	fleettest.RunRelay(t, func(t *testing.T) (a, b fleet.Relay) {
		prefix := "test-" + tasks.NewID()
		return newRelay(t, srv.Client(), prefix, redis.RelayOptions{}), newRelay(t, srv.Client(), prefix, redis.RelayOptions{})
	})
}

func TestEventStoreContract(t *testing.T) {
	client := redistest.Start(t).Client()
	eventstoretest.Run(t, func(t *testing.T) streamhttp.EventStore {
		return newEventStore(t, client, "", redis.EventStoreOptions{})
	})
}

// keys returns every key of the server.
func keys(t *testing.T, client *goredis.Client) []string {
	t.Helper()
	ks, err := client.Keys(t.Context(), "*").Result()
	if err != nil {
		t.Fatalf("KEYS: %v", err)
	}
	return ks
}

// TestLayout checks the key and channel names the documentation gives,
// with no raw session or stream id in any of them.
func TestLayout(t *testing.T) {
	ctx := t.Context()
	srv := redistest.Start(t)
	client := srv.Client()
	const sid = "session-Secret-42"
	stream := sid + "-1"

	ss := newSessionStore(t, client, "fleet")
	if ok, err := ss.Create(ctx, sid, fleet.Record{Owner: "node-a", Principal: "alice", State: []byte("{}")}, time.Hour); err != nil || !ok {
		t.Fatalf("Create = %v, %v", ok, err)
	}
	es := newEventStore(t, client, "fleet", redis.EventStoreOptions{TTL: 30 * time.Minute})
	if _, err := es.Append(stream, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, k := range keys(t, client) {
		got[k] = true
		if strings.Contains(k, sid) {
			t.Errorf("key %q holds the session id", k)
		}
	}
	for _, k := range []string{"fleet:session:" + sha(sid), "fleet:events:" + sha(stream)} {
		if !got[k] {
			t.Errorf("no key %q; keys: %v", k, got)
		}
	}
	h, err := client.HGetAll(ctx, "fleet:session:"+sha(sid)).Result()
	if err != nil || h["owner"] != "node-a" || h["principal"] != "alice" || h["state"] != "{}" || len(h) != 3 {
		t.Errorf("the session's hash: %v, %v; want owner, principal and state", h, err)
	}
	if ttl := client.PTTL(ctx, "fleet:session:"+sha(sid)).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("the session's PTTL is %v; want up to an hour", ttl)
	}
	if ttl := client.PTTL(ctx, "fleet:events:"+sha(stream)).Val(); ttl <= 0 || ttl > 30*time.Minute {
		t.Errorf("the stream's PTTL is %v; want up to EventStoreOptions.TTL", ttl)
	}
	entries, err := client.XRange(ctx, "fleet:events:"+sha(stream), "-", "+").Result()
	if err != nil || len(entries) != 1 || entries[0].ID != "0-1" || entries[0].Values["d"] != "{}" {
		t.Errorf("the stream's entries: %v, %v; want one, 0-1, with d = {}", entries, err)
	}

	// The relay's channel is named for the address.
	r := newRelay(t, client, "fleet", redis.RelayOptions{})
	stop, err := r.Listen(ctx, "node-a", func([]byte) {})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if n := client.PubSubNumSub(ctx, "fleet:relay:node-a").Val()["fleet:relay:node-a"]; n != 1 {
		t.Errorf("subscribers of fleet:relay:node-a: %d; want 1", n)
	}
}

// TestEventStoreMaxLen checks that a stream keeps at most MaxLen events,
// numbered on.
func TestEventStoreMaxLen(t *testing.T) {
	s := newEventStore(t, redistest.Start(t).Client(), "", redis.EventStoreOptions{MaxLen: 3})
	for i := 1; i <= 5; i++ {
		if seq, err := s.Append("st", []byte{byte('0' + i)}); err != nil || seq != int64(i) {
			t.Fatalf("Append #%d = %d, %v", i, seq, err)
		}
	}
	evs, ok, err := s.After("st", 0)
	if err != nil || !ok || len(evs) != 3 || evs[0].Seq != 3 || string(evs[2].Data) != "5" {
		t.Fatalf("After(0) = %v, %v, %v; want events 3, 4, 5", evs, ok, err)
	}
}

// TestEventStoreTTL checks that a stream no one appends to goes away with
// its TTL.
func TestEventStoreTTL(t *testing.T) {
	s := newEventStore(t, redistest.Start(t).Client(), "", redis.EventStoreOptions{TTL: 200 * time.Millisecond})
	if _, err := s.Append("st", []byte("x")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(guard)
	for {
		_, ok, err := s.After("st", 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stream is still there %v after its TTL of 200ms", guard)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartKeeps checks that with the append-only file on, what the
// stores wrote survives a restart of Redis, and that a Relay's listener
// hears again once go-redis has subscribed again.
func TestRestartKeeps(t *testing.T) {
	ctx := t.Context()
	srv := redistest.StartWith(t, redistest.Options{AppendOnly: true})
	client := srv.Client()
	ss := newSessionStore(t, client, "fleet")
	es := newEventStore(t, client, "fleet", redis.EventStoreOptions{})
	rec := fleet.Record{Owner: "node-a", Principal: "alice", State: []byte(`{"logLevel":"info"}`)}
	if ok, err := ss.Create(ctx, "s1", rec, time.Hour); err != nil || !ok {
		t.Fatalf("Create = %v, %v", ok, err)
	}
	for range 3 {
		if _, err := es.Append("s1-1", []byte("ev")); err != nil {
			t.Fatal(err)
		}
	}
	es.Discard("s1-1", 1)
	var log syncBuffer
	relay := newRelay(t, client, "fleet", redis.RelayOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	got := make(chan []byte, 100)
	stop, err := relay.Listen(ctx, "node-a", func(m []byte) { got <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	srv.Restart()

	// The client dials again by itself, after a pause of its own: retry,
	// bounded in count and time.
	var loaded fleet.Record
	deadline := time.Now().Add(guard)
	for {
		loaded, err = ss.Load(ctx, "s1")
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || loaded.Owner != "node-a" || string(loaded.State) != string(rec.State) {
		t.Fatalf("Load after the restart = %+v, %v; want the record created before", loaded, err)
	}
	evs, ok, err := es.After("s1-1", 0)
	if err != nil || !ok || len(evs) != 2 || evs[0].Seq != 2 {
		t.Fatalf("After(0) after the restart = %v, %v, %v; want events 2 and 3", evs, ok, err)
	}
	if seq, err := es.Append("s1-1", []byte("ev")); err != nil || seq != 4 {
		t.Fatalf("Append after the restart = %d, %v; want 4", seq, err)
	}

	// Until the relay has subscribed again, a message reaches no one (at
	// most once): send one a round until one is delivered, bounded.
	for i := 0; ; i++ {
		ok, err := relay.Send(ctx, "node-a", []byte("after"))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listener at node-a %v after the restart (%d sends, last: %v); log:\n%s", guard, i+1, err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case m := <-got:
		if string(m) != "after" {
			t.Fatalf("the listener got %q; want \"after\"", m)
		}
	case <-time.After(guard):
		t.Fatal("the delivered message did not reach the listener")
	}
	if !strings.Contains(log.String(), "subscribed again") {
		t.Errorf("the lost connection is not logged:\n%s", log.String())
	}
}

// TestRedisDown checks that with Redis down every call fails at once with
// the client's network error, and that no error names the session id.
func TestRedisDown(t *testing.T) {
	ctx := t.Context()
	srv := redistest.Start(t)
	srv.Stop()
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { client.Close() })
	const sid = "session-Secret-42"
	ss := newSessionStore(t, client, "fleet")
	es := newEventStore(t, client, "fleet", redis.EventStoreOptions{})
	relay := newRelay(t, client, "fleet", redis.RelayOptions{})
	down, cancel := context.WithTimeout(ctx, guard)
	defer cancel()
	calls := []struct {
		name string
		call func() error
	}{
		{"SessionStore.Create", func() error { _, err := ss.Create(down, sid, fleet.Record{}, time.Hour); return err }},
		{"SessionStore.Load", func() error { _, err := ss.Load(down, sid); return err }},
		{"SessionStore.Save", func() error { _, err := ss.Save(down, sid, "a", nil, time.Hour); return err }},
		{"SessionStore.Claim", func() error { _, err := ss.Claim(down, sid, "a", "b", time.Hour); return err }},
		{"SessionStore.Delete", func() error { return ss.Delete(down, sid) }},
		{"EventStore.Append", func() error { _, err := es.Append(sid+"-1", nil); return err }},
		{"EventStore.After", func() error { _, _, err := es.After(sid+"-1", 0); return err }},
		{"Relay.Send", func() error { _, err := relay.Send(down, sid, nil); return err }},
		{"Relay.Listen", func() error {
			stop, err := relay.Listen(down, sid, func([]byte) {})
			if err == nil {
				stop()
			}
			return err
		}},
	}
	for _, c := range calls {
		err := c.call()
		var op *net.OpError
		if !errors.As(err, &op) || down.Err() != nil {
			t.Errorf("%s with Redis down: %v; want the client's network error, before the context ends", c.name, err)
		}
		if errors.Is(err, fleet.ErrNotFound) {
			t.Errorf("%s with Redis down: %v; must not be fleet.ErrNotFound", c.name, err)
		}
		if err != nil && strings.Contains(err.Error(), sid) {
			t.Errorf("%s: the error names the session id: %v", c.name, err)
		}
	}
}

// TestEventStoreTimeout checks that an EventStore gives up on a Redis that
// accepts connections and never answers after EventStoreOptions.Timeout,
// and says so.
func TestEventStoreTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // read nothing, answer nothing
		}
	}()
	client := goredis.NewClient(&goredis.Options{Addr: l.Addr().String(), ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { client.Close() })
	s := newEventStore(t, client, "fleet", redis.EventStoreOptions{Timeout: 100 * time.Millisecond})
	done := make(chan error, 1)
	go func() { _, err := s.Append("st", []byte("x")); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not answer in time") {
			t.Fatalf("Append to a Redis that never answers: %v; want the timeout named", err)
		}
	case <-time.After(guard):
		t.Fatalf("Append to a Redis that never answers did not return within %v", guard)
	}
}

// TestRelaySlowListener checks that a listener that does not keep up
// loses what overflows its queue, and holds up no other listener.
func TestRelaySlowListener(t *testing.T) {
	ctx := t.Context()
	client := redistest.Start(t).Client()
	var log syncBuffer
	r := newRelay(t, client, "fleet", redis.RelayOptions{MaxQueued: 4, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	entered := make(chan struct{}, 100)
	slow := make(chan []byte, 100)
	stopSlow, err := r.Listen(ctx, "node-a", func(m []byte) { entered <- struct{}{}; <-release; slow <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer stopSlow()
	fast := make(chan []byte, 100)
	stopFast, err := r.Listen(ctx, "node-a", func(m []byte) { fast <- m })
	if err != nil {
		t.Fatal(err)
	}
	defer stopFast()
	// Each message is sent once the fast listener has the one before: its
	// queue (as bounded as the slow one's) never fills.
	const n = 20
	for i := range n {
		if ok, err := r.Send(ctx, "node-a", []byte{byte(i)}); err != nil || !ok {
			t.Fatalf("Send = %v, %v", ok, err)
		}
		select {
		case m := <-fast:
			if m[0] != byte(i) {
				t.Fatalf("the fast listener got message %d; want %d", m[0], i)
			}
		case <-time.After(guard):
			t.Fatalf("the fast listener got %d of %d messages: held up by the slow one?", i, n)
		}
		if i == 0 {
			// The slow listener holds the first message in fn: its queue
			// is empty.
			select {
			case <-entered:
			case <-time.After(guard):
				t.Fatal("the slow listener did not get the first message")
			}
		}
	}
	once.Do(func() { close(release) })
	// The slow one is in fn with the first message and holds 4 more:
	// it gets 1 + MaxQueued, in order, and loses the rest.
	var got []byte
	for len(got) < 5 {
		select {
		case m := <-slow:
			got = append(got, m[0])
		case <-time.After(guard):
			t.Fatalf("the slow listener got %v; want 5 messages", got)
		}
	}
	if string(got) != "\x00\x01\x02\x03\x04" {
		t.Errorf("the slow listener got %v; want 0 1 2 3 4", got)
	}
	if !strings.Contains(log.String(), "dropped") {
		t.Errorf("the drop is not logged:\n%s", log.String())
	}
}

func TestNewStoreErrors(t *testing.T) {
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"}) // never contacted
	defer client.Close()
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"session: nil client", func() error { _, err := redis.NewSessionStore(nil, "f", redis.SessionStoreOptions{}); return err }, "client is nil"},
		{"session: empty prefix", func() error { _, err := redis.NewSessionStore(client, "", redis.SessionStoreOptions{}); return err }, "prefix is empty"},
		{"session: negative max", func() error {
			_, err := redis.NewSessionStore(client, "f", redis.SessionStoreOptions{MaxStateBytes: -1})
			return err
		}, "MaxStateBytes"},
		{"relay: nil client", func() error { _, err := redis.NewRelay(nil, "f", redis.RelayOptions{}); return err }, "client is nil"},
		{"relay: empty prefix", func() error { _, err := redis.NewRelay(client, "", redis.RelayOptions{}); return err }, "prefix is empty"},
		{"relay: negative queue", func() error { _, err := redis.NewRelay(client, "f", redis.RelayOptions{MaxQueued: -1}); return err }, "MaxQueued"},
		{"events: nil client", func() error { _, err := redis.NewEventStore(nil, "f", redis.EventStoreOptions{}); return err }, "client is nil"},
		{"events: empty prefix", func() error { _, err := redis.NewEventStore(client, "", redis.EventStoreOptions{}); return err }, "prefix is empty"},
		{"events: negative maxlen", func() error {
			_, err := redis.NewEventStore(client, "f", redis.EventStoreOptions{MaxLen: -1})
			return err
		}, "MaxLen"},
		{"events: negative ttl", func() error { _, err := redis.NewEventStore(client, "f", redis.EventStoreOptions{TTL: -1}); return err }, "TTL"},
		{"events: negative timeout", func() error {
			_, err := redis.NewEventStore(client, "f", redis.EventStoreOptions{Timeout: -1})
			return err
		}, "Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.make(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestSessionStoreMaxState checks that a state over MaxStateBytes is not
// written.
func TestSessionStoreMaxState(t *testing.T) {
	ctx := t.Context()
	client := redistest.Start(t).Client()
	s, err := redis.NewSessionStore(client, "fleet", redis.SessionStoreOptions{MaxStateBytes: 4})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Create(ctx, "a", fleet.Record{Owner: "n", State: []byte("12345")}, time.Hour); err == nil || ok || !strings.Contains(err.Error(), "MaxStateBytes") {
		t.Fatalf("Create of 5 bytes = %v, %v; want an error naming MaxStateBytes", ok, err)
	}
	if _, err := s.Load(ctx, "a"); !errors.Is(err, fleet.ErrNotFound) {
		t.Fatalf("Load after a refused Create: %v; want fleet.ErrNotFound", err)
	}
	if ok, err := s.Create(ctx, "a", fleet.Record{Owner: "n", State: []byte("1234")}, time.Hour); err != nil || !ok {
		t.Fatalf("Create of 4 bytes = %v, %v", ok, err)
	}
	if ok, err := s.Save(ctx, "a", "n", []byte("12345"), time.Hour); err == nil || ok {
		t.Fatalf("Save of 5 bytes = %v, %v; want an error", ok, err)
	}
	if r, _ := s.Load(ctx, "a"); string(r.State) != "1234" {
		t.Fatalf("state after a refused Save: %q", r.State)
	}
}
