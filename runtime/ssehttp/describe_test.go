package ssehttp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// describeWatch is a middleware that records what the transport of the
// session of each tools/call says of itself.
type describeWatch struct {
	mu   sync.Mutex
	info []transport.Info
}

func (w *describeWatch) mw(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		if r.Method == "tools/call" && r.Session != nil {
			info := transport.Describe(r.Session.Transport())
			w.mu.Lock()
			w.info = append(w.info, info)
			w.mu.Unlock()
		}
		return next(ctx, r)
	}
}

func (w *describeWatch) seen() []transport.Info {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]transport.Info(nil), w.info...)
}

// opener records the RemoteAddr of the first request of a method: the one
// that opens a session.
type opener struct {
	h      http.Handler
	method string
	once   sync.Once
	addr   string
}

func (o *opener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == o.method {
		o.once.Do(func() { o.addr = r.RemoteAddr })
	}
	o.h.ServeHTTP(w, r)
}

func hostPort(t *testing.T, hostport string) (string, int) {
	t.Helper()
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatalf("%q: %v", hostport, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("%q: port: %v", hostport, err)
	}
	return host, port
}

// TestDescribe checks what each side of a session over HTTP+SSE, and over
// the transport an AutoClient chose, finds its transport says of itself
// as a tools/call passes its middleware: the client sees the server's host
// and port and the session id, the server the address of the client's
// request that opened the session, and the session id.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		path   string
		method string // of the request that opens a session at path
		client func(url string) transport.Transport
	}{
		{"Client", "/sse", http.MethodGet, func(url string) transport.Transport { return ssehttp.NewClient(url, ssehttp.ClientOptions{}) }},
		{"AutoClient HTTP+SSE", "/sse", http.MethodGet, func(url string) transport.Transport { return ssehttp.NewAutoClient(url, ssehttp.AutoOptions{}) }},
		{"AutoClient Streamable HTTP", "/mcp", http.MethodPost, func(url string) transport.Transport { return ssehttp.NewAutoClient(url, ssehttp.AutoOptions{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srvWatch, cliWatch := &describeWatch{}, &describeWatch{}
			opts := session.Options{Middleware: []session.Middleware{srvWatch.mw}}
			srv := newTestServer(t)
			sh := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{Session: opts})
			oh := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{Session: opts})
			mux := http.NewServeMux()
			mux.Handle("/mcp", sh)
			mux.Handle("/sse", oh)
			first := &opener{h: mux, method: tc.method}
			hs := httptest.NewServer(first) // on 127.0.0.1
			t.Cleanup(func() { sh.Close(); oh.Close(); hs.Close() })

			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			tr := tc.client(hs.URL + tc.path)
			host, port := hostPort(t, hs.Listener.Addr().String())
			if a, ok := tr.(*ssehttp.AutoClient); ok {
				// Before the choice: what the Streamable HTTP client says.
				want := transport.Info{Network: "tcp", Protocol: "http", Address: host, Port: port}
				if got := a.Describe(); got != want {
					t.Errorf("an AutoClient before its first message describes itself as %+v, want %+v", got, want)
				}
			}
			cs, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}, Middleware: []session.Middleware{cliWatch.mw}})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)}); err != nil {
				t.Fatal(err)
			}
			// The session id: the Mcp-Session-Id, or the endpoint's
			// sessionId.
			var sid string
			switch c := tr.(type) {
			case *ssehttp.Client:
				sid = sessionIDOf(t, c.Endpoint())
			case *ssehttp.AutoClient:
				switch ct := c.Transport().(type) {
				case *ssehttp.Client:
					sid = sessionIDOf(t, ct.Endpoint())
				case *streamhttp.Client:
					sid = ct.SessionID()
				}
			}
			if sid == "" {
				t.Fatal("no session id")
			}
			want := transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: host, Port: port, SessionID: sid}
			if got := cliWatch.seen(); len(got) != 1 || got[0] != want {
				t.Errorf("the client's middleware saw %+v, want one %+v", got, want)
			}
			if got := transport.Describe(tr); got != want {
				t.Errorf("the client's Describe after the call = %+v, want %+v", got, want)
			}
			if n := testing.AllocsPerRun(100, func() { transport.Describe(tr) }); n != 0 {
				t.Errorf("the client's Describe allocates %v times, want 0", n)
			}
			chost, cport := hostPort(t, first.addr)
			if chost != "127.0.0.1" {
				t.Errorf("the client's address %q, want 127.0.0.1", first.addr)
			}
			wantSrv := transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: chost, Port: cport, SessionID: sid}
			if got := srvWatch.seen(); len(got) != 1 || got[0] != wantSrv {
				t.Errorf("the server's middleware saw %+v, want one %+v", got, wantSrv)
			}
		})
	}
}

// sessionIDOf returns the sessionId of an endpoint URL.
func sessionIDOf(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("sessionId")
}
