package streamhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The client tests run the Client against clFake, a hand-written MCP
// endpoint whose answers each test arranges, and which records every
// request it gets.

const clTimeout = 10 * time.Second

// clFakeRequest is one HTTP request the fake endpoint received.
type clFakeRequest struct {
	httpMethod string
	rpcMethod  string // of a POSTed message; "" for a response or a batch
	header     http.Header
	at         time.Time
}

// clFakeEvent is one SSE event the fake endpoint sent or will replay.
type clFakeEvent struct {
	seq  int
	data string
}

// clFakeMsg is a POSTed JSON-RPC message.
type clFakeMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type clFake struct {
	mu sync.Mutex

	reqs     []clFakeRequest
	sessions int    // sessions created
	session  string // the valid session id
	expired  bool   // answer 404 to the session id
	version  string // protocolVersion answered; "" echoes the client's

	sse          bool // answer requests on SSE streams (else JSON)
	retryMS      int  // retry field of the priming events; 0 sends none
	getStatus    int  // answer GET without Last-Event-ID with it; 0 serves a stream
	resumeStatus int  // answer GET with Last-Event-ID with it; 0 replays
	deleteStatus int  // answer to DELETE; 0 is 200

	// post, if set, may answer a request itself (returning true), for
	// instance to drop its stream.
	post func(w http.ResponseWriter, m clFakeMsg, stream string) bool

	// Events kept for replay, by stream; the ids are "<stream>-<seq>".
	streams map[string][]clFakeEvent
	nStream int

	getCh   chan string   // payloads for the GET stream; "DROP" ends the connection
	getOpen chan struct{} // signalled when a GET stream opens
}

func clNewFake(t *testing.T) (*clFake, *httptest.Server) {
	t.Helper()
	f := &clFake{
		streams: map[string][]clFakeEvent{},
		getCh:   make(chan string, 16),
		getOpen: make(chan struct{}, 16),
	}
	srv := httptest.NewServer(f) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *clFake) requests() []clFakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]clFakeRequest(nil), f.reqs...)
}

func (f *clFake) count(httpMethod string) int {
	n := 0
	for _, r := range f.requests() {
		if r.httpMethod == httpMethod {
			n++
		}
	}
	return n
}

// newStream starts a stream and returns its name: prefix and a number.
func (f *clFake) newStream(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nStream++
	name := prefix + strconv.Itoa(f.nStream)
	f.streams[name] = nil
	return name
}

// record appends data to stream and returns its event id.
func (f *clFake) record(stream, data string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := len(f.streams[stream]) + 1
	f.streams[stream] = append(f.streams[stream], clFakeEvent{seq, data})
	return fmt.Sprintf("%s-%d", stream, seq)
}

// sendEvent records data as the next event of stream and sends it.
func (f *clFake) sendEvent(w http.ResponseWriter, stream, data string) {
	id := f.record(stream, data)
	fmt.Fprintf(w, "id: %s\ndata: %s\n\n", id, data)
	w.(http.Flusher).Flush()
}

// prime sends a priming event (T-P6b): an id, the retry field, no data.
func (f *clFake) prime(w http.ResponseWriter, stream string) {
	id := f.record(stream, "")
	f.mu.Lock()
	retry := f.retryMS
	f.mu.Unlock()
	if retry > 0 {
		fmt.Fprintf(w, ": priming\nid: %s\nretry: %d\ndata:\n\n", id, retry)
	} else {
		fmt.Fprintf(w, "id: %s\ndata:\n\n", id)
	}
	w.(http.Flusher).Flush()
}

func clStartSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func (f *clFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m clFakeMsg
	_ = json.Unmarshal(body, &m)
	f.mu.Lock()
	f.reqs = append(f.reqs, clFakeRequest{httpMethod: r.Method, rpcMethod: m.Method, header: r.Header.Clone(), at: time.Now()})
	sid := r.Header.Get("Mcp-Session-Id")
	if sid != "" && (f.expired || sid != f.session) {
		f.mu.Unlock()
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	if sid == "" && m.Method != "initialize" && f.session != "" {
		f.mu.Unlock()
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: no session id"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Unlock()

	switch r.Method {
	case http.MethodPost:
		f.servePost(w, m)
	case http.MethodGet:
		f.serveGet(w, r)
	case http.MethodDelete:
		f.mu.Lock()
		status := f.deleteStatus
		if status == 0 || status/100 == 2 {
			f.session = ""
		}
		f.mu.Unlock()
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// result returns the result the fake gives to method.
func (f *clFake) result(m clFakeMsg) string {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		f.mu.Lock()
		v := f.version
		f.mu.Unlock()
		if v == "" {
			v = p.ProtocolVersion
		}
		return fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`, v)
	case "tools/list":
		return `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]}`
	case "tools/call":
		var p struct {
			Arguments struct {
				Message string `json:"message"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, "Echo: "+p.Arguments.Message)
	}
	return `{}`
}

func (f *clFake) servePost(w http.ResponseWriter, m clFakeMsg) {
	if m.Method == "" || m.ID == nil {
		w.WriteHeader(http.StatusAccepted) // T-P4
		return
	}
	if m.Method == "initialize" {
		f.mu.Lock()
		f.sessions++
		f.session = fmt.Sprintf("sess-%d", f.sessions)
		f.expired = false
		w.Header().Set("Mcp-Session-Id", f.session)
		f.mu.Unlock()
	}
	response := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, f.result(m))
	f.mu.Lock()
	sse, post := f.sse, f.post
	f.mu.Unlock()
	if !sse {
		if post != nil && post(w, m, "") {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, response)
		return
	}
	stream := f.newStream("s")
	clStartSSE(w)
	f.prime(w, stream)
	if post != nil && post(w, m, stream) {
		return
	}
	f.sendEvent(w, stream, response)
}

func (f *clFake) serveGet(w http.ResponseWriter, r *http.Request) {
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		f.mu.Lock()
		status := f.getStatus
		f.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		clStartSSE(w)
		f.liveGet(w, r, f.newStream("gs"))
		return
	}
	// Resumption: replay what followed the event on its stream (T-R3).
	f.mu.Lock()
	status := f.resumeStatus
	f.mu.Unlock()
	if status != 0 {
		http.Error(w, "resumption refused", status)
		return
	}
	stream, seqText, _ := strings.Cut(last, "-")
	seq, _ := strconv.Atoi(seqText)
	f.mu.Lock()
	evs, ok := f.streams[stream]
	evs = append([]clFakeEvent(nil), evs...)
	f.mu.Unlock()
	if !ok {
		http.Error(w, "unknown event id", http.StatusBadRequest)
		return
	}
	clStartSSE(w)
	for _, ev := range evs {
		if ev.seq > seq {
			fmt.Fprintf(w, "id: %s-%d\ndata: %s\n\n", stream, ev.seq, ev.data)
		}
	}
	w.(http.Flusher).Flush()
	if strings.HasPrefix(stream, "g") {
		f.liveGet(w, r, stream)
	}
}

// liveGet sends what the test puts in getCh on the GET stream.
func (f *clFake) liveGet(w http.ResponseWriter, r *http.Request, stream string) {
	f.getOpen <- struct{}{}
	for {
		select {
		case data := <-f.getCh:
			if data == "DROP" {
				return
			}
			f.sendEvent(w, stream, data)
		case <-r.Context().Done():
			return
		}
	}
}

// --- Helpers -----------------------------------------------------------------

func clCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clTimeout)
	t.Cleanup(cancel)
	return ctx
}

func clNewClient(url string) *streamhttp.Client {
	return streamhttp.NewClient(url, streamhttp.ClientOptions{
		DefaultRetry: 20 * time.Millisecond,
		Header:       http.Header{"Authorization": {"Bearer test"}},
	})
}

// clReadMsg reads one payload and decodes it.
func clReadMsg(ctx context.Context, t *testing.T, c *streamhttp.Client) map[string]any {
	t.Helper()
	data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("Read returned %q: %v", data, err)
	}
	return m
}

// clExpectNothing checks that no payload arrives for a while.
func clExpectNothing(t *testing.T, c *streamhttp.Client, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if data, err := c.Read(ctx); err == nil {
		t.Errorf("unexpected payload %s", data)
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read: %v, want a deadline", err)
	}
}

const (
	clInit        = `{"jsonrpc":"2.0","id":"init-7","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	clInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	clList        = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	clCall        = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
)

// clHandshake initializes a session by hand.
func clHandshake(ctx context.Context, t *testing.T, c *streamhttp.Client) {
	t.Helper()
	if err := c.Write(ctx, []byte(clInit)); err != nil {
		t.Fatalf("Write initialize: %v", err)
	}
	if m := clReadMsg(ctx, t, c); m["id"] != "init-7" || m["result"] == nil {
		t.Fatalf("initialize answer: %v", m)
	}
	if err := c.Write(ctx, []byte(clInitialized)); err != nil {
		t.Fatalf("Write initialized: %v", err)
	}
}

// clGoroutines returns a function that fails t if, within a few seconds,
// the number of goroutines does not come back to what it is now.
func clGoroutines(t *testing.T) func() {
	t.Helper()
	before := runtime.NumGoroutine()
	return func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Fatalf("%d clGoroutines, %d before the test:\n%s", n, before, buf)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// --- Tests -------------------------------------------------------------------

func TestClientJSONAnswersAndHeaders(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.version = "2025-06-18" // negotiated down: the header must follow the answer
	f.getStatus = http.StatusMethodNotAllowed
	c := clNewClient(srv.URL)
	defer c.Close()

	clHandshake(ctx, t, c)
	if got := c.SessionID(); got != "sess-1" {
		t.Errorf("SessionID() = %q, want sess-1", got)
	}
	if got := c.ProtocolVersion(); got != "2025-06-18" {
		t.Errorf("ProtocolVersion() = %q, want 2025-06-18", got)
	}
	if err := c.Write(ctx, []byte(clList)); err != nil {
		t.Fatal(err)
	}
	if m := clReadMsg(ctx, t, c); m["id"] != 2.0 || m["result"] == nil {
		t.Errorf("tools/list answer: %v", m)
	}
	// A response to a server request is accepted with 202 too.
	if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":"s1","result":{}}`)); err != nil {
		t.Fatal(err)
	}
	// The GET stream was tried once, after initialization; 405 stops it.
	clWaitFor(t, "the GET stream attempt", func() bool { return f.count(http.MethodGet) == 1 })
	time.Sleep(100 * time.Millisecond) // DefaultRetry is 20ms: a retry would show
	if n := f.count(http.MethodGet); n != 1 {
		t.Errorf("%d GET requests after a 405, want 1", n)
	}
	clExpectNothing(t, c, 50*time.Millisecond)

	reqs := f.requests()
	for i, r := range reqs {
		what := fmt.Sprintf("request %d (%s %s)", i, r.httpMethod, r.rpcMethod)
		if got := r.header.Get("Authorization"); got != "Bearer test" {
			t.Errorf("%s: Authorization %q, want the extra header", what, got)
		}
		sid, ver := r.header.Get("Mcp-Session-Id"), r.header.Get("Mcp-Protocol-Version")
		switch r.httpMethod {
		case http.MethodPost:
			if got := r.header.Get("Accept"); got != "application/json, text/event-stream" {
				t.Errorf("%s: Accept %q", what, got)
			}
			if got := r.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("%s: Content-Type %q", what, got)
			}
		case http.MethodGet:
			if got := r.header.Get("Accept"); got != "text/event-stream" {
				t.Errorf("%s: Accept %q", what, got)
			}
			if got := r.header.Get("Last-Event-ID"); got != "" {
				t.Errorf("%s: Last-Event-ID %q on a new stream", what, got)
			}
		}
		if r.rpcMethod == "initialize" {
			if sid != "" || ver != "" {
				t.Errorf("%s: Mcp-Session-Id %q, MCP-Protocol-Version %q; want neither", what, sid, ver)
			}
			continue
		}
		if sid != "sess-1" || ver != "2025-06-18" {
			t.Errorf("%s: Mcp-Session-Id %q, MCP-Protocol-Version %q; want sess-1, 2025-06-18", what, sid, ver)
		}
	}
	if len(reqs) != 5 {
		t.Errorf("%d requests, want 5 (4 POST, 1 GET)", len(reqs))
	}
}

func clWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestClientSSEResumption(t *testing.T) {
	for _, abrupt := range []bool{false, true} {
		t.Run(fmt.Sprintf("abrupt=%v", abrupt), func(t *testing.T) {
			leak := clGoroutines(t)
			ctx := clCtx(t)
			f, srv := clNewFake(t)
			f.sse = true
			f.retryMS = 150
			f.getStatus = http.StatusMethodNotAllowed
			var dropped time.Time
			f.post = func(w http.ResponseWriter, m clFakeMsg, stream string) bool {
				if m.Method != "tools/call" {
					return false
				}
				f.sendEvent(w, stream, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
				// The response is stored, but the connection ends before
				// it is sent: the client must fetch it with GET.
				response := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, f.result(m))
				id := f.record(stream, response)
				f.mu.Lock()
				dropped = time.Now()
				f.mu.Unlock()
				if abrupt {
					// Half an event, then the connection breaks.
					fmt.Fprintf(w, "id: %s\ndata: %s", id, response[:10])
					w.(http.Flusher).Flush()
					panic(http.ErrAbortHandler)
				}
				return true // polling: the server closes the connection (T-P6b)
			}
			c := clNewClient(srv.URL)

			clHandshake(ctx, t, c)
			if err := c.Write(ctx, []byte(clCall)); err != nil {
				t.Fatal(err)
			}
			if m := clReadMsg(ctx, t, c); m["method"] != "notifications/progress" {
				t.Errorf("first message %v, want the progress notification", m)
			}
			m := clReadMsg(ctx, t, c)
			if m["id"] != 3.0 || !strings.Contains(fmt.Sprint(m["result"]), "Echo: hi") {
				t.Errorf("second message %v, want the tools/call result", m)
			}
			clExpectNothing(t, c, 100*time.Millisecond) // nothing twice

			var gets []clFakeRequest
			for _, r := range f.requests() {
				if r.httpMethod == http.MethodGet {
					gets = append(gets, r)
				}
			}
			if len(gets) < 1 {
				t.Fatal("no GET")
			}
			// One GET was the standalone stream's (405), one the resumption.
			var resume *clFakeRequest
			for i := range gets {
				if gets[i].header.Get("Last-Event-ID") != "" {
					if resume != nil {
						t.Errorf("more than one resumption: %q and %q", resume.header.Get("Last-Event-ID"), gets[i].header.Get("Last-Event-ID"))
					}
					resume = &gets[i]
				}
			}
			if resume == nil {
				t.Fatal("no GET with Last-Event-ID")
			}
			if got := resume.header.Get("Last-Event-ID"); got != "s2-2" {
				t.Errorf("Last-Event-ID %q, want s2-2 (the progress event)", got)
			}
			if got := resume.header.Get("Accept"); got != "text/event-stream" {
				t.Errorf("resumption Accept %q", got)
			}
			if got := resume.header.Get("Mcp-Session-Id"); got != "sess-1" {
				t.Errorf("resumption Mcp-Session-Id %q", got)
			}
			f.mu.Lock()
			waited := resume.at.Sub(dropped)
			f.mu.Unlock()
			if waited < 150*time.Millisecond {
				t.Errorf("reconnected %v after the drop; the retry field said 150ms", waited)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			srv.Close()
			leak()
		})
	}
}

func TestClientSSEAnswerWithoutEventIDs(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.getStatus = http.StatusMethodNotAllowed
	f.post = func(w http.ResponseWriter, m clFakeMsg, _ string) bool {
		if m.Method != "tools/list" {
			return false
		}
		clStartSSE(w)
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\ndata:  \"method\":\"notifications/message\",\r\ndata: \"params\":{\"level\":\"info\",\"data\":1}}\r\r")
		return true // dropped without ids: cannot be resumed
	}
	c := clNewClient(srv.URL)
	defer c.Close()
	clHandshake(ctx, t, c)
	if err := c.Write(ctx, []byte(clList)); err != nil {
		t.Fatal(err)
	}
	if m := clReadMsg(ctx, t, c); m["method"] != "notifications/message" {
		t.Errorf("got %v, want the log notification (multi-line data, CR and CRLF line ends)", m)
	}
	m := clReadMsg(ctx, t, c)
	e, _ := m["error"].(map[string]any)
	if m["id"] != 2.0 || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "cannot be resumed") {
		t.Errorf("got %v, want an error response for id 2 saying the stream cannot be resumed", m)
	}
}

func TestClientResumptionGivesUp(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.sse = true
	f.getStatus = http.StatusMethodNotAllowed
	f.post = func(w http.ResponseWriter, m clFakeMsg, stream string) bool {
		if m.Method != "tools/list" {
			return false
		}
		f.mu.Lock()
		delete(f.streams, stream) // resumption will fail with 400
		f.mu.Unlock()
		return true
	}
	c := streamhttp.NewClient(srv.URL, streamhttp.ClientOptions{DefaultRetry: 5 * time.Millisecond, MaxRetries: 2})
	defer c.Close()
	clHandshake(ctx, t, c)
	if err := c.Write(ctx, []byte(clList)); err != nil {
		t.Fatal(err)
	}
	m := clReadMsg(ctx, t, c)
	e, _ := m["error"].(map[string]any)
	if m["id"] != 2.0 || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "400") {
		t.Errorf("got %v, want an error response for id 2 naming the 400", m)
	}
}

func TestClientGETStream(t *testing.T) {
	leak := clGoroutines(t)
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.sse = true
	f.retryMS = 30
	c := clNewClient(srv.URL)

	clHandshake(ctx, t, c)
	select {
	case <-f.getOpen:
	case <-ctx.Done():
		t.Fatal("no GET stream")
	}
	f.getCh <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	if m := clReadMsg(ctx, t, c); m["method"] != "notifications/tools/list_changed" {
		t.Errorf("got %v, want the notification sent on the GET stream", m)
	}
	f.getCh <- `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`
	if m := clReadMsg(ctx, t, c); m["method"] != "ping" {
		t.Errorf("got %v, want the server's ping", m)
	}
	// A drop: the next event is stored before the client reconnects, and
	// must arrive once, by replay.
	f.getCh <- "DROP"
	f.record("gs2", `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
	select {
	case <-f.getOpen:
	case <-ctx.Done():
		t.Fatal("the GET stream was not reopened")
	}
	if m := clReadMsg(ctx, t, c); m["method"] != "notifications/resources/list_changed" {
		t.Errorf("got %v, want the replayed notification", m)
	}
	f.getCh <- `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`
	if m := clReadMsg(ctx, t, c); m["method"] != "notifications/prompts/list_changed" {
		t.Errorf("got %v, want the notification after the reconnection", m)
	}
	clExpectNothing(t, c, 50*time.Millisecond)

	var gets []clFakeRequest
	for _, r := range f.requests() {
		if r.httpMethod == http.MethodGet {
			gets = append(gets, r)
		}
	}
	if len(gets) != 2 {
		t.Fatalf("%d GET requests, want 2", len(gets))
	}
	for _, g := range gets {
		if g.header.Get("Accept") != "text/event-stream" || g.header.Get("Mcp-Session-Id") != "sess-1" || g.header.Get("Mcp-Protocol-Version") != "2025-11-25" {
			t.Errorf("GET headers %v", g.header)
		}
	}
	if got := gets[0].header.Get("Last-Event-ID"); got != "" {
		t.Errorf("first GET: Last-Event-ID %q", got)
	}
	if got := gets[1].header.Get("Last-Event-ID"); got != "gs2-2" {
		t.Errorf("second GET: Last-Event-ID %q, want gs2-2", got)
	}

	// Close: DELETE with the session id; Read ends with io.EOF.
	readErr := make(chan error, 1)
	go func() {
		_, err := c.Read(ctx)
		readErr <- err
	}()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-readErr; err != io.EOF {
		t.Errorf("blocked Read after Close: %v, want io.EOF", err)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Errorf("Read after Close: %v, want io.EOF", err)
	}
	if err := c.Write(ctx, []byte(clList)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v, want net.ErrClosed", err)
	}
	reqs := f.requests()
	last := reqs[len(reqs)-1]
	if last.httpMethod != http.MethodDelete || last.header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("last request %s with session %q, want DELETE with sess-1", last.httpMethod, last.header.Get("Mcp-Session-Id"))
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	srv.Close()
	leak()
}

func TestClientDeleteNotAllowed(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.getStatus = http.StatusMethodNotAllowed
	f.deleteStatus = http.StatusMethodNotAllowed
	c := clNewClient(srv.URL)
	clHandshake(ctx, t, c)
	if err := c.Close(); err != nil {
		t.Errorf("Close with DELETE answered 405: %v", err)
	}
	if n := f.count(http.MethodDelete); n != 1 {
		t.Errorf("%d DELETE requests, want 1", n)
	}
}

func TestClientErrorStatus(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.getStatus = http.StatusMethodNotAllowed
	f.post = func(w http.ResponseWriter, m clFakeMsg, _ string) bool {
		switch m.Method {
		case "tools/list":
			http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad list"}}`+strings.Repeat("x", 500), http.StatusBadRequest)
			return true
		case "tools/call":
			w.WriteHeader(http.StatusBadGateway)
			return true
		}
		return false
	}
	c := clNewClient(srv.URL)
	defer c.Close()
	clHandshake(ctx, t, c)
	err := c.Write(ctx, []byte(clList))
	if err == nil || !strings.Contains(err.Error(), "400 Bad Request") || !strings.Contains(err.Error(), "bad list") || len(err.Error()) > 400 {
		t.Errorf("400: error %v; want the status and a short excerpt of the body", err)
	}
	if errors.Is(err, streamhttp.ErrSessionExpired) {
		t.Errorf("400 reported as session expiry")
	}
	if err := c.Write(ctx, []byte(clCall)); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("502: error %v", err)
	}
	if got := c.SessionID(); got != "sess-1" {
		t.Errorf("SessionID() = %q after errors that are not 404", got)
	}
}

// clStalledList starts a fake server with no GET stream whose answer to
// tools/list never comes before the test ends.
func clStalledList(t *testing.T) *httptest.Server {
	t.Helper()
	f, srv := clNewFake(t)
	f.getStatus = http.StatusMethodNotAllowed
	release := make(chan struct{})
	f.post = func(w http.ResponseWriter, m clFakeMsg, _ string) bool {
		if m.Method != "tools/list" {
			return false
		}
		<-release
		return true
	}
	t.Cleanup(func() { close(release) })
	return srv
}

func TestClientWriteContext(t *testing.T) {
	ctx := clCtx(t)
	srv := clStalledList(t)
	c := clNewClient(srv.URL)
	defer c.Close()
	clHandshake(ctx, t, c)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := c.Write(short, []byte(clList)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Write with a short deadline: %v", err)
	}
}

func TestClientSessionExpired(t *testing.T) {
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.getStatus = http.StatusMethodNotAllowed
	c := clNewClient(srv.URL)
	clHandshake(ctx, t, c)
	f.mu.Lock()
	f.expired = true
	f.mu.Unlock()
	err := c.Write(ctx, []byte(clList))
	if !errors.Is(err, streamhttp.ErrSessionExpired) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("Write after expiry: %v, want ErrSessionExpired", err)
	}
	if got := c.SessionID(); got != "" {
		t.Errorf("SessionID() = %q after expiry, want it forgotten", got)
	}
	n := len(f.requests())
	if err := c.Write(ctx, []byte(clCall)); !errors.Is(err, streamhttp.ErrSessionExpired) {
		t.Errorf("second Write after expiry: %v, want ErrSessionExpired", err)
	}
	if len(f.requests()) != n {
		t.Errorf("a Write after expiry reached the server")
	}
	// Start over: Close resets the expired Client (no DELETE: no session),
	// and a new initialize goes without a session id.
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := f.count(http.MethodDelete); n != 0 {
		t.Errorf("%d DELETE for an expired session", n)
	}
	clHandshake(ctx, t, c)
	if got := c.SessionID(); got != "sess-2" {
		t.Errorf("SessionID() = %q, want sess-2", got)
	}
	reqs := f.requests()
	for _, r := range reqs {
		if r.rpcMethod == "initialize" && r.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("initialize sent with session id %q", r.header.Get("Mcp-Session-Id"))
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Errorf("Read after the final Close: %v", err)
	}
}

// TestClientConnect runs a generated client session over the transport,
// through an expiry and a new Connect with the same Client.
func TestClientConnect(t *testing.T) {
	leak := clGoroutines(t)
	ctx := clCtx(t)
	f, srv := clNewFake(t)
	f.sse = true
	f.retryMS = 10
	c := clNewClient(srv.URL)
	info := mcp20251125.Implementation{Name: "client-test", Version: "1"}
	cs, err := mcp20251125.Connect(ctx, c, &mcp20251125.ClientOptions{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, &mcp20251125.PaginatedRequestParams{})
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" {
		t.Fatalf("ListTools: %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"message":"hello"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := res.AppendJSON(nil); !strings.Contains(string(b), "Echo: hello") {
		t.Errorf("CallTool: %s", b)
	}

	f.mu.Lock()
	f.expired = true
	f.mu.Unlock()
	_, err = cs.ListTools(ctx, &mcp20251125.PaginatedRequestParams{})
	if !errors.Is(err, streamhttp.ErrSessionExpired) {
		t.Fatalf("ListTools after expiry: %v, want ErrSessionExpired", err)
	}
	cs.Close()
	cs, err = mcp20251125.Connect(ctx, c, &mcp20251125.ClientOptions{Info: info})
	if err != nil {
		t.Fatalf("Connect again: %v", err)
	}
	if _, err := cs.ListTools(ctx, &mcp20251125.PaginatedRequestParams{}); err != nil {
		t.Errorf("ListTools in the new session: %v", err)
	}
	if got := c.SessionID(); got != "sess-2" {
		t.Errorf("SessionID() = %q, want sess-2", got)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := f.count(http.MethodDelete); n != 1 {
		t.Errorf("%d DELETE requests, want 1", n)
	}
	srv.Close()
	leak()
}

// ctxNote is a value a caller puts in the context it writes with.
type ctxNote struct{}

// ctxRecorder is an http.RoundTripper that notes the ctxNote of each
// POST's context, and whether that context is done when the POST returns.
type ctxRecorder struct {
	next  http.RoundTripper
	notes chan string
}

func (r *ctxRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost {
		note, _ := req.Context().Value(ctxNote{}).(string)
		r.notes <- note
	}
	return r.next.RoundTrip(req)
}

// The POST of a message carries the values of the context it was written
// with (an otelhttp span, an httptrace.ClientTrace), while it still ends
// with the connection (Close) and with that context. (otelmcp's
// TestHTTPSpansNestUnderMCPSpans checks both eras.)
func TestClientPostCarriesContextValues(t *testing.T) {
	ctx := clCtx(t)
	srv := clStalledList(t)
	rec := &ctxRecorder{next: http.DefaultTransport, notes: make(chan string, 16)}
	c := streamhttp.NewClient(srv.URL, streamhttp.ClientOptions{HTTPClient: &http.Client{Transport: rec}})
	defer c.Close()

	if err := c.Write(context.WithValue(ctx, ctxNote{}, "initialize"), []byte(clInit)); err != nil {
		t.Fatalf("Write initialize: %v", err)
	}
	clReadMsg(ctx, t, c)
	if err := c.Write(context.Background(), []byte(clInitialized)); err != nil {
		t.Fatalf("Write initialized: %v", err)
	}
	for _, want := range []string{"initialize", ""} {
		if got := <-rec.notes; got != want {
			t.Errorf("POST context value %q, want %q", got, want)
		}
	}

	// A caller's context that ends still cuts the POST short.
	short, cancel := context.WithTimeout(context.WithValue(ctx, ctxNote{}, "list"), 50*time.Millisecond)
	defer cancel()
	if err := c.Write(short, []byte(clList)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Write with a short deadline: %v", err)
	}
	if got := <-rec.notes; got != "list" {
		t.Errorf("POST context value %q, want %q", got, "list")
	}

	// A context that never ends carries its values too, and Close still
	// ends the POST.
	done := make(chan error, 1)
	go func() {
		done <- c.Write(context.WithValue(context.Background(), ctxNote{}, "forever"), []byte(clList))
	}()
	if got := <-rec.notes; got != "forever" {
		t.Errorf("POST context value %q, want %q", got, "forever")
	}
	c.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Write ended by Close returned no error")
		}
	case <-time.After(clTimeout):
		t.Fatal("Close did not end a POST whose context never ends")
	}
}
