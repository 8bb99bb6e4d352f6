package streamhttp_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// A stateless client that sends a call and never reads its JSON answer
// does not hold the server's handler: the answer's write gives up after
// WriteTimeout, as an SSE stream's writes do, and the request's handler
// returns. Before, the JSON answer was written with no deadline, and the
// handler waited for as long as the client kept its connection open.
func TestStatelessJSONWriteTimeout(t *testing.T) {
	big := strings.Repeat("x", 32<<20) // more than the socket buffers hold
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "big", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: big}}}}, nil
		})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{WriteTimeout: 50 * time.Millisecond})
	var active, served atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		active.Add(1)
		defer active.Add(-1)
		defer served.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h.Close(); ts.Close() })

	nc, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{},` + meta26 + `}}`
	fmt.Fprintf(nc, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// The client reads nothing. The handler must return, its write given
	// up, while the connection stays open.
	if !waitFor(30*time.Second, func() bool { return served.Load() == 1 && active.Load() == 0 }) {
		t.Fatalf("the handler of a stateless call whose client does not read is still running (active %d, served %d)", active.Load(), served.Load())
	}
}
