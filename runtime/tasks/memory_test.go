package tasks_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/tasks/storetest"
)

func TestMemoryStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) tasks.Store {
		return tasks.NewMemoryStore(tasks.MemoryOptions{})
	})
}

// TestMemoryStoreContractFakeClock runs the contract with a clock far
// behind the records' creation times, which UpdatedAt must not go back to.
func TestMemoryStoreContractFakeClock(t *testing.T) {
	storetest.Run(t, func(t *testing.T) tasks.Store {
		c := &clock{now: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)}
		return tasks.NewMemoryStore(tasks.MemoryOptions{Now: c.Now})
	})
}

// clock is a fake clock that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func working(ttl time.Duration) *tasks.Record {
	return &tasks.Record{ID: tasks.NewID(), Status: tasks.StatusWorking, TTL: ttl}
}

func TestMemoryStoreClock(t *testing.T) {
	ctx := t.Context()
	c := &clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	s := tasks.NewMemoryStore(tasks.MemoryOptions{Now: c.Now})
	created := c.Now()
	r, err := s.Create(ctx, working(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !r.CreatedAt.Equal(created) || !r.UpdatedAt.Equal(created) {
		t.Errorf("Create stamped createdAt %v updatedAt %v, want the clock's %v", r.CreatedAt, r.UpdatedAt, created)
	}
	c.Add(5 * time.Second)
	u, err := s.Update(ctx, r.ID, "", func(x *tasks.Record) error { x.StatusMessage = "later"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !u.UpdatedAt.Equal(created.Add(5*time.Second)) || !u.CreatedAt.Equal(created) {
		t.Errorf("Update stamped createdAt %v updatedAt %v, want %v and %v", u.CreatedAt, u.UpdatedAt, created, created.Add(5*time.Second))
	}
}

func TestMemoryStoreFull(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name    string
		ttls    []time.Duration // of the records that fill the store
		advance time.Duration
		ok      bool // whether a Create then succeeds
		left    int  // records held afterwards
	}{
		{"none expired", []time.Duration{time.Minute, time.Minute}, 0, false, 2},
		{"ttl not yet run out", []time.Duration{time.Minute, time.Minute}, time.Minute, false, 2},
		{"one expired", []time.Duration{time.Minute, time.Hour}, time.Minute + time.Millisecond, true, 2},
		{"all expired", []time.Duration{time.Minute, time.Minute}, time.Hour, true, 1},
		{"unlimited never expire", []time.Duration{0, 0}, 1000 * time.Hour, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
			s := tasks.NewMemoryStore(tasks.MemoryOptions{MaxTasks: len(tt.ttls), Now: c.Now})
			for _, ttl := range tt.ttls {
				if _, err := s.Create(ctx, working(ttl)); err != nil {
					t.Fatalf("filling the store: %v", err)
				}
			}
			c.Add(tt.advance)
			_, err := s.Create(ctx, working(time.Minute))
			if tt.ok && err != nil {
				t.Errorf("Create: %v, want room made by collecting expired records", err)
			}
			if !tt.ok {
				if !errors.Is(err, tasks.ErrFull) {
					t.Errorf("Create in a full store: %v, want ErrFull", err)
				} else if !strings.Contains(err.Error(), "MaxTasks") {
					t.Errorf("ErrFull's message %q does not name the option to raise", err)
				}
			}
			if got := s.Len(); got != tt.left {
				t.Errorf("Len %d, want %d", got, tt.left)
			}
		})
	}
}

func TestMemoryStoreDefaultMax(t *testing.T) {
	ctx := t.Context()
	s := tasks.NewMemoryStore(tasks.MemoryOptions{MaxTasks: -1})
	for i := range tasks.DefaultMaxTasks {
		if _, err := s.Create(ctx, working(0)); err != nil {
			t.Fatalf("Create %d: %v", i, err)
		}
	}
	if _, err := s.Create(ctx, working(0)); !errors.Is(err, tasks.ErrFull) {
		t.Errorf("Create past DefaultMaxTasks: %v, want ErrFull", err)
	}
}

func TestMemoryStoreContextEnded(t *testing.T) {
	s := tasks.NewMemoryStore(tasks.MemoryOptions{})
	r, err := s.Create(t.Context(), working(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := []struct {
		name string
		call func() error
	}{
		{"Create", func() error { _, err := s.Create(ctx, working(0)); return err }},
		{"Get", func() error { _, err := s.Get(ctx, r.ID, ""); return err }},
		{"Update", func() error {
			_, err := s.Update(ctx, r.ID, "", func(*tasks.Record) error { return nil })
			return err
		}},
		{"Expire", func() error { _, err := s.Expire(ctx, time.Now()); return err }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with an ended context: %v, want context.Canceled", c.name, err)
		}
	}
	if s.Len() != 1 {
		t.Errorf("Len %d after calls with an ended context, want 1", s.Len())
	}
}

func TestMemoryStoreNil(t *testing.T) {
	s := tasks.NewMemoryStore(tasks.MemoryOptions{})
	if _, err := s.Create(t.Context(), nil); err == nil {
		t.Errorf("Create(nil) succeeded")
	}
}

// TestErrorsHideIDs checks that no error the store returns carries the task
// id or the principal, which may end up in logs.
func TestErrorsHideIDs(t *testing.T) {
	ctx := t.Context()
	s := tasks.NewMemoryStore(tasks.MemoryOptions{MaxTasks: 1})
	r := &tasks.Record{ID: tasks.NewID(), Principal: "secret-principal", Status: tasks.StatusCompleted,
		Result: jsontext.Value(`{"content":[]}`)}
	if _, err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	var errs []error
	_, err := s.Create(ctx, r)
	errs = append(errs, err)
	_, err = s.Create(ctx, &tasks.Record{ID: tasks.NewID(), Principal: "secret-principal", Status: tasks.StatusWorking})
	errs = append(errs, err)
	_, err = s.Get(ctx, r.ID, "other")
	errs = append(errs, err)
	_, err = s.Update(ctx, r.ID, "secret-principal", func(*tasks.Record) error { return nil })
	errs = append(errs, err)
	_, err = s.Wait(ctx, r.ID, "other", 0)
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Errorf("call %d succeeded, want an error", i)
			continue
		}
		if strings.Contains(err.Error(), r.ID) || strings.Contains(err.Error(), "secret-principal") {
			t.Errorf("call %d: error %q shows the task id or the principal", i, err)
		}
	}
}

// TestMemoryStoreMaxBytes fills a store's payload budget: a Create or an
// Update past it fails with ErrFull and changes nothing, an Update that
// shrinks a record is let through, and expiry gives the bytes back.
func TestMemoryStoreMaxBytes(t *testing.T) {
	ctx := t.Context()
	c := &clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	s := tasks.NewMemoryStore(tasks.MemoryOptions{MaxBytes: 100, Now: c.Now})
	big := func(n int) jsontext.Value { return jsontext.Value(`{"x":"` + strings.Repeat("a", n-8) + `"}`) }

	first := working(time.Minute)
	first.Params = big(60)
	r, err := s.Create(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Bytes(); got != 60 {
		t.Fatalf("Bytes after one 60-byte record = %d, want 60", got)
	}
	second := working(time.Hour)
	second.Params = big(50)
	if _, err := s.Create(ctx, second); !errors.Is(err, tasks.ErrFull) || !strings.Contains(err.Error(), "MaxBytes") {
		t.Errorf("Create past MaxBytes: %v, want ErrFull naming MaxBytes", err)
	}
	if _, err := s.Update(ctx, r.ID, "", func(x *tasks.Record) error { x.StatusMessage = strings.Repeat("m", 41); return nil }); !errors.Is(err, tasks.ErrFull) {
		t.Errorf("Update past MaxBytes: %v, want ErrFull", err)
	}
	if got, err := s.Get(ctx, r.ID, ""); err != nil || got.StatusMessage != "" || got.Version != 1 {
		t.Errorf("after the refused Update: %+v, %v; want the record unchanged", got, err)
	}
	if _, err := s.Update(ctx, r.ID, "", func(x *tasks.Record) error { x.Params = big(20); return nil }); err != nil {
		t.Errorf("an Update that shrinks the record: %v", err)
	}
	if got := s.Bytes(); got != 20 {
		t.Errorf("Bytes after shrinking = %d, want 20", got)
	}
	if _, err := s.Create(ctx, second); err != nil {
		t.Errorf("Create with room again: %v", err)
	}
	c.Add(2 * time.Minute) // the first expires, the second not
	if _, err := s.Expire(ctx, c.Now()); err != nil {
		t.Fatal(err)
	}
	if got := s.Bytes(); got != 50 {
		t.Errorf("Bytes after the first expired = %d, want 50", got)
	}
}

// TestMemoryStorePerPrincipal checks that one principal cannot hold more
// than its share, that others and unauthenticated requests still can, and
// that expiry gives a principal its room back.
func TestMemoryStorePerPrincipal(t *testing.T) {
	ctx := t.Context()
	c := &clock{now: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	s := tasks.NewMemoryStore(tasks.MemoryOptions{MaxTasksPerPrincipal: 2, Now: c.Now})
	owned := func(p string, ttl time.Duration) *tasks.Record {
		r := working(ttl)
		r.Principal = p
		return r
	}
	for _, ttl := range []time.Duration{time.Minute, time.Hour} {
		if _, err := s.Create(ctx, owned("alice", ttl)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Create(ctx, owned("alice", time.Hour)); !errors.Is(err, tasks.ErrFull) || !strings.Contains(err.Error(), "MaxTasksPerPrincipal") {
		t.Errorf("alice's third task: %v, want ErrFull naming MaxTasksPerPrincipal", err)
	}
	for _, p := range []string{"bob", "", "", ""} {
		if _, err := s.Create(ctx, owned(p, time.Hour)); err != nil {
			t.Errorf("principal %q: %v, want room", p, err)
		}
	}
	c.Add(2 * time.Minute) // alice's first expires
	if _, err := s.Create(ctx, owned("alice", time.Hour)); err != nil {
		t.Errorf("alice after one of hers expired: %v, want room", err)
	}
	unlimited := tasks.NewMemoryStore(tasks.MemoryOptions{MaxTasksPerPrincipal: -1})
	for range 3 {
		if _, err := unlimited.Create(ctx, owned("alice", 0)); err != nil {
			t.Errorf("no per-principal limit: %v", err)
		}
	}
}
