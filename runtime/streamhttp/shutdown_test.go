package streamhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// holdServer serves a tool "hold" that logs "stall" (when its argument
// stall is true), signals started, then waits until release is closed (or
// its context ends: it then fails) and answers with the text "answer <n>"
// for its argument n. The HTTP server is wrap(the Server), on 127.0.0.1.
func holdServer(t *testing.T, opts streamhttp.ServerOptions, wrap func(http.Handler) http.Handler, started chan<- struct{}, release <-chan struct{}) (*streamhttp.Server, string) {
	t.Helper()
	srv := mcp.NewServer(mcp.Implementation{Name: "hold", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "hold", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var args struct {
			N     int  `json:"n"`
			Stall bool `json:"stall"`
		}
		if err := wire.DecodeValue(p.Arguments, &args); err != nil {
			return nil, err
		}
		if args.Stall {
			s, _ := session.FromContext(ctx)
			if err := s.Log(ctx, "info", "t", []byte(`"stall"`)); err != nil {
				return nil, err
			}
		}
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, fmt.Errorf("hold %d: cancelled before release: %w", args.N, ctx.Err())
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: fmt.Sprint("answer ", args.N)}}}}, nil
	})
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, opts)
	var hh http.Handler = h
	if wrap != nil {
		hh = wrap(h)
	}
	ts := httptest.NewServer(hh)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		h.Close()
		ts.Close()
	})
	return h, ts.URL
}

// stallNet is a network on a bad day: a write of an SSE event that
// carries "stall" waits until open is closed, as if the client's
// connection were slow. stalled receives one value per such write.
type stallNet struct {
	open    chan struct{}
	stalled chan struct{}
}

func (s *stallNet) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&stallWriter{ResponseWriter: w, net: s}, r)
	})
}

type stallWriter struct {
	http.ResponseWriter
	net *stallNet
}

func (w *stallWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"stall"`)) {
		w.net.stalled <- struct{}{}
		<-w.net.open
	}
	return w.ResponseWriter.Write(p)
}

func (w *stallWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// closing reports whether h refuses a new session: Close has begun.
func closing(t *testing.T, url string) bool {
	t.Helper()
	resp := postWith(t, context.Background(), url, "", initBody)
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusServiceUnavailable
}

// connectClient connects a 2025-11-25 client session to url over a new
// Client that reconnects after 10ms.
func connectClient(t *testing.T, ctx context.Context, url string) (*mcp.ClientSession, *streamhttp.Client) {
	t.Helper()
	c := streamhttp.NewClient(url, streamhttp.ClientOptions{DefaultRetry: 10 * time.Millisecond})
	cs, err := mcp.Connect(ctx, c, &mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}, Session: session.Options{CallTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, c
}

// A SIGTERM with calls in flight, on a slow network: Server.Close begins
// while 20 clients' tools/call run, each answered on its POST's SSE stream
// (2025-11-25), whose connection is still busy writing a log notification
// the handler sent; the handlers are released only once Close has begun,
// and the network catches up only once the sessions have ended. Every
// client must get its own answer: Close lets the handlers finish within
// the drain limit, and writes each answer on its open stream before it
// ends the stream.
func TestCloseDeliversSSEAnswers(t *testing.T) {
	const n = 20
	started, release := make(chan struct{}, n), make(chan struct{})
	slow := &stallNet{open: make(chan struct{}), stalled: make(chan struct{}, n)}
	defer func() {
		select {
		case <-slow.open:
		default:
			close(slow.open)
		}
	}()
	h, url := holdServer(t, streamhttp.ServerOptions{Session: session.Options{DrainTimeout: time.Minute}}, slow.wrap, started, release)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type result struct {
		n   int
		res *mcp.CallToolResult
		err error
	}
	results := make(chan result, n)
	var sids []string
	for i := range n {
		cs, c := connectClient(t, ctx, url)
		sids = append(sids, c.SessionID())
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "hold", Arguments: fmt.Appendf(nil, `{"n":%d,"stall":true}`, i)})
			results <- result{i, res, err}
		}()
	}
	for range 2 * n {
		select {
		case <-started:
		case <-slow.stalled:
		case r := <-results:
			t.Fatalf("call %d ended before Close: %v, %v", r.n, r.res, r.err)
		case <-ctx.Done():
			t.Fatal("the calls did not start")
		}
	}
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	if !waitFor(10*time.Second, func() bool { return closing(t, url) }) {
		t.Fatal("Close did not begin: a new session is still admitted")
	}
	close(release)
	// The handlers answer; the sessions end. Then the network catches up.
	if !waitFor(30*time.Second, func() bool {
		for _, sid := range sids {
			if _, ok := streamhttp.HeldBy(h, sid); ok {
				return false
			}
		}
		return true
	}) {
		t.Fatal("the sessions did not end")
	}
	close(slow.open)
	for range n {
		var r result
		select {
		case r = <-results:
		case <-ctx.Done():
			t.Fatal("the calls did not end")
		}
		want := fmt.Sprint("answer ", r.n)
		if r.err != nil {
			t.Errorf("call %d: %v; want its answer %q (answer lost: %v)", r.n, r.err, want, streamhttp.IsAnswerLost(r.err))
			continue
		}
		if tc, ok := r.res.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != want || r.res.IsError != nil && *r.res.IsError {
			b, _ := r.res.AppendJSON(nil)
			t.Errorf("call %d: %s; want the text %q", r.n, b, want)
		}
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
}

// Once Close has begun, a request in a live session is refused with 503
// and a JSON-RPC error that carries its id (no handler runs for it), while
// the calls already received are still answered.
func TestCloseRefusesNewRequests(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	h, url := holdServer(t, streamhttp.ServerOptions{Session: session.Options{DrainTimeout: time.Minute}}, nil, started, release)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	sid := initSession(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	held := postWith(t, ctx, url, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":{"n":7}}}`)
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the call did not start")
	}
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	if !waitFor(10*time.Second, func() bool { return closing(t, url) }) {
		t.Fatal("Close did not begin")
	}
	resp := postWith(t, ctx, url, sid, `{"jsonrpc":"2.0","id":"late-1","method":"tools/call","params":{"name":"hold","arguments":{"n":8}}}`)
	body, _ := io.ReadAll(resp.Body)
	var m struct {
		ID    any
		Error struct {
			Code    int
			Message string
		}
	}
	if resp.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(body, &m) != nil || m.ID != "late-1" || m.Error.Code != session.Busy || !strings.Contains(m.Error.Message, "shutting down") {
		t.Errorf("a request after Close began: %s %s; want 503 and a -32000 error with id \"late-1\" that says the server is shutting down", resp.Status, body)
	}
	close(release)
	evs := events(t, held, 0)
	answered := false
	for _, ev := range evs {
		answered = answered || ev.id != "" && strings.Contains(ev.data, `"answer 7"`)
	}
	if !answered {
		t.Errorf("the call received before Close: events %+v; want its answer", evs)
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
}

// When the server shuts down, a 2025-11-25 client session learns it: its
// Done closes, and Wait's error says that the server ended the session.
func TestClientSessionEndsWithServer(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	h, url := holdServer(t, streamhttp.ServerOptions{}, nil, started, release)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, _ := connectClient(t, ctx, url)
	if _, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{}); err != nil {
		t.Fatal(err)
	}
	h.Close()
	select {
	case <-cs.Done():
	case <-time.After(20 * time.Second): // a bound, not a measurement
		t.Fatal("the client session did not end after the server closed")
	}
	err := cs.Wait()
	if !errors.Is(err, streamhttp.ErrSessionExpired) || !strings.Contains(err.Error(), "ended the session") || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("Wait: %v; want an error wrapping ErrSessionExpired that says the server ended the session, shutting down", err)
	}
}

// A server that forgot the session (it restarted, or reaped it) answers
// 404 to the next POST naming it: the call fails with ErrSessionExpired,
// and the client session ends too, its Wait saying that the server ended
// it, instead of staying open with every later call failing.
func TestClientSessionEndsOn404(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.getStatus = http.StatusMethodNotAllowed // no GET stream: only the POST learns
	cs, err := mcp.Connect(ctx, clNewClient(srv.URL), &mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	f.mu.Lock()
	f.expired = true
	f.mu.Unlock()
	if _, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{}); !errors.Is(err, streamhttp.ErrSessionExpired) {
		t.Fatalf("ListTools after the server forgot the session: %v, want ErrSessionExpired", err)
	}
	select {
	case <-cs.Done():
	case <-ctx.Done():
		t.Fatal("the client session did not end after the 404")
	}
	if err := cs.Wait(); !errors.Is(err, streamhttp.ErrSessionExpired) || !strings.Contains(err.Error(), "ended the session") || !strings.Contains(err.Error(), "404") {
		t.Errorf("Wait: %v; want an error wrapping ErrSessionExpired that says the server ended the session (404)", err)
	}
}
