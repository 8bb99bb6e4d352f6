package eventstoretest_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
)

// broken are stores that each break one promise of streamhttp.EventStore,
// and the subtest of the suite that must catch it.
var broken = map[string]struct {
	store   func() streamhttp.EventStore
	catches string
}{
	"gaps":          {func() streamhttp.EventStore { return &gaps{MemoryStore: mem()} }, "Numbering"},
	"inclusive":     {func() streamhttp.EventStore { return &inclusive{mem()} }, "After"},
	"knows all":     {func() streamhttp.EventStore { return &knowsAll{mem()} }, "Unknown"},
	"discards more": {func() streamhttp.EventStore { return &greedy{mem()} }, "Discard"},
	"racy append":   {func() streamhttp.EventStore { return newRacy() }, "Concurrent"},
}

func mem() *streamhttp.MemoryStore { return streamhttp.NewMemoryStore() }

// gaps lets a hidden event take a number before every third one.
type gaps struct {
	*streamhttp.MemoryStore
	mu sync.Mutex
	n  int
}

func (s *gaps) Append(stream string, data []byte) (int64, error) {
	s.mu.Lock()
	s.n++
	skip := s.n%3 == 0
	s.mu.Unlock()
	if skip {
		if _, err := s.MemoryStore.Append(stream, []byte("lost")); err != nil {
			return 0, err
		}
	}
	return s.MemoryStore.Append(stream, data)
}

// inclusive returns the event numbered seq too.
type inclusive struct{ *streamhttp.MemoryStore }

func (s *inclusive) After(stream string, seq int64) ([]streamhttp.Event, bool, error) {
	return s.MemoryStore.After(stream, seq-1)
}

// knowsAll reports every stream as known.
type knowsAll struct{ *streamhttp.MemoryStore }

func (s *knowsAll) After(stream string, seq int64) ([]streamhttp.Event, bool, error) {
	evs, _, err := s.MemoryStore.After(stream, seq)
	return evs, true, err
}

// greedy discards one event more than asked.
type greedy struct{ *streamhttp.MemoryStore }

func (s *greedy) Discard(stream string, seq int64) { s.MemoryStore.Discard(stream, seq+1) }

// racy numbers events by reading the count, then writing: no atomicity.
type racy struct {
	mu   sync.Mutex
	evs  map[string][]streamhttp.Event
	next map[string]int64
}

func newRacy() *racy { return &racy{evs: map[string][]streamhttp.Event{}, next: map[string]int64{}} }

func (s *racy) Append(stream string, data []byte) (int64, error) {
	s.mu.Lock()
	seq := s.next[stream] + 1
	s.mu.Unlock()
	time.Sleep(100 * time.Microsecond) // another append reads meanwhile
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next[stream] = seq
	s.evs[stream] = append(s.evs[stream], streamhttp.Event{Seq: seq, Data: append([]byte(nil), data...)})
	return seq, nil
}

func (s *racy) After(stream string, seq int64) ([]streamhttp.Event, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	evs, ok := s.evs[stream]
	var out []streamhttp.Event
	for _, ev := range evs {
		if ev.Seq > seq {
			out = append(out, ev)
		}
	}
	return out, ok, nil
}

func (s *racy) Discard(stream string, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var kept []streamhttp.Event
	for _, ev := range s.evs[stream] {
		if ev.Seq > seq {
			kept = append(kept, ev)
		}
	}
	if _, ok := s.evs[stream]; ok {
		s.evs[stream] = kept
	}
}

func (s *racy) Drop(stream string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.evs, stream)
	delete(s.next, stream)
}

// TestBroken runs the suite against the broken store named by
// $EVENTSTORETEST_BROKEN, in the child processes TestSuiteCatches starts.
func TestBroken(t *testing.T) {
	b, ok := broken[os.Getenv("EVENTSTORETEST_BROKEN")]
	if !ok {
		return // not in a child process: nothing to run
	}
	eventstoretest.Run(t, func(*testing.T) streamhttp.EventStore { return b.store() })
}

// TestSuiteCatches checks that the subtest of the suite meant to catch
// each broken store fails it, by running that subtest of TestBroken in a
// child process.
func TestSuiteCatches(t *testing.T) {
	if os.Getenv("EVENTSTORETEST_BROKEN") != "" {
		return
	}
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBroken$/^"+b.catches+"$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "EVENTSTORETEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed a store that breaks %q (%v):\n%s", name, err, out)
			}
			if want := "--- FAIL: TestBroken/" + b.catches + " "; !strings.Contains(string(out), want) {
				t.Errorf("the suite failed, but not in %s:\n%s", b.catches, out)
			}
		})
	}
}
