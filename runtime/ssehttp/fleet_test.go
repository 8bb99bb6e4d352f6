package ssehttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	old "github.com/mcpgen/mcpgen/protocol/mcp20241105"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// errStoreDown is what a testStore answers while it is down.
var errStoreDown = errors.New("test store: connection refused")

// testStore is a fleet.SessionStore that can fail (down) or hang until
// its caller gives up (hang), and counts the renewals it took.
type testStore struct {
	*fleet.MemorySessionStore
	down, hang atomic.Bool
	renewals   atomic.Int64
}

func (s *testStore) broken(ctx context.Context) error {
	if s.hang.Load() {
		<-ctx.Done()
		return fmt.Errorf("test store: %w", ctx.Err())
	}
	if s.down.Load() {
		return errStoreDown
	}
	return nil
}

func (s *testStore) Create(ctx context.Context, id string, rec fleet.Record, ttl time.Duration) (bool, error) {
	if err := s.broken(ctx); err != nil {
		return false, err
	}
	return s.MemorySessionStore.Create(ctx, id, rec, ttl)
}

func (s *testStore) Load(ctx context.Context, id string) (fleet.Record, error) {
	if err := s.broken(ctx); err != nil {
		return fleet.Record{}, err
	}
	return s.MemorySessionStore.Load(ctx, id)
}

func (s *testStore) Save(ctx context.Context, id, owner string, state []byte, ttl time.Duration) (bool, error) {
	if err := s.broken(ctx); err != nil {
		return false, err
	}
	ok, err := s.MemorySessionStore.Save(ctx, id, owner, state, ttl)
	if ok {
		s.renewals.Add(1)
	}
	return ok, err
}

func (s *testStore) Claim(ctx context.Context, id, from, owner string, ttl time.Duration) (fleet.Record, error) {
	if err := s.broken(ctx); err != nil {
		return fleet.Record{}, err
	}
	return s.MemorySessionStore.Claim(ctx, id, from, owner, ttl)
}

func (s *testStore) Delete(ctx context.Context, id string) error {
	if err := s.broken(ctx); err != nil {
		return err
	}
	return s.MemorySessionStore.Delete(ctx, id)
}

// countingRelay counts the messages sent through a fleet.Relay.
type countingRelay struct {
	fleet.Relay
	sent atomic.Int64
}

func (r *countingRelay) Send(ctx context.Context, addr string, msg []byte) (bool, error) {
	r.sent.Add(1)
	return r.Relay.Send(ctx, addr, msg)
}

// testFleet is n Servers of one MCP server on one store and relay,
// behind a round-robin front on 127.0.0.1.
type testFleet struct {
	store   *testStore
	relay   *countingRelay
	nodes   []*fleet.Node
	servers []*ssehttp.Server
	posts   []atomic.Int64 // POSTs each instance answered 202 through the front
	down    []atomic.Bool  // killed: out of the front's rotation
	next    atomic.Uint64
	front   *httptest.Server
}

// newFleet starts the fleet; ttl, when not 0, is its records' TTL.
func newFleet(t *testing.T, srv *testServer, n int, opts ssehttp.ServerOptions, ttl time.Duration) *testFleet {
	t.Helper()
	f := &testFleet{
		store: &testStore{MemorySessionStore: fleet.NewMemorySessionStore()},
		relay: &countingRelay{Relay: fleet.NewMemoryRelay()},
		posts: make([]atomic.Int64, n),
		down:  make([]atomic.Bool, n),
	}
	for range n {
		node := fleet.NewNode(f.store, f.relay)
		node.Timeout = time.Second
		o := opts
		o.Fleet = node
		s := ssehttp.NewServer(srv.Handler, o)
		if ttl != 0 {
			ssehttp.SetRecordTTL(s, ttl)
		}
		f.nodes = append(f.nodes, node)
		f.servers = append(f.servers, s)
	}
	f.front = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.front.Close)
	for _, s := range f.servers {
		t.Cleanup(s.Close) // before the front closes: it waits for the streams
	}
	return f
}

// serve hands r to the next instance that is up.
func (f *testFleet) serve(w http.ResponseWriter, r *http.Request) {
	for range len(f.servers) {
		i := int(f.next.Add(1) % uint64(len(f.servers)))
		if f.down[i].Load() {
			continue
		}
		if r.Method != http.MethodPost {
			f.servers[i].ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		f.servers[i].ServeHTTP(sw, r)
		if sw.status == http.StatusAccepted {
			f.posts[i].Add(1)
		}
		return
	}
	http.Error(w, "every instance is down", http.StatusBadGateway)
}

// owner returns the index of the instance that holds session sid.
func (f *testFleet) owner(t *testing.T, sid string) int {
	t.Helper()
	for i, s := range f.servers {
		if ssehttp.SessionOf(s, sid) != nil {
			return i
		}
	}
	t.Fatal("no instance holds the session")
	return -1
}

// postTo POSTs body to u on instance i directly, with header's names
// and values, and returns the status and body.
func (f *testFleet) postTo(i int, u, body string, header ...string) (int, string) {
	r := httptest.NewRequest(http.MethodPost, u, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for k := 0; k+1 < len(header); k += 2 {
		r.Header.Set(header[k], header[k+1])
	}
	w := httptest.NewRecorder()
	f.servers[i].ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Four 2024-11-05 clients at once, each POST of theirs going to the next
// instance: every answer comes back on its own client's stream.
func TestFleetRoundRobin(t *testing.T) {
	f := newFleet(t, newTestServer(t), 3, ssehttp.ServerOptions{}, 0)
	const clients, calls = 4, 12
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() { errs <- runClient(f.front.URL+"/sse", i, calls) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for i := range f.servers {
		if f.posts[i].Load() == 0 {
			t.Errorf("instance %d answered no POST", i)
		}
	}
	if f.relay.sent.Load() == 0 {
		t.Error("no POST was carried between instances")
	}
	eventually(t, "every session's record deleted", func() bool { return f.store.Len() == 0 })
}

// runClient connects at 2024-11-05 through url and calls echo calls
// times, each with a text of its own.
func runClient(url string, client, calls int) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c := ssehttp.NewClient(url, ssehttp.ClientOptions{})
	cs, err := old.Connect(ctx, c, &old.ClientOptions{Info: old.Implementation{Name: "c", Version: "1"}, Revisions: []string{old.Revision}})
	if err != nil {
		return fmt.Errorf("client %d: Connect: %w", client, err)
	}
	defer cs.Close()
	if rev := cs.Revision(); rev == nil || rev.Name != old.Revision {
		return fmt.Errorf("client %d: negotiated %v, want %s", client, rev, old.Revision)
	}
	for j := range calls {
		want := fmt.Sprintf("client %d call %d", client, j)
		args, _ := json.Marshal(map[string]string{"text": want})
		res, err := cs.CallTool(ctx, &old.CallToolRequestParams{Name: "echo", Arguments: args})
		if err != nil {
			return fmt.Errorf("client %d: call %d: %w", client, j, err)
		}
		if len(res.Content) != 1 {
			return fmt.Errorf("client %d: call %d: %d contents", client, j, len(res.Content))
		}
		if tc, ok := res.Content[0].Value.(*old.TextContent); !ok || tc.Text != want {
			return fmt.Errorf("client %d: call %d: got %+v, want the text %q", client, j, res.Content[0].Value, want)
		}
	}
	return nil
}

// A POST through another instance reaches the session only for the
// session's own principal.
func TestFleetPrincipal(t *testing.T) {
	var logs syncBuffer
	f := newFleet(t, newTestServer(t), 3, ssehttp.ServerOptions{
		Principal: func(r *http.Request) string { return r.Header.Get("X-User") },
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
	}, 0)
	s := openStream(t, f.front.URL+"/sse", "X-User", "alice")
	s.initializeWith("X-User", "alice")
	other := (f.owner(t, s.sid) + 1) % len(f.servers)
	for _, tt := range []struct {
		name, user string
		want       int
	}{
		{"another principal", "bob", http.StatusNotFound},
		{"no principal", "", http.StatusNotFound},
		{"the session's principal", "alice", http.StatusAccepted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := f.postTo(other, s.endpoint, echoCall, "X-User", tt.user)
			if code != tt.want {
				t.Fatalf("POST as %q through instance %d: %d %s, want %d", tt.user, other, code, body, tt.want)
			}
			if code == http.StatusNotFound {
				if !strings.Contains(body, "session not found") {
					t.Errorf("404 body %s", body)
				}
				if _, err := f.store.Load(context.Background(), s.sid); err != nil {
					t.Errorf("the record went after a refused POST: %v", err)
				}
				return
			}
			m := s.answer()
			if b, _ := json.Marshal(m); m["id"] != 1.0 || !strings.Contains(string(b), echoAnswer) {
				t.Fatalf("answer %s", b)
			}
		})
	}
	if n := strings.Count(logs.String(), "a POST names a session of another principal"); n != 2 {
		t.Errorf("%d warnings of another principal's POST, want 2:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), s.sid) {
		t.Errorf("the logs hold the session id:\n%s", logs.String())
	}
}

// When the instance that holds a session's stream dies, the stream ends
// with it: POSTs naming the session get 404 on every instance, and its
// record goes. The other instances serve new sessions.
func TestFleetOwnerKilled(t *testing.T) {
	f := newFleet(t, newTestServer(t), 3, ssehttp.ServerOptions{}, 0)
	s := openStream(t, f.front.URL+"/sse")
	s.initialize()
	owner := f.owner(t, s.sid)
	f.down[owner].Store(true)
	ssehttp.Kill(f.servers[owner])
	if _, err := f.store.Load(context.Background(), s.sid); err != nil {
		t.Fatalf("the killed instance's record: %v, want it left behind", err)
	}
	for i := range 1000 { // the stream ended with its instance
		if _, ok := <-s.lines; !ok {
			break
		}
		if i == 999 {
			t.Fatal("the stream did not end")
		}
	}
	for i := range 2 {
		code, body := post(t, s.endpoint, echoCall)
		if code != http.StatusNotFound || !strings.Contains(body, "session not found") {
			t.Fatalf("POST %d after the owner died: %d %s, want 404", i, code, body)
		}
		if _, err := f.store.Load(context.Background(), s.sid); !errors.Is(err, fleet.ErrNotFound) {
			t.Fatalf("the record after POST %d: %v, want it gone", i, err)
		}
	}
	s2 := openStream(t, f.front.URL+"/sse")
	s2.initialize()
	if code, body := post(t, s2.endpoint, echoCall); code != http.StatusAccepted {
		t.Fatalf("POST in a new session: %d %s", code, body)
	}
	if m := s2.answer(); m["id"] != 1.0 {
		t.Fatalf("answer %v", m)
	}
}

// While the store does not answer (it fails, or hangs), a GET and a POST
// for another instance's session are refused with 503 and a clear error
// within Node.Timeout; a POST to the session's own instance is served;
// once the store is back, all is served again.
func TestFleetStoreDown(t *testing.T) {
	for _, tt := range []struct {
		name    string
		breakIt func(*testStore, bool)
	}{
		{"fails", func(s *testStore, on bool) { s.down.Store(on) }},
		{"hangs", func(s *testStore, on bool) { s.hang.Store(on) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, newTestServer(t), 3, ssehttp.ServerOptions{}, 0)
			s := openStream(t, f.front.URL+"/sse")
			s.initialize()
			owner := f.owner(t, s.sid)
			other := (owner + 1) % len(f.servers)
			tt.breakIt(f.store, true)

			code, body := f.postTo(other, s.endpoint, echoCall)
			if code != http.StatusServiceUnavailable || !strings.Contains(body, `"id":1`) || !strings.Contains(body, "the fleet's session store did not answer") {
				t.Errorf("POST through another instance: %d %s, want 503 naming the store, with the request's id", code, body)
			}
			resp, code, body := getStream(t, f.front.URL+"/sse")
			if resp != nil {
				resp.Body.Close()
			}
			if code != http.StatusServiceUnavailable || !strings.Contains(body, "the fleet's session store did not answer") {
				t.Errorf("GET: %d %s, want 503 naming the store", code, body)
			}
			if code, body := f.postTo(owner, s.endpoint, echoCall); code != http.StatusAccepted {
				t.Errorf("POST to the session's own instance: %d %s, want 202", code, body)
			} else if m := s.answer(); m["id"] != 1.0 {
				t.Errorf("answer %v", m)
			}

			tt.breakIt(f.store, false)
			if code, body := f.postTo(other, s.endpoint, echoCall); code != http.StatusAccepted {
				t.Fatalf("POST through another instance once the store is back: %d %s", code, body)
			}
			if m := s.answer(); m["id"] != 1.0 {
				t.Errorf("answer %v", m)
			}
		})
	}
}

// The owner renews its session's record while the stream is open, writes
// it anew when the store lost it, and deletes it when the stream ends.
func TestFleetRecordRenewed(t *testing.T) {
	f := newFleet(t, newTestServer(t), 2, ssehttp.ServerOptions{}, 300*time.Millisecond)
	s := openStream(t, f.front.URL+"/sse")
	owner := f.nodes[f.owner(t, s.sid)].ID
	eventually(t, "the record renewed", func() bool { return f.store.renewals.Load() > 0 })
	f.store.Delete(context.Background(), s.sid) // as a store that restarted empty
	eventually(t, "the record written anew", func() bool {
		rec, err := f.store.MemorySessionStore.Load(context.Background(), s.sid)
		return err == nil && rec.Owner == owner
	})
	s.resp.Body.Close()
	eventually(t, "the record deleted with the stream", func() bool {
		_, err := f.store.MemorySessionStore.Load(context.Background(), s.sid)
		return errors.Is(err, fleet.ErrNotFound)
	})
}

// A Fleet that cannot be joined refuses every request with 500, and says
// why once at ERROR.
func TestFleetBadNode(t *testing.T) {
	store, relay := fleet.NewMemorySessionStore(), fleet.NewMemoryRelay()
	for _, tt := range []struct {
		name string
		node *fleet.Node
	}{
		{"no ID", &fleet.Node{Sessions: store, Relay: relay}},
		{"no store", &fleet.Node{ID: "a", Relay: relay}},
		{"no relay", &fleet.Node{ID: "a", Sessions: store}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncBuffer
			_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{Fleet: tt.node, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			resp, code, body := getStream(t, hs.URL+"/sse")
			if resp != nil {
				resp.Body.Close()
			}
			if code != http.StatusInternalServerError || !strings.Contains(body, "ServerOptions.Fleet needs an ID, a SessionStore and a Relay") {
				t.Errorf("GET: %d %s", code, body)
			}
			if code, body := post(t, hs.URL+"/sse?sessionId="+strings.Repeat("a", 32), echoCall); code != http.StatusInternalServerError {
				t.Errorf("POST: %d %s", code, body)
			}
			if n := strings.Count(logs.String(), "level=ERROR"); n != 1 {
				t.Errorf("%d ERROR lines, want 1:\n%s", n, logs.String())
			}
		})
	}
}

// A POST carried from another instance speaks for the principal that
// instance found, not for the one ServerOptions.Principal finds in its
// headers, and its handlers see that principal.
func TestRelayedPrincipal(t *testing.T) {
	srv := newTestServer(t)
	srv.MustAddTool(mcp.Tool{Name: "whoami", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "principal=" + session.PrincipalOf(ctx)}}}}, nil
		})
	h, hs := serve(t, srv, ssehttp.ServerOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-User") }})
	s := openStream(t, hs.URL+"/sse", "X-User", "alice")
	s.initializeWith("X-User", "alice")
	const whoami = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	for _, tt := range []struct {
		name, carried, header string
		want                  int
	}{
		{"the session's principal, whatever the headers say", "alice", "mallory", http.StatusAccepted},
		{"another principal, with the session's in the headers", "bob", "alice", http.StatusNotFound},
		{"no principal", "", "alice", http.StatusNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, s.endpoint, strings.NewReader(whoami))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("X-User", tt.header)
			w := httptest.NewRecorder()
			ssehttp.ServeRelayed(h, w, r, tt.carried)
			if w.Code != tt.want {
				t.Fatalf("carried for %q: %d %s, want %d", tt.carried, w.Code, w.Body, tt.want)
			}
			if w.Code != http.StatusAccepted {
				return
			}
			m := s.answer()
			if b, _ := json.Marshal(m); m["id"] != 7.0 || !strings.Contains(string(b), `principal=alice`) {
				t.Fatalf("answer %s, want principal=alice", b)
			}
		})
	}
	// Only POSTs are carried.
	w := httptest.NewRecorder()
	ssehttp.ServeRelayed(h, w, httptest.NewRequest(http.MethodGet, "/sse", nil), "alice")
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("a carried GET: %d %s, want 405", w.Code, w.Body)
	}
}
