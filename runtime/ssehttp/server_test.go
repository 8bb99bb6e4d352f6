package ssehttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// waitLimit bounds every wait of these tests for something to happen.
const waitLimit = 20 * time.Second

const (
	initBody   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	inited     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echoCall   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	blockCall  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`
	toolsList  = `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
	echoAnswer = `"text":"hi"`
)

// testServer is an MCP server with the tools echo and block (which waits
// for its context to end and reports that on blocked).
type testServer struct {
	*mcp.StandardServer
	blockStarted chan struct{} // a block call started
	blockEnded   chan error    // a block call's context ended, with its error
}

// Handler returns a handler for a new session.
func (ts *testServer) Handler() session.Handler { return mcp.NewServerHandler(ts.StandardServer) }

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{
		StandardServer: mcp.NewServer(mcp.Implementation{Name: "sse-test", Version: "1"}),
		blockStarted:   make(chan struct{}, 16),
		blockEnded:     make(chan error, 16),
	}
	err := ts.AddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			var args struct {
				Text string `json:"text"`
			}
			if err := wire.DecodeValue(p.Arguments, &args); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: args.Text}}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	err = ts.AddTool(mcp.Tool{Name: "block", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			ts.blockStarted <- struct{}{}
			<-ctx.Done()
			ts.blockEnded <- ctx.Err()
			return nil, ctx.Err()
		})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// serve starts an HTTP server on 127.0.0.1 with the ssehttp Server of srv
// at /sse, and returns both; they are closed when the test ends.
func serve(t *testing.T, srv *testServer, opts ssehttp.ServerOptions) (*ssehttp.Server, *httptest.Server) {
	t.Helper()
	h := ssehttp.NewServer(srv.Handler, opts)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		hs.Close()
	})
	return h, hs
}

// stream is a raw SSE stream of a session, read line by line.
type stream struct {
	t        *testing.T
	resp     *http.Response
	lines    chan string
	endpoint string // absolute
	sid      string
}

// openStream GETs url, with header's names and values added, and reads
// its endpoint event.
func openStream(t *testing.T, rawURL string, header ...string) *stream {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET %s: %s %s", rawURL, resp.Status, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	s := &stream{t: t, resp: resp, lines: make(chan string, 1024)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	typ, data := s.event()
	if typ != "endpoint" {
		t.Fatalf("first event %q %q, want endpoint", typ, data)
	}
	base, _ := url.Parse(rawURL)
	u, err := base.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s.endpoint = u.String()
	s.sid = u.Query().Get("sessionId")
	return s
}

// event returns the next event's type and data.
func (s *stream) event() (typ, data string) {
	s.t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	var fields bool
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the stream ended")
			}
			switch {
			case line == "" && fields:
				return typ, data
			case strings.HasPrefix(line, "event: "):
				typ, fields = line[len("event: "):], true
			case strings.HasPrefix(line, "data: "):
				data, fields = line[len("data: "):], true
			}
		case <-timer.C:
			s.t.Fatalf("no event within %v", waitLimit)
		}
	}
}

// message returns the data of the next message event that is not a
// notification.
func (s *stream) answer() map[string]any {
	s.t.Helper()
	for range 1000 {
		typ, data := s.event()
		if typ != "message" {
			s.t.Fatalf("event %q, want message", typ)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			s.t.Fatalf("message %q: %v", data, err)
		}
		if _, ok := m["method"]; !ok {
			return m
		}
	}
	s.t.Fatal("no answer")
	return nil
}

// post POSTs body to u and returns the status and body.
func post(t *testing.T, u, body string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// initialize runs the handshake on s.
func (s *stream) initialize() {
	s.t.Helper()
	if code, body := post(s.t, s.endpoint, initBody); code != http.StatusAccepted {
		s.t.Fatalf("POST initialize: %d %s", code, body)
	}
	if m := s.answer(); m["id"] != 0.0 || m["result"] == nil {
		s.t.Fatalf("initialize answer %v", m)
	}
	if code, body := post(s.t, s.endpoint, inited); code != http.StatusAccepted {
		s.t.Fatalf("POST initialized: %d %s", code, body)
	}
}

// eventually waits, in a bounded loop, for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, waitLimit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRawExchange(t *testing.T) {
	h, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	s := openStream(t, hs.URL+"/sse")
	if !strings.HasPrefix(s.endpoint, hs.URL+"/sse?sessionId=") || len(s.sid) != 32 {
		t.Fatalf("endpoint %q, want %s/sse?sessionId=<32 hex>", s.endpoint, hs.URL)
	}
	if ssehttp.SessionOf(h, s.sid) == nil {
		t.Fatal("no session for the stream")
	}
	s.initialize()
	if code, body := post(t, s.endpoint, echoCall); code != http.StatusAccepted || body != "" {
		t.Fatalf("POST: %d %q, want 202 and no body", code, body)
	}
	m := s.answer()
	if b, _ := json.Marshal(m); m["id"] != 1.0 || !strings.Contains(string(b), echoAnswer) {
		t.Fatalf("answer %s", b)
	}
}

// A bad or unknown sessionId is refused with 400 or 404 and a body that
// says what is wrong.
func TestBadSessionID(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	s := openStream(t, hs.URL+"/sse")
	tests := []struct {
		name, query string
		code        int
		want        string
	}{
		{"missing", "", 400, "missing sessionId"},
		{"malformed", "?sessionId=xyz", 400, "malformed sessionId"},
		{"upper case", "?sessionId=" + strings.ToUpper(strings.Repeat("ab", 16)), 400, "malformed sessionId"},
		{"twice", "?sessionId=" + s.sid + "&sessionId=" + s.sid, 400, "malformed sessionId"},
		{"unknown", "?sessionId=" + strings.Repeat("0", 32), 404, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, hs.URL+"/sse"+tt.query, echoCall)
			if code != tt.code || !strings.Contains(body, tt.want) {
				t.Fatalf("%d %s, want %d and a body saying %q", code, body, tt.code, tt.want)
			}
			var m struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil || m.JSONRPC != "2.0" || m.Error.Code != -32600 {
				t.Fatalf("body %s is not a JSON-RPC error -32600: %v", body, err)
			}
		})
	}
}

// Closing the SSE stream ends the session: its handlers' contexts are
// cancelled at once (the DrainTimeout is an hour), a POST naming it gets
// 404, and no goroutine is left behind.
func TestStreamClosedEndsSession(t *testing.T) {
	before := runtime.NumGoroutine()
	srv := newTestServer(t)
	h, hs := serve(t, srv, ssehttp.ServerOptions{Session: session.Options{DrainTimeout: time.Hour}})
	s := openStream(t, hs.URL+"/sse")
	s.initialize()
	if code, body := post(t, s.endpoint, blockCall); code != http.StatusAccepted {
		t.Fatalf("POST: %d %s", code, body)
	}
	select {
	case <-srv.blockStarted:
	case <-time.After(waitLimit):
		t.Fatal("the handler did not start")
	}
	sess := ssehttp.SessionOf(h, s.sid)
	s.resp.Body.Close()
	select {
	case err := <-srv.blockEnded:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context ended with %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the handler's context was not cancelled")
	}
	select {
	case <-sess.Done():
	case <-time.After(waitLimit):
		t.Fatal("the session did not end")
	}
	if code, body := post(t, s.endpoint, echoCall); code != http.StatusNotFound || !strings.Contains(body, "not found") {
		t.Fatalf("POST after the stream closed: %d %s, want 404", code, body)
	}
	// The session's place is freed as its stream's handler returns, just
	// after the session ended.
	eventually(t, "no session left", func() bool { return ssehttp.Sessions(h) == 0 })
	http.DefaultClient.CloseIdleConnections()
	eventually(t, "goroutines back to where they were", func() bool { return runtime.NumGoroutine() <= before+2 })
}

// A request POSTed just before the client closes its stream is accepted
// or refused with 404, never left hanging, and leaves no goroutine behind.
func TestPostRacingStreamClose(t *testing.T) {
	before := runtime.NumGoroutine()
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	for i := range 20 {
		s := openStream(t, hs.URL+"/sse")
		s.initialize()
		var wg sync.WaitGroup
		wg.Go(func() {
			code, body := post(t, s.endpoint, echoCall)
			if code != http.StatusAccepted && code != http.StatusNotFound {
				t.Errorf("round %d: POST %d %s, want 202 or 404", i, code, body)
			}
		})
		s.resp.Body.Close()
		wg.Wait()
	}
	http.DefaultClient.CloseIdleConnections()
	eventually(t, "goroutines back to where they were", func() bool { return runtime.NumGoroutine() <= before+2 })
}

// A stream whose client sends the request but never reads: the session's
// queue stays within its limits, a broadcast is refused with
// ErrStreamFull, and the write timeout ends the stream and the session.
func TestNonReadingClientReaped(t *testing.T) {
	srv := newTestServer(t)
	h, hs := serve(t, srv, ssehttp.ServerOptions{QueueEvents: 8, QueueBytes: 64 << 10, WriteTimeout: 200 * time.Millisecond, KeepAlive: -1})
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /sse HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", hs.Listener.Addr())
	// Read just the headers and the endpoint event, then stop reading.
	br := bufio.NewReader(conn)
	sid := ""
	for sid == "" {
		conn.SetReadDeadline(time.Now().Add(waitLimit))
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if _, q, ok := strings.Cut(line, "sessionId="); ok {
			sid = strings.TrimSpace(q)
		}
	}
	sess := ssehttp.SessionOf(h, sid)
	if sess == nil {
		t.Fatal("no session")
	}
	endpoint := hs.URL + "/sse?sessionId=" + sid
	for _, body := range []string{initBody, inited} {
		if code, b := post(t, endpoint, body); code != http.StatusAccepted {
			t.Fatalf("POST: %d %s", code, b)
		}
	}
	eventually(t, "initialized", func() bool { return sess.Revision() != nil })
	ss := &mcp.ServerSession{Session: sess}
	big := strings.Repeat("x", 32<<10)
	full, ended := false, false
	deadline := time.Now().Add(waitLimit)
	// Notifications until the stream ends: the socket buffers fill, a write
	// times out. Bounded in count and time.
	for i := 0; i < 100_000 && !ended && time.Now().Before(deadline); i++ {
		err := ss.NotifyLoggingMessage(context.Background(), &mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: []byte(`"` + big + `"`)})
		switch {
		case errors.Is(err, ssehttp.ErrStreamFull):
			full = true
			time.Sleep(time.Millisecond)
		case errors.Is(err, net.ErrClosed), errors.Is(err, session.ErrClosed):
			ended = true
		case err != nil:
			t.Fatalf("notification %d: %v", i, err)
		}
		if held, ok := ssehttp.HeldBy(h, sid); ok && (held.Queued > 8 || held.Bytes > 64<<10+len(big)+64) {
			t.Fatalf("the queue holds %d messages, %d bytes; the limits are 8 and 64 KiB", held.Queued, held.Bytes)
		}
	}
	if !full || !ended {
		t.Fatalf("the queue was full %v, the stream ended %v; want both", full, ended)
	}
	select {
	case <-sess.Done():
	case <-time.After(waitLimit):
		t.Fatal("the session of a stream nobody reads did not end")
	}
	eventually(t, "the session forgotten", func() bool { return ssehttp.Sessions(h) == 0 })
}

// A response waits for room in a full queue rather than being dropped.
func TestResponseWaitsForRoom(t *testing.T) {
	srv := newTestServer(t)
	h, hs := serve(t, srv, ssehttp.ServerOptions{QueueEvents: 1, KeepAlive: -1})
	s := openStream(t, hs.URL+"/sse")
	s.initialize()
	const n = 30
	for i := range n {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, 100+i)
		if code, b := post(t, s.endpoint, body); code != http.StatusAccepted {
			t.Fatalf("POST %d: %d %s", i, code, b)
		}
	}
	got := map[float64]bool{}
	for range n {
		m := s.answer()
		got[m["id"].(float64)] = true
	}
	if len(got) != n {
		t.Fatalf("%d distinct answers, want %d", len(got), n)
	}
	if held, _ := ssehttp.HeldBy(h, s.sid); held.Queued != 0 || held.Waiting != 0 {
		t.Fatalf("held %+v after every answer was read", held)
	}
}

func TestBodyLimit(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{MaxBodyBytes: 256})
	s := openStream(t, hs.URL+"/sse")
	s.initialize()
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", 400) + `"}}}`
	code, b := post(t, s.endpoint, body)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(b, "larger than 256 bytes") {
		t.Fatalf("%d %s, want 413 saying the limit", code, b)
	}
	// The session goes on.
	if code, b := post(t, s.endpoint, echoCall); code != http.StatusAccepted {
		t.Fatalf("POST after the refusal: %d %s", code, b)
	}
	if m := s.answer(); m["id"] != 1.0 {
		t.Fatalf("answer %v", m)
	}
}

func TestMalformedBodies(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	s := openStream(t, hs.URL+"/sse")
	s.initialize()
	tests := []struct {
		name, body string
		header     []string
		code       int
		want       string
	}{
		{"not JSON", `{"jsonrpc":`, nil, 400, `-32700`},
		{"invalid request echoes its id", `{"jsonrpc":"2.0","id":5,"method":7}`, nil, 400, `"id":5`},
		{"content type", echoCall, []string{"Content-Type", "text/plain"}, 415, "application/json"},
		{"batch in 2025-11-25", `[` + echoCall + `]`, nil, 400, "batches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, b := post(t, s.endpoint, tt.body, tt.header...)
			if code != tt.code || !strings.Contains(b, tt.want) {
				t.Fatalf("%d %s, want %d with %q", code, b, tt.code, tt.want)
			}
		})
	}
}

// Foreign Host and Origin headers are refused on both methods (DNS
// rebinding), as streamhttp refuses them.
func TestHostOriginRefused(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	s := openStream(t, hs.URL+"/sse")
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		for _, h := range [][2]string{{"Host", "evil.example"}, {"Origin", "http://evil.example"}} {
			t.Run(method+" "+h[0], func(t *testing.T) {
				u := hs.URL + "/sse"
				if method == http.MethodPost {
					u = s.endpoint
				}
				req, _ := http.NewRequest(method, u, strings.NewReader(echoCall))
				req.Header.Set("Content-Type", "application/json")
				if h[0] == "Host" {
					req.Host = h[1]
				} else {
					req.Header.Set(h[0], h[1])
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "not allowed") {
					t.Fatalf("%s with %s %s: %d %s, want 403", method, h[0], h[1], resp.StatusCode, b)
				}
			})
		}
	}
	// An allowed origin passes.
	if code, b := post(t, s.endpoint, inited, "Origin", hs.URL); code != http.StatusAccepted {
		t.Fatalf("POST with Origin %s: %d %s", hs.URL, code, b)
	}
}

func TestMaxSessions(t *testing.T) {
	h, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{MaxSessions: 1})
	s := openStream(t, hs.URL+"/sse")
	resp, err := http.Get(hs.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "limit of 1 sessions") {
		t.Fatalf("second GET: %d %s, want 503", resp.StatusCode, b)
	}
	s.resp.Body.Close()
	eventually(t, "the first session ended", func() bool { return ssehttp.Sessions(h) == 0 })
	openStream(t, hs.URL+"/sse") // its place is free again
}

// The endpoint names the path the client sent, also behind
// http.StripPrefix, or the Endpoint option.
func TestEndpointPath(t *testing.T) {
	srv := newTestServer(t)
	h := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{})
	h2 := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{Endpoint: "/messages?x=1"})
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	mux.Handle("/sse", h2)
	mux.Handle("/messages", h2)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		h2.Close()
		hs.Close()
	})

	s := openStream(t, hs.URL+"/api/sse")
	if want := hs.URL + "/api/sse?sessionId=" + s.sid; s.endpoint != want {
		t.Fatalf("endpoint %s, want %s", s.endpoint, want)
	}
	s.initialize()
	s2 := openStream(t, hs.URL+"/sse")
	if want := hs.URL + "/messages?sessionId=" + s2.sid + "&x=1"; s2.endpoint != want {
		t.Fatalf("endpoint %s, want %s", s2.endpoint, want)
	}
	s2.initialize()
}

// An http.Server's ReadTimeout does not cut the stream.
func TestReadTimeoutSpared(t *testing.T) {
	srv := newTestServer(t)
	h := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{})
	hs := httptest.NewUnstartedServer(h)
	hs.Config.ReadTimeout = 100 * time.Millisecond
	hs.Start()
	t.Cleanup(func() {
		h.Close()
		hs.Close()
	})
	s := openStream(t, hs.URL+"/sse")
	s.initialize()
	time.Sleep(400 * time.Millisecond) // past the ReadTimeout
	if code, b := post(t, s.endpoint, echoCall); code != http.StatusAccepted {
		t.Fatalf("POST: %d %s", code, b)
	}
	if m := s.answer(); m["id"] != 1.0 {
		t.Fatalf("answer %v", m)
	}
}

// Close answers what the sessions received, then ends their streams.
func TestServerClose(t *testing.T) {
	srv := newTestServer(t)
	h, hs := serve(t, srv, ssehttp.ServerOptions{})
	s := openStream(t, hs.URL+"/sse")
	s.initialize()
	h.Close()
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				resp, err := http.Get(hs.URL + "/sse")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("GET after Close: %s, want 503", resp.Status)
				}
				return
			}
		case <-time.After(waitLimit):
			t.Fatal("the stream did not end")
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{})
	req, _ := http.NewRequest(http.MethodDelete, hs.URL+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST" {
		t.Fatalf("DELETE: %s, Allow %q", resp.Status, resp.Header.Get("Allow"))
	}
}

// streamableAndSSE serves srv on both transports: /mcp and /sse.
func streamableAndSSE(t *testing.T, srv *testServer) *httptest.Server {
	t.Helper()
	sh := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	oh := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", sh)
	mux.Handle("/sse", oh)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		sh.Close()
		oh.Close()
		hs.Close()
	})
	return hs
}

// An idle stream carries keep-alive comments, so that a client that went
// away without closing the connection is noticed by a failing write.
func TestKeepAlive(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{KeepAlive: 20 * time.Millisecond})
	s := openStream(t, hs.URL+"/sse")
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatal("the stream ended")
			}
			if strings.HasPrefix(line, ":") {
				return // a comment
			}
		case <-timer.C:
			t.Fatalf("no keep-alive comment within %v", waitLimit)
		}
	}
}

// A session belongs to the principal of its GET: a POST of another one
// is answered as if the session did not exist.
func TestPrincipal(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-User") }})
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/sse", nil)
	req.Header.Set("X-User", "ada")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	endpoint := ""
	for endpoint == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = hs.URL + d
		}
	}
	if code, b := post(t, endpoint, initBody, "X-User", "grace"); code != http.StatusNotFound {
		t.Fatalf("POST of another principal: %d %s, want 404", code, b)
	}
	if code, b := post(t, endpoint, initBody, "X-User", "ada"); code != http.StatusAccepted {
		t.Fatalf("POST of the session's principal: %d %s, want 202", code, b)
	}
}
