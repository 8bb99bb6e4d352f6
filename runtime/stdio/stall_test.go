package stdio

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWriteTimeout checks that with WithWriteTimeout a Write to a peer
// that never reads fails once the timeout passed, on a writer with write
// deadlines (an os.Pipe) and on one without (an io.Pipe), that later Writes
// fail at once, and that Close then leaves no goroutine behind.
func TestWriteTimeout(t *testing.T) {
	tests := []struct {
		name string
		pipe func(t *testing.T) (r io.Closer, w io.Writer)
	}{
		{"os.Pipe, write deadlines", func(t *testing.T) (io.Closer, io.Writer) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		}},
		{"io.Pipe, no write deadlines", func(t *testing.T) (io.Closer, io.Writer) {
			r, w := io.Pipe()
			return r, w
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			before := runtime.NumGoroutine()
			peer, w := tt.pipe(t) // the peer never reads
			tr := New(strings.NewReader(""), w, WithWriteTimeout(50*time.Millisecond))
			big := []byte(`"` + strings.Repeat("x", 1<<20) + `"`) // more than a pipe holds
			errc := make(chan error, 1)
			go func() { errc <- tr.Write(ctx, big) }()
			var err error
			select {
			case err = <-errc:
			case <-ctx.Done():
				t.Fatal("Write to a peer that never reads did not return")
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "not reading") {
				t.Fatalf("Write = %v, want an error wrapping os.ErrDeadlineExceeded that says the peer is not reading", err)
			}
			if err2 := tr.Write(ctx, []byte("{}")); !errors.Is(err2, os.ErrDeadlineExceeded) {
				t.Errorf("Write after the timeout = %v, want it to fail the same way", err2)
			}
			tr.Close()
			peer.Close()
			checkGoroutines(t, before)
		})
	}
}
