package streamhttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

var objectSchema = []byte(`{"type":"object"}`)

// newBufferServer serves a Server over srv's tools on 127.0.0.1.
func newBufferServer(t *testing.T, opts streamhttp.ServerOptions, srv *mcp.StandardServer) (*streamhttp.Server, *httptest.Server) {
	t.Helper()
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		h.Close()
		ts.Close()
	})
	return h, ts
}

// heldBy is streamhttp.HeldBy, failing the test for an unknown session.
func heldBy(t *testing.T, h *streamhttp.Server, sid string) streamhttp.Held {
	t.Helper()
	held, ok := streamhttp.HeldBy(h, sid)
	if !ok {
		t.Fatalf("session %s is gone", sid)
	}
	return held
}

// waitFor polls cond every few milliseconds for at most limit; it reports
// whether cond held.
func waitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// postWith POSTs body in session sid with ctx; the caller reads the answer.
func postWith(t *testing.T, ctx context.Context, url, sid, body string) *http.Response {
	t.Helper()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		hr.Header.Set("Mcp-Session-Id", sid)
		hr.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// jsonInit opens a session on a server that answers with JSON bodies.
func jsonInit(t *testing.T, url string) string {
	t.Helper()
	resp := postWith(t, context.Background(), url, "", initBody)
	b, _ := io.ReadAll(resp.Body)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(string(b), `"protocolVersion"`) {
		t.Fatalf("initialize: %s, session %q: %s", resp.Status, sid, b)
	}
	if r := postWith(t, context.Background(), url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", r.Status)
	}
	return sid
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestReadGetStreamStaysBounded checks that the events a client read on
// its GET stream do not stay in the event store: after 150k notifications
// the session keeps only the resumption window, and the heap did not grow
// with the notifications.
func TestReadGetStreamStaysBounded(t *testing.T) {
	const n = 150_000
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "flood", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		for i := range n {
			if err := s.Log(ctx, "info", "t", []byte(`"a notification of some length"`)); err != nil {
				return nil, fmt.Errorf("notification %d: %w", i, err)
			}
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	// With JSON answers, what a handler sends goes on the GET stream.
	h, ts := newBufferServer(t, streamhttp.ServerOptions{JSONResponse: true}, srv)
	sid := jsonInit(t, ts.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	get, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(get)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", resp, err)
	}
	defer resp.Body.Close()
	read := make(chan int, 1)
	go func() {
		got := 0
		sc := bufio.NewScanner(resp.Body)
		for got < n && sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), "notifications/message") {
				got++
			}
		}
		read <- got
	}()
	before := heapInUse()
	call := postWith(t, ctx, ts.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood"}}`)
	if b, _ := io.ReadAll(call.Body); !strings.Contains(string(b), `"done"`) {
		t.Fatalf("tools/call flood: %s %s", call.Status, b)
	}
	if got := <-read; got != n {
		t.Fatalf("the GET stream carried %d notifications, want %d", got, n)
	}
	grown := heapInUse() - before
	held := heldBy(t, h, sid)
	if held.Events > 300 {
		t.Errorf("after %d notifications read on the GET stream, the store keeps %d events (%d bytes); want at most the resumption window (256)", n, held.Events, held.Bytes)
	}
	if grown > 8<<20 {
		t.Errorf("after %d notifications read on the GET stream, the heap grew by %d bytes; want less than 8 MiB", n, grown)
	}
}

// TestUnreadStreamBackpressure checks that a handler writing to a stream
// whose client does not read waits once the stream's buffer is full,
// instead of filling memory; that the session still answers other
// requests meanwhile; and that cancelling the request ends the wait with
// an error that says why.
func TestUnreadStreamBackpressure(t *testing.T) {
	const (
		limit = 256 << 10
		size  = 64 << 10
		count = 1024 // 64 MiB, far more than socket buffers hold
	)
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	result := make(chan error, 1)
	payload := []byte(`"` + strings.Repeat("x", size) + `"`)
	srv.MustAddTool(mcp.Tool{Name: "flood", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		for range count {
			if err := s.Log(ctx, "info", "t", payload); err != nil {
				result <- err
				return nil, err
			}
		}
		result <- nil
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	h, ts := newBufferServer(t, streamhttp.ServerOptions{StreamBufferBytes: limit, ReplayBytes: size}, srv)
	sid := initSession(t, ts.URL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	flood := postWith(t, ctx, ts.URL, sid, `{"jsonrpc":"2.0","id":"flood","method":"tools/call","params":{"name":"flood"}}`)
	if flood.StatusCode != http.StatusOK {
		t.Fatalf("tools/call flood: %s", flood.Status)
	}
	// The body of flood is never read.
	waited := waitFor(30*time.Second, func() bool {
		select {
		case err := <-result:
			held := heldBy(t, h, sid)
			t.Fatalf("the handler wrote %d MiB to a stream no one reads without waiting (err %v); the store holds %d events, %d bytes", count*size>>20, err, held.Events, held.Bytes)
		default:
		}
		return heldBy(t, h, sid).Waiting > 0
	})
	if !waited {
		t.Fatal("the handler neither waited for room nor finished")
	}
	if held := heldBy(t, h, sid); held.Bytes > limit+2*(size+200) {
		t.Errorf("the session holds %d bytes for the unread stream; want at most the limit %d, the resumption window and one message", held.Bytes, limit)
	}
	// Another request on the session is answered.
	ping := postWith(t, ctx, ts.URL, sid, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if evs := events(t, ping, 0); len(evs) != 2 || !strings.Contains(evs[1].data, `"id":"p"`) {
		t.Fatalf("ping while a handler waits: %+v", evs)
	}
	// Cancelling the request ends the handler's wait.
	cancelled := postWith(t, ctx, ts.URL, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"flood"}}`)
	if cancelled.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %s", cancelled.Status)
	}
	select {
	case err := <-result:
		if !errors.Is(err, streamhttp.ErrStreamFull) || !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's write failed with %v; want an error wrapping ErrStreamFull and context.Canceled", err)
		}
	case <-ctx.Done():
		t.Fatal("cancelling the request did not end the handler's wait")
	}
}

// TestRetentionTimer checks that a complete POST stream is dropped with
// its events StreamRetention after it ended, with no further request to
// the session, and that resuming it then is refused with 410.
func TestRetentionTimer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		broken bool // the client drops the connection before the answer
	}{
		{"delivered", false},
		{"connection broke", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
			release := make(chan struct{})
			srv.MustAddTool(mcp.Tool{Name: "wait", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
			})
			h, ts := newBufferServer(t, streamhttp.ServerOptions{StreamRetention: 20 * time.Millisecond}, srv)
			sid := initSession(t, ts.URL)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp := postWith(t, ctx, ts.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}`)
			first := events(t, resp, 1) // the priming event
			if len(first) != 1 || first[0].id == "" {
				t.Fatalf("first events %+v", first)
			}
			if tc.broken {
				cancel()
				close(release)
			} else {
				close(release)
				if rest := events(t, resp, 0); len(rest) != 1 || !strings.Contains(rest[0].data, `"done"`) {
					t.Fatalf("answer events %+v", rest)
				}
			}
			var held streamhttp.Held
			if !waitFor(10*time.Second, func() bool {
				held = heldBy(t, h, sid)
				return held.Streams == 0 && held.Events == 0
			}) {
				t.Fatalf("with no further request, the session keeps %d streams and %d events; want none (the GET stream is made by its first use), and none", held.Streams, held.Events)
			}
			r := do(t, ts.URL, req{method: http.MethodGet, header: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25", "Last-Event-ID": first[0].id}})
			if r.StatusCode != http.StatusGone {
				t.Errorf("resuming a dropped stream: %s, want 410", r.Status)
			}
		})
	}
}

// TestResumptionWindow checks that a stream resumes from any event of its
// resumption window, and that resuming from an older one is refused with
// 410 and a JSON-RPC error instead of replaying with a gap. The stream is
// not done (its handler waits), so resuming it does not end it.
func TestResumptionWindow(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	release := make(chan struct{})
	defer close(release)
	srv.MustAddTool(mcp.Tool{Name: "log10", InputSchema: objectSchema}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		for i := range 10 {
			if err := s.Log(ctx, "info", "t", []byte(fmt.Sprint(i))); err != nil {
				return nil, err
			}
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
	})
	hs, ts := newBufferServer(t, streamhttp.ServerOptions{ReplayEvents: 4}, srv)
	sid := initSession(t, ts.URL)
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	all := events(t, do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log10"}}`, header: h}), 11)
	if len(all) != 11 { // priming, 10 notifications
		t.Fatalf("tools/call events: %+v", all)
	}
	waitFlushed(t, hs, sid)
	datas := func(evs []event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.data)
		}
		return out
	}
	for _, tc := range []struct {
		from   int // index in all of the Last-Event-ID
		status int
	}{
		{6, http.StatusOK}, // the window: events 7…10
		{9, http.StatusOK},
		{5, http.StatusGone},
		{0, http.StatusGone},
	} {
		t.Run(fmt.Sprint("after event ", tc.from), func(t *testing.T) {
			h["Last-Event-ID"] = all[tc.from].id
			resp := do(t, ts.URL, req{method: http.MethodGet, header: h})
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("resuming after %s: %s %s; want %d", all[tc.from].id, resp.Status, b, tc.status)
			}
			if tc.status != http.StatusOK {
				var m struct {
					Error struct {
						Code    int
						Message string
					}
				}
				if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "resumption window") {
					t.Errorf("error body %+v (%v); want a -32600 error that names the resumption window", m, err)
				}
				return
			}
			want := all[tc.from+1:]
			if diff := cmp.Diff(datas(want), datas(events(t, resp, len(want)))); diff != "" {
				t.Errorf("replayed events (-want +got):\n%s", diff)
			}
		})
	}
}
