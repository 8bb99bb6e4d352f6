package streamhttp

import (
	"net/http"
	"testing"
)

// BenchmarkServerPOST measures the server's side of one request answered
// on an SSE stream (a ping), served by calling ServeHTTP: no network.
func BenchmarkServerPOST(b *testing.B) {
	srv := newIdleServer()
	defer srv.Close()
	w := servePOST(srv, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	servePOST(srv, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.ReportAllocs()
	for b.Loop() {
		if w := servePOST(srv, sid, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); w.Code != http.StatusOK {
			b.Fatalf("ping: %d %s", w.Code, w.Body)
		}
	}
}
