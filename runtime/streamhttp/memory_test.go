package streamhttp

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
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

// idleSessionCost opens n sessions on srv that are initialized and then
// left idle, and returns the heap bytes and goroutines each one holds, as
// measured after a garbage collection. The requests are served by calling
// ServeHTTP directly, so no connection or its goroutines is counted.
func idleSessionCost(t testing.TB, srv *Server, n int) (heap, goroutines float64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	for i := range n {
		w := servePOST(srv, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		sid := w.Header().Get("Mcp-Session-Id")
		if w.Code != http.StatusOK || sid == "" || !strings.Contains(w.Body.String(), `"protocolVersion"`) {
			t.Fatalf("initialize %d: %d %s", i, w.Code, w.Body)
		}
		if w := servePOST(srv, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
			t.Fatalf("initialized %d: %d %s", i, w.Code, w.Body)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	g1 := runtime.NumGoroutine()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n), float64(g1-g0) / float64(n)
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
// BenchmarkIdleSession measures): 2 goroutines (the session's reader and a
// worker; there were 4 before: a notification loop, and one that waited
// for the session's end to forget it; and 3 while a legacy session
// followed its handler's Bus on a goroutine of its own) and at most 12 KiB
// of heap (it was 20 KiB, most of it a notification queue allocated up
// front).
func TestIdleSessionCost(t *testing.T) {
	srv := newIdleServer()
	defer srv.Close()
	const n = 500
	heap, goroutines := idleSessionCost(t, srv, n)
	t.Logf("one idle session: %.0f bytes of heap, %.2f goroutines", heap, goroutines)
	srv.mu.Lock()
	live := len(srv.sessions)
	srv.mu.Unlock()
	if live != n {
		t.Fatalf("%d sessions alive, want %d", live, n)
	}
	if heap > 12<<10 || goroutines > 2 {
		t.Errorf("one idle session holds %.0f bytes and %.2f goroutines; want at most 12 KiB and 2", heap, goroutines)
	}
}

// BenchmarkIdleSession reports the heap bytes and goroutines one idle
// session holds (bytes/session, goroutines/session), over b.N sessions.
func BenchmarkIdleSession(b *testing.B) {
	srv := newIdleServer()
	defer srv.Close()
	heap, goroutines := idleSessionCost(b, srv, max(b.N, 100))
	b.ReportMetric(heap, "bytes/session")
	b.ReportMetric(goroutines, "goroutines/session")
}
