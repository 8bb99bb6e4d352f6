package storetest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/tasks/storetest"
)

// broken are stores that each break one promise of tasks.Store, and the
// subtest of the suite that must catch it.
var broken = map[string]struct {
	store   func() tasks.Store
	catches string
}{
	"principal": {func() tasks.Store { return &leaky{MemoryStore: mem()} }, "Principal"},
	"terminal":  {func() tasks.Store { return &overwriting{MemoryStore: mem()} }, "Terminal"},
	"aliasing":  {func() tasks.Store { return &aliasing{MemoryStore: mem(), kept: map[string]*tasks.Record{}} }, "Copies"},
	"early":     {func() tasks.Store { return &early{MemoryStore: mem()} }, "Expire"},
	"oracle":    {func() tasks.Store { return &oracle{MemoryStore: mem()} }, "Principal"},
}

func mem() *tasks.MemoryStore { return tasks.NewMemoryStore(tasks.MemoryOptions{}) }

// leaky shows other principals' records.
type leaky struct{ *tasks.MemoryStore }

func (s *leaky) Get(ctx context.Context, id, principal string) (*tasks.Record, error) {
	r, err := s.MemoryStore.Get(ctx, id, principal)
	for _, p := range []string{"alice", ""} {
		if errors.Is(err, tasks.ErrNotFound) {
			r, err = s.MemoryStore.Get(ctx, id, p)
		}
	}
	return r, err
}

// overwriting reports writes to terminal records as done.
type overwriting struct{ *tasks.MemoryStore }

func (s *overwriting) Update(ctx context.Context, id, principal string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	r, err := s.MemoryStore.Update(ctx, id, principal, fn)
	if errors.Is(err, tasks.ErrTerminal) {
		return s.MemoryStore.Get(ctx, id, principal)
	}
	return r, err
}

// aliasing hands out the same record to every Get.
type aliasing struct {
	*tasks.MemoryStore
	mu   sync.Mutex
	kept map[string]*tasks.Record
}

func (s *aliasing) Get(ctx context.Context, id, principal string) (*tasks.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.kept[id]; ok && r.Principal == principal {
		return r, nil
	}
	r, err := s.MemoryStore.Get(ctx, id, principal)
	if err == nil {
		s.kept[id] = r
	}
	return r, err
}

// early expires records a second before their time.
type early struct{ *tasks.MemoryStore }

func (s *early) Expire(ctx context.Context, now time.Time) ([]string, error) {
	return s.MemoryStore.Expire(ctx, now.Add(time.Second))
}

// oracle refuses a write to a terminal record before it looks at the
// principal, which tells anyone that the id exists.
type oracle struct{ *tasks.MemoryStore }

func (s *oracle) Update(ctx context.Context, id, principal string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	for _, p := range []string{"alice", ""} {
		if r, err := s.MemoryStore.Get(ctx, id, p); err == nil && r.Status.Terminal() {
			return nil, tasks.ErrTerminal
		}
	}
	return s.MemoryStore.Update(ctx, id, principal, fn)
}

// TestBroken runs the suite against the broken store named by
// $STORETEST_BROKEN, in the child processes TestSuiteCatches starts.
func TestBroken(t *testing.T) {
	name := os.Getenv("STORETEST_BROKEN")
	b, ok := broken[name]
	if !ok {
		return // not in a child process: nothing to run
	}
	storetest.Run(t, func(t *testing.T) tasks.Store { return b.store() })
}

// TestSuiteCatches checks that the suite fails each broken store, in the
// subtest meant to catch it, by running TestBroken in a child process.
func TestSuiteCatches(t *testing.T) {
	if os.Getenv("STORETEST_BROKEN") != "" {
		return
	}
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBroken$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "STORETEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed a store that breaks %s (%v):\n%s", name, err, out)
			}
			if want := "--- FAIL: TestBroken/" + b.catches + " "; !strings.Contains(string(out), want) {
				t.Errorf("the suite failed, but not in %s:\n%s", b.catches, out)
			}
		})
	}
}
