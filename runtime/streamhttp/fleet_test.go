package streamhttp_test

import (
	"bufio"
	"context"
	"fmt"
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
}

func newInProcessFleet(t *testing.T, n int) *inProcessFleet {
	t.Helper()
	f := &inProcessFleet{dead: make([]atomic.Bool, n), served: make([]atomic.Int64, n), store: fleet.NewMemorySessionStore()}
	relay := fleet.NewMemoryRelay()
	events := streamhttp.NewMemoryStore()
	for range n {
		srv := fleetServer()
		node := fleet.NewNode(f.store, relay)
		s := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{Fleet: node, EventStore: events, Logger: testLogger(t)})
		f.servers = append(f.servers, s)
	}
	f.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 2 * n {
			i := int(f.next.Add(1)-1) % n
			if !f.dead[i].Load() {
				f.served[i].Add(1)
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
