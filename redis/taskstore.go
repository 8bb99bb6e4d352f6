package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/tasks"
	goredis "github.com/redis/go-redis/v9"
)

// DefaultMaxTasks is the most records a TaskStore holds unless
// TaskStoreOptions.MaxTasks says otherwise.
const DefaultMaxTasks = 100000

// DefaultMaxRecordBytes is the largest record, in bytes of its JSON form, a
// TaskStore writes unless TaskStoreOptions.MaxRecordBytes says otherwise.
const DefaultMaxRecordBytes = 4 << 20

// DefaultReplicaTimeout bounds the wait for replicas of a write when
// TaskStoreOptions.Replicas is set and ReplicaTimeout is 0.
const DefaultReplicaTimeout = time.Second

// taskUpdateAttempts bounds the compare-and-set rounds of one Update.
const taskUpdateAttempts = 16

// expireBatch is how many ids of the index Expire reads at a time.
const expireBatch = 512

// TaskStoreOptions configures a TaskStore. The zero value gives the
// defaults.
type TaskStoreOptions struct {
	// MaxTasks is the most records the store holds, all instances
	// together, terminal ones included; 0 means DefaultMaxTasks, a
	// negative value no limit. When it is reached, Create first runs
	// Expire, then refuses with tasks.ErrFull if the store is still full.
	// There is no limit per principal.
	MaxTasks int
	// MaxRecordBytes is the largest record, in bytes of its JSON form
	// (tasks.Record.MarshalJSON), that Create and Update write; 0 means
	// DefaultMaxRecordBytes. A larger one fails with tasks.ErrFull and
	// nothing is written.
	MaxRecordBytes int
	// Replicas, when above 0, makes every Create and Update wait (Redis
	// WAIT) until that many replicas have acknowledged the write, so that
	// it survives the loss of the primary. A write not acknowledged within
	// ReplicaTimeout fails; it was made on the primary and may or may not
	// survive a failover. With 0 the store does not wait: the write is as
	// durable as the server's persistence makes it (see TaskStore).
	Replicas int
	// ReplicaTimeout bounds the wait for Replicas; 0 means
	// DefaultReplicaTimeout.
	ReplicaTimeout time.Duration
	// Now returns the store's current time; nil means time.Now. It stamps
	// CreatedAt (when zero) and UpdatedAt. Redis's expiry deadlines are
	// set on the real clock, shifted by the difference between it and Now,
	// so that a test clock gives records their time to live from the time
	// it shows.
	Now func() time.Time
}

// TaskStore is a tasks.Store on Redis, shared by the instances of a fleet:
// a task created on one instance is read, answered, cancelled and waited
// on from any other.
//
// Each record is its JSON form (tasks.Record.MarshalJSON) in the string
// key prefix + ":task:" + id. The sorted set prefix + ":task-index" holds
// every id, scored by the millisecond its time to live runs out (+inf for
// none); Expire and MaxTasks use it. Every write and deletion publishes the
// id on the channel prefix + ":task-events", which wakes the Waits of every
// instance. Writes are Lua scripts, so that each is atomic: Create sets
// the key only if it is absent (SET NX), Update is a compare-and-set that
// writes only if the stored record is still the one it read.
//
// A record with a time to live expires in Redis by itself (SET PXAT at
// CreatedAt + TTL, rounded up to the millisecond), so it is never deleted
// early, and a fleet needs no instance to call Expire: Expire deletes
// what has run out by the time it is given, and may find nothing left to
// do. A Wait on such a record ends with tasks.ErrNotFound once its time is
// up.
//
// Durability: Create returns once Redis has executed the write. That is
// durable only as far as the server makes it so. Run a single server with
// appendonly yes and appendfsync always (CheckDurability checks it), or
// set TaskStoreOptions.Replicas to wait for replicas (Redis WAIT).
//
// When Redis cannot be reached, every method fails with an error that
// wraps the client's, as fast as the client's dial and read timeouts and
// retries allow (goredis.Options DialTimeout, ReadTimeout, MaxRetries,
// DialerRetries), and never later than its context; once Redis is back the
// store works again by itself, and parked Waits read their records again
// (a write missed while the subscription was down is not lost).
//
// With Redis Cluster, the keys of one prefix must share a hash slot: put a
// hash tag in the prefix, such as "{weather}".
type TaskStore struct {
	client   goredis.UniversalClient
	prefix   string
	index    string
	channel  string
	max      int
	maxBytes int
	replicas int
	timeout  time.Duration
	now      func() time.Time
	fake     bool // now is not time.Now

	mu      sync.Mutex
	closed  bool
	done    chan struct{} // closed by Close
	ps      *goredis.PubSub
	waiters map[string]map[*taskWaiter]struct{}
	wg      sync.WaitGroup
}

// taskWaiter is one Wait parked on a record.
type taskWaiter struct{ wake chan struct{} } // capacity 1

var _ tasks.Store = (*TaskStore)(nil)

// NewTaskStore returns the TaskStore of the fleet named prefix on client.
// It does not contact Redis: the first Wait subscribes to the store's
// channel. Close the store when done; the client stays the caller's.
func NewTaskStore(client goredis.UniversalClient, prefix string, opts TaskStoreOptions) (*TaskStore, error) {
	switch {
	case client == nil:
		return nil, errors.New("redis.NewTaskStore: the client is nil")
	case prefix == "":
		return nil, errors.New("redis.NewTaskStore: the prefix is empty; give the fleet a name, shared by its instances")
	case opts.MaxRecordBytes < 0:
		return nil, fmt.Errorf("redis.NewTaskStore: TaskStoreOptions.MaxRecordBytes is %d; want 0 (the default, %d) or more", opts.MaxRecordBytes, DefaultMaxRecordBytes)
	case opts.Replicas < 0:
		return nil, fmt.Errorf("redis.NewTaskStore: TaskStoreOptions.Replicas is %d; want 0 (do not wait) or more", opts.Replicas)
	case opts.ReplicaTimeout < 0:
		return nil, fmt.Errorf("redis.NewTaskStore: TaskStoreOptions.ReplicaTimeout is %v; want 0 (the default, %v) or more", opts.ReplicaTimeout, DefaultReplicaTimeout)
	}
	s := &TaskStore{
		client:   client,
		prefix:   prefix,
		index:    prefix + ":task-index",
		channel:  prefix + ":task-events",
		max:      opts.MaxTasks,
		maxBytes: opts.MaxRecordBytes,
		replicas: opts.Replicas,
		timeout:  opts.ReplicaTimeout,
		now:      opts.Now,
		fake:     opts.Now != nil,
		done:     make(chan struct{}),
		waiters:  map[string]map[*taskWaiter]struct{}{},
	}
	if s.max == 0 {
		s.max = DefaultMaxTasks
	}
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxRecordBytes
	}
	if s.timeout == 0 {
		s.timeout = DefaultReplicaTimeout
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// key returns the key of the record id.
func (s *TaskStore) key(id string) string { return s.prefix + ":task:" + id }

// createScript sets a new record, if its id is free and the store not full.
// KEYS: record, index. ARGV: JSON, PXAT ms ("0": none), index score, id,
// the most tasks (0: no limit). Returns 1, -1 (id in use) or -2 (full).
var createScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local max = tonumber(ARGV[5])
if max > 0 and redis.call('ZCARD', KEYS[2]) >= max then return -2 end
if ARGV[2] ~= '0' then
  redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[1], 'NX')
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
`)

// updateScript replaces a record if it is still the one read, and
// announces it. KEYS: record, index. ARGV: the JSON read, the new JSON,
// PXAT ms ("0": none), index score, id, channel. Returns 1, 0 (changed
// meanwhile) or -1 (gone).
var updateScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
if ARGV[3] ~= '0' then
  redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('PUBLISH', ARGV[6], ARGV[5])
return 1
`)

// deleteScript deletes a record if it is still the one read, and
// announces it; a record gone already leaves the index. KEYS: record,
// index. ARGV: the JSON read, id, channel. Returns 1 (deleted), 0 (gone
// already) or -1 (changed meanwhile).
var deleteScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 0
end
if cur ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
`)

// write runs a writing script, then, with Replicas set, waits for the
// replicas on the same connection.
func (s *TaskStore) write(ctx context.Context, script *goredis.Script, keys []string, args ...any) (int64, error) {
	if s.replicas == 0 {
		return script.Run(ctx, s.client, keys, args...).Int64()
	}
	pipe := s.client.Pipeline()
	res := script.Eval(ctx, pipe, keys, args...)
	wait := pipe.Do(ctx, "WAIT", s.replicas, max(s.timeout.Milliseconds(), 1)) // 0 would wait forever
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, err
	}
	n, err := res.Int64()
	if err != nil {
		return 0, err
	}
	acked, err := wait.Int64()
	if err != nil {
		return 0, fmt.Errorf("WAIT for replicas: %w", err)
	}
	if n == 1 && acked < int64(s.replicas) {
		return 0, fmt.Errorf("the write was made on the primary, but %d of the %d replicas of TaskStoreOptions.Replicas acknowledged it within %v (it may be lost in a failover): check the replicas, or lower Replicas", acked, s.replicas, s.timeout)
	}
	return n, nil
}

// deadlines returns the PXAT argument of r (the real-clock millisecond its
// key expires, rounded up; "0" for none) and its index score (the
// millisecond on the store's clock its time to live runs out, rounded
// down; "+inf" for none).
func (s *TaskStore) deadlines(r *tasks.Record) (pxat, score string) {
	if r.TTL <= 0 {
		return "0", "+inf"
	}
	end := r.CreatedAt.Add(r.TTL)
	score = strconv.FormatInt(floorMilli(end), 10)
	at := end
	if s.fake {
		at = end.Add(time.Since(s.now()))
	}
	ms := at.UnixMilli()
	if time.UnixMilli(ms).Before(at) {
		ms++
	}
	return strconv.FormatInt(max(ms, 1), 10), score
}

// floorMilli returns t in Unix milliseconds, rounded down.
func floorMilli(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Before(time.UnixMilli(ms)) {
		ms--
	}
	return ms
}

// encode returns r's JSON form, checked against MaxRecordBytes.
func (s *TaskStore) encode(r *tasks.Record) (string, error) {
	b, err := r.MarshalJSON()
	if err != nil {
		return "", err
	}
	if len(b) > s.maxBytes {
		return "", fmt.Errorf("%w: the record is %d bytes of JSON, more than TaskStoreOptions.MaxRecordBytes (%d); keep results and inputs smaller, or raise the limit", tasks.ErrFull, len(b), s.maxBytes)
	}
	return string(b), nil
}

// Create implements tasks.Store.
func (s *TaskStore) Create(ctx context.Context, r *tasks.Record) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis.TaskStore: create: %w", err)
	}
	if r == nil {
		return nil, errors.New("redis.TaskStore: create: nil record")
	}
	rec := r.Clone()
	rec.Version = 1
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = s.now()
	}
	rec.UpdatedAt = rec.CreatedAt
	doc, err := s.encode(rec)
	if err != nil {
		return nil, fmt.Errorf("redis.TaskStore: create: %w", err)
	}
	pxat, score := s.deadlines(rec)
	limit := max(s.max, 0)
	for attempt := range 2 {
		n, err := s.write(ctx, createScript, []string{s.key(rec.ID), s.index}, doc, pxat, score, rec.ID, limit)
		if err != nil {
			return nil, fmt.Errorf("redis.TaskStore: create: %w", err)
		}
		switch n {
		case 1:
			return rec, nil
		case -1:
			return nil, fmt.Errorf("redis.TaskStore: create: id already in use: %w", tasks.ErrConflict)
		}
		if attempt == 0 {
			if _, err := s.Expire(ctx, s.now()); err != nil {
				return nil, fmt.Errorf("redis.TaskStore: create: the store is full, and making room failed: %w", err)
			}
		}
	}
	return nil, fmt.Errorf("redis.TaskStore: create: %w: it holds %d tasks, its TaskStoreOptions.MaxTasks; retry when tasks have expired, give tasks a shorter TTL, or raise the limit", tasks.ErrFull, s.max)
}

// read returns the stored JSON of the record id and the record, if
// principal owns it.
func (s *TaskStore) read(ctx context.Context, id, principal string) (string, *tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	doc, err := s.client.Get(ctx, s.key(id)).Result()
	if errors.Is(err, goredis.Nil) {
		return "", nil, tasks.ErrNotFound
	}
	if err != nil {
		return "", nil, err
	}
	var rec tasks.Record
	if err := rec.UnmarshalJSON([]byte(doc)); err != nil {
		return "", nil, fmt.Errorf("the stored record is malformed (written by something else than a TaskStore?): %w", err)
	}
	if rec.Principal != principal {
		return "", nil, tasks.ErrNotFound
	}
	return doc, &rec, nil
}

// Get implements tasks.Store.
func (s *TaskStore) Get(ctx context.Context, id, principal string) (*tasks.Record, error) {
	_, rec, err := s.read(ctx, id, principal)
	if err != nil {
		return nil, fmt.Errorf("redis.TaskStore: get: %w", err)
	}
	return rec, nil
}

// Update implements tasks.Store: a compare-and-set on the stored record,
// which every write changes (its Version goes up).
func (s *TaskStore) Update(ctx context.Context, id, principal string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	for range taskUpdateAttempts {
		doc, old, err := s.read(ctx, id, principal)
		if err != nil {
			return nil, fmt.Errorf("redis.TaskStore: update: %w", err)
		}
		if old.Status.Terminal() {
			return nil, fmt.Errorf("redis.TaskStore: update: task is %s: %w", old.Status, tasks.ErrTerminal)
		}
		next := old.Clone()
		if err := fn(next); err != nil {
			return nil, err
		}
		if err := checkUpdate(old, next); err != nil {
			return nil, err
		}
		next = next.Clone() // fn may have kept a reference
		next.Version = old.Version + 1
		next.UpdatedAt = s.now()
		if next.UpdatedAt.Before(old.UpdatedAt) {
			next.UpdatedAt = old.UpdatedAt
		}
		newDoc, err := s.encode(next)
		if err != nil {
			return nil, fmt.Errorf("redis.TaskStore: update: %w", err)
		}
		pxat, score := s.deadlines(next)
		n, err := s.write(ctx, updateScript, []string{s.key(id), s.index}, doc, newDoc, pxat, score, id, s.channel)
		if err != nil {
			return nil, fmt.Errorf("redis.TaskStore: update: %w", err)
		}
		switch n {
		case 1:
			return next, nil
		case -1:
			return nil, fmt.Errorf("redis.TaskStore: update: %w", tasks.ErrNotFound)
		}
	}
	return nil, fmt.Errorf("redis.TaskStore: update: lost the compare-and-set %d times to other writes: %w", taskUpdateAttempts, tasks.ErrConflict)
}

// checkUpdate checks what fn left: the identity of the record unchanged
// and a valid record.
func checkUpdate(old, next *tasks.Record) error {
	switch {
	case next.ID != old.ID:
		return errors.New("redis.TaskStore: update: the update function changed the task id; it may not")
	case next.Principal != old.Principal:
		return errors.New("redis.TaskStore: update: the update function changed the principal; it may not")
	case !next.CreatedAt.Equal(old.CreatedAt):
		return fmt.Errorf("redis.TaskStore: update: the update function changed createdAt from %s to %s; it may not", old.CreatedAt.Format(time.RFC3339Nano), next.CreatedAt.Format(time.RFC3339Nano))
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("redis.TaskStore: update: the update function left an invalid %w", err)
	}
	return nil
}

// Wait implements tasks.Store. It registers with the store's subscription
// to the channel of task events, then reads the record, and reads it again
// whenever an event names it, whenever the subscription is made again
// after a lost connection (events may have been missed), and when its time
// to live runs out. A read that fails (Redis away) ends the Wait with that
// error.
func (s *TaskStore) Wait(ctx context.Context, id, principal string, after uint64) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis.TaskStore: wait: %w", err)
	}
	w, err := s.watch(id)
	if err != nil {
		return nil, fmt.Errorf("redis.TaskStore: wait: %w", err)
	}
	defer s.unwatch(id, w)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		_, rec, err := s.read(ctx, id, principal)
		if err != nil {
			return nil, fmt.Errorf("redis.TaskStore: wait: %w", err)
		}
		if rec.Version > after {
			return rec, nil
		}
		var expiry <-chan time.Time
		if rec.TTL > 0 {
			// Redis deletes the key in the millisecond after its deadline,
			// rounded up: read again just after that.
			d := max(rec.CreatedAt.Add(rec.TTL).Sub(s.now())+2*time.Millisecond, time.Millisecond)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			expiry = timer.C
		}
		select {
		case <-w.wake:
		case <-expiry:
		case <-s.done:
			return nil, errors.New("redis.TaskStore: wait: the store was closed")
		case <-ctx.Done():
			return nil, fmt.Errorf("redis.TaskStore: wait: %w", ctx.Err())
		}
	}
}

// watch registers a waiter for id, subscribing the store to its channel
// on first use.
func (s *TaskStore) watch(id string) (*taskWaiter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the store was closed")
	}
	if s.ps == nil {
		// Subscribe with no channel does not dial: the goroutine does, and
		// go-redis keeps the subscription up (dialling again after a lost
		// connection) until Close.
		s.ps = s.client.Subscribe(context.Background())
		in := s.ps.ChannelWithSubscriptions()
		s.wg.Add(1)
		go s.receive(s.ps, in)
	}
	w := &taskWaiter{wake: make(chan struct{}, 1)}
	if s.waiters[id] == nil {
		s.waiters[id] = map[*taskWaiter]struct{}{}
	}
	s.waiters[id][w] = struct{}{}
	return w, nil
}

func (s *TaskStore) unwatch(id string, w *taskWaiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiters[id], w)
	if len(s.waiters[id]) == 0 {
		delete(s.waiters, id)
	}
}

// receive subscribes to the channel of task events and wakes the waiters
// of every id announced on it, and all waiters at each (re)subscription.
func (s *TaskStore) receive(ps *goredis.PubSub, in <-chan any) {
	defer s.wg.Done()
	// The error is dropped: go-redis keeps the channel and subscribes
	// again when the connection comes back, which the loop hears.
	_ = ps.Subscribe(context.Background(), s.channel)
	for m := range in {
		switch m := m.(type) {
		case *goredis.Subscription:
			if m.Kind == "subscribe" {
				s.wakeAll()
			}
		case *goredis.Message:
			if m.Channel == s.channel {
				s.wakeID(m.Payload)
			}
		}
	}
}

func (s *TaskStore) wakeID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.waiters[id] {
		w.signal()
	}
}

func (s *TaskStore) wakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ws := range s.waiters {
		for w := range ws {
			w.signal()
		}
	}
}

func (w *taskWaiter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Expire implements tasks.Store. Redis deletes records on its own when
// their time to live runs out, and Expire does not return those: it
// returns the ids of the records it deleted itself, those whose time had
// run out at now but that were still there (now ahead of the clock, or
// Redis's lazy expiry not yet done). It also drops from the index the ids
// of records Redis has deleted.
func (s *TaskStore) Expire(ctx context.Context, now time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis.TaskStore: expire: %w", err)
	}
	upTo := strconv.FormatInt(floorMilli(now), 10)
	var deleted []string
	kept := map[string]bool{} // ids in range that stay: not run out, or malformed
	// Each round deletes or keeps every id it reads, so that the rounds are
	// bounded by the size of the index.
	for {
		ids, err := s.client.ZRangeByScore(ctx, s.index, &goredis.ZRangeBy{Min: "-inf", Max: upTo, Count: int64(len(kept) + expireBatch)}).Result()
		if err != nil {
			return deleted, fmt.Errorf("redis.TaskStore: expire: read the index: %w", err)
		}
		progress := false
		for _, id := range ids {
			if kept[id] {
				continue
			}
			progress = true
			gone, err := s.expireOne(ctx, id, now)
			if err != nil {
				return deleted, fmt.Errorf("redis.TaskStore: expire: %w", err)
			}
			switch gone {
			case 1:
				deleted = append(deleted, id)
			case -1:
				kept[id] = true
			}
		}
		if !progress {
			return deleted, nil
		}
	}
}

// expireOne deletes the record id if it has run out at now. It returns 1
// when it deleted it, 0 when the record was gone already, -1 when it stays.
func (s *TaskStore) expireOne(ctx context.Context, id string, now time.Time) (int64, error) {
	for range taskUpdateAttempts {
		doc, err := s.client.Get(ctx, s.key(id)).Result()
		switch {
		case errors.Is(err, goredis.Nil):
			doc = "" // deleteScript drops the id from the index
		case err != nil:
			return 0, err
		default:
			var rec tasks.Record
			if rec.UnmarshalJSON([]byte(doc)) != nil {
				return -1, nil // Redis expires it by its key's deadline
			}
			if rec.TTL <= 0 || !now.After(rec.CreatedAt.Add(rec.TTL)) {
				return -1, nil
			}
		}
		n, err := deleteScript.Run(ctx, s.client, []string{s.key(id), s.index}, doc, id, s.channel).Int64()
		if err != nil || n >= 0 {
			return n, err
		}
	}
	return -1, nil
}

// CheckDurability reports whether the Redis server makes every write
// durable before it replies: appendonly yes with appendfsync always. It
// needs the CONFIG command, which some managed services refuse; a store
// with TaskStoreOptions.Replicas set relies on its replicas instead.
func (s *TaskStore) CheckDurability(ctx context.Context) error {
	want := map[string]string{"appendonly": "yes", "appendfsync": "always"}
	for _, name := range []string{"appendonly", "appendfsync"} {
		got, err := s.client.ConfigGet(ctx, name).Result()
		if err != nil {
			return fmt.Errorf("redis.TaskStore: check durability: CONFIG GET %s: %w", name, err)
		}
		if got[name] != want[name] {
			return fmt.Errorf("redis.TaskStore: check durability: the server has %s %q, want %q, or a created task may be lost when it restarts: set it in redis.conf, or wait for replicas with TaskStoreOptions.Replicas", name, got[name], want[name])
		}
	}
	return nil
}

// Close ends the store's subscription; Waits under way end with an error.
// It does not close the client. Closing a closed store does nothing.
func (s *TaskStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	ps := s.ps
	s.mu.Unlock()
	var err error
	if ps != nil {
		err = ps.Close()
	}
	s.wg.Wait()
	if err != nil {
		return fmt.Errorf("redis.TaskStore: close the subscription to channel %q: %w", s.channel, err)
	}
	return nil
}
