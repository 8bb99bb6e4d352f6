package streamhttp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// seenCall is what a middleware found as a tools/call passed: what the
// session's transport said of itself (the zero Info without a session),
// and the HTTP request that carried the call (on a server).
type seenCall struct {
	info   transport.Info
	remote string // session.HTTPRequestOf's RemoteAddr
	proto  string // and Proto
}

// callWatch is a middleware that records each tools/call (see seenCall).
type callWatch struct {
	mu   sync.Mutex
	seen []seenCall
}

func (w *callWatch) mw(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		if r.Method == "tools/call" {
			var s seenCall
			if r.Session != nil {
				s.info = transport.Describe(r.Session.Transport())
			}
			if hr, ok := session.HTTPRequestOf(ctx); ok {
				s.remote, s.proto = hr.RemoteAddr, hr.Proto
			}
			w.mu.Lock()
			w.seen = append(w.seen, s)
			w.mu.Unlock()
		}
		return next(ctx, r)
	}
}

func (w *callWatch) calls() []seenCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]seenCall(nil), w.seen...)
}

// firstRemote is a handler that records the RemoteAddr of the first
// request it passes on: the initialize, or the first stateless request.
type firstRemote struct {
	h    http.Handler
	once sync.Once
	addr string
}

func (f *firstRemote) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		f.once.Do(func() { f.addr = r.RemoteAddr })
	}
	f.h.ServeHTTP(w, r)
}

// urlHostPort returns the host and port of the URL s.
func urlHostPort(t *testing.T, s string) (string, int) {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("URL %s: port: %v", s, err)
	}
	return u.Hostname(), port
}

// addrHostPort splits a RemoteAddr.
func addrHostPort(t *testing.T, addr string) (string, int) {
	t.Helper()
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("RemoteAddr %q: %v", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("RemoteAddr %q: port: %v", addr, err)
	}
	return host, port
}

// TestDescribe checks what each side of a Streamable HTTP session finds its
// transport says of itself (transport.Describe) as a tools/call passes its
// middleware, over HTTP/1.1 and HTTP/2, in a legacy session and in the
// stateless era: the client sees the server's host and port and the session
// id the server assigned; the server sees the client's address and the
// session id; a stateless request has no session, and the request's
// protocol is in session.HTTPRequestOf.
func TestDescribe(t *testing.T) {
	legacy := m25.NewServer(m25.Implementation{Name: "old", Version: "1"})
	legacy.MustAddTool(m25.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m25.CallToolRequestParams) (*m25.CallToolResult, error) {
		return &m25.CallToolResult{}, nil
	})
	modern := m26.NewServer(m26.Implementation{Name: "new", Version: "1"})
	modern.MustAddTool(m26.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{}, nil
	})
	for _, tc := range []struct {
		name      string
		h         func() session.Handler
		http2     bool
		stateless bool
		version   string // network.protocol.version
		proto     string // http.Request.Proto
	}{
		{"legacy HTTP/1.1", func() session.Handler { return m25.NewServerHandler(legacy) }, false, false, "1.1", "HTTP/1.1"},
		{"legacy HTTP/2", func() session.Handler { return m25.NewServerHandler(legacy) }, true, false, "2", "HTTP/2.0"},
		{"stateless HTTP/1.1", modern.Handler, false, true, "1.1", "HTTP/1.1"},
		{"stateless HTTP/2", modern.Handler, true, true, "2", "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srvWatch, cliWatch := &callWatch{}, &callWatch{}
			h := streamhttp.NewServer(tc.h, streamhttp.ServerOptions{Session: session.Options{Middleware: []session.Middleware{srvWatch.mw}}})
			first := &firstRemote{h: h}
			ts := httptest.NewUnstartedServer(first) // on 127.0.0.1
			if tc.http2 {
				ts.EnableHTTP2 = true
				ts.StartTLS()
			} else {
				ts.Start()
			}
			t.Cleanup(func() { h.Close(); ts.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c := streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{HTTPClient: ts.Client()})
			cs, err := m26.Connect(ctx, c, &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}, Middleware: []session.Middleware{cliWatch.mw}})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if stateless := cs.Era() == session.EraModern; stateless != tc.stateless {
				t.Fatalf("era %v, want stateless %v", cs.Era(), tc.stateless)
			}
			if _, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "echo"}); err != nil {
				t.Fatal(err)
			}
			sid := c.SessionID()
			if tc.stateless != (sid == "") {
				t.Fatalf("session id %q in a stateless (%v) exchange", sid, tc.stateless)
			}
			// The client: the server's host and port, the session id.
			host, port := urlHostPort(t, ts.URL)
			want := transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: tc.version, Address: host, Port: port, SessionID: sid}
			if got := cliWatch.calls(); len(got) != 1 || got[0].info != want {
				t.Errorf("the client's middleware saw %+v, want one %+v", got, want)
			}
			if got := c.Describe(); got != want {
				t.Errorf("the client's Describe after the call = %+v, want %+v", got, want)
			}
			if n := testing.AllocsPerRun(100, func() { c.Describe() }); n != 0 {
				t.Errorf("the client's Describe allocates %v times, want 0", n)
			}
			// The server: the address of the client that opened the
			// session, the session id; or no session at all.
			got := srvWatch.calls()
			if len(got) != 1 {
				t.Fatalf("the server's middleware saw %d tools/call, want 1", len(got))
			}
			if got[0].proto != tc.proto {
				t.Errorf("HTTPRequestOf(ctx).Proto = %q, want %q", got[0].proto, tc.proto)
			}
			var wantSrv transport.Info
			if !tc.stateless {
				host, port := addrHostPort(t, first.addr)
				wantSrv = transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: tc.version, Address: host, Port: port, SessionID: sid}
				if host != "127.0.0.1" || port == 0 {
					t.Errorf("the client's address %q, want 127.0.0.1 and a port", first.addr)
				}
			}
			if got[0].info != wantSrv {
				t.Errorf("the server's middleware saw %+v, want %+v", got[0].info, wantSrv)
			}
		})
	}
}

// TestDescribeAfterTakeover checks that a legacy session an instance of a
// fleet carries on after its owner died describes itself as it did there:
// the session id, and the address of the client as the request that
// brought it tells.
func TestDescribeAfterTakeover(t *testing.T) {
	relay := fleet.NewMemoryRelay()
	store := fleet.NewMemorySessionStore()
	events := streamhttp.NewMemoryStore()
	watch := &callWatch{}
	newInstance := func() *streamhttp.Server {
		s := streamhttp.NewServer(fleetServer().Handler, streamhttp.ServerOptions{Fleet: fleet.NewNode(store, relay), EventStore: events,
			Session: session.Options{Middleware: []session.Middleware{watch.mw}}})
		t.Cleanup(s.Close)
		return s
	}
	owner, heir := newInstance(), newInstance()
	tsOwner := httptest.NewServer(owner)
	t.Cleanup(tsOwner.Close)
	tsHeir := httptest.NewServer(heir)
	t.Cleanup(tsHeir.Close)
	sid := initSession(t, tsOwner.URL)
	streamhttp.Kill(owner)
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	r := do(t, tsHeir.URL, req{method: http.MethodPost, body: call, header: sessionHeaders(sid, nil)})
	if b, _ := io.ReadAll(r.Body); r.StatusCode != http.StatusOK {
		t.Fatalf("tools/call through another instance: %s %s", r.Status, b)
	}
	if !streamhttp.Owns(heir, sid) {
		t.Fatal("the other instance did not take the session over")
	}
	got := watch.calls()
	if len(got) != 1 {
		t.Fatalf("the middleware saw %d tools/call, want 1", len(got))
	}
	host, port := addrHostPort(t, got[0].remote)
	want := transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: host, Port: port, SessionID: sid}
	if got[0].info != want {
		t.Errorf("the session taken over describes itself as %+v, want %+v", got[0].info, want)
	}
}
