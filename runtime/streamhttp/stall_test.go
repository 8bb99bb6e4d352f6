package streamhttp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// TestServerWriteTimeout checks that a client that opens its GET stream
// and then never reads does not hold the server's connection forever: once
// the socket buffers are full, a write that does not complete within
// WriteTimeout ends that connection, the stream detaches, and the session
// keeps serving; a new GET stream takes over what was not sent.
func TestServerWriteTimeout(t *testing.T) {
	tests := []struct {
		name string
		opts streamhttp.ServerOptions
	}{
		// The unsent buffers hold more than the socket buffers do.
		{"small WriteTimeout", streamhttp.ServerOptions{WriteTimeout: 50 * time.Millisecond, StreamBufferBytes: 32 << 20, SessionBufferBytes: 32 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			big := `"` + strings.Repeat("x", 64<<10) + `"`
			srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
			srv.MustAddTool(mcp.Tool{Name: "flood", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				s, _ := session.FromContext(ctx)
				n := 0
				// Outside any request: on the GET stream, refused once its
				// buffer is full (the client is not reading).
				for ; n < 320; n++ { // 20 MiB
					if err := s.Log(context.Background(), "info", "t", []byte(big)); err != nil {
						if !errors.Is(err, streamhttp.ErrStreamFull) {
							return nil, err
						}
						break
					}
				}
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: fmt.Sprint(n)}}}}, nil
			})
			srv.MustAddTool(mcp.Tool{Name: "echo", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "still here"}}}}, nil
			})
			h, ts := newBufferServer(t, tt.opts, srv)
			sid := initSession(t, ts.URL)

			// A raw GET stream whose client never reads.
			nc, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			fmt.Fprintf(nc, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n", sid)
			if !waitFor(10*time.Second, func() bool { return heldBy(t, h, sid).Attached == 1 }) {
				t.Fatalf("the GET stream did not open: %+v", heldBy(t, h, sid))
			}

			call := func(tool string) string {
				t.Helper()
				// Not do's 5 s: flooding 20 MiB under the race detector on
				// a loaded machine takes longer. A bound, not a measurement.
				resp := doWithin(t, ts.URL, req{method: http.MethodPost,
					body:   `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`,
					header: sessionHeaders(sid, nil)}, 2*time.Minute)
				b, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: %s, %v: %s", tool, resp.Status, err, b)
				}
				return string(b)
			}
			out := call("flood")
			if !strings.Contains(out, `"result"`) {
				t.Fatalf("flood: %s", out)
			}
			// The server's write to the stalled connection gives up: the
			// connection ends and the GET stream detaches.
			if !waitFor(20*time.Second, func() bool { return heldBy(t, h, sid).Attached == 0 }) {
				t.Fatalf("the stalled GET stream is still attached: %+v", heldBy(t, h, sid))
			}
			// The server closed the connection: after what it had written,
			// the client reads the end.
			nc.SetReadDeadline(time.Now().Add(20 * time.Second))
			if n, err := io.Copy(io.Discard, nc); err != nil {
				t.Errorf("after %d bytes, reading the stalled connection to its end: %v (want the server to have closed it)", n, err)
			}
			// The session goes on.
			if out := call("echo"); !strings.Contains(out, "still here") {
				t.Errorf("echo after the stall: %s", out)
			}
			// A new GET stream takes over: it is not refused as a second
			// one, and delivers the notifications not sent.
			get := do(t, ts.URL, req{method: http.MethodGet, header: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}})
			if get.StatusCode != http.StatusOK {
				t.Fatalf("GET after the stall: %s", get.Status)
			}
			br := bufio.NewReaderSize(io.LimitReader(get.Body, 1<<20), 128<<10)
			found := false
			for !found {
				line, err := br.ReadSlice('\n')
				found = strings.HasPrefix(string(line), "data: ") && strings.Contains(string(line), "notifications/message")
				if err != nil && !found {
					t.Fatalf("the new GET stream delivered no notification: %v", err)
				}
			}
		})
	}
}
