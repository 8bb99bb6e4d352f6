package streamhttp

import (
	"net/http"
	"strings"
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

// BenchmarkClientSSE measures the client's SSE reader on what a server
// sends for one call: a priming event, a progress notification and the
// response (a 1 KiB text), read in the chunks a connection gives.
func BenchmarkClientSSE(b *testing.B) {
	text := strings.Repeat("lorem ipsum ", 85)
	stream := []byte("id: s-1_0\nretry: 1000\ndata: \n\n" +
		"id: s-1_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
		"id: s-1_2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}\n\n")
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := newClientSSE(&chunkReader{data: stream, sizes: []byte{255}}, "")
		n := 0
		for {
			_, err := r.next()
			if err != nil {
				break
			}
			n++
		}
		if n != 3 {
			b.Fatalf("%d events, want 3", n)
		}
	}
}
