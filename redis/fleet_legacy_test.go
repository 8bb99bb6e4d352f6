package redis_test

// Fleet tests of the initialize era: legacy sessions (2025-11-25, and one
// at 2025-06-18) over Streamable HTTP and HTTP+SSE sessions (2024-11-05),
// on three instances of one StandardServer of 2026-07-28 on one
// redis-server, behind the harness's round-robin proxy, with no session
// affinity: every request of a session may land on any instance.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	old "github.com/mcpgen/mcpgen/protocol/mcp20241105"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// legacyProbe is what the tools of serveLegacy tell the test, whichever
// instance runs them (they all run in this process).
type legacyProbe struct {
	blocked   chan struct{} // block started
	cancelled chan error    // block's context ended: its error (nil: it never did)
}

func newLegacyProbe() *legacyProbe {
	return &legacyProbe{blocked: make(chan struct{}, 8), cancelled: make(chan error, 8)}
}

// Args of the tools of serveLegacy.
type (
	noteArgs struct {
		N int `json:"n"`
	}
)

// serveLegacy returns the Serve of a fleet of the initialize era: each
// instance runs one StandardServer of 2026-07-28 on the instance's Bus,
// serving Streamable HTTP (legacy sessions on the instance's Node and
// EventStore) at / and HTTP+SSE (on its Node) at /sse. Its tools:
//
//   - echo {value}: answers value;
//   - ask: asks the client a question (elicitation), and answers its answer;
//   - block: waits until its request is cancelled (at most fleetTimeout),
//     tells probe, and answers;
//   - touch {uri}: announces that the resource uri changed (on the Bus);
//   - announce {n} / whisper {n}: log {"n":n} at warning / info on the
//     session's GET stream, outside the request;
//   - whoami: answers the instance's index;
//   - revision: answers the revision the session negotiated.
//
// With crash, killing an instance leaves its server as it was, as a crash
// would (it is closed when the test ends); else the kill closes it, which
// hands its sessions over.
func serveLegacy(probe *legacyProbe, crash bool) func(t *testing.T, in *instance) (http.Handler, func()) {
	return func(t *testing.T, in *instance) (http.Handler, func()) {
		opts := in.SessionOptions()
		opts.Logger = testLogger(t, fmt.Sprintf("instance %d session", in.Index))
		srv := mcp.NewServer(mcp.Implementation{Name: "fleet", Version: "1.0.0"}, mcp.WithBus(in.Bus), mcp.WithSessionOptions(opts))
		mcp.MustAddTypedTool(srv, mcp.NewTool("echo", "Answers its value"), func(ctx context.Context, a echoArgs) (*mcp.CallToolResult, error) {
			return mcp.TextResult(a.Value), nil
		})
		mcp.MustAddTypedTool(srv, mcp.NewTool("ask", "Asks the client a question"), func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
			res, err := mcp.Elicit(ctx, "ask", question("ask?"))
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("answer=" + answerOf(res)), nil
		})
		mcp.MustAddTypedTool(srv, mcp.NewTool("block", "Waits until cancelled"), func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
			probe.blocked <- struct{}{}
			timer := time.NewTimer(fleetTimeout)
			defer timer.Stop()
			select {
			case <-ctx.Done():
			case <-timer.C:
			}
			probe.cancelled <- ctx.Err()
			return mcp.TextResult("unblocked"), nil
		})
		mcp.MustAddTypedTool(srv, mcp.NewTool("touch", "Announces that a resource changed"), func(ctx context.Context, a touchArgs) (*mcp.CallToolResult, error) {
			srv.NotifyResourceUpdated(a.URI)
			return mcp.TextResult("touched " + a.URI), nil
		})
		logTool := func(name, level string) {
			mcp.MustAddTypedTool(srv, mcp.NewTool(name, "Logs its argument at "+level+" on the GET stream"), func(ctx context.Context, a noteArgs) (*mcp.CallToolResult, error) {
				s, ok := session.FromContext(ctx)
				if !ok {
					return nil, errors.New("no session")
				}
				data, _ := json.Marshal(a)
				if err := s.Log(context.Background(), level, "fleet", data); err != nil {
					return nil, err
				}
				return mcp.TextResult("logged"), nil
			})
		}
		logTool("announce", "warning")
		logTool("whisper", "info")
		mcp.MustAddTypedTool(srv, mcp.NewTool("whoami", "Answers the index of the instance that ran it"), func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
			return mcp.TextResult(strconv.Itoa(in.Index)), nil
		})
		mcp.MustAddTypedTool(srv, mcp.NewTool("revision", "Answers the session's revision"), func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
			s, ok := session.FromContext(ctx)
			if !ok || s.Revision() == nil {
				return nil, errors.New("no session revision")
			}
			return mcp.TextResult(s.Revision().Name), nil
		})
		for _, uri := range []string{statusURI, uriA, uriB, uriC} {
			srv.MustAddResource(mcp.NewResource(uri, uri[strings.LastIndex(uri, "/")+1:], ""), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
				return mcp.ResourceText(p.URI, "", "ok"), nil
			})
		}
		h := srv.HTTPHandler(mcp.HTTPOptions{Session: opts, Fleet: in.Fleet.Node, EventStore: in.Fleet.Events, Logger: testLogger(t, fmt.Sprintf("instance %d http", in.Index))})
		sse := srv.SSEHandler(mcp.SSEOptions{Session: opts, Fleet: in.Fleet.Node, Logger: testLogger(t, fmt.Sprintf("instance %d sse", in.Index))})
		mux := http.NewServeMux()
		mux.Handle("/", h)
		mux.Handle("/sse", sse)
		closeAll := func() {
			h.Close()
			sse.Close()
		}
		if crash {
			t.Cleanup(closeAll)
			return mux, nil
		}
		return mux, closeAll
	}
}

// The resources of serveLegacy that the subscription tests touch.
const (
	uriA = "file:///fleet/a.txt"
	uriB = "file:///fleet/b.txt"
	uriC = "file:///fleet/c.txt"
)

// newLegacyFleet starts a fleet of serveLegacy on r (nil: a redis-server
// of its own).
func newLegacyFleet(t *testing.T, probe *legacyProbe, crash bool, r *redistest.Server) *testFleet {
	return newFleet(t, fleetConfig{Redis: r, Serve: serveLegacy(probe, crash)})
}

// legacyClient is the handler of a 2025-11-25 client: it answers each
// question "<question> yes" (calling beforeAnswer first, if set), and
// records the resource updates it hears.
type legacyClient struct {
	m25.UnimplementedClient
	updated      chan string
	mu           sync.Mutex
	beforeAnswer func()
}

func newLegacyClient() *legacyClient { return &legacyClient{updated: make(chan string, 64)} }

func (c *legacyClient) Elicit(ctx context.Context, p *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	c.mu.Lock()
	before := c.beforeAnswer
	c.mu.Unlock()
	if before != nil {
		before()
	}
	f, ok := p.Value.(*m25.ElicitRequestFormParams)
	if !ok {
		return &m25.ElicitResult{Action: "decline"}, nil
	}
	return m25.Accept(map[string]any{"answer": f.Message + " yes"})
}

func (c *legacyClient) ResourceUpdated(ctx context.Context, p *m25.ResourceUpdatedNotificationParams) {
	select {
	case c.updated <- p.URI:
	default:
	}
}

// connectLegacy opens a 2025-11-25 session with handler c through the
// fleet's proxy, and returns it with its session id; closed when the test
// ends.
func (f *testFleet) connectLegacy(t *testing.T, ctx context.Context, c m25.Client) (*m25.ClientSession, string) {
	t.Helper()
	tr := streamhttp.NewClient(f.URL, streamhttp.ClientOptions{})
	cs, err := m25.Connect(ctx, tr, &m25.ClientOptions{
		Info:         m25.Implementation{Name: "legacy-client", Version: "1.0.0"},
		Capabilities: m25.ClientCapabilities{Elicitation: &m25.ClientCapabilitiesElicitation{}},
		Handler:      c,
		Revisions:    []string{m25.Revision},
	})
	if err != nil {
		t.Fatalf("Connect at %s through the proxy: %v", m25.Revision, err)
	}
	t.Cleanup(func() { cs.Close() })
	if rev := cs.Revision(); rev == nil || rev.Name != m25.Revision {
		t.Fatalf("negotiated %v, want %s", rev, m25.Revision)
	}
	sid := tr.SessionID()
	if sid == "" {
		t.Fatal("no session id after initialize")
	}
	return cs, sid
}

// connectModern connects a 2026-07-28 client through the fleet's proxy,
// with no extension; closed when the test ends.
func (f *testFleet) connectModern(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(f.URL, streamhttp.ClientOptions{}), &mcp.ClientOptions{
		Info:      mcp.Implementation{Name: "fleet-client", Version: "1.0.0"},
		Handler:   newClient(),
		Revisions: []string{mcp.Revision},
	})
	if err != nil {
		t.Fatalf("Connect at %s through the proxy: %v", mcp.Revision, err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list through the proxy: %v", err)
	}
	return cs
}

// legacyCall calls the tool name with args in a legacy session and
// returns its text.
func legacyCall(ctx context.Context, cs *m25.ClientSession, name string, args any) (string, error) {
	res, err := cs.CallToolArgs(ctx, name, args)
	if err != nil {
		return "", err
	}
	if res.Failed() {
		return "", fmt.Errorf("tool %s failed: %s", name, res.Text())
	}
	return res.Text(), nil
}

// sessions returns a SessionStore of the fleet's records on a client of
// its own (none of the instances').
func (f *testFleet) sessions(t *testing.T) *redis.SessionStore {
	t.Helper()
	s, err := redis.NewSessionStore(f.Redis.Client(), f.Prefix, redis.SessionStoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ownerOf returns the instance that owns session sid by its record.
func (f *testFleet) ownerOf(t *testing.T, ctx context.Context, sid string) int {
	t.Helper()
	rec, err := f.sessions(t).Load(ctx, sid)
	if err != nil {
		t.Fatalf("the session's record: %v", err)
	}
	i, err := strconv.Atoi(strings.TrimPrefix(rec.Owner, "instance"))
	if err != nil || i < 0 || i >= len(f.Instances()) {
		t.Fatalf("the session's record names the owner %q, not an instance of the fleet", rec.Owner)
	}
	return i
}

// sessionHits returns the instances that the POSTs of session sid landed
// on, whose JSON-RPC method is method ("" for responses).
func (f *testFleet) sessionHits(sid, method string) []int {
	var out []int
	for _, h := range f.Hits() {
		if h.SessionID == sid && h.HTTPMethod == http.MethodPost && h.Method == method {
			out = append(out, h.Instance)
		}
	}
	return out
}

// keysOf returns the number of keys of the fleet under prefix:kind:.
func (f *testFleet) keysOf(t *testing.T, ctx context.Context, kind string) int {
	t.Helper()
	keys, err := f.Redis.Client().Keys(ctx, f.Prefix+":"+kind+":*").Result()
	if err != nil {
		t.Fatalf("KEYS %s:%s:*: %v", f.Prefix, kind, err)
	}
	return len(keys)
}

// TestFleetLegacySession: a whole 2025-11-25 session round-robined over
// three instances: its calls are answered right wherever they land; the
// server's question (elicitation) is answered by a POST that lands on an
// instance other than the session's owner and reaches the handler that
// waits for it; a notifications/cancelled posted through another instance
// cancels the request running on the owner; closing the session removes
// its record.
func TestFleetLegacySession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	probe := newLegacyProbe()
	f := newLegacyFleet(t, probe, false, nil)
	c := newLegacyClient()
	cs, sid := f.connectLegacy(t, ctx, c)
	owner := f.ownerOf(t, ctx, sid)

	for i := range 9 {
		want := fmt.Sprintf("call %d", i)
		if got, err := legacyCall(ctx, cs, "echo", echoArgs{Value: want}); err != nil || got != want {
			t.Fatalf("echo %d = %q, %v; want %q", i, got, err, want)
		}
	}
	if got := f.sessionHits(sid, "tools/call"); len(got) != 9 || !slices.Contains(got, 0) || !slices.Contains(got, 1) || !slices.Contains(got, 2) {
		t.Fatalf("the session's 9 tools/call landed on instances %v, want all three", got)
	}
	for i := range 3 { // each served by the owner, wherever it lands
		f.Next(i)
		if got, err := legacyCall(ctx, cs, "whoami", struct{}{}); err != nil || got != strconv.Itoa(owner) {
			t.Fatalf("whoami through instance %d = %q, %v; want the owner %d", i, got, err, owner)
		}
	}

	t.Run("elicitation answered through another instance", func(t *testing.T) {
		answerOn := (owner + 1) % 3
		c.mu.Lock()
		c.beforeAnswer = func() { f.Next(answerOn) }
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			c.beforeAnswer = nil
			c.mu.Unlock()
		}()
		responses := len(f.sessionHits(sid, ""))
		f.Next(owner)
		got, err := legacyCall(ctx, cs, "ask", struct{}{})
		if want := "answer=ask? yes"; err != nil || got != want {
			t.Fatalf("ask = %q, %v; want %q", got, err, want)
		}
		after := f.sessionHits(sid, "")
		if len(after) != responses+1 {
			t.Fatalf("%d responses posted for one question, want 1 (hits %v)", len(after)-responses, after[responses:])
		}
		if on := after[responses]; on == owner {
			t.Fatalf("the answer landed on the owner %d, want another instance", owner)
		}
	})

	t.Run("notifications/cancelled through another instance", func(t *testing.T) {
		cancelOn := (owner + 2) % 3
		bctx, bcancel := context.WithCancel(ctx)
		defer bcancel()
		done := make(chan error, 1)
		f.Next(owner)
		go func() {
			_, err := legacyCall(bctx, cs, "block", struct{}{})
			done <- err
		}()
		select {
		case <-probe.blocked:
		case <-ctx.Done():
			t.Fatal("block never started")
		}
		f.Next(cancelOn)
		bcancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the cancelled call returned %v, want context.Canceled", err)
			}
		case <-ctx.Done():
			t.Fatal("the cancelled call did not return")
		}
		select {
		case err := <-probe.cancelled:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("block's context ended with %v, want context.Canceled (the notification did not reach the owner)", err)
			}
		case <-ctx.Done():
			t.Fatal("block never ended")
		}
		if calls := f.sessionHits(sid, "tools/call"); calls[len(calls)-1] != owner {
			t.Fatalf("block landed on %d, want the owner %d", calls[len(calls)-1], owner)
		}
		notes := f.sessionHits(sid, "notifications/cancelled")
		if len(notes) != 1 || notes[0] == owner {
			t.Fatalf("notifications/cancelled landed on instances %v, want once on another than the owner %d", notes, owner)
		}
	})

	// The session worked throughout, at the owner it began with.
	if got, err := legacyCall(ctx, cs, "echo", echoArgs{Value: "still"}); err != nil || got != "still" {
		t.Fatalf("echo after = %q, %v", got, err)
	}
	if o := f.ownerOf(t, ctx, sid); o != owner {
		t.Errorf("the session moved from instance %d to %d with every instance alive", owner, o)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	store := f.sessions(t)
	for i := 0; ; i++ {
		_, err := store.Load(ctx, sid)
		if errors.Is(err, fleet.ErrNotFound) {
			break
		}
		if i == 500 {
			t.Fatalf("the record of a closed session: %v, want it gone", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFleetLegacySubscription: a 2025-11-25 session subscribed to
// resources hears of a change announced through another instance (by a
// stateless client), and not of one to a resource it did not subscribe
// to, or unsubscribed from.
func TestFleetLegacySubscription(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	f := newLegacyFleet(t, newLegacyProbe(), false, nil)
	c := newLegacyClient()
	cs, sid := f.connectLegacy(t, ctx, c)
	owner := f.ownerOf(t, ctx, sid)
	modern := f.connectModern(t, ctx)
	for _, uri := range []string{uriA, uriC} {
		if _, err := cs.Subscribe(ctx, &m25.SubscribeRequestParams{URI: uri}); err != nil {
			t.Fatalf("resources/subscribe %s: %v", uri, err)
		}
	}
	// touch announces each change through an instance other than the
	// owner, one after the other, from the same instance: the Bus keeps
	// their order.
	through := (owner + 1) % 3
	touch := func(uri string) {
		t.Helper()
		f.Next(through)
		if _, err := call(ctx, modern, "touch", touchArgs{URI: uri}); err != nil {
			t.Fatal(err)
		}
		var on []int
		for _, h := range f.HitsOf("tools/call") {
			if h.SessionID == "" {
				on = append(on, h.Instance)
			}
		}
		if on[len(on)-1] != through {
			t.Fatalf("touch %s went through instance %d, want %d", uri, on[len(on)-1], through)
		}
	}
	// expect waits until the session hears that want changed, and fails
	// if it hears of any other change first.
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-c.updated:
			if got != want {
				t.Fatalf("the session heard that %s changed, want %s", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("the session did not hear that %s changed", want)
		}
	}
	tests := []struct {
		name        string
		before      func()
		quiet, loud string // touched in this order: only loud is heard
	}{
		{name: "not subscribed", quiet: uriB, loud: uriA},
		{name: "subscribed", quiet: uriB, loud: uriC},
		{name: "unsubscribed through another instance", before: func() {
			f.Next(through)
			if _, err := cs.Unsubscribe(ctx, &m25.UnsubscribeRequestParams{URI: uriA}); err != nil {
				t.Fatalf("resources/unsubscribe: %v", err)
			}
		}, quiet: uriA, loud: uriC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.before != nil {
				tt.before()
			}
			touch(tt.quiet)
			touch(tt.loud)
			expect(tt.loud)
		})
	}
}

// legacyInit is an initialize request of a raw HTTP client, at rev.
func legacyInit(rev string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
}

// rawResponse is a raw HTTP response, read whole.
type rawResponse struct {
	Status   int
	Header   http.Header
	Body     string
	Instance int // the instance that served it
}

// rawRequest is a request of a raw HTTP client of a legacy session.
type rawRequest struct {
	Method string // POST unless set
	SID    string // the Mcp-Session-Id; "" for none
	Rev    string // the MCP-Protocol-Version; "" for none
	Body   string
	Header map[string]string
}

// send sends r to the fleet's proxy, and returns its response once read
// whole, within requestTimeout.
func (f *testFleet) send(t *testing.T, ctx context.Context, r rawRequest) rawResponse {
	t.Helper()
	resp := f.open(t, ctx, r)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxPeek))
	if err != nil {
		t.Fatalf("%s %s: reading the response: %v (status %d from instance %s, headers %v, read %q)", r.Method, r.Body, err, resp.StatusCode, resp.Header.Get(instanceHeader), resp.Header, b)
	}
	in, _ := strconv.Atoi(resp.Header.Get(instanceHeader))
	return rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: string(b), Instance: in}
}

// open sends r and returns the response as it starts (a stream, say); its
// body is closed when the test ends at the latest.
func (f *testFleet) open(t *testing.T, ctx context.Context, r rawRequest) *http.Response {
	t.Helper()
	if r.Method == "" {
		r.Method = http.MethodPost
	}
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, f.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.SID != "" {
		req.Header.Set("Mcp-Session-Id", r.SID)
	}
	if r.Rev != "" {
		req.Header.Set("MCP-Protocol-Version", r.Rev)
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Body, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// initRaw opens a session at rev through the proxy as a raw HTTP client,
// and returns its id.
func (f *testFleet) initRaw(t *testing.T, ctx context.Context, rev string) string {
	t.Helper()
	r := f.send(t, ctx, rawRequest{Body: legacyInit(rev)})
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Status != http.StatusOK || sid == "" || !strings.Contains(r.Body, `"protocolVersion":"`+rev+`"`) {
		t.Fatalf("initialize at %s: %d, session %q: %s", rev, r.Status, sid, r.Body)
	}
	if r := f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}); r.Status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", r.Status, r.Body)
	}
	return sid
}

// toolCall is the body of a tools/call request of id, to the tool name
// with the arguments args (JSON).
func toolCall(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

// resultText returns the text of the tools/call result of id in the body
// of a POST's response (JSON or SSE), or fails the test.
func resultText(t *testing.T, r rawResponse, id int) string {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("request %d: %d %s", id, r.Status, r.Body)
	}
	for line := range strings.SplitSeq(r.Body, "\n") {
		data := strings.TrimPrefix(line, "data: ")
		var m struct {
			ID     int `json:"id"`
			Result *struct {
				Content []struct{ Text string }
				IsError bool
			}
			Error *struct{ Message string }
		}
		if json.Unmarshal([]byte(data), &m) != nil || m.ID != id || m.Result == nil && m.Error == nil {
			continue
		}
		if m.Error != nil || m.Result.IsError || len(m.Result.Content) != 1 {
			t.Fatalf("request %d failed: %s", id, data)
		}
		return m.Result.Content[0].Text
	}
	t.Fatalf("request %d: no answer in %s", id, r.Body)
	return ""
}

// eventReader reads the data of an SSE stream's message events, and the
// id of the last.
type eventReader struct {
	sc   *bufio.Scanner
	last string
}

func newEventReader(r io.Reader, last string) *eventReader {
	return &eventReader{sc: bufio.NewScanner(r), last: last}
}

// nextLog returns the data of the next notifications/message event, or
// false at the stream's end. The list_changed notifications it skips: an
// instance that starts announces its tools and resources to the fleet's
// Bus, and the session may hear of it.
func (r *eventReader) nextLog() (string, bool) {
	for {
		data, ok := r.next()
		if !ok {
			return "", false
		}
		var m struct{ Method string }
		if json.Unmarshal([]byte(data), &m) == nil && strings.HasSuffix(m.Method, "/list_changed") {
			continue
		}
		return data, true
	}
}

// next returns the data of the next event that has an id and data, or
// false at the stream's end.
func (r *eventReader) next() (string, bool) {
	var id, data string
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "":
			if data != "" && id != "" {
				r.last = id
				return data, true
			}
			id, data = "", ""
		}
	}
	return "", false
}

// TestFleetLegacyGetStreamResumed: the GET stream of a session (at
// 2025-06-18, not the server's latest legacy revision), held through an
// instance that is killed, is resumed with Last-Event-ID through another:
// the events written before the kill and not yet read come, then the
// later ones, none lost or repeated; the session keeps its revision and
// its log level. A DELETE through an instance other than the owner then
// ends the session on every instance, and removes its record and its
// events from Redis. Killed: as a crash (the session is taken over from
// its record) and as a graceful Close (it is handed over).
func TestFleetLegacyGetStreamResumed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		crash bool
	}{
		{"crash", true},
		{"graceful close", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			testGetStreamResumed(t, tt.crash)
		})
	}
}

func testGetStreamResumed(t *testing.T, crash bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*fleetTimeout)
	defer cancel()
	f := newLegacyFleet(t, newLegacyProbe(), crash, nil)
	const rev = "2025-06-18"
	sid := f.initRaw(t, ctx, rev)
	owner := f.ownerOf(t, ctx, sid)
	if r := f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}`}); r.Status != http.StatusOK {
		t.Fatalf("logging/setLevel: %d %s", r.Status, r.Body)
	}
	f.Next((owner + 1) % 3) // the GET stream through another instance than the owner
	get := f.open(t, ctx, rawRequest{Method: http.MethodGet, SID: sid, Rev: rev})
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s", get.Status)
	}
	rd := newEventReader(get.Body, "")
	id := 100
	announce := func(n int) {
		t.Helper()
		id++
		if got := resultText(t, f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: toolCall(id, "announce", fmt.Sprintf(`{"n":%d}`, n))}), id); got != "logged" {
			t.Fatalf("announce %d = %q", n, got)
		}
	}
	var got []string
	for n := range 3 {
		announce(n)
		data, ok := rd.nextLog()
		if !ok {
			t.Fatalf("the GET stream ended after %d events", n)
		}
		got = append(got, data)
	}
	// Two more go on the stream, unread, when the owner is killed.
	announce(3)
	announce(4)
	f.Kill(owner)
	for range 10 { // what the broken connection still carried
		data, ok := rd.nextLog()
		if !ok {
			break
		}
		got = append(got, data)
	}
	resumed := f.open(t, ctx, rawRequest{Method: http.MethodGet, SID: sid, Rev: rev, Header: map[string]string{"Last-Event-ID": rd.last}})
	if resumed.StatusCode != http.StatusOK {
		t.Fatalf("GET with Last-Event-ID after the owner was killed: %s", resumed.Status)
	}
	if o := f.ownerOf(t, ctx, sid); o == owner {
		t.Fatalf("the session is still owned by the killed instance %d", owner)
	}
	rd = newEventReader(resumed.Body, rd.last)
	for len(got) < 5 {
		data, ok := rd.nextLog()
		if !ok {
			t.Fatalf("the resumed stream ended after %d events", len(got))
		}
		got = append(got, data)
	}
	// Below the level set before the kill: not sent. Then one more above.
	id++
	if r := f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: toolCall(id, "whisper", `{"n":-1}`)}); resultText(t, r, id) != "logged" {
		t.Fatalf("whisper: %s", r.Body)
	}
	announce(5)
	data, ok := rd.nextLog()
	if !ok {
		t.Fatal("the resumed stream ended")
	}
	got = append(got, data)
	var notes, want []string
	for _, d := range got {
		var m struct {
			Method string
			Params struct {
				Level string
				Data  json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(d), &m); err != nil || m.Method != "notifications/message" {
			t.Fatalf("not a log message: %s; the stream carried:\n%s", d, strings.Join(got, "\n"))
		}
		notes = append(notes, m.Params.Level+" "+string(m.Params.Data))
	}
	for n := range 6 {
		want = append(want, fmt.Sprintf(`warning {"n":%d}`, n))
	}
	if !slices.Equal(notes, want) {
		t.Errorf("the GET stream across the kill carried\n%s\nwant\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	// The revision it negotiated, on every live instance.
	for i := range 3 {
		if i == owner {
			continue
		}
		f.Next(i)
		id++
		if got := resultText(t, f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: toolCall(id, "revision", `{}`)}), id); got != rev {
			t.Errorf("through instance %d after the kill the session speaks %q, want %q", i, got, rev)
		}
	}

	// DELETE through an instance other than the (new) owner.
	now := f.ownerOf(t, ctx, sid)
	if f.keysOf(t, ctx, "events") == 0 {
		t.Fatal("no event stream in Redis before the DELETE")
	}
	f.Next(3 - owner - now)
	del := f.send(t, ctx, rawRequest{Method: http.MethodDelete, SID: sid, Rev: rev})
	if del.Status != http.StatusOK && del.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", del.Status, del.Body)
	}
	if del.Instance == now || del.Instance == owner {
		t.Fatalf("the DELETE landed on instance %d; want the one that neither owns nor owned the session", del.Instance)
	}
	if _, err := f.sessions(t).Load(ctx, sid); !errors.Is(err, fleet.ErrNotFound) {
		t.Errorf("the record after DELETE: %v, want it gone", err)
	}
	if n := f.keysOf(t, ctx, "session"); n != 0 {
		t.Errorf("%d session records in Redis after DELETE, want 0", n)
	}
	if n := f.keysOf(t, ctx, "events"); n != 0 {
		t.Errorf("%d event streams in Redis after DELETE, want 0", n)
	}
	for i := range 3 {
		if i == owner {
			continue
		}
		f.Next(i)
		r := f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: `{"jsonrpc":"2.0","id":9,"method":"ping"}`})
		if r.Status != http.StatusNotFound || r.Instance != i {
			t.Errorf("ping through instance %d after DELETE: %d on %d %s, want 404", i, r.Status, r.Instance, r.Body)
		}
	}
	for i := 0; ; i++ { // the resumed stream ends with the session
		if _, ok := rd.next(); !ok {
			break
		}
		if i == 100 {
			t.Fatal("the GET stream goes on after DELETE")
		}
	}
}

// TestFleetSSE: four HTTP+SSE (2024-11-05) clients at once, each POST of
// theirs landing on the next instance: every answer comes back on its own
// client's stream, right.
func TestFleetSSE(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*fleetTimeout)
	defer cancel()
	f := newLegacyFleet(t, newLegacyProbe(), false, nil)
	const clients, calls = 4, 15
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			cs, err := old.Connect(ctx, ssehttp.NewClient(f.URL+"/sse", ssehttp.ClientOptions{}), &old.ClientOptions{
				Info: old.Implementation{Name: "sse-client", Version: "1"}, Revisions: []string{old.Revision}})
			if err != nil {
				errs <- fmt.Errorf("client %d: Connect: %w", c, err)
				return
			}
			defer cs.Close()
			if rev := cs.Revision(); rev == nil || rev.Name != old.Revision {
				errs <- fmt.Errorf("client %d: negotiated %v, want %s", c, rev, old.Revision)
				return
			}
			for i := range calls {
				want := fmt.Sprintf("client %d call %d", c, i)
				res, err := cs.CallToolArgs(ctx, "echo", echoArgs{Value: want})
				if err != nil {
					errs <- fmt.Errorf("client %d call %d: %w", c, i, err)
					return
				}
				if got := res.Text(); res.Failed() || got != want {
					errs <- fmt.Errorf("client %d call %d: answered %q, want %q", c, i, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	per := map[int]int{}
	for _, h := range f.HitsOf("tools/call") {
		per[h.Instance]++
	}
	if len(per) != 3 {
		t.Errorf("the tools/call POSTs landed on instances %v, want all three", per)
	}
	streams := map[int]int{}
	for _, h := range f.Hits() {
		if h.HTTPMethod == http.MethodGet {
			streams[h.Instance]++
		}
	}
	t.Logf("SSE streams per instance %v, tools/call POSTs per instance %v", streams, per)
}

// TestFleetLegacyRedisRestart: while Redis is away, a request of a legacy
// session that lands on its owner is answered; one that lands on another
// instance, and an initialize, get 503 with a JSON-RPC error naming the
// session store, at once; once Redis is back (its append-only file kept
// the records), the session works through every instance, none
// restarted.
func TestFleetLegacyRedisRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*fleetTimeout)
	defer cancel()
	f := newLegacyFleet(t, newLegacyProbe(), false, redistest.StartWith(t, redistest.Options{AppendOnly: true}))
	rev := m25.Revision
	sid := f.initRaw(t, ctx, rev)
	owner := f.ownerOf(t, ctx, sid)
	ping := func(ctx context.Context, i, id int) rawResponse {
		f.Next(i)
		return f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)})
	}
	for i := range 3 {
		if r := ping(ctx, i, 1); r.Status != http.StatusOK {
			t.Fatalf("ping through instance %d: %d %s", i, r.Status, r.Body)
		}
	}

	f.Redis.Stop()
	for i := range 3 {
		t.Run(fmt.Sprintf("Redis away, instance %d", i), func(t *testing.T) {
			rctx, cancel := context.WithTimeout(ctx, requestTimeout)
			defer cancel()
			r := ping(rctx, i, 7)
			if rctx.Err() != nil {
				t.Fatalf("ping through instance %d did not return within %v", i, requestTimeout)
			}
			if r.Instance != i {
				t.Fatalf("the ping landed on %d, want %d", r.Instance, i)
			}
			if i == owner {
				if r.Status != http.StatusOK || !strings.Contains(r.Body, `"result"`) {
					t.Errorf("ping on the owner, which needs no Redis: %d %s, want its answer", r.Status, r.Body)
				}
				return
			}
			if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, `"id":7`) || !strings.Contains(r.Body, "the fleet's session store did not answer") {
				t.Errorf("ping through instance %d: %d %s; want 503, the request's id and the session store named", i, r.Status, r.Body)
			}
			f.Next(i)
			r = f.send(t, rctx, rawRequest{Body: legacyInit(rev)})
			if rctx.Err() != nil {
				t.Fatalf("initialize through instance %d did not return within %v", i, requestTimeout)
			}
			if r.Status != http.StatusServiceUnavailable || r.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(r.Body, "the fleet's session store did not answer") {
				t.Errorf("initialize through instance %d: %d %s; want 503 naming the session store, and no session", i, r.Status, r.Body)
			}
			t.Logf("instance %d while Redis is away: %s", i, strings.TrimSpace(r.Body))
		})
	}

	f.Redis.Restart()
	for round := range 2 {
		for i := range 3 {
			id := 10 + 3*round + i
			r := ping(ctx, i, id)
			if r.Status != http.StatusOK || !strings.Contains(r.Body, fmt.Sprintf(`"id":%d`, id)) {
				t.Errorf("ping through instance %d after Redis came back: %d %s", i, r.Status, r.Body)
			}
		}
	}
	id := 100
	for i := range 3 {
		id++
		f.Next(i)
		want := fmt.Sprintf("after %d", i)
		args, _ := json.Marshal(echoArgs{Value: want})
		if got := resultText(t, f.send(t, ctx, rawRequest{SID: sid, Rev: rev, Body: toolCall(id, "echo", string(args))}), id); got != want {
			t.Errorf("echo through instance %d after Redis came back = %q", i, got)
		}
	}
	if o := f.ownerOf(t, ctx, sid); o != owner {
		t.Errorf("the session moved from instance %d to %d across the restart, every instance alive", owner, o)
	}
}

// TestFleetLegacyPubSubBlip: when the instances' Pub/Sub connections to
// Redis break (as in a network blip), a request for a session that lands
// on another instance than its owner, at once, still reaches the owner,
// which reconnects by itself: the session is not taken from a live owner,
// which would go on serving it beside the instance that took it. A request
// whose answer is lost on its way back (the instance it landed on had not
// subscribed again yet) is refused with 503 and a JSON-RPC error, not left
// waiting, and answered when sent again.
func TestFleetLegacyPubSubBlip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*fleetTimeout)
	defer cancel()
	f := newLegacyFleet(t, newLegacyProbe(), false, nil)
	rev := m25.Revision
	sid := f.initRaw(t, ctx, rev)
	owner := f.ownerOf(t, ctx, sid)
	obs := f.Redis.Client()
	id, refused := 100, 0
	for blip := range 5 {
		n, err := obs.ClientKillByFilter(ctx, "TYPE", "pubsub").Result()
		if err != nil || n == 0 {
			t.Fatalf("CLIENT KILL TYPE pubsub = %d, %v; want the instances' connections closed", n, err)
		}
		for k := range 3 {
			i := (owner + 1 + k) % 3 // the others first
			id++
			for try := 0; ; try++ {
				rctx, cancel := context.WithTimeout(ctx, requestTimeout)
				f.Next(i)
				r := f.send(t, rctx, rawRequest{SID: sid, Rev: rev, Body: toolCall(id, "whoami", "{}")})
				late := rctx.Err() != nil
				cancel()
				if late {
					t.Fatalf("blip %d: whoami through instance %d did not return within %v", blip, i, requestTimeout)
				}
				if r.Status == http.StatusServiceUnavailable && strings.Contains(r.Body, fmt.Sprintf(`"id":%d`, id)) && strings.Contains(r.Body, "try again") {
					refused++
					t.Logf("blip %d: whoami through instance %d refused: %s", blip, i, r.Body)
					if try == 3 {
						t.Fatalf("blip %d: whoami through instance %d refused %d times", blip, i, try+1)
					}
					continue
				}
				if got := resultText(t, r, id); got != strconv.Itoa(owner) {
					t.Fatalf("blip %d: whoami through instance %d answered by %s, want the owner %d", blip, i, got, owner)
				}
				break
			}
		}
		if o := f.ownerOf(t, ctx, sid); o != owner {
			t.Fatalf("blip %d: the session moved from its live owner %d to %d", blip, owner, o)
		}
	}
	t.Logf("%d requests refused and sent again in 5 blips", refused)
}

// TestFleetLegacyLoad: many legacy sessions calling through the proxy at
// once each get their own answers, none lost; the goroutines and the heap
// come back afterwards.
func TestFleetLegacyLoad(t *testing.T) {
	clients, calls := 64, 500
	if testing.Short() {
		clients, calls = 8, 50
	}
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	f := newLegacyFleet(t, newLegacyProbe(), false, nil)

	// The baseline: the fleet up, warmed by one session that came and went.
	warm, _ := f.connectLegacy(t, ctx, newLegacyClient())
	if got, err := legacyCall(ctx, warm, "echo", echoArgs{Value: "warm"}); err != nil || got != "warm" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	warm.Close()
	f.CloseIdle()
	g0 := stableGoroutines()
	var m0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)

	start := time.Now()
	sessions := make([]*m25.ClientSession, clients)
	for i := range sessions {
		sessions[i], _ = f.connectLegacy(t, ctx, newLegacyClient())
	}
	echoLoad(t, clients, calls, func(i int, want string) (string, error) {
		return legacyCall(ctx, sessions[i], "echo", echoArgs{Value: want})
	})
	elapsed := time.Since(start)
	perInstance := f.spread(t, 3, clients*calls)
	t.Logf("%d calls in %d legacy sessions in %v; tools/call per instance: %v", clients*calls, clients, elapsed.Round(time.Millisecond), perInstance)

	for _, cs := range sessions {
		cs.Close()
	}
	f.CloseIdle()
	// Every session ended: no record left.
	for i := 0; ; i++ {
		n := f.keysOf(t, ctx, "session")
		if n == 0 {
			break
		}
		if i == 500 {
			t.Fatalf("%d session records after every session closed, want 0", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	const slack = 8
	if g := settleGoroutines(g0 + slack); g > g0+slack {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the load, %d before\n%s", g, g0, buf[:runtime.Stack(buf, true)])
	}
	var m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	const heapSlack = 64 << 20
	if m1.HeapAlloc > m0.HeapAlloc+heapSlack {
		t.Errorf("heap %d bytes after the load, %d before: more than %d bytes were kept", m1.HeapAlloc, m0.HeapAlloc, heapSlack)
	}
	t.Logf("goroutines %d before, %d after; heap %d KiB before, %d KiB after", g0, runtime.NumGoroutine(), m0.HeapAlloc>>10, m1.HeapAlloc>>10)
}
