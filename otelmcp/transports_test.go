package otelmcp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// waitLimit bounds every wait of these tests.
const waitLimit = 10 * time.Second

// The transports a client and a server are connected over.
const (
	viaStdio      = "stdio"           // runtime/stdio over two os.Pipe pairs
	viaStreamable = "streamable HTTP" // srv.HTTPHandler, a streamhttp.Client
	viaSSE        = "HTTP+SSE"        // srv.SSEHandler, an ssehttp.Client
)

// conn is a client connected to a server over a real transport, each side
// with an otelmcp Middleware of its own telemetry.
type conn struct {
	via     string
	cs      *mcp.ClientSession
	client  *telemetry // what the client records
	server  *telemetry // what the server records
	tr      transport.Transport
	port    int // the HTTP server's port; 0 for stdio
	hs      *httptest.Server
	closeFn func() // ends the client and the server; safe to call twice
}

// setup configures one connection.
type setup struct {
	via       string
	revisions []string // the client's; nil for every one (stateless 2026-07-28)
	srvOpts   otelmcp.Options
	cliOpts   otelmcp.Options
	handler   mcp.Client            // the client's handler
	exts      []mcp.ClientExtension // the client's extensions
	server    func(mw session.Middleware) *mcp.StandardServer
	wrap      func(http.Handler) http.Handler // wraps the HTTP handler, if set
}

// connect serves the server of su over su.via and connects a client to it.
func connect(t *testing.T, su setup) *conn {
	t.Helper()
	c := &conn{via: su.via, client: newTelemetry(t), server: newTelemetry(t)}
	mk := su.server
	if mk == nil {
		mk = func(mw session.Middleware) *mcp.StandardServer { return testServer(mw) }
	}
	srv := mk(c.server.middleware(su.srvOpts))
	ctx, cancel := context.WithCancel(context.Background())
	var stop func()
	switch su.via {
	case viaStdio:
		sr, cw, err := os.Pipe() // the client writes, the server reads
		if err != nil {
			t.Fatal(err)
		}
		cr, sw, err := os.Pipe() // the server writes, the client reads
		if err != nil {
			t.Fatal(err)
		}
		st := stdio.New(sr, sw)
		c.tr = stdio.New(cr, cw)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = srv.Serve(ctx, st, session.Options{})
		}()
		stop = func() {
			cancel()
			st.Close()
			cw.Close()
			sw.Close()
			select {
			case <-done:
			case <-time.After(waitLimit):
				t.Errorf("the stdio server did not end within %v", waitLimit)
			}
		}
	case viaStreamable, viaSSE:
		var h interface {
			http.Handler
			Close()
		}
		if su.via == viaStreamable {
			h = srv.HTTPHandler(mcp.HTTPOptions{})
		} else {
			h = srv.SSEHandler(mcp.SSEOptions{})
		}
		var hh http.Handler = h
		if su.wrap != nil {
			hh = su.wrap(h)
		}
		c.hs = httptest.NewServer(hh) // on 127.0.0.1
		_, p, err := net.SplitHostPort(c.hs.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.port, _ = strconv.Atoi(p)
		if su.via == viaStreamable {
			c.tr = streamhttp.NewClient(c.hs.URL, streamhttp.ClientOptions{})
		} else {
			c.tr = ssehttp.NewClient(c.hs.URL, ssehttp.ClientOptions{})
		}
		stop = func() {
			cancel()
			h.Close()
			c.hs.Close()
		}
	default:
		t.Fatalf("no transport %q", su.via)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), waitLimit)
	defer ccancel()
	cs, err := mcp.Connect(cctx, c.tr, &mcp.ClientOptions{
		Revisions:  su.revisions,
		Handler:    su.handler,
		Extensions: su.exts,
		Middleware: []session.Middleware{c.client.middleware(su.cliOpts)},
	})
	if err != nil {
		stop()
		t.Fatalf("%s: connect: %v", su.via, err)
	}
	c.cs = cs
	closed := false
	c.closeFn = func() {
		if closed {
			return
		}
		closed = true
		cs.Close()
		stop()
	}
	t.Cleanup(c.closeFn)
	return c
}

// rawSessionID is the transport's own session id: the Mcp-Session-Id, or
// the sessionId of the HTTP+SSE endpoint; "" on stdio.
func (c *conn) rawSessionID(t *testing.T) string {
	t.Helper()
	switch tr := c.tr.(type) {
	case *streamhttp.Client:
		return tr.SessionID()
	case *ssehttp.Client:
		u, err := url.Parse(tr.Endpoint())
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("sessionId")
	}
	return ""
}

// spanPair is a message's span on the side that sent it and on the side
// that handled it.
type spanPair struct {
	sender, receiver sdktrace.ReadOnlySpan
}

// pair returns the spans named name of a message the client sent (toServer)
// or the server sent: a CLIENT span on the sender, a SERVER span on the
// receiver.
func (c *conn) pair(t *testing.T, name string, toServer bool) spanPair {
	t.Helper()
	if toServer {
		return spanPair{c.client.one(t, name, trace.SpanKindClient), c.server.one(t, name, trace.SpanKindServer)}
	}
	return spanPair{c.server.one(t, name, trace.SpanKindClient), c.client.one(t, name, trace.SpanKindServer)}
}

// clientSide and serverSide say which span of p each side recorded.
func (p spanPair) sides(toServer bool) (client, server sdktrace.ReadOnlySpan) {
	if toServer {
		return p.sender, p.receiver
	}
	return p.receiver, p.sender
}

// checkParent checks that the receiver's span is the child of the
// sender's, read from params._meta (remote), in its trace.
func checkParent(t *testing.T, what string, p spanPair) {
	t.Helper()
	par := p.receiver.Parent()
	if par.SpanID() != p.sender.SpanContext().SpanID() || par.TraceID() != p.sender.SpanContext().TraceID() || !par.IsRemote() {
		t.Errorf("%s: the receiver's span has parent %s/%s (remote %v), want the sender's span %s/%s, remote",
			what, par.TraceID(), par.SpanID(), par.IsRemote(), p.sender.SpanContext().TraceID(), p.sender.SpanContext().SpanID())
	}
}

// checkNetwork checks the network attributes of the client's and the
// server's span of one message.
func (c *conn) checkNetwork(t *testing.T, what string, client, server sdktrace.ReadOnlySpan) {
	t.Helper()
	ca, sa := attrs(client), attrs(server)
	switch c.via {
	case viaStdio:
		for side, a := range map[string]map[string]string{"client": strAttrs(ca), "server": strAttrs(sa)} {
			if a["network.transport"] != "pipe" {
				t.Errorf("%s: %s span network.transport %q, want pipe", what, side, a["network.transport"])
			}
			for _, k := range []string{"network.protocol.name", "network.protocol.version", "server.address", "server.port", "client.address", "client.port"} {
				if v, ok := a[k]; ok {
					t.Errorf("%s: %s span over stdio has %s = %q", what, side, k, v)
				}
			}
		}
	default:
		for side, a := range map[string]map[string]string{"client": strAttrs(ca), "server": strAttrs(sa)} {
			for k, v := range map[string]string{"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1"} {
				if a[k] != v {
					t.Errorf("%s: %s span %s = %q, want %q", what, side, k, a[k], v)
				}
			}
		}
		if got := ca["server.address"].AsString(); got != "127.0.0.1" {
			t.Errorf("%s: client span server.address %q, want 127.0.0.1", what, got)
		}
		if got := ca["server.port"].AsInt64(); got != int64(c.port) {
			t.Errorf("%s: client span server.port %d, want %d", what, got, c.port)
		}
		if got := sa["client.address"].AsString(); got != "127.0.0.1" {
			t.Errorf("%s: server span client.address %q, want 127.0.0.1", what, got)
		}
		if got := sa["client.port"].AsInt64(); got <= 0 {
			t.Errorf("%s: server span client.port %d, want > 0", what, got)
		}
		for _, k := range []attribute.Key{"client.address", "client.port"} {
			if _, ok := ca[k]; ok {
				t.Errorf("%s: client span has %s", what, k)
			}
		}
		for _, k := range []attribute.Key{"server.address", "server.port"} {
			if _, ok := sa[k]; ok {
				t.Errorf("%s: server span has %s", what, k)
			}
		}
	}
}

// strAttrs returns a span's attributes by key, as strings.
func strAttrs(a map[attribute.Key]attribute.Value) map[string]string {
	m := make(map[string]string, len(a))
	for k, v := range a {
		m[string(k)] = v.String()
	}
	return m
}
