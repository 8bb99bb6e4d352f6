package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	goredis "github.com/redis/go-redis/v9"
)

// DefaultEventStoreMaxLen is the most events an EventStore keeps of one
// stream unless EventStoreOptions.MaxLen says otherwise.
const DefaultEventStoreMaxLen = 1024

// DefaultEventStoreTTL is the time an EventStore keeps a stream after its
// last event unless EventStoreOptions.TTL says otherwise.
const DefaultEventStoreTTL = time.Hour

// DefaultEventStoreTimeout bounds each call of an EventStore to Redis
// unless EventStoreOptions.Timeout says otherwise.
const DefaultEventStoreTimeout = 5 * time.Second

// EventStoreOptions configures an EventStore. The zero value gives the
// defaults.
type EventStoreOptions struct {
	// MaxLen is the most events kept of one stream: appending one more
	// forgets the oldest. 0 means DefaultEventStoreMaxLen. The Server
	// discards the events it no longer needs by itself (see
	// streamhttp.ServerOptions.ReplayEvents); MaxLen bounds a stream whose
	// instance is gone. Keep it at least ReplayEvents: a client that
	// resumes after events MaxLen forgot misses them.
	MaxLen int
	// TTL is how long a stream is kept after its last event: every Append
	// renews it, and a stream no instance appends to (its instance is
	// gone, or the stream ended without a Drop) is deleted by Redis once
	// it has run out. 0 means DefaultEventStoreTTL.
	TTL time.Duration
	// Timeout bounds each call to Redis, as the deadline of its context
	// (the methods of an EventStore have none): when Redis cannot be
	// reached, a call fails (After and Append) or gives up (Discard and
	// Drop, which log it) within it. go-redis applies the deadline to
	// reads and writes on a connection only when the client's
	// ContextTimeoutEnabled is set; without it, its ReadTimeout and
	// WriteTimeout bound a Redis that accepts connections and does not
	// answer. 0 means DefaultEventStoreTimeout.
	Timeout time.Duration
	// Logger receives the failures of Discard and Drop, which return no
	// error. Streams are named by the SHA-256 of their id; event data is
	// never logged. nil means no logging.
	Logger *slog.Logger
}

// EventStore is a streamhttp.EventStore on Redis Streams, shared by the
// instances of a fleet: a client whose SSE stream broke resumes it with
// Last-Event-ID on any instance.
//
// The events of a stream are the entries of the Redis stream under the
// key prefix + ":events:" + the SHA-256 of the stream id in hex (stream
// ids hold session ids, which appear in no key, error or log), each with
// the one field d holding its data. Event n has the entry ID 0-n: Append
// is a Lua script that adds the entry with the ID 0-* (Redis numbers it
// one above the stream's last, from 1, even when the entries before it
// were trimmed), trims the stream to EventStoreOptions.MaxLen entries and
// renews its time to live, all at once, so that concurrent appends from
// any instance get consecutive numbers. After is XRANGE, Discard is XTRIM
// MINID, Drop is DEL.
//
// It needs Redis 7.0 or later (for the ID 0-*).
type EventStore struct {
	client  goredis.UniversalClient
	prefix  string
	maxLen  int
	ttl     time.Duration
	timeout time.Duration
	log     *slog.Logger
}

var _ streamhttp.EventStore = (*EventStore)(nil)

// NewEventStore returns the EventStore of the fleet named prefix on
// client. It does not contact Redis. The client stays the caller's.
func NewEventStore(client goredis.UniversalClient, prefix string, opts EventStoreOptions) (*EventStore, error) {
	switch {
	case client == nil:
		return nil, errors.New("redis.NewEventStore: the client is nil")
	case prefix == "":
		return nil, errors.New("redis.NewEventStore: the prefix is empty; give the fleet a name, shared by its instances")
	case opts.MaxLen < 0:
		return nil, fmt.Errorf("redis.NewEventStore: EventStoreOptions.MaxLen is %d; want 0 (the default, %d) or more", opts.MaxLen, DefaultEventStoreMaxLen)
	case opts.TTL < 0:
		return nil, fmt.Errorf("redis.NewEventStore: EventStoreOptions.TTL is %v; want 0 (the default, %v) or more", opts.TTL, DefaultEventStoreTTL)
	case opts.Timeout < 0:
		return nil, fmt.Errorf("redis.NewEventStore: EventStoreOptions.Timeout is %v; want 0 (the default, %v) or more", opts.Timeout, DefaultEventStoreTimeout)
	}
	if opts.MaxLen == 0 {
		opts.MaxLen = DefaultEventStoreMaxLen
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultEventStoreTTL
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultEventStoreTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &EventStore{client: client, prefix: prefix, maxLen: opts.MaxLen, ttl: opts.TTL, timeout: opts.Timeout, log: log}, nil
}

// key returns the key of stream.
func (s *EventStore) key(stream string) string { return s.prefix + ":events:" + idHash(stream) }

// call returns the context of one call to Redis.
func (s *EventStore) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

// failed wraps err, the failure of what in a call with ctx, saying when
// it is the timeout.
func (s *EventStore) failed(ctx context.Context, what string, err error) error {
	var ne net.Error
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("redis.EventStore: %s: Redis did not answer in time (EventStoreOptions.Timeout is %v; the client's ReadTimeout applies too unless its ContextTimeoutEnabled is set): %w", what, s.timeout, err)
	}
	return fmt.Errorf("redis.EventStore: %s: %w", what, err)
}

// appendScript adds an event. KEYS: stream. ARGV: data, MaxLen, ttl ms.
// Returns the entry's ID, 0-<seq>.
var appendScript = goredis.NewScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[2], '0-*', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return id
`)

// Append implements streamhttp.EventStore.
func (s *EventStore) Append(stream string, data []byte) (int64, error) {
	ctx, cancel := s.call()
	defer cancel()
	id, err := appendScript.Run(ctx, s.client, []string{s.key(stream)}, data, s.maxLen, ttlArg(s.ttl)).Text()
	if err != nil {
		return 0, s.failed(ctx, "append", err)
	}
	seq, err := entrySeq(id)
	if err != nil {
		return 0, fmt.Errorf("redis.EventStore: append: %w", err)
	}
	return seq, nil
}

// entrySeq returns the sequence number of the entry ID 0-<seq>.
func entrySeq(id string) (int64, error) {
	n, ok := strings.CutPrefix(id, "0-")
	seq, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil || seq < 1 {
		return 0, fmt.Errorf("the stream holds the entry ID %q, not 0-<n> with n >= 1 (written by something else than an EventStore?)", id)
	}
	return seq, nil
}

// After implements streamhttp.EventStore.
func (s *EventStore) After(stream string, seq int64) ([]streamhttp.Event, bool, error) {
	ctx, cancel := s.call()
	defer cancel()
	key := s.key(stream)
	start := "-"
	if seq >= 0 {
		start = "(0-" + strconv.FormatInt(seq, 10)
	}
	var exists *goredis.IntCmd
	var entries *goredis.XMessageSliceCmd
	_, err := s.client.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		exists = p.Exists(ctx, key)
		entries = p.XRange(ctx, key, start, "+")
		return nil
	})
	if err != nil {
		return nil, false, s.failed(ctx, "after", err)
	}
	if exists.Val() == 0 {
		return nil, false, nil
	}
	msgs := entries.Val()
	evs := make([]streamhttp.Event, 0, len(msgs))
	for _, m := range msgs {
		n, err := entrySeq(m.ID)
		if err != nil {
			return nil, false, fmt.Errorf("redis.EventStore: after: %w", err)
		}
		d, ok := m.Values["d"].(string)
		if !ok {
			return nil, false, fmt.Errorf("redis.EventStore: after: the entry %s has no field d (written by something else than an EventStore?)", m.ID)
		}
		evs = append(evs, streamhttp.Event{Seq: n, Data: []byte(d)})
	}
	return evs, true, nil
}

var _ streamhttp.LastSeqer = (*EventStore)(nil)

// lastScript returns the stream's last ID, or false when the stream does
// not exist. KEYS: stream.
var lastScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then return info[i+1] end
end
return false
`)

// LastSeq implements streamhttp.LastSeqer: the number of the stream's
// last event, from the stream's last generated ID, which Redis keeps
// when the entries are trimmed.
func (s *EventStore) LastSeq(stream string) (int64, bool, error) {
	ctx, cancel := s.call()
	defer cancel()
	id, err := lastScript.Run(ctx, s.client, []string{s.key(stream)}).Text()
	if errors.Is(err, goredis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, s.failed(ctx, "last", err)
	}
	seq, err := entrySeq(id)
	if err != nil {
		return 0, false, fmt.Errorf("redis.EventStore: last: %w", err)
	}
	return seq, true, nil
}

// Discard implements streamhttp.EventStore. A failure is logged.
func (s *EventStore) Discard(stream string, seq int64) {
	if seq < 1 {
		return
	}
	ctx, cancel := s.call()
	defer cancel()
	// MINID keeps the entries from 0-(seq+1) on.
	if err := s.client.XTrimMinID(ctx, s.key(stream), "0-"+strconv.FormatUint(uint64(seq)+1, 10)).Err(); err != nil {
		s.log.Warn("redis event store: discard failed; the events stay until the stream's TTL or MaxLen removes them", "stream", idHash(stream), "error", s.failed(ctx, "discard", err))
	}
}

// Drop implements streamhttp.EventStore. A failure is logged.
func (s *EventStore) Drop(stream string) {
	ctx, cancel := s.call()
	defer cancel()
	if err := s.client.Del(ctx, s.key(stream)).Err(); err != nil {
		s.log.Warn("redis event store: drop failed; the stream stays until its TTL runs out", "stream", idHash(stream), "error", s.failed(ctx, "drop", err))
	}
}
