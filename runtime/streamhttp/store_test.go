package streamhttp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzMemoryStore runs a sequence of Append, Discard, After and Drop on a
// MemoryStore against a model: sequence numbers run 1, 2, 3… without gaps
// and survive discards, After returns exactly the kept events above its
// argument, in order, with the data appended.
func FuzzMemoryStore(f *testing.F) {
	f.Add([]byte{0, 'a', 0, 'b', 2, 0, 1, 1, 2, 0, 0, 'c', 2, 2})
	f.Add([]byte{0, '{', 0, '}', 1, 9, 2, 5, 3, 0, 0, 'x', 2, 0})
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/message"}`))
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := NewMemoryStore()
		const id = "s-1"
		var all []Event // every event appended since the last Drop
		discarded := int64(0)
		known := false
		for len(ops) >= 2 {
			op, arg := ops[0]%4, ops[1]
			ops = ops[2:]
			switch op {
			case 0:
				data := []byte{arg}
				seq, err := m.Append(id, data)
				if want := int64(len(all) + 1); err != nil || seq != want {
					t.Fatalf("Append = %d, %v; want %d", seq, err, want)
				}
				data[0]++ // the store keeps its own copy
				all = append(all, Event{Seq: seq, Data: []byte{arg}})
				known = true
			case 1:
				m.Discard(id, int64(arg))
				discarded = max(discarded, min(int64(arg), int64(len(all))))
			case 2:
				seq := int64(arg) - 8
				got, ok, err := m.After(id, seq)
				if err != nil || ok != known {
					t.Fatalf("After(%d) = ok %v, err %v; want ok %v", seq, ok, err, known)
				}
				var want []Event
				for _, ev := range all {
					if ev.Seq > seq && ev.Seq > discarded {
						want = append(want, ev)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("After(%d) after discarding up to %d (-want +got):\n%s", seq, discarded, diff)
				}
			case 3:
				m.Drop(id)
				all, discarded, known = nil, 0, false
			}
		}
	})
}

// TestWriteLimits checks that a message that is no handler's and does not
// fit the unsent events of its stream or session is refused with
// ErrStreamFull, and that a message always fits an empty buffer.
func TestWriteLimits(t *testing.T) {
	msg := func(n int) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", n) + `"}}`)
	}
	for _, tc := range []struct {
		name  string
		opts  ServerOptions
		sizes []int
		want  []bool // whether each write is taken
	}{
		{"stream events", ServerOptions{StreamBufferEvents: 2}, []int{1, 1, 1}, []bool{true, true, false}},
		{"stream bytes", ServerOptions{StreamBufferBytes: 300}, []int{500, 1}, []bool{true, false}},
		{"stream bytes, fits", ServerOptions{StreamBufferBytes: 400}, []int{100, 100, 100}, []bool{true, true, false}},
		{"session events", ServerOptions{StreamBufferEvents: -1, SessionBufferEvents: 3}, []int{1, 1, 1, 1}, []bool{true, true, true, false}},
		{"session bytes", ServerOptions{StreamBufferBytes: -1, SessionBufferBytes: 100}, []int{200, 1}, []bool{true, false}},
		{"no limits", ServerOptions{StreamBufferEvents: -1, StreamBufferBytes: -1, SessionBufferEvents: -1, SessionBufferBytes: -1}, []int{1, 1, 1, 1, 1}, []bool{true, true, true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, hs := rawServer(t, tc.opts)
			sid := rawInitialize(t, hs, "2025-11-25")
			srv.mu.Lock()
			c := srv.sessions[sid]
			srv.mu.Unlock()
			var got []bool
			for i, n := range tc.sizes {
				err := c.Write(context.Background(), msg(n))
				if err != nil && !errors.Is(err, ErrStreamFull) {
					t.Fatalf("write %d: %v", i, err)
				}
				// Named by its tag: the error may be logged, and the
				// stream's id holds the session's.
				if err != nil && (!strings.Contains(err.Error(), c.streamTag(c.standalone.id)) || strings.Contains(err.Error(), sid)) {
					t.Errorf("write %d: %v does not name the stream by its tag %s, or holds the session id", i, err, c.streamTag(c.standalone.id))
				}
				got = append(got, err == nil)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("writes taken (-want +got):\n%s", diff)
			}
		})
	}
}
