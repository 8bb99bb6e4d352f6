package validate_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/validate"
)

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// memoryPairs is how many request/response pairs the memory tests send,
// and memoryBound how much the heap may grow meanwhile: the target
// is under 2 MiB over 200k pairs. Under the race detector, where
// validation is ten times slower, a tenth of both.
var memoryPairs, memoryBound = func() (int, uint64) {
	if raceEnabled {
		return 20_000, 2 << 20 / 10
	}
	return 200_000, 2 << 20
}()

// TestStreamMemoryBounded sends request/response pairs with integer ids
// through a Stream: once answered, a request must cost (next to) nothing.
func TestStreamMemoryBounded(t *testing.T) {
	v := validator(t, "2025-11-25")
	tests := []struct {
		name  string
		id    func(i int) string // the id of pair i as JSON
		pairs int
	}{
		{"sequential", func(i int) string { return strconv.Itoa(i + 1) }, memoryPairs},
		{"pairs swapped", func(i int) string { return strconv.Itoa(i ^ 1) }, memoryPairs / 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := v.Stream()
			send := func(from, to int) {
				for i := from; i < to; i++ {
					id := tt.id(i)
					for _, r := range s.Payload([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`), 0, validate.Client) {
						if !r.Valid() {
							t.Fatalf("request %s: %v", id, r.Problems)
						}
					}
					for _, r := range s.Payload([]byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`), 0, validate.Server) {
						if !r.Valid() {
							t.Fatalf("response %s: %v", id, r.Problems)
						}
					}
				}
			}
			send(0, 1000) // warm up: compiled schemas, first allocations
			before := heapAlloc()
			send(1000, tt.pairs)
			after := heapAlloc()
			runtime.KeepAlive(s)
			if bound := memoryBound * uint64(tt.pairs) / uint64(memoryPairs); after > before && after-before > bound {
				t.Errorf("heap grew by %d KiB over %d pairs, want < %d KiB", (after-before)>>10, tt.pairs, bound>>10)
			}
		})
	}
}

// feed is a transport whose Read returns the messages next gives, and
// whose Write counts what is written.
type feed struct {
	next   func() []byte
	writes int
}

func (f *feed) Read(context.Context) ([]byte, error) {
	if b := f.next(); b != nil {
		return b, nil
	}
	return nil, io.EOF
}

func (f *feed) Write(context.Context, []byte) error { f.writes++; return nil }
func (f *feed) Close() error                        { return nil }

// TestTransportMemoryBounded runs request/response pairs through
// Transport: requests answered by the session, and invalid requests the
// wrapper answers itself.
func TestTransportMemoryBounded(t *testing.T) {
	v := validator(t, "2025-11-25")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name    string
		request string // %d is the id
		answer  bool   // the session answers (else the wrapper does)
		pairs   int
	}{
		{"answered by the session", `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, true, memoryPairs},
		{"invalid, answered by the wrapper", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":1}}`, false, memoryPairs / 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			n := 0 // the id of the last request
			f := &feed{next: func() []byte {
				n++
				return fmt.Appendf(nil, tt.request, n)
			}}
			if !tt.answer {
				// The wrapper answers each invalid request and reads on: a
				// valid notification after each one ends the Read.
				odd := false
				f.next = func() []byte {
					if odd = !odd; !odd {
						return []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
					}
					n++
					return fmt.Appendf(nil, tt.request, n)
				}
			}
			w := validate.Transport(f, v, validate.TransportOptions{Side: validate.Server, Logger: quiet})
			pairs := func(count int) {
				for range count {
					msg, err := w.Read(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if tt.answer {
						if err := w.Write(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{}}`, n)); err != nil {
							t.Fatal(err)
						}
					} else if string(msg) != `{"jsonrpc":"2.0","method":"notifications/initialized"}` {
						t.Fatalf("passed on %s", msg)
					}
				}
			}
			pairs(1000)
			before := heapAlloc()
			pairs(tt.pairs - 1000)
			after := heapAlloc()
			runtime.KeepAlive(w)
			if bound := memoryBound * uint64(tt.pairs) / uint64(memoryPairs); after > before && after-before > bound {
				t.Errorf("heap grew by %d KiB over %d pairs, want < %d KiB", (after-before)>>10, tt.pairs, bound>>10)
			}
			if !tt.answer && f.writes != tt.pairs {
				t.Errorf("the wrapper answered %d requests, want %d", f.writes, tt.pairs)
			}
		})
	}
}
