package fleettest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/fleet/fleettest"
)

// broken are implementations that each break one promise, and the subtest
// of the suite that must catch it.
var broken = map[string]struct {
	store   func() fleet.SessionStore
	relay   func() fleet.Relay
	catches string
}{
	"overwriting create": {store: func() fleet.SessionStore { return &overwriting{mem()} }, catches: "CreateTaken"},
	"save by anyone":     {store: func() fleet.SessionStore { return &anySaver{mem()} }, catches: "SaveNotOwner"},
	"racy claim":         {store: func() fleet.SessionStore { return &racyClaim{SessionStore: mem()} }, catches: "ClaimRace"},
	"save ignores ttl":   {store: func() fleet.SessionStore { return &noRenew{mem()} }, catches: "SaveRenews"},
	"aliasing":           {store: func() fleet.SessionStore { return &aliasing{MemorySessionStore: mem()} }, catches: "Copies"},
	"always delivered":   {relay: func() fleet.Relay { return &boasting{fleet.NewMemoryRelay()} }, catches: "NoListener"},
	"unordered":          {relay: func() fleet.Relay { return &unordered{fleet.NewMemoryRelay()} }, catches: "Order"},
	"stop ignored":       {relay: func() fleet.Relay { return &deaf{fleet.NewMemoryRelay()} }, catches: "Stop"},
}

func mem() *fleet.MemorySessionStore { return fleet.NewMemorySessionStore() }

// overwriting creates over a taken id.
type overwriting struct{ *fleet.MemorySessionStore }

func (s *overwriting) Create(ctx context.Context, id string, rec fleet.Record, ttl time.Duration) (bool, error) {
	_ = s.MemorySessionStore.Delete(ctx, id)
	return s.MemorySessionStore.Create(ctx, id, rec, ttl)
}

// anySaver lets any instance save.
type anySaver struct{ *fleet.MemorySessionStore }

func (s *anySaver) Save(ctx context.Context, id, owner string, state []byte, ttl time.Duration) (bool, error) {
	r, err := s.Load(ctx, id)
	if err != nil {
		return false, nil
	}
	return s.MemorySessionStore.Save(ctx, id, r.Owner, state, ttl)
}

// racyClaim reads, then writes: no compare-and-set.
type racyClaim struct {
	fleet.SessionStore
	mu sync.Mutex
}

func (s *racyClaim) Claim(ctx context.Context, id, from, owner string, ttl time.Duration) (fleet.Record, error) {
	r, err := s.Load(ctx, id)
	if err != nil || r.Owner != from {
		return r, err
	}
	time.Sleep(time.Millisecond) // others read meanwhile
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.Delete(ctx, id)
	r.Owner = owner
	_, err = s.Create(ctx, id, r, ttl)
	return r, err
}

// noRenew saves the state but not the time to live it is given.
type noRenew struct{ *fleet.MemorySessionStore }

func (s *noRenew) Save(ctx context.Context, id, owner string, state []byte, ttl time.Duration) (bool, error) {
	return s.MemorySessionStore.Save(ctx, id, owner, state, 20*time.Millisecond)
}

// aliasing keeps the caller's state slice.
type aliasing struct {
	*fleet.MemorySessionStore
	mu   sync.Mutex
	kept map[string][]byte
}

func (s *aliasing) Create(ctx context.Context, id string, rec fleet.Record, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	if s.kept == nil {
		s.kept = map[string][]byte{}
	}
	s.kept[id] = rec.State
	s.mu.Unlock()
	return s.MemorySessionStore.Create(ctx, id, rec, ttl)
}

func (s *aliasing) Load(ctx context.Context, id string) (fleet.Record, error) {
	r, err := s.MemorySessionStore.Load(ctx, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.kept[id]; ok && err == nil {
		r.State = k
	}
	return r, err
}

// boasting reports every message as delivered.
type boasting struct{ *fleet.MemoryRelay }

func (r *boasting) Send(ctx context.Context, addr string, msg []byte) (bool, error) {
	_, err := r.MemoryRelay.Send(ctx, addr, msg)
	return err == nil, err
}

// unordered swaps each pair of messages: it holds the first of a pair
// until the second has been delivered.
type unordered struct{ *fleet.MemoryRelay }

func (r *unordered) Listen(ctx context.Context, addr string, fn func([]byte)) (func(), error) {
	var held []byte
	return r.MemoryRelay.Listen(ctx, addr, func(msg []byte) {
		if held == nil {
			held = msg
			return
		}
		fn(msg)
		fn(held)
		held = nil
	})
}

// deaf's stop does nothing.
type deaf struct{ *fleet.MemoryRelay }

func (r *deaf) Listen(ctx context.Context, addr string, fn func([]byte)) (func(), error) {
	_, err := r.MemoryRelay.Listen(ctx, addr, fn)
	return func() {}, err
}

// TestBroken runs the suites against the broken implementation named by
// $FLEETTEST_BROKEN, in the child processes TestSuiteCatches starts.
func TestBroken(t *testing.T) {
	b, ok := broken[os.Getenv("FLEETTEST_BROKEN")]
	if !ok {
		return // not in a child process: nothing to run
	}
	if b.store != nil {
		fleettest.RunSessionStore(t, func(*testing.T) fleet.SessionStore { return b.store() })
	}
	if b.relay != nil {
		fleettest.RunRelay(t, func(*testing.T) (fleet.Relay, fleet.Relay) { r := b.relay(); return r, r })
	}
}

// TestSuiteCatches checks that the subtest of the suites meant to catch
// each broken implementation fails it, by running that subtest of
// TestBroken in a child process.
func TestSuiteCatches(t *testing.T) {
	if os.Getenv("FLEETTEST_BROKEN") != "" {
		return
	}
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBroken$/^"+b.catches+"$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "FLEETTEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed an implementation that breaks %q (%v):\n%s", name, err, out)
			}
			suite := "RunSessionStore"
			if b.relay != nil {
				suite = "RunRelay"
			}
			if want := "--- FAIL: TestBroken/" + b.catches + " "; !strings.Contains(string(out), want) {
				t.Errorf("%s failed, but not in %s:\n%s", suite, b.catches, out)
			}
		})
	}
}
