package ssehttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// connect runs the 2025-11-25 handshake over tr, and calls echo.
func connectAndEcho(t *testing.T, tr transport.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cs, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		tr.Close()
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"over sse"}`)})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if tc, ok := res.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != "over sse" {
		t.Fatalf("tools/call: %+v", res)
	}
	return cs
}

func TestClient(t *testing.T) {
	h, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{})
	cs := connectAndEcho(t, c)
	if !strings.HasPrefix(c.Endpoint(), hs.URL+"/sse?sessionId=") {
		t.Fatalf("endpoint %q", c.Endpoint())
	}
	// The server ends the session: the client's session ends too.
	h.Close()
	select {
	case <-cs.Done():
	case <-time.After(waitLimit):
		t.Fatal("the client session did not end with the stream")
	}
	if err := c.Write(context.Background(), []byte(inited)); err == nil {
		t.Fatal("Write after the stream ended succeeded")
	}
}

// Closing the client ends its stream, and with it the server's session.
func TestClientClose(t *testing.T) {
	h, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{})
	cs := connectAndEcho(t, c)
	if ssehttp.Sessions(h) != 1 {
		t.Fatalf("%d server sessions, want 1", ssehttp.Sessions(h))
	}
	cs.Close()
	eventually(t, "the server session ended", func() bool { return ssehttp.Sessions(h) == 0 })
	if _, err := c.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("Read after Close: %v, want io.EOF", err)
	}
}

// The AutoClient speaks Streamable HTTP to a Streamable HTTP endpoint and
// falls back to HTTP+SSE at an old one, with the 2025-11-25 client and
// with the 2026-07-28 one, whose server/discover probe comes first.
func TestAutoClient(t *testing.T) {
	hs := streamableAndSSE(t, newTestServer(t))
	for _, tt := range []struct {
		path string
		sse  bool
	}{{"/mcp", false}, {"/sse", true}} {
		t.Run(tt.path, func(t *testing.T) {
			a := ssehttp.NewAutoClient(hs.URL+tt.path, ssehttp.AutoOptions{})
			connectAndEcho(t, a)
			switch tr := a.Transport().(type) {
			case *ssehttp.Client:
				if !tt.sse {
					t.Fatal("the HTTP+SSE transport was chosen for a Streamable HTTP endpoint")
				}
			case *streamhttp.Client:
				if tt.sse {
					t.Fatal("Streamable HTTP was chosen for an HTTP+SSE endpoint")
				}
			default:
				t.Fatalf("transport %T", tr)
			}
		})
		t.Run(tt.path+" 2026-07-28 client", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			a := ssehttp.NewAutoClient(hs.URL+tt.path, ssehttp.AutoOptions{})
			cs, err := mcp26.Connect(ctx, a, &mcp26.ClientOptions{Info: mcp26.Implementation{Name: "c", Version: "1"}})
			if err != nil {
				a.Close()
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			if cs.Era() != session.EraLegacy {
				t.Fatalf("era %v, want legacy (the server speaks 2025-11-25)", cs.Era())
			}
			res, err := cs.CallTool(ctx, &mcp26.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"new client"}`)})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if tc, ok := res.Content[0].Value.(*mcp26.TextContent); !ok || tc.Text != "new client" {
				t.Fatalf("tools/call: %+v", res)
			}
			if _, isSSE := a.Transport().(*ssehttp.Client); isSSE != tt.sse {
				t.Fatalf("transport %T at %s", a.Transport(), tt.path)
			}
		})
	}
}

// A URL that speaks neither transport: the error names both attempts.
func TestAutoClientNeither(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	a := ssehttp.NewAutoClient(hs.URL+"/nothing", ssehttp.AutoOptions{})
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	var ns *ssehttp.NotSSEError
	if err == nil || !strings.Contains(err.Error(), "Streamable HTTP") || !errors.As(err, &ns) || ns.Status != 404 {
		t.Fatalf("Connect: %v, want an error naming both transports and the GET's 404", err)
	}
}

// A server whose stream does not start with endpoint, or names an
// endpoint of another origin, is not taken for an HTTP+SSE server.
func TestClientRefusesBadStreams(t *testing.T) {
	tests := []struct {
		name, stream, want string
	}{
		{"message first", "event: message\ndata: {}\n\n", `the first SSE event is "message"`},
		{"other origin", "event: endpoint\ndata: http://evil.example/messages?sessionId=1\n\n", "not of the SSE stream's origin"},
		{"other port", "event: endpoint\ndata: //127.0.0.1:1/messages\n\n", "not of the SSE stream's origin"},
		{"no data", "event: endpoint\n\n", "no URL"},
		{"ended", ": hello\n\n", "ended before its endpoint event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, tt.stream)
			}))
			defer hs.Close()
			c := ssehttp.NewClient(hs.URL, ssehttp.ClientOptions{})
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			err := c.Open(ctx)
			var ns *ssehttp.NotSSEError
			if !errors.As(err, &ns) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open: %v, want a NotSSEError saying %q", err, tt.want)
			}
		})
	}
}

// Open gives up when its context ends before the endpoint event.
func TestClientOpenTimeout(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hs.Close()
	defer close(release)
	c := ssehttp.NewClient(hs.URL, ssehttp.ClientOptions{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.Open(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open: %v, want the context's deadline", err)
	}
}

// What the stream delivers waits for Read in a bounded queue: the reader
// stops reading the stream while it is full, and nothing is lost.
func TestClientQueueBounded(t *testing.T) {
	const n = 200
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /post\n\n")
		for i := range n {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"i\":%d}}\n\n", i)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer hs.Close()
	c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{MaxQueued: 4})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := c.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Endpoint() != hs.URL+"/post" {
		t.Fatalf("endpoint %q", c.Endpoint())
	}
	eventually(t, "the queue filled", func() bool { return ssehttp.QueuedBy(c) == 4 })
	time.Sleep(50 * time.Millisecond)
	if q := ssehttp.QueuedBy(c); q > 4 {
		t.Fatalf("%d messages queued, the limit is 4", q)
	}
	for i := range n {
		b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("Read %d: %v", i, err)
		}
		if want := fmt.Sprintf(`"i":%d}`, i); !strings.Contains(string(b), want) {
			t.Fatalf("message %d: %s", i, b)
		}
	}
}

func TestResolveEndpoint(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8080/mcp/sse?x=1")
	tests := []struct {
		data, want string // want "" for an error
	}{
		{"/messages?sessionId=abc", "http://127.0.0.1:8080/messages?sessionId=abc"},
		{"?sessionId=abc", "http://127.0.0.1:8080/mcp/sse?sessionId=abc"},
		{"messages?sessionId=abc", "http://127.0.0.1:8080/mcp/messages?sessionId=abc"},
		{"  http://127.0.0.1:8080/m#frag \n", "http://127.0.0.1:8080/m"},
		{"HTTP://127.0.0.1:8080/m", "http://127.0.0.1:8080/m"},
		{"https://127.0.0.1:8080/m", ""},
		{"http://127.0.0.1:8081/m", ""},
		{"http://localhost:8080/m", ""},
		{"//evil.example/m", ""},
		{"/a\n/b", ""},
		{"", ""},
		{"%zz", ""},
	}
	for _, tt := range tests {
		u, err := ssehttp.ResolveEndpoint(base, []byte(tt.data))
		got := ""
		if err == nil {
			got = u.String()
		}
		if got != tt.want {
			t.Errorf("ResolveEndpoint(%q) = %q, %v; want %q", tt.data, got, err, tt.want)
		}
	}
	def, _ := url.Parse("http://example.com/sse")
	if u, err := ssehttp.ResolveEndpoint(def, []byte("http://example.com:80/m")); err != nil || u.Path != "/m" {
		t.Errorf("the default port: %v %v", u, err)
	}
}

// A 4xx whose body is an error only a server of the stateless era sends
// is not followed by the fallback (spec C.2, 2026-07-28); a plain 4xx of
// the listed ones is, and other statuses are not.
func TestAutoClientFallbackRule(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		fallback bool
	}{
		{"404", 404, "not found", true},
		{"405", 405, "", true},
		{"400 with a legacy JSON-RPC error", 400, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no"}}`, true},
		{"400 with a modern error", 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"header mismatch"}}`, false},
		{"401", 401, "", false},
		{"500", 500, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gets := make(chan struct{}, 10)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					gets <- struct{}{}
					http.NotFound(w, r)
					return
				}
				if strings.HasPrefix(tt.body, "{") {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer hs.Close()
			a := ssehttp.NewAutoClient(hs.URL, ssehttp.AutoOptions{})
			defer a.Close()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			err := a.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
			if err == nil {
				t.Fatal("Write succeeded")
			}
			if got := len(gets) > 0; got != tt.fallback {
				t.Fatalf("GET sent %v, want %v (error: %v)", got, tt.fallback, err)
			}
			if streamhttp.StatusCode(err) != tt.status {
				t.Fatalf("StatusCode(%v) = %d, want %d", err, streamhttp.StatusCode(err), tt.status)
			}
		})
	}
}

// TestAutoClientForwards: an AutoClient answers session.ToolLister and
// session.AuthContexter for the transport it uses, so a client of the
// stateless era over it lists tools first and caches per authorization.
func TestAutoClientForwards(t *testing.T) {
	hdr := http.Header{"Authorization": {"Bearer t0ken"}}
	a := ssehttp.NewAutoClient("http://127.0.0.1:1/mcp", ssehttp.AutoOptions{Header: hdr})
	defer a.Close()
	var tl session.ToolLister = a
	var ac session.AuthContexter = a
	want := streamhttp.NewClient("http://127.0.0.1:1/mcp", streamhttp.ClientOptions{Header: hdr})
	defer want.Close()
	if tl.NeedsToolList() != want.NeedsToolList() {
		t.Errorf("NeedsToolList = %v, want the Streamable HTTP client's %v", tl.NeedsToolList(), want.NeedsToolList())
	}
	if got := ac.AuthContext(); got == "" || got != want.AuthContext() {
		t.Errorf("AuthContext = %q, want the Streamable HTTP client's %q", got, want.AuthContext())
	}
}

// A server that goes away during a call, its SSE stream cut (the
// connection dropped) or ended, makes the call fail with an error that
// says how the stream ended (and is still session.ErrClosed), not with a
// bare "session closed".
func TestCallFailsWithStreamCause(t *testing.T) {
	tests := []struct {
		name string
		end  func() // ends the GET's handler once the call was POSTed
		want string
	}{
		{"cut", func() { panic(http.ErrAbortHandler) }, "the SSE stream broke: unexpected EOF"},
		{"ended", func() {}, "the server ended the SSE stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			posted := make(chan struct{}, 1)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					w.WriteHeader(http.StatusAccepted)
					select {
					case posted <- struct{}{}:
					default:
					}
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "event: endpoint\ndata: /post\n\n")
				w.(http.Flusher).Flush()
				select {
				case <-posted:
					tt.end()
				case <-r.Context().Done():
				}
			}))
			defer hs.Close()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			c := ssehttp.NewClient(hs.URL+"/sse", ssehttp.ClientOptions{})
			s := session.New(session.Client, c, mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
			defer s.Close()
			_, err := s.Call(ctx, "ping", nil)
			if !errors.Is(err, session.ErrClosed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ping while the stream ends = %v, want session.ErrClosed saying %q", err, tt.want)
			}
		})
	}
}
