package session

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestHandlerCtx checks the handler context against the context.Context
// contract: Done and Err before and after cancel, values, and contexts
// derived from it, which must be cancelled with it.
func TestHandlerCtx(t *testing.T) {
	hc := newHandlerCtx(nil, wire.IntID(7), wire.ID{})
	if hc.Err() != nil {
		t.Fatalf("Err before cancel = %v", hc.Err())
	}
	if _, ok := hc.Deadline(); ok {
		t.Errorf("a handler context has a deadline")
	}
	if id, ok := RequestID(hc); !ok || id != wire.IntID(7) {
		t.Errorf("RequestID = %v, %v", id, ok)
	}
	if v := hc.Value("other"); v != nil {
		t.Errorf("Value(other) = %v", v)
	}
	done := hc.Done()
	derived, stop := context.WithTimeout(hc, time.Hour)
	defer stop()
	afterRan := make(chan struct{})
	context.AfterFunc(hc, func() { close(afterRan) })
	unregistered := context.AfterFunc(hc, func() { t.Error("a stopped AfterFunc ran") })
	if !unregistered() {
		t.Errorf("stop of a registered AfterFunc = false")
	}
	select {
	case <-done:
		t.Fatal("Done closed before cancel")
	default:
	}

	hc.cancel()
	hc.cancel() // idempotent
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed by cancel")
	}
	if !errors.Is(hc.Err(), context.Canceled) {
		t.Errorf("Err = %v", hc.Err())
	}
	select {
	case <-derived.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a derived context was not cancelled")
	}
	if !errors.Is(derived.Err(), context.Canceled) {
		t.Errorf("derived Err = %v", derived.Err())
	}
	select {
	case <-afterRan:
	case <-time.After(10 * time.Second):
		t.Fatal("AfterFunc did not run")
	}

	// After cancel: Done is closed when first asked for, AfterFunc runs at once.
	late := newHandlerCtx(nil, wire.IntID(8), wire.ID{})
	late.cancel()
	select {
	case <-late.Done():
	default:
		t.Error("Done of a cancelled context is not closed")
	}
	ran := make(chan struct{})
	if late.AfterFunc(func() { close(ran) })() {
		t.Error("stop after cancel = true")
	}
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("AfterFunc on a cancelled context did not run")
	}
}

// A handlerCtx is allocated for every request: it stays in the 128-byte
// size class, so that what it records (why it was cancelled, the last
// progress reported) costs no memory per call.
func TestHandlerCtxSize(t *testing.T) {
	if n := unsafe.Sizeof(handlerCtx{}); n > 128 {
		t.Errorf("handlerCtx is %d bytes, over the 128-byte size class", n)
	}
}
