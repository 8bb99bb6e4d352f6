package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// TestEndCtx checks the contexts a session ends itself: Done made before
// or after the end, Err, functions registered with AfterFunc (stopped or
// not), and a context derived from one, which is cancelled with it.
func TestEndCtx(t *testing.T) {
	tests := []struct {
		name       string
		doneBefore bool // Done is asked for before cancel
		stop       bool // the AfterFunc is stopped before cancel
	}{
		{"done made before the end", true, false},
		{"done made after the end", false, false},
		{"after func stopped", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c endCtx
			if err := c.Err(); err != nil {
				t.Fatalf("Err before cancel = %v, want nil", err)
			}
			var done <-chan struct{}
			if tc.doneBefore {
				done = c.Done()
			}
			ran := make(chan struct{})
			stop := c.AfterFunc(func() { close(ran) })
			child, cancelChild := context.WithCancel(&c)
			defer cancelChild()
			if tc.stop && !stop() {
				t.Fatal("stop before cancel = false, want true")
			}
			c.cancel()
			c.cancel() // a second cancel does nothing
			if !tc.doneBefore {
				done = c.Done()
			}
			select {
			case <-done:
			default:
				t.Fatal("Done is not closed after cancel")
			}
			if err := c.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("Err = %v, want context.Canceled", err)
			}
			select {
			case <-child.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("a context derived from it was not cancelled with it")
			}
			if tc.stop {
				select {
				case <-ran:
					t.Error("a stopped AfterFunc ran")
				default:
				}
				return
			}
			select {
			case <-ran:
			case <-time.After(10 * time.Second):
				t.Fatal("the AfterFunc did not run")
			}
			if stop() {
				t.Error("stop after the func ran = true, want false")
			}
			late := make(chan struct{})
			c.AfterFunc(func() { close(late) })
			select {
			case <-late:
			case <-time.After(10 * time.Second):
				t.Fatal("an AfterFunc registered after the end did not run")
			}
		})
	}
}

// TestDoneAfterEnd checks that Done asked for only once the session has
// ended is closed, as is the one asked for before.
func TestDoneAfterEnd(t *testing.T) {
	for _, before := range []bool{true, false} {
		a, b := transport.Pipe()
		s := New(Server, a, noInfo{}, Options{})
		var done <-chan struct{}
		if before {
			done = s.Done()
		}
		b.Close()
		s.Close()
		if !before {
			done = s.Done()
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Done (asked for before the end: %v) is not closed once Close returned", before)
		}
	}
}
