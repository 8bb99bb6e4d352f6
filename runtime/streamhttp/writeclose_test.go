package streamhttp_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// dropWatch is a MemoryStore that notes an Append to a stream it dropped
// before: the stream is then kept, though nothing will drop it again.
type dropWatch struct {
	*streamhttp.MemoryStore
	mu       sync.Mutex
	dropped  map[string]bool
	revenant []string // streams appended to after their Drop
}

func (d *dropWatch) Memory() *streamhttp.MemoryStore { return d.MemoryStore }

func (d *dropWatch) Append(stream string, data []byte) (int64, error) {
	d.mu.Lock()
	if d.dropped[stream] {
		d.revenant = append(d.revenant, stream)
	}
	d.mu.Unlock()
	return d.MemoryStore.Append(stream, data)
}

func (d *dropWatch) Drop(stream string) {
	d.mu.Lock()
	d.dropped[stream] = true
	d.mu.Unlock()
	d.MemoryStore.Drop(stream)
}

// A message written just as its session ends (a broadcast, say, whose
// Write has looked at the session before the session dropped its streams)
// is refused with net.ErrClosed, not appended: it would recreate a stream
// in the EventStore after the session dropped it, and nothing would ever
// drop it again. The hook holds the Write between its first look at the
// session and its lock while a DELETE ends the session.
func TestWriteRacingCloseKeepsNothing(t *testing.T) {
	store := &dropWatch{MemoryStore: streamhttp.NewMemoryStore(), dropped: map[string]bool{}}
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(whisperServer()) }, streamhttp.ServerOptions{EventStore: store})
	reached, gate := make(chan struct{}), make(chan struct{})
	streamhttp.SetWriteHook(h, func(data []byte) {
		if bytes.Contains(data, []byte("racing-close")) {
			close(reached)
			select {
			case <-gate:
			case <-time.After(20 * time.Second): // a bound for a failing test
			}
		}
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	sid := openSession(t, ts.URL, "")
	tr := streamhttp.TransportOf(h, sid)
	written := make(chan error, 1)
	go func() {
		written <- tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"racing-close"}}`))
	}()
	receive(t, "the Write", reached)
	if x := send(t, http.MethodDelete, ts.URL, "", sid, ""); x.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", x.status, x.body)
	}
	close(gate) // the session has ended and dropped its streams: the Write goes on
	if err := receive(t, "the Write's end", written); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a Write that raced the session's end: %v; want net.ErrClosed", err)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.revenant) > 0 {
		t.Errorf("streams appended to after the session dropped them: %q", store.revenant)
	}
	if _, ok, _ := store.After(sid+"-0", 0); ok {
		t.Error("the EventStore keeps the GET stream of the ended session")
	}
}
