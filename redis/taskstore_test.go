package redis_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/tasks/storetest"
	goredis "github.com/redis/go-redis/v9"
)

// guard bounds every wait of these tests for something that must happen.
const guard = 10 * time.Second

// epoch is near the creation time of storetest's records, which lie in
// the past: a store on a clock that starts there gives them their full
// time to live in Redis.
var epoch = time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)

// fakeClock is a clock that runs from epoch with the real one, and that a
// test may move ahead.
type fakeClock struct {
	mu    sync.Mutex
	start time.Time
	ahead time.Duration
}

func newClock() *fakeClock { return &fakeClock{start: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return epoch.Add(time.Since(c.start) + c.ahead)
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.ahead += d
	c.mu.Unlock()
}

// newTaskStore returns a TaskStore on client with a prefix of its own,
// closed when the test ends.
func newTaskStore(t *testing.T, client goredis.UniversalClient, prefix string, opts redis.TaskStoreOptions) *redis.TaskStore {
	t.Helper()
	if prefix == "" {
		prefix = "test-" + tasks.NewID()
	}
	s, err := redis.NewTaskStore(client, prefix, opts)
	if err != nil {
		t.Fatalf("NewTaskStore: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// record returns a working record of alice with a TTL of an hour.
func record() *tasks.Record {
	return &tasks.Record{
		ID:        tasks.NewID(),
		Principal: "alice",
		Method:    "tools/call",
		Params:    jsontext.Value(`{"name":"slow"}`),
		Status:    tasks.StatusWorking,
		TTL:       time.Hour,
	}
}

func TestTaskStoreContract(t *testing.T) {
	client := redistest.Start(t).Client()
	storetest.Run(t, func(t *testing.T) tasks.Store {
		return newTaskStore(t, client, "", redis.TaskStoreOptions{Now: newClock().Now})
	})
}

// TestTaskStoreLayout checks the names and forms in Redis that the
// TaskStore documentation gives.
func TestTaskStoreLayout(t *testing.T) {
	ctx := t.Context()
	client := redistest.Start(t).Client()
	s := newTaskStore(t, client, "fleet", redis.TaskStoreOptions{})
	tests := []struct {
		name  string
		ttl   time.Duration
		score string
	}{
		{"with ttl", time.Hour, ""},
		{"without ttl", 0, "+inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := record()
			r.TTL = tt.ttl
			got, err := s.Create(ctx, r)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			doc, err := client.Get(ctx, "fleet:task:"+r.ID).Result()
			if err != nil {
				t.Fatalf("GET fleet:task:<id>: %v", err)
			}
			want, err := got.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if doc != string(want) {
				t.Errorf("stored %s, want the record's JSON form %s", doc, want)
			}
			pttl, err := client.PTTL(ctx, "fleet:task:"+r.ID).Result()
			if err != nil {
				t.Fatal(err)
			}
			if tt.ttl > 0 && (pttl <= 0 || pttl > tt.ttl) {
				t.Errorf("PTTL %v, want a deadline at most %v ahead", pttl, tt.ttl)
			}
			if tt.ttl == 0 && pttl != -1 {
				t.Errorf("PTTL %v, want -1 (no expiry)", pttl)
			}
			score, err := client.ZScore(ctx, "fleet:task-index", r.ID).Result()
			if err != nil {
				t.Fatalf("ZSCORE fleet:task-index: %v", err)
			}
			if tt.score == "+inf" && score < 1e300 {
				t.Errorf("index score %v, want +inf", score)
			}
			if tt.score == "" && int64(score) != got.CreatedAt.Add(tt.ttl).UnixMilli() {
				t.Errorf("index score %v, want %d", score, got.CreatedAt.Add(tt.ttl).UnixMilli())
			}
		})
	}
}

// TestTaskStoreTwoInstances: two stores on one server, as two instances of
// a fleet; a Wait on one wakes from a write on the other.
func TestTaskStoreTwoInstances(t *testing.T) {
	srv := redistest.Start(t)
	clock := newClock()
	tests := []struct {
		name  string
		write func(ctx context.Context, b *redis.TaskStore, id string) error
		want  tasks.Status // the status Wait returns; "" for ErrNotFound
	}{
		{"update", func(ctx context.Context, b *redis.TaskStore, id string) error {
			_, err := b.Update(ctx, id, "alice", func(r *tasks.Record) error {
				r.Status = tasks.StatusInputRequired
				r.Outstanding = map[string]jsontext.Value{"k": jsontext.Value(`{"method":"elicitation/create"}`)}
				return nil
			})
			return err
		}, tasks.StatusInputRequired},
		{"expire", func(ctx context.Context, b *redis.TaskStore, id string) error {
			ids, err := b.Expire(ctx, clock.Now().Add(2*time.Hour))
			if err == nil && len(ids) != 1 {
				err = errors.New("Expire deleted no record")
			}
			return err
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			prefix := "fleet-" + tasks.NewID()
			a := newTaskStore(t, srv.Client(), prefix, redis.TaskStoreOptions{Now: clock.Now})
			b := newTaskStore(t, srv.Client(), prefix, redis.TaskStoreOptions{Now: clock.Now})
			r, err := a.Create(ctx, record())
			if err != nil {
				t.Fatalf("Create on a: %v", err)
			}
			if _, err := b.Get(ctx, r.ID, "alice"); err != nil {
				t.Fatalf("Get on b of the record created on a: %v", err)
			}
			type result struct {
				r   *tasks.Record
				err error
			}
			ch := make(chan result, 1)
			go func() {
				w, err := a.Wait(ctx, r.ID, "alice", 1)
				ch <- result{w, err}
			}()
			if err := tt.write(ctx, b, r.ID); err != nil {
				t.Fatalf("the write on b: %v", err)
			}
			select {
			case res := <-ch:
				switch {
				case tt.want == "" && !errors.Is(res.err, tasks.ErrNotFound):
					t.Errorf("Wait on a: %v, want ErrNotFound", res.err)
				case tt.want != "" && res.err != nil:
					t.Errorf("Wait on a: %v", res.err)
				case tt.want != "" && (res.r.Status != tt.want || res.r.Version != 2):
					t.Errorf("Wait on a: status %s version %d, want %s 2", res.r.Status, res.r.Version, tt.want)
				}
			case <-time.After(guard):
				t.Fatalf("Wait on a did not wake within %v of the write on b", guard)
			}
		})
	}
}

// TestTaskStoreRedisExpiry: Redis deletes a record whose time to live ran
// out by itself; a Wait on it ends with ErrNotFound, and Expire has
// nothing left to return.
func TestTaskStoreRedisExpiry(t *testing.T) {
	ctx := t.Context()
	client := redistest.Start(t).Client()
	s := newTaskStore(t, client, "fleet", redis.TaskStoreOptions{})
	r := record()
	r.TTL = 50 * time.Millisecond
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatalf("Create: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, guard)
	defer cancel()
	if _, err := s.Wait(wctx, r.ID, "alice", 1); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Wait on a record whose TTL runs out: %v, want ErrNotFound", err)
	}
	if n, err := client.Exists(ctx, "fleet:task:"+r.ID).Result(); err != nil || n != 0 {
		t.Errorf("EXISTS after the TTL: %d, %v; want 0", n, err)
	}
	ids, err := s.Expire(ctx, time.Now().Add(time.Hour))
	if err != nil || len(ids) != 0 {
		t.Errorf("Expire: %d ids, %v; want none: Redis deleted the record itself", len(ids), err)
	}
	if n, err := client.ZCard(ctx, "fleet:task-index").Result(); err != nil || n != 0 {
		t.Errorf("ZCARD of the index after Expire: %d, %v; want 0", n, err)
	}
}

// TestTaskStoreLimits checks MaxRecordBytes and MaxTasks.
func TestTaskStoreLimits(t *testing.T) {
	ctx := t.Context()
	client := redistest.Start(t).Client()
	big := jsontext.Value(`{"text":"` + strings.Repeat("x", 2000) + `"}`)

	t.Run("record bytes", func(t *testing.T) {
		s := newTaskStore(t, client, "", redis.TaskStoreOptions{MaxRecordBytes: 1000})
		tests := []struct {
			name string
			call func() error
		}{
			{"create", func() error {
				r := record()
				r.Params = big
				_, err := s.Create(ctx, r)
				return err
			}},
			{"update", func() error {
				r, err := s.Create(ctx, record())
				if err != nil {
					return err
				}
				_, err = s.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
					x.Answers = map[string]jsontext.Value{"k": big}
					return nil
				})
				if got, gerr := s.Get(ctx, r.ID, "alice"); gerr != nil || got.Version != 1 {
					t.Errorf("after the refused update: %v, %v; want version 1", got, gerr)
				}
				return err
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.call()
				if !errors.Is(err, tasks.ErrFull) || !strings.Contains(err.Error(), "MaxRecordBytes") {
					t.Errorf("%v; want ErrFull naming MaxRecordBytes", err)
				}
			})
		}
	})

	t.Run("tasks", func(t *testing.T) {
		clock := newClock()
		s := newTaskStore(t, client, "", redis.TaskStoreOptions{MaxTasks: 2, Now: clock.Now})
		for range 2 {
			if _, err := s.Create(ctx, record()); err != nil {
				t.Fatalf("Create: %v", err)
			}
		}
		if _, err := s.Create(ctx, record()); !errors.Is(err, tasks.ErrFull) {
			t.Fatalf("Create past MaxTasks: %v, want ErrFull", err)
		}
		// Once the records' time has run out, Create makes room.
		clock.Advance(2 * time.Hour)
		if _, err := s.Create(ctx, record()); err != nil {
			t.Fatalf("Create after the others ran out: %v", err)
		}
	})
}

// TestTaskStoreRestart: with Redis down every call fails at once with the
// client's error; after a restart the store works again, and a Wait parked
// across the restart wakes from a write made after it.
func TestTaskStoreRestart(t *testing.T) {
	ctx := t.Context()
	srv := redistest.StartWith(t, redistest.Options{AppendOnly: true})
	clock := newClock()
	a := newTaskStore(t, srv.Client(), "fleet", redis.TaskStoreOptions{Now: clock.Now})
	// b's client fails fast: one dial per call, no retry.
	fast := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { fast.Close() })
	b := newTaskStore(t, fast, "fleet", redis.TaskStoreOptions{Now: clock.Now})
	r, err := a.Create(ctx, record())
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	woke := make(chan error, 1)
	go func() {
		w, err := a.Wait(ctx, r.ID, "alice", 1)
		if err == nil && w.StatusMessage != "after the restart" {
			err = errors.New("woke with " + w.StatusMessage)
		}
		woke <- err
	}()

	srv.Stop()
	down, cancel := context.WithTimeout(ctx, guard)
	defer cancel()
	calls := []struct {
		name string
		call func() error
	}{
		{"Create", func() error { _, err := b.Create(down, record()); return err }},
		{"Get", func() error { _, err := b.Get(down, r.ID, "alice"); return err }},
		{"Update", func() error {
			_, err := b.Update(down, r.ID, "alice", func(*tasks.Record) error { return nil })
			return err
		}},
		{"Wait", func() error { _, err := b.Wait(down, r.ID, "alice", 1); return err }},
		{"Expire", func() error { _, err := b.Expire(down, clock.Now()); return err }},
	}
	for _, c := range calls {
		err := c.call()
		var op *net.OpError
		if !errors.As(err, &op) || down.Err() != nil {
			t.Errorf("%s with Redis down: %v; want the client's network error, before the context ends", c.name, err)
		}
		for _, e := range []error{tasks.ErrNotFound, tasks.ErrConflict, tasks.ErrFull} {
			if errors.Is(err, e) {
				t.Errorf("%s with Redis down: %v; must not be %v", c.name, err, e)
			}
		}
	}

	srv.Restart()
	// The client dials again by itself, after a pause of its own: retry,
	// bounded in count and time.
	var got *tasks.Record
	deadline := time.After(guard)
	for i := 0; ; i++ {
		got, err = b.Update(ctx, r.ID, "alice", func(x *tasks.Record) error {
			x.StatusMessage = "after the restart"
			return nil
		})
		if err == nil {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("Update still failing %v after the restart, %d tries: %v", guard, i+1, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if got.Version != 2 {
		t.Errorf("Update after the restart: version %d, want 2 (the record survived in the append-only file)", got.Version)
	}
	select {
	case err := <-woke:
		if err != nil {
			t.Errorf("the Wait parked across the restart: %v", err)
		}
	case <-time.After(guard):
		t.Fatalf("the Wait parked across the restart did not wake within %v of the write after it", guard)
	}
}

func TestTaskStoreDurability(t *testing.T) {
	tests := []struct {
		name    string
		server  redistest.Options
		opts    redis.TaskStoreOptions
		check   string // in CheckDurability's error; "" for none
		created string // in Create's error; "" for none
	}{
		{"append-only", redistest.Options{AppendOnly: true}, redis.TaskStoreOptions{}, "", ""},
		{"no persistence", redistest.Options{}, redis.TaskStoreOptions{}, `appendonly "no"`, ""},
		{"replicas missing", redistest.Options{AppendOnly: true}, redis.TaskStoreOptions{Replicas: 1, ReplicaTimeout: 20 * time.Millisecond}, "", "0 of the 1 replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s := newTaskStore(t, redistest.StartWith(t, tt.server).Client(), "", tt.opts)
			err := s.CheckDurability(ctx)
			if (err == nil) != (tt.check == "") || (err != nil && !strings.Contains(err.Error(), tt.check)) {
				t.Errorf("CheckDurability: %v; want an error containing %q", err, tt.check)
			}
			_, err = s.Create(ctx, record())
			if (err == nil) != (tt.created == "") || (err != nil && !strings.Contains(err.Error(), tt.created)) {
				t.Errorf("Create: %v; want an error containing %q", err, tt.created)
			}
		})
	}
}

func TestNewTaskStoreErrors(t *testing.T) {
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"}) // never contacted
	defer client.Close()
	tests := []struct {
		name   string
		client goredis.UniversalClient
		prefix string
		opts   redis.TaskStoreOptions
		want   string
	}{
		{"nil client", nil, "fleet", redis.TaskStoreOptions{}, "client is nil"},
		{"empty prefix", client, "", redis.TaskStoreOptions{}, "prefix is empty"},
		{"negative bytes", client, "fleet", redis.TaskStoreOptions{MaxRecordBytes: -1}, "MaxRecordBytes"},
		{"negative replicas", client, "fleet", redis.TaskStoreOptions{Replicas: -1}, "Replicas"},
		{"negative timeout", client, "fleet", redis.TaskStoreOptions{ReplicaTimeout: -time.Second}, "ReplicaTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := redis.NewTaskStore(tt.client, tt.prefix, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewTaskStore: %v, %v; want an error containing %q", s, err, tt.want)
			}
		})
	}
}
