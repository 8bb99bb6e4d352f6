package streamhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// inProcessFleet is three instances of one server in this process, on
// in-memory stores, behind a round-robin front that skips dead ones. The
// Redis module's tests run the same flows on a real Redis.
type inProcessFleet struct {
	servers []*streamhttp.Server
	dead    []atomic.Bool
	served  []atomic.Int64 // requests the front gave each instance
	front   *httptest.Server
	next    atomic.Int64
	store   *fleet.MemorySessionStore
	events  *streamhttp.MemoryStore
	broken  *atomic.Bool
}

// brokenStore is a SessionStore whose engine is away while down is true.
type brokenStore struct {
	fleet.SessionStore
	down *atomic.Bool
}

var errEngineDown = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")

func (b brokenStore) Create(ctx context.Context, id string, rec fleet.Record, ttl time.Duration) (bool, error) {
	if b.down.Load() {
		return false, errEngineDown
	}
	return b.SessionStore.Create(ctx, id, rec, ttl)
}

func (b brokenStore) Load(ctx context.Context, id string) (fleet.Record, error) {
	if b.down.Load() {
		return fleet.Record{}, errEngineDown
	}
	return b.SessionStore.Load(ctx, id)
}

func newInProcessFleet(t *testing.T, n int) *inProcessFleet {
	return newInProcessFleetWith(t, n, nil)
}

// newInProcessFleetOpts is newInProcessFleet with each instance's options
// changed by set.
func newInProcessFleetOpts(t *testing.T, n int, set func(*streamhttp.ServerOptions)) *inProcessFleet {
	t.Helper()
	prev := optsHook
	optsHook = set
	defer func() { optsHook = prev }()
	return newInProcessFleetWith(t, n, nil)
}

// optsHook, when set, changes the options of the instances
// newInProcessFleetWith makes (see newInProcessFleetOpts).
var optsHook func(*streamhttp.ServerOptions)

// newInProcessFleetWith is newInProcessFleet with a session store that
// fails while broken is true (nil: never).
func newInProcessFleetWith(t *testing.T, n int, broken *atomic.Bool) *inProcessFleet {
	t.Helper()
	f := &inProcessFleet{dead: make([]atomic.Bool, n), served: make([]atomic.Int64, n), store: fleet.NewMemorySessionStore(), broken: broken}
	relay := fleet.NewMemoryRelay()
	events := streamhttp.NewMemoryStore()
	f.events = events
	var sessions fleet.SessionStore = f.store
	if f.broken != nil {
		sessions = brokenStore{f.store, f.broken}
	}
	for range n {
		srv := fleetServer()
		node := fleet.NewNode(sessions, relay)
		node.Timeout = time.Second
		opts := streamhttp.ServerOptions{Fleet: node, EventStore: events, Logger: testLogger(t)}
		if optsHook != nil {
			optsHook(&opts)
		}
		s := streamhttp.NewServer(srv.Handler, opts)
		f.servers = append(f.servers, s)
	}
	f.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 2 * n {
			i := int(f.next.Add(1)-1) % n
			if !f.dead[i].Load() {
				f.served[i].Add(1)
				// The user, as an authorization layer in front would find it.
				r = r.WithContext(session.WithPrincipal(r.Context(), r.Header.Get("X-Test-User")))
				f.servers[i].ServeHTTP(w, r)
				return
			}
		}
		http.Error(w, "no instance", http.StatusBadGateway)
	}))
	t.Cleanup(func() {
		f.front.CloseClientConnections()
		f.front.Close()
		for i, s := range f.servers {
			if !f.dead[i].Load() {
				s.Close()
			}
		}
	})
	return f
}

// kill makes instance i die: the front skips it, its sessions' records
// stay.
func (f *inProcessFleet) kill(i int) {
	f.dead[i].Store(true)
	streamhttp.Kill(f.servers[i])
}

// owner returns the instance that holds session sid, or -1.
func (f *inProcessFleet) owner(sid string) int {
	for i, s := range f.servers {
		if !f.dead[i].Load() && streamhttp.Owns(s, sid) {
			return i
		}
	}
	return -1
}

// fleetServer is the server each instance runs: a StandardServer of
// 2026-07-28, which serves legacy sessions too.
func fleetServer() *m26.StandardServer {
	srv := m26.NewServer(m26.Implementation{Name: "fleet", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: string(p.Arguments)}}}}, nil
	})
	srv.MustAddTool(m26.Tool{Name: "confirm", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		res, err := m26.Elicit(ctx, "confirm", &m26.ElicitRequestParams{Value: &m26.ElicitRequestFormParams{
			Message:         "Sure?",
			RequestedSchema: m26.ElicitRequestFormParamsRequestedSchema{Properties: map[string]m26.PrimitiveSchemaDefinition{"ok": {Value: &m26.BooleanSchema{}}}},
		}})
		if err != nil {
			return nil, err
		}
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: string(res.Action)}}}}, nil
	})
	// announce logs its argument outside any request: the message goes on
	// the session's GET stream.
	srv.MustAddTool(m26.Tool{Name: "announce", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		if err := s.Log(context.Background(), "warning", "fleet", p.Arguments); err != nil {
			return nil, err
		}
		return &m26.CallToolResult{Content: []m26.ContentBlock{}}, nil
	})
	srv.MustAddTool(m26.Tool{Name: "whisper", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		if err := s.Log(context.Background(), "info", "fleet", p.Arguments); err != nil {
			return nil, err
		}
		return &m26.CallToolResult{Content: []m26.ContentBlock{}}, nil
	})
	return srv
}

type fleetClient struct {
	m25.UnimplementedClient
	asked atomic.Int64
}

func (c *fleetClient) Elicit(ctx context.Context, p *m25.ElicitRequestParams) (*m25.ElicitResult, error) {
	c.asked.Add(1)
	return &m25.ElicitResult{Action: "accept", Content: map[string]m25.ElicitResultContentValue{"ok": {Value: m25.ElicitResultContentValueBoolean(true)}}}, nil
}

func text(t *testing.T, res *m25.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		return ""
	}
	tc, ok := res.Content[0].Value.(*m25.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0].Value)
	}
	return tc.Text
}

// A legacy session round-robined over three instances: every request after
// the initialize reaches its owner through the relay, the answer to the
// server's elicitation posted to another instance reaches the handler
// that waits for it, and DELETE through any instance ends it everywhere.
func TestFleetLegacySessionAcrossInstances(t *testing.T) {
	f := newInProcessFleet(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := &fleetClient{}
	cs, err := m25.Connect(ctx, streamhttp.NewClient(f.front.URL, streamhttp.ClientOptions{}), &m25.ClientOptions{
		Info: m25.Implementation{Name: "c", Version: "1"}, Capabilities: m25.ClientCapabilities{Elicitation: &m25.ClientCapabilitiesElicitation{}}, Handler: c})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 9 {
		arg := fmt.Sprintf(`{"n":%d}`, i)
		res, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "echo", Arguments: []byte(arg)})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := text(t, res); got != arg {
			t.Errorf("call %d answered %q", i, got)
		}
	}
	res, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "confirm", Arguments: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "accept" || c.asked.Load() != 1 {
		t.Errorf("confirm answered %q after %d elicitations, want accept after 1", got, c.asked.Load())
	}
	for i := range f.served {
		if f.served[i].Load() == 0 {
			t.Errorf("instance %d served no request: the front is not round-robin", i)
		}
	}
	if f.store.Len() != 1 {
		t.Errorf("%d session records, want 1", f.store.Len())
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	// The DELETE reached the owner, wherever it landed: the record goes.
	deadline := time.Now().Add(5 * time.Second)
	for f.store.Len() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := f.store.Len(); n != 0 {
		t.Errorf("%d session records after DELETE, want 0", n)
	}
}

// sseReader reads the data of a GET stream's message events, and the id
// of the last.
type sseReader struct {
	sc   *bufio.Scanner
	last string
}

func (r *sseReader) next() (string, bool) {
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

// The GET stream of a legacy session, held by an instance that dies, is
// resumed with Last-Event-ID on another: that one takes the session over
// from its record, at the negotiated revision, and the stream goes on
// from the shared event store with no event lost or repeated.
func TestFleetGetStreamResumedAfterOwnerDies(t *testing.T) {
	f := newInProcessFleet(t, 3)
	sid := initSession(t, f.front.URL)
	owner := f.owner(sid)
	if owner < 0 {
		t.Fatal("no instance holds the session")
	}
	h := sessionHeaders(sid, nil)
	if r := do(t, f.front.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}`, header: h}); r.StatusCode != http.StatusOK {
		t.Fatalf("setLevel: %s", r.Status)
	}
	get := doWithin(t, f.front.URL, req{method: http.MethodGet, header: h}, 20*time.Second)
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s", get.Status)
	}
	rd := &sseReader{sc: bufio.NewScanner(get.Body)}
	announce := func(i int) {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"announce","arguments":{"n":%d}}}`, 100+i, i)
		r := do(t, f.front.URL, req{method: http.MethodPost, body: body, header: h})
		if evs := events(t, r, 0); r.StatusCode != http.StatusOK || len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, `"result"`) {
			t.Fatalf("announce %d: %s %+v", i, r.Status, evs)
		}
	}
	var got []string
	for i := range 3 {
		announce(i)
		data, ok := rd.next()
		if !ok {
			t.Fatalf("GET stream ended after %d events", i)
		}
		got = append(got, data)
	}
	// Two more go on the stream while its owner dies: the client has not
	// read them.
	announce(3)
	announce(4)
	f.kill(owner)
	for { // what the dead connection still carried
		data, ok := rd.next()
		if !ok {
			break
		}
		got = append(got, data)
	}
	resumed := doWithin(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, map[string]string{"Last-Event-ID": rd.last})}, 20*time.Second)
	if resumed.StatusCode != http.StatusOK {
		t.Fatalf("GET with Last-Event-ID on another instance: %s", resumed.Status)
	}
	if o := f.owner(sid); o < 0 || o == owner {
		t.Fatalf("the session is held by %d after its owner %d died", o, owner)
	}
	rd = &sseReader{sc: bufio.NewScanner(resumed.Body), last: rd.last}
	for len(got) < 5 {
		data, ok := rd.next()
		if !ok {
			t.Fatalf("resumed stream ended after %d events", len(got))
		}
		got = append(got, data)
	}
	// Below the level the client set before the takeover: not sent.
	if r := do(t, f.front.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":300,"method":"tools/call","params":{"name":"whisper","arguments":{"n":-1}}}`, header: h}); r.StatusCode != http.StatusOK {
		t.Fatalf("whisper after the takeover: %s", r.Status)
	}
	announce(5)
	data, ok := rd.next()
	if !ok {
		t.Fatal("resumed stream ended")
	}
	got = append(got, data)
	var ns []string
	for _, d := range got {
		i := strings.Index(d, `"data":`)
		if i < 0 || !strings.Contains(d, `"notifications/message"`) {
			t.Fatalf("not a log message: %s", d)
		}
		ns = append(ns, d[i:])
	}
	var want []string
	for i := range 6 {
		want = append(want, fmt.Sprintf(`"data":{"n":%d},"level":"warning","logger":"fleet"}}`, i))
	}
	if diff := cmp.Diff(want, ns); diff != "" {
		t.Errorf("GET stream across the takeover (-want +got):\n%s", diff)
	}
}

// Concurrent legacy sessions over the fleet: every answer is its own.
func TestFleetLegacyLoad(t *testing.T) {
	f := newInProcessFleet(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	clients, calls := 16, 40
	if testing.Short() {
		clients, calls = 4, 10
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Go(func() {
			cs, err := m25.Connect(ctx, streamhttp.NewClient(f.front.URL, streamhttp.ClientOptions{}), &m25.ClientOptions{Info: m25.Implementation{Name: "c", Version: "1"}})
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for i := range calls {
				arg := fmt.Sprintf(`{"c":%d,"i":%d}`, c, i)
				res, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "echo", Arguments: []byte(arg)})
				if err != nil {
					errs <- fmt.Errorf("client %d call %d: %w", c, i, err)
					return
				}
				if len(res.Content) != 1 || res.Content[0].Value.(*m25.TextContent).Text != arg {
					errs <- fmt.Errorf("client %d call %d: answered %+v", c, i, res.Content)
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
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Close hands the sessions over: a client goes on through the other
// instances, in the same session, at the same revision.
func TestFleetCloseHandsSessionsOver(t *testing.T) {
	f := newInProcessFleet(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := streamhttp.NewClient(f.front.URL, streamhttp.ClientOptions{})
	cs, err := m25.Connect(ctx, tr, &m25.ClientOptions{Info: m25.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sid := tr.SessionID()
	owner := f.owner(sid)
	f.dead[owner].Store(true) // the load balancer stops sending it requests
	f.servers[owner].Close()
	if f.store.Len() != 1 {
		t.Fatalf("%d records after the owner's Close, want 1 (handed over)", f.store.Len())
	}
	for i := range 4 {
		arg := fmt.Sprintf(`{"after":%d}`, i)
		res, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "echo", Arguments: []byte(arg)})
		if err != nil {
			t.Fatalf("call %d after the owner closed: %v", i, err)
		}
		if got := text(t, res); got != arg {
			t.Errorf("call %d answered %q", i, got)
		}
	}
	if o := f.owner(sid); o < 0 || o == owner {
		t.Errorf("session held by %d, want another instance than %d", o, owner)
	}
}

// A session is its principal's on every instance: another user who has its
// id gets 404 wherever the request lands, as on one instance.
func TestFleetSessionBoundToPrincipal(t *testing.T) {
	f := newInProcessFleet(t, 3)
	alice := map[string]string{"X-Test-User": "alice"}
	resp := do(t, f.front.URL, req{method: http.MethodPost, body: initBody, header: alice})
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s", resp.Status)
	}
	events(t, resp, 0)
	for i := range 6 {
		h := sessionHeaders(sid, map[string]string{"X-Test-User": "mallory"})
		r := do(t, f.front.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":9,"method":"ping"}`, header: h})
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("request %d of another principal: %s, want 404", i, r.Status)
		}
	}
	for i := range 3 {
		h := sessionHeaders(sid, alice)
		r := do(t, f.front.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":9,"method":"ping"}`, header: h})
		if r.StatusCode != http.StatusOK {
			t.Errorf("request %d of the session's principal: %s, want 200", i, r.Status)
		}
	}
}

// While the fleet's store is away, what needs it fails at once with a
// clear error, and nothing else does; once it is back, so is service.
func TestFleetStoreDown(t *testing.T) {
	var down atomic.Bool
	f := newInProcessFleetWith(t, 3, &down)
	sid := initSession(t, f.front.URL)
	owner := f.owner(sid)
	down.Store(true)
	refused := 0
	for i := range 3 {
		before := f.served[owner].Load()
		r := doWithin(t, f.front.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":7,"method":"ping"}`, header: sessionHeaders(sid, nil)}, 10*time.Second)
		b, _ := io.ReadAll(r.Body)
		if f.served[owner].Load() > before {
			if r.StatusCode != http.StatusOK {
				t.Errorf("ping %d on the owner, which needs no store: %s %s", i, r.Status, b)
			}
			continue
		}
		refused++
		if r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"id":7`) || !strings.Contains(string(b), "session store did not answer") {
			t.Errorf("ping %d while the store is down: %s %s, want 503 with the request's id and why", i, r.Status, b)
		}
	}
	if refused != 2 {
		t.Errorf("%d pings landed elsewhere than on the owner, want 2 of 3", refused)
	}
	r := do(t, f.front.URL, req{method: http.MethodPost, body: initBody})
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "session store did not answer") || !strings.Contains(string(b), "connection refused") {
		t.Errorf("initialize while the store is down: %s %s", r.Status, b)
	}
	down.Store(false)
	for i := range 3 {
		r := do(t, f.front.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":8,"method":"ping"}`, header: sessionHeaders(sid, nil)})
		if r.StatusCode != http.StatusOK {
			t.Errorf("ping %d once the store is back: %s", i, r.Status)
		}
	}
}

// An instance with no room for a session whose owner died does not end
// it: it answers 503 and leaves the record for an instance that has room.
func TestFleetTakeoverWithoutRoom(t *testing.T) {
	relay := fleet.NewMemoryRelay()
	store := fleet.NewMemorySessionStore()
	events := streamhttp.NewMemoryStore()
	newInstance := func(max int) *streamhttp.Server {
		s := streamhttp.NewServer(fleetServer().Handler, streamhttp.ServerOptions{Fleet: fleet.NewNode(store, relay), EventStore: events, MaxSessions: max})
		t.Cleanup(s.Close)
		return s
	}
	owner, full, roomy := newInstance(0), newInstance(1), newInstance(0)
	ts := httptest.NewServer(owner)
	t.Cleanup(ts.Close)
	sid := initSession(t, ts.URL)
	// full holds a session of its own: it has no room for another.
	tsFull := httptest.NewServer(full)
	t.Cleanup(tsFull.Close)
	initSession(t, tsFull.URL)
	streamhttp.Kill(owner)
	ping := `{"jsonrpc":"2.0","id":5,"method":"ping"}`
	r := do(t, tsFull.URL, req{method: http.MethodPost, body: ping, header: sessionHeaders(sid, nil)})
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"id":5`) {
		t.Fatalf("takeover on a full instance: %s %s, want 503 with the request's id", r.Status, b)
	}
	if rec, err := store.Load(context.Background(), sid); err != nil || rec.Owner != "" {
		t.Fatalf("the record after a refused takeover: %+v, %v; want it kept, released", rec, err)
	}
	tsRoomy := httptest.NewServer(roomy)
	t.Cleanup(tsRoomy.Close)
	if r := do(t, tsRoomy.URL, req{method: http.MethodPost, body: ping, header: sessionHeaders(sid, nil)}); r.StatusCode != http.StatusOK {
		t.Fatalf("takeover on an instance with room: %s", r.Status)
	}
	if !streamhttp.Owns(roomy, sid) {
		t.Error("the instance with room does not hold the session")
	}
}

// A fleet whose instances would not open each other's requestState is
// told so at start.
func TestFleetWarnsWithoutSharedKeys(t *testing.T) {
	ring := reqstate.NewEphemeralRing()
	shared := session.Options{Sealer: session.SealWith(&reqstate.Sealer{Ring: ring}), StateAudience: "https://mcp.example.com/mcp"}
	for _, tt := range []struct {
		name string
		opts session.Options
		warn bool
	}{
		{"no keys, no audience", session.Options{}, true},
		{"keys, no audience", session.Options{Sealer: shared.Sealer}, true},
		{"audience, no keys", session.Options{StateAudience: shared.StateAudience}, true},
		{"keys and audience", shared, false},
	} {
		var logs bytes.Buffer
		s := streamhttp.NewServer(fleetServer().Handler, streamhttp.ServerOptions{
			Fleet: fleet.NewNode(fleet.NewMemorySessionStore(), fleet.NewMemoryRelay()), EventStore: streamhttp.NewMemoryStore(),
			Session: tt.opts, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		s.Close()
		if got := strings.Contains(logs.String(), "no Sealer with the fleet's keys, or no StateAudience"); got != tt.warn {
			t.Errorf("%s: warned %v, want %v; logs:\n%s", tt.name, got, tt.warn, logs.String())
		}
	}
}

// announcer posts tools/call announce to the fleet's front in session sid,
// and reads its answer.
func announcer(t *testing.T, f *inProcessFleet, sid string) func(i int) {
	return func(i int) {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"announce","arguments":{"n":%d}}}`, 100+i, i)
		r := do(t, f.front.URL, req{method: http.MethodPost, body: body, header: sessionHeaders(sid, nil)})
		if evs := events(t, r, 0); r.StatusCode != http.StatusOK || len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, `"result"`) {
			t.Fatalf("announce %d: %s %+v", i, r.Status, evs)
		}
	}
}

// A GET stream whose events were all discarded once sent (the resumption
// window holds none here) is carried on by the instance that takes the
// session over with its numbering: the client's Last-Event-ID resumes it,
// and the next event has the next number.
func TestFleetTakeoverAfterEveryEventDiscarded(t *testing.T) {
	f := newInProcessFleetOpts(t, 3, func(o *streamhttp.ServerOptions) { o.ReplayBytes = 1 })
	sid := initSession(t, f.front.URL)
	owner := f.owner(sid)
	announce := announcer(t, f, sid)
	get := doWithin(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, nil)}, 20*time.Second)
	rd := &sseReader{sc: bufio.NewScanner(get.Body)}
	for i := range 3 {
		announce(i)
		if _, ok := rd.next(); !ok {
			t.Fatalf("GET stream ended after %d events", i)
		}
	}
	// Every event was sent: the window (one byte) keeps none of them.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if evs, _, _ := f.events.After(sid+"-0", 0); len(evs) == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if evs, _, _ := f.events.After(sid+"-0", 0); len(evs) != 0 {
		t.Fatalf("the store keeps %d events of the GET stream, want none", len(evs))
	}
	f.kill(owner)
	for {
		if _, ok := rd.next(); !ok {
			break
		}
	}
	resumed := doWithin(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, map[string]string{"Last-Event-ID": rd.last})}, 20*time.Second)
	if resumed.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resumed.Body)
		t.Fatalf("GET with Last-Event-ID %q after the takeover: %s %s", rd.last, resumed.Status, b)
	}
	announce(3)
	rd = &sseReader{sc: bufio.NewScanner(resumed.Body)}
	data, ok := rd.next()
	if !ok || !strings.Contains(data, `"n":3`) || rd.last != sid+"-0_4" {
		t.Errorf("after the takeover: event %q %s, want event 4 with n 3", rd.last, data)
	}
}

// A stream the shared store lost (it expired) starts over: the connection
// that carried it ends, a Last-Event-ID from before is answered 410, and a
// new GET stream hears what was appended since.
func TestFleetStreamLostByTheStore(t *testing.T) {
	f := newInProcessFleet(t, 1)
	sid := initSession(t, f.front.URL)
	announce := announcer(t, f, sid)
	get := doWithin(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, nil)}, 20*time.Second)
	rd := &sseReader{sc: bufio.NewScanner(get.Body)}
	for i := range 2 {
		announce(i)
		if _, ok := rd.next(); !ok {
			t.Fatalf("GET stream ended after %d events", i)
		}
	}
	f.events.Drop(sid + "-0") // the store loses it: its numbering starts over
	announce(2)
	for {
		if _, ok := rd.next(); !ok {
			break // the connection ended
		}
	}
	old := do(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, map[string]string{"Last-Event-ID": rd.last})})
	if b, _ := io.ReadAll(old.Body); old.StatusCode != http.StatusGone || !strings.Contains(string(b), "no such event") {
		t.Errorf("resuming from before the loss: %s %s, want 410", old.Status, b)
	}
	fresh := doWithin(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, nil)}, 20*time.Second)
	if fresh.StatusCode != http.StatusOK {
		t.Fatalf("a new GET stream: %s", fresh.Status)
	}
	announce(3)
	rd = &sseReader{sc: bufio.NewScanner(fresh.Body)}
	// The event appended as the stream started over was not sent on the
	// old connection: the new one has it, then the next.
	for _, want := range []string{`"n":2`, `"n":3`} {
		if data, ok := rd.next(); !ok || !strings.Contains(data, want) {
			t.Errorf("the new stream heard %q, want %s", data, want)
		}
	}
}

// failingEvents is an EventStore whose reads fail while fail is set.
type failingEvents struct {
	streamhttp.EventStore
	fail *atomic.Bool
}

func (f failingEvents) After(stream string, seq int64) ([]streamhttp.Event, bool, error) {
	if f.fail.Load() {
		return nil, false, errEngineDown
	}
	return f.EventStore.After(stream, seq)
}

// A takeover that cannot read the GET stream's events now (the shared
// store did not answer) ends nothing: the request is answered 503, the
// record released, and the next try takes the session over.
func TestFleetTakeoverWhileEventStoreFails(t *testing.T) {
	var fail atomic.Bool
	f := newInProcessFleetOpts(t, 3, func(o *streamhttp.ServerOptions) {
		o.EventStore = failingEvents{o.EventStore, &fail}
	})
	sid := initSession(t, f.front.URL)
	f.kill(f.owner(sid))
	fail.Store(true)
	ping := `{"jsonrpc":"2.0","id":6,"method":"ping"}`
	r := do(t, f.front.URL, req{method: http.MethodPost, body: ping, header: sessionHeaders(sid, nil)})
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"id":6`) {
		t.Fatalf("takeover while the event store fails: %s %s, want 503 with the request's id", r.Status, b)
	}
	if rec, err := f.store.Load(context.Background(), sid); err != nil || rec.Owner != "" {
		t.Fatalf("the record after a takeover that could not read the events: %+v, %v; want it kept, released", rec, err)
	}
	fail.Store(false)
	if r := do(t, f.front.URL, req{method: http.MethodPost, body: ping, header: sessionHeaders(sid, nil)}); r.StatusCode != http.StatusOK {
		t.Fatalf("takeover once the event store answers: %s", r.Status)
	}
}

// A POST stream of an owner that died is gone with it: resuming it on the
// instance that took the session over is answered 410, as for any stream
// this session had and dropped; a stream id the session never had stays
// a 400.
func TestFleetDeadOwnersPostStreamGone(t *testing.T) {
	f := newInProcessFleet(t, 2)
	sid := initSession(t, f.front.URL)
	owner := f.owner(sid)
	f.kill(owner)
	ping := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	if r := do(t, f.front.URL, req{method: http.MethodPost, body: ping, header: sessionHeaders(sid, nil)}); r.StatusCode != http.StatusOK {
		t.Fatalf("takeover: %s", r.Status)
	}
	for _, tt := range []struct {
		last string
		want int
	}{
		{sid + "-deadbeef.1_2", http.StatusGone},
		{sid + "-deadbeef.x_2", http.StatusBadRequest},
		{"another-0_1", http.StatusBadRequest},
	} {
		r := do(t, f.front.URL, req{method: http.MethodGet, header: sessionHeaders(sid, map[string]string{"Last-Event-ID": tt.last})})
		if r.StatusCode != tt.want {
			t.Errorf("Last-Event-ID %s: %s, want %d", strings.TrimPrefix(tt.last, sid), r.Status, tt.want)
		}
	}
}
