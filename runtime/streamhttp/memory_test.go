package streamhttp

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// servePOST serves a POST of body in session sid (none if "") at
// 2025-11-25 by calling srv.ServeHTTP.
func servePOST(srv *Server, sid, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w
}

// idleCost is what idleSessionCost measured.
type idleCost struct {
	heap, goroutines float64 // per idle session
	// left is the heap once every session was ended by DELETE, less the
	// heap before the first was opened, in bytes.
	left float64
}

// idleSessionCost opens n sessions on srv that are initialized and then
// left idle, and returns the heap bytes and goroutines each one holds, as
// measured after a garbage collection; then it ends them all with DELETE
// and measures the heap left above the start. The requests are served by
// calling ServeHTTP directly, so no connection or its goroutines is
// counted.
func idleSessionCost(t testing.TB, srv *Server, n int) idleCost {
	t.Helper()
	var before, after, closed runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	sids := make([]string, n)
	for i := range n {
		w := servePOST(srv, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		sid := w.Header().Get("Mcp-Session-Id")
		if w.Code != http.StatusOK || sid == "" || !strings.Contains(w.Body.String(), `"protocolVersion"`) {
			t.Fatalf("initialize %d: %d %s", i, w.Code, w.Body)
		}
		if w := servePOST(srv, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
			t.Fatalf("initialized %d: %d %s", i, w.Code, w.Body)
		}
		sids[i] = sid
	}
	g1 := settledGoroutines(g0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for i, sid := range sids {
		r := httptest.NewRequest(http.MethodDelete, "http://127.0.0.1/", nil)
		r.Header.Set("Mcp-Session-Id", sid)
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != http.StatusNoContent {
			t.Fatalf("DELETE %d: %d %s", i, w.Code, w.Body)
		}
	}
	clear(sids)
	runtime.GC()
	runtime.ReadMemStats(&closed)
	return idleCost{
		heap:       float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n),
		goroutines: float64(g1-g0) / float64(n),
		left:       float64(int64(closed.HeapAlloc) - int64(before.HeapAlloc)),
	}
}

// settledGoroutines returns the number of goroutines once those that
// were ending have ended: the goroutines of the handlers that answered the
// last requests may not have returned yet when their answers are in. It
// waits until there are at most want, for at most a second (a hundred
// looks).
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// newIdleServer returns a Server whose sessions share one StandardServer
// of the newest revision, which serves the legacy sessions too: what
// applications run (its handler has a Bus, which each legacy session
// follows).
func newIdleServer() *Server {
	return NewServer(NewModernTestHandler, ServerOptions{MaxSessions: -1})
}

// TestIdleSessionCost checks the memory and goroutines an idle session
// holds against generous bounds (the package doc states the figures
// BenchmarkIdleSession measures): no goroutine (there were 4 before: a
// notification loop, and one that waited for the session's end to forget
// it; then 3 while a legacy session followed its handler's Bus on a
// goroutine of its own; then 2, the session's reader and an idle worker)
// and at most 3 KiB of heap (it was 20 KiB, most of it a notification
// queue allocated up front; then 7.4 KiB, 2.8 KiB with its two contexts
// and its channels made at once, and about 1.4 KiB since).
func TestIdleSessionCost(t *testing.T) {
	srv := newIdleServer()
	defer srv.Close()
	const n = 500
	c := idleSessionCost(t, srv, n)
	t.Logf("one idle session: %.0f bytes of heap, %.3f goroutines; %.0f bytes left once all were deleted", c.heap, c.goroutines, c.left)
	// A goroutine or two of the runtime's may come and go meanwhile: one
	// per session would be n.
	if c.heap > 3<<10 || c.goroutines*n > 2 {
		t.Errorf("one idle session holds %.0f bytes and %.3f goroutines; want at most 3 KiB and none", c.heap, c.goroutines)
	}
	// What the sessions held is given back: their goroutines were
	// (the runtime keeps a goroutine's memory for the next one), and
	// the server's table of sessions was once.
	if c.left > 1<<20 {
		t.Errorf("once every session was deleted, the heap is %.0f bytes above its start; want at most 1 MiB", c.left)
	}
	srv.mu.Lock()
	peak := srv.peak
	srv.mu.Unlock()
	if peak > n/4 {
		t.Errorf("once every session was deleted, the table of sessions is sized for %d; want it made anew, smaller than %d", peak, n/4)
	}
}

// BenchmarkIdleSession reports the heap bytes and goroutines one idle
// session holds (bytes/session, goroutines/session), over b.N sessions.
func BenchmarkIdleSession(b *testing.B) {
	srv := newIdleServer()
	defer srv.Close()
	c := idleSessionCost(b, srv, max(b.N, 100))
	b.ReportMetric(c.heap, "bytes/session")
	b.ReportMetric(c.goroutines, "goroutines/session")
	b.ReportMetric(c.left, "bytes-left-after-delete")
}
