package streamhttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// errCut is the read error of a response body cutOnce cut.
var errCut = errors.New("test: connection cut")

// cutOnce is an http.RoundTripper that cuts the body of the first response
// whose request matches: the body's first Read passes (the headers and
// the priming event), then primed is closed, and the next Read waits until
// cut is closed and fails. Until then the client reads nothing more of
// that stream, as if the network stalled.
type cutOnce struct {
	base   http.RoundTripper
	match  func(r *http.Request, body []byte) bool
	primed chan struct{}
	cut    chan struct{}

	mu    sync.Mutex
	used  bool
	fresh int // GET streams opened without Last-Event-ID
}

// freshGETs returns how many GET streams without Last-Event-ID opened.
func (c *cutOnce) freshGETs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fresh
}

func newCutOnce(match func(r *http.Request, body []byte) bool) *cutOnce {
	return &cutOnce{base: http.DefaultTransport, match: match, primed: make(chan struct{}), cut: make(chan struct{})}
}

func (c *cutOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		r.Body.Close()
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := c.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	c.mu.Lock()
	if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "" && resp.StatusCode == http.StatusOK {
		c.fresh++
	}
	take := !c.used && resp.StatusCode == http.StatusOK && c.match(r, body)
	if take {
		c.used = true
	}
	c.mu.Unlock()
	if take {
		resp.Body = &cutBody{rc: resp.Body, c: c, closed: make(chan struct{})}
	}
	return resp, nil
}

type cutBody struct {
	rc     io.ReadCloser
	c      *cutOnce
	reads  int
	once   sync.Once
	closed chan struct{}
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.reads == 0 {
		b.reads++
		n, err := b.rc.Read(p)
		close(b.c.primed)
		return n, err
	}
	select {
	case <-b.c.cut:
	case <-b.closed:
	}
	return 0, errCut
}

func (b *cutBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return b.rc.Close()
}

// logSink is a client that records the data of the log notifications it
// receives.
type logSink struct {
	mcp.UnimplementedClient
	got chan string
}

func (s *logSink) LoggingMessage(ctx context.Context, p *mcp.LoggingMessageNotificationParams) {
	select {
	case s.got <- string(p.Data):
	default:
	}
}

// waitLog waits (bounded) for a log notification whose data is want.
func (s *logSink) waitLog(t *testing.T, want string) bool {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case got := <-s.got:
			if got == want {
				return true
			}
		case <-deadline.C:
			return false
		}
	}
}

// resumeServer serves tools for the resumption tests on 127.0.0.1, with a
// resumption window of 2 events and a short retry delay:
//   - flood waits for primed, sends 20 log notifications on its stream,
//     closes sent, then answers once release is closed;
//   - burst sends 20 log notifications outside any request (they go on the
//     GET stream);
//   - mark sends one log notification "mark" outside any request.
func resumeServer(t *testing.T, primed, sent, release chan struct{}) (*streamhttp.Server, string) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
	}
	srv.MustAddTool(mcp.Tool{Name: "flood", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		select {
		case <-primed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		for range 20 {
			if err := s.Log(ctx, "info", "t", []byte(`"flood"`)); err != nil {
				return nil, err
			}
		}
		close(sent)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return text("flooded"), nil
	})
	srv.MustAddTool(mcp.Tool{Name: "burst", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		for range 20 {
			if err := s.Log(context.Background(), "info", "t", []byte(`"burst"`)); err != nil {
				return nil, err
			}
		}
		return text("burst"), nil
	})
	srv.MustAddTool(mcp.Tool{Name: "mark", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		if err := s.Log(context.Background(), "info", "t", []byte(`"mark"`)); err != nil {
			return nil, err
		}
		return text("marked"), nil
	})
	h, ts := newBufferServer(t, streamhttp.ServerOptions{ReplayEvents: 2, Retry: 10 * time.Millisecond}, srv)
	return h, ts.URL
}

// connectThrough connects a 2025-11-25 client session to url with rt as
// the HTTP transport.
func connectThrough(t *testing.T, ctx context.Context, url string, rt http.RoundTripper, sink mcp.Client) (*mcp.ClientSession, *streamhttp.Client) {
	t.Helper()
	c := streamhttp.NewClient(url, streamhttp.ClientOptions{HTTPClient: &http.Client{Transport: rt}, DefaultRetry: 10 * time.Millisecond})
	cs, err := mcp.Connect(ctx, c, &mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}, Handler: sink, Session: session.Options{CallTimeout: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, c
}

// waitFlushed waits until session sid has sent every event it holds to a
// connection: its resumption windows moved past them.
func waitFlushed(t *testing.T, h *streamhttp.Server, sid string) {
	t.Helper()
	if !waitFor(10*time.Second, func() bool { return heldBy(t, h, sid).Unsent == 0 }) {
		t.Fatalf("the server did not send its events: %+v", heldBy(t, h, sid))
	}
}

// TestClientPOSTStreamGone checks that a call whose SSE stream cannot be
// resumed because the server answers 410 Gone (the client fell behind the
// resumption window) fails at once with an error that says its answer is
// lost, not after CallTimeout.
func TestClientPOSTStreamGone(t *testing.T) {
	primed, sent, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	defer close(release)
	h, url := resumeServer(t, primed, sent, release)
	rt := newCutOnce(func(r *http.Request, body []byte) bool {
		return r.Method == http.MethodPost && bytes.Contains(body, []byte(`"tools/call"`))
	})
	// flood starts once the client read the priming event of its stream.
	go func() {
		select {
		case <-rt.primed:
			close(primed)
		case <-release:
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, c := connectThrough(t, ctx, url, rt, nil)
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "flood", Arguments: []byte(`{}`)})
		done <- result{res, err}
	}()
	select {
	case <-sent:
	case r := <-done:
		t.Fatalf("CallTool ended before the notifications were sent: %v, %v", r.res, r.err)
	}
	// The server wrote the 20 notifications (the client reads none): its
	// window moved past the priming event the client will resume from.
	waitFlushed(t, h, c.SessionID())
	close(rt.cut)
	r := <-done
	if r.err == nil {
		t.Fatalf("CallTool = %v, want an error: its stream is gone", r.res)
	}
	if !streamhttp.IsAnswerLost(r.err) {
		t.Errorf("CallTool error %q: IsAnswerLost = false, want true", r.err)
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(r.err, &rpcErr) || !strings.Contains(rpcErr.Message, "410") || !strings.Contains(rpcErr.Message, "lost") {
		t.Errorf("CallTool error %q: want a *jsonrpc.Error that says the answer is lost and names the 410", r.err)
	}
	if errors.Is(r.err, context.DeadlineExceeded) {
		t.Errorf("CallTool error %q: the call waited for its timeout", r.err)
	}
	// The session goes on.
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "mark", Arguments: []byte(`{}`)}); err != nil {
		t.Errorf("CallTool after the lost answer: %v", err)
	}
}

// TestClientGETStreamGone checks that when resuming the GET stream is
// refused with 410 Gone (the client fell behind its resumption window), the
// client opens a fresh GET stream, without Last-Event-ID, and the server's
// notifications keep arriving.
func TestClientGETStreamGone(t *testing.T) {
	h, url := resumeServer(t, nil, nil, nil)
	rt := newCutOnce(func(r *http.Request, body []byte) bool {
		return r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sink := &logSink{got: make(chan string, 64)}
	cs, c := connectThrough(t, ctx, url, rt, sink)
	select {
	case <-rt.primed:
	case <-ctx.Done():
		t.Fatal("the GET stream did not open")
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "burst", Arguments: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	waitFlushed(t, h, c.SessionID())
	close(rt.cut) // the client resumes from the priming event: 410
	// Then it opens a fresh stream (the server took it: the cut one is
	// detached, so nothing more is written to it).
	if !waitFor(10*time.Second, func() bool { return rt.freshGETs() == 2 }) {
		t.Fatalf("no fresh GET stream after the 410: %d opened", rt.freshGETs())
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "mark", Arguments: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if !sink.waitLog(t, `"mark"`) {
		t.Fatalf("no notification after the GET stream was refused with 410; server holds %+v", heldBy(t, h, c.SessionID()))
	}
}

// TestClientGETResumptionRefused checks what the Client does when the
// resumption of its GET stream is refused: after 410 Gone it opens a fresh
// stream without Last-Event-ID, on which notifications flow again; after
// 404 the session has expired, and after 405 the server offers no GET
// stream: no fresh stream is opened (after the 404, Read returns an error
// that says the server ended the session).
func TestClientGETResumptionRefused(t *testing.T) {
	tests := []struct {
		status    int
		wantFresh bool
	}{
		{http.StatusGone, true},
		{http.StatusNotFound, false},
		{http.StatusMethodNotAllowed, false},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			ctx := clCtx(t)
			f, srv := clNewFake(t)
			f.sse = true
			f.resumeStatus = tt.status
			c := clNewClient(srv.URL)
			defer c.Close()
			clHandshake(ctx, t, c)
			select {
			case <-f.getOpen:
			case <-ctx.Done():
				t.Fatal("no GET stream")
			}
			f.getCh <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
			clReadMsg(ctx, t, c)
			f.getCh <- "DROP" // the client resumes, and is refused
			gets := func() (fresh, resumed int) {
				for _, r := range f.requests() {
					if r.httpMethod != http.MethodGet {
						continue
					}
					if r.header.Get("Last-Event-ID") == "" {
						fresh++
					} else {
						resumed++
					}
				}
				return fresh, resumed
			}
			clWaitFor(t, "the resumption", func() bool { _, resumed := gets(); return resumed > 0 })
			if tt.wantFresh {
				select {
				case <-f.getOpen:
				case <-ctx.Done():
					t.Fatal("no fresh GET stream after the 410")
				}
				f.getCh <- `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`
				if m := clReadMsg(ctx, t, c); m["method"] != "notifications/prompts/list_changed" {
					t.Errorf("got %v, want the notification sent on the fresh stream", m)
				}
			} else if tt.status == http.StatusNotFound {
				// The session is gone: once what arrived is read, Read
				// says so, and the session using the Client ends.
				if _, err := c.Read(ctx); !errors.Is(err, streamhttp.ErrSessionExpired) || !strings.Contains(err.Error(), "ended the session") || !strings.Contains(err.Error(), "404") {
					t.Errorf("Read after the 404: %v; want an error wrapping ErrSessionExpired that says the server ended the session (404)", err)
				}
			} else {
				clExpectNothing(t, c, 100*time.Millisecond)
			}
			fresh, resumed := gets()
			want := map[string]int{"fresh": 1, "resumed": 1}
			if tt.wantFresh {
				want["fresh"] = 2
			}
			if diff := cmp.Diff(want, map[string]int{"fresh": fresh, "resumed": resumed}); diff != "" {
				t.Errorf("GET requests (-want +got):\n%s", diff)
			}
			if expired := c.SessionID() == ""; expired != (tt.status == http.StatusNotFound) {
				t.Errorf("session expired: %v, want %v", expired, tt.status == http.StatusNotFound)
			}
		})
	}
}
