package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestPipeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		msgs []string
	}{
		{"one", []string{`{"jsonrpc":"2.0","method":"ping","id":1}`}},
		{"several", []string{`1`, `2`, `3`, `"four"`}},
		{"empty payload", []string{``, `x`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := Pipe()
			defer a.Close()
			for _, dir := range []struct {
				name     string
				from, to Transport
			}{{"a->b", a, b}, {"b->a", b, a}} {
				for _, m := range tt.msgs {
					if err := dir.from.Write(ctx, []byte(m)); err != nil {
						t.Fatalf("%s: Write: %v", dir.name, err)
					}
				}
				for _, want := range tt.msgs {
					got, err := dir.to.Read(ctx)
					if err != nil {
						t.Fatalf("%s: Read: %v", dir.name, err)
					}
					if string(got) != want {
						t.Fatalf("%s: Read = %q, want %q", dir.name, got, want)
					}
				}
			}
		})
	}
}

func TestPipeCopiesPayload(t *testing.T) {
	ctx := testCtx(t)
	a, b := Pipe()
	defer a.Close()
	buf := []byte("hello")
	if err := a.Write(ctx, buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXX") // the writer reuses its buffer
	got, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "hello" {
		t.Fatalf("Read = %q, want %q: Write did not copy", got, "hello")
	}
}

func TestPipeConcurrentWriters(t *testing.T) {
	const writers, each = 8, 200
	ctx := testCtx(t)
	a, b := Pipe()
	defer a.Close()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := a.Write(ctx, fmt.Appendf(nil, "%d-%04d", w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	got := make(map[int][]string)
	for range writers * each {
		m, err := b.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var w, i int
		if _, err := fmt.Sscanf(string(m), "%d-%d", &w, &i); err != nil {
			t.Fatalf("bad payload %q", m)
		}
		got[w] = append(got[w], string(m))
	}
	wg.Wait()
	for w := range writers {
		if len(got[w]) != each || !sort.StringsAreSorted(got[w]) {
			t.Errorf("writer %d: got %d payloads, in order: %v", w, len(got[w]), sort.StringsAreSorted(got[w]))
		}
	}
}

// TestPipeNoDeadlock: both ends write a lot before either reads.
func TestPipeNoDeadlock(t *testing.T) {
	ctx := testCtx(t)
	a, b := Pipe()
	defer a.Close()
	const n = 10000
	for i := range n {
		if err := a.Write(ctx, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if err := b.Write(ctx, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		if _, err := a.Read(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPipeReadCancel(t *testing.T) {
	tests := []struct {
		name   string
		before bool // cancel before Read is called
	}{
		{"cancel while blocked", false},
		{"already cancelled", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Pipe()
			defer a.Close()
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			errc := make(chan error, 1)
			if tt.before {
				cancel()
			}
			go func() {
				_, err := b.Read(ctx)
				errc <- err
			}()
			if !tt.before {
				time.Sleep(20 * time.Millisecond)
				cancel()
			}
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Read error = %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read did not return after cancellation")
			}
			// The cancelled Read consumed nothing; the pipe still works.
			ctx2 := testCtx(t)
			if err := a.Write(ctx2, []byte("after")); err != nil {
				t.Fatal(err)
			}
			if got, err := b.Read(ctx2); err != nil || string(got) != "after" {
				t.Fatalf("Read after cancel = %q, %v", got, err)
			}
		})
	}
}

func TestPipeWriteCancelled(t *testing.T) {
	a, b := Pipe()
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Write(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write with cancelled ctx = %v", err)
	}
	// Nothing was delivered.
	rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer rcancel()
	if m, err := b.Read(rctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read = %q, %v; want deadline exceeded", m, err)
	}
}

func TestPipeClose(t *testing.T) {
	tests := []struct {
		name   string
		closer int // 0: a, 1: b
	}{
		{"close writer end", 0},
		{"close reader end", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			a, b := Pipe()
			ends := [2]Transport{a, b}
			for _, m := range []string{"1", "2"} {
				if err := a.Write(ctx, []byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			if err := ends[tt.closer].Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := ends[tt.closer].Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			// Already-written payloads are drained first, then io.EOF.
			for _, want := range []string{"1", "2"} {
				got, err := b.Read(ctx)
				if err != nil || string(got) != want {
					t.Fatalf("Read = %q, %v; want %q", got, err, want)
				}
			}
			for i, end := range ends {
				if _, err := end.Read(ctx); err != io.EOF {
					t.Fatalf("end %d: Read after close = %v, want io.EOF", i, err)
				}
				if err := end.Write(ctx, []byte("x")); !errors.Is(err, net.ErrClosed) {
					t.Fatalf("end %d: Write after close = %v, want net.ErrClosed", i, err)
				}
			}
		})
	}
}

func TestPipeCloseUnblocksRead(t *testing.T) {
	ctx := testCtx(t)
	a, b := Pipe()
	errc := make(chan error, 2)
	for _, end := range []Transport{a, b} {
		go func() {
			_, err := end.Read(ctx)
			errc <- err
		}()
	}
	time.Sleep(20 * time.Millisecond)
	a.Close()
	for range 2 {
		select {
		case err := <-errc:
			if err != io.EOF {
				t.Fatalf("blocked Read = %v, want io.EOF", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not unblock Read")
		}
	}
}

// TestPipePush checks the Pusher side of a Pipe: payloads queued before
// SetPush are pushed first, in order; later ones are pushed on the writing
// goroutine, never inline, and not queued for Read.
func TestPipePush(t *testing.T) {
	a, b := Pipe()
	ctx := context.Background()
	for _, s := range []string{"1", "2"} {
		if err := b.Write(ctx, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	a.(Pusher).SetPush(func(data []byte, inline bool) {
		if inline {
			t.Errorf("payload %s pushed inline", data)
		}
		got = append(got, string(data))
	})
	if diff := cmp.Diff([]string{"1", "2"}, got); diff != "" {
		t.Fatalf("the backlog was not pushed in order (-want +got):\n%s", diff)
	}
	buf := []byte("3")
	if err := b.Write(ctx, buf); err != nil {
		t.Fatal(err)
	}
	buf[0] = 'X' // the pushed payload is a copy
	if diff := cmp.Diff([]string{"1", "2", "3"}, got); diff != "" {
		t.Fatalf("Write did not push before returning (-want +got):\n%s", diff)
	}
	// The other direction still queues.
	if err := a.Write(ctx, []byte("to b")); err != nil {
		t.Fatal(err)
	}
	if m, err := b.Read(ctx); err != nil || string(m) != "to b" {
		t.Fatalf("b.Read = %q, %v", m, err)
	}
	// Nothing pushed is left for Read, which ends with the pipe.
	b.Close()
	if m, err := a.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("a.Read after Close = %q, %v; want io.EOF", m, err)
	}
	if err := b.Write(ctx, []byte("4")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close = %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("pushed after Close: %q", got)
	}
}
