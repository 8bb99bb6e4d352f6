package session_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// recorder is a transport end that records the methods and params it
// writes, for tests of what a client sends.
type recorder struct {
	transport.Transport
	mu   sync.Mutex
	sent []jsontext.Value
}

func (r *recorder) Write(ctx context.Context, b []byte) error {
	r.mu.Lock()
	r.sent = append(r.sent, append(jsontext.Value(nil), b...))
	r.mu.Unlock()
	return r.Transport.Write(ctx, b)
}

func (r *recorder) methods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.sent {
		if items, _, err := jsonrpc.Decode(b, false); err == nil && items[0].Msg != nil && items[0].Msg.Method != "" {
			out = append(out, items[0].Msg.Method)
		}
	}
	return out
}

// inputClient answers elicitations with a name, counting them.
type inputClient struct {
	m26.UnimplementedClient
	mu       sync.Mutex
	elicited int
	changed  chan struct{}
}

func (c *inputClient) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	c.mu.Lock()
	c.elicited++
	c.mu.Unlock()
	return &m26.ElicitResult{Action: "accept", Content: map[string]m26.ElicitResultContentValue{"name": {Value: m26.ElicitResultContentValueString("Ada")}}}, nil
}

func (c *inputClient) ToolListChanged(ctx context.Context, p *m26.NotificationParams) {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

var clientCaps = m26.ClientCapabilities{Elicitation: &m26.ClientCapabilitiesElicitation{}}

// connect26 connects a 2026-07-28 client to srv (a session.Handler) over a
// pipe, recording what the client sends.
func connect26(t *testing.T, h session.Handler, c m26.Client, opts session.Options) (*m26.ClientSession, *recorder) {
	t.Helper()
	a, b := transport.Pipe()
	srv := session.New(session.Server, a, h, session.Options{})
	t.Cleanup(func() { srv.Close() })
	rec := &recorder{Transport: b}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := m26.Connect(ctx, rec, &m26.ClientOptions{Info: m26.Implementation{Name: "client", Version: "1"}, Capabilities: clientCaps, Handler: c, Session: opts})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rec
}

func TestClientModernEra(t *testing.T) {
	srv, _ := modernServer(t)
	c := &inputClient{changed: make(chan struct{}, 1)}
	cs, rec := connect26(t, srv.Handler(), c, session.Options{})
	if cs.Era() != session.EraModern || cs.Revision().Name != m26.Revision {
		t.Fatalf("era %v, revision %v; want modern at %s", cs.Era(), cs.Revision(), m26.Revision)
	}
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "greet"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	text := res.Content[0].Value.(*m26.TextContent).Text
	if text != `Hello "Ada"` || res.ResultType != "complete" {
		t.Errorf("CallTool = %q (%s), want Hello \"Ada\" (complete)", text, res.ResultType)
	}
	if c.elicited != 1 {
		t.Errorf("the client answered %d elicitations, want 1", c.elicited)
	}
	want := []string{"server/discover", "tools/call", "tools/call"}
	if diff := cmp.Diff(want, rec.methods()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
	// Every request carries the envelope (V-1, V-2).
	for _, b := range rec.sent {
		items, _, err := jsonrpc.Decode(b, false)
		if err != nil || items[0].Msg == nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		m := items[0].Msg
		if !strings.Contains(string(m.Params), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) ||
			!strings.Contains(string(m.Params), `"io.modelcontextprotocol/clientInfo":{"name":"client","version":"1"}`) ||
			!strings.Contains(string(m.Params), `"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}`) {
			t.Errorf("%s params lack the envelope: %s", m.Method, m.Params)
		}
	}
}

func TestClientCacheAndListen(t *testing.T) {
	srv, _ := modernServer(t) // tools/list cached 5 s, public
	c := &inputClient{changed: make(chan struct{}, 1)}
	cs, rec := connect26(t, srv.Handler(), c, session.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 2 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(strings.Join(rec.methods(), " "), "tools/list"); n != 1 {
		t.Errorf("tools/list sent %d times for two calls within its ttl, want 1", n)
	}
	sub, err := cs.Listen(ctx, &m26.SubscriptionsListenRequestParams{Notifications: m26.SubscriptionFilter{ToolsListChanged: ptr(true)}})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	if got := string(sub.Acknowledged()); got != `{"toolsListChanged":true}` {
		t.Errorf("acknowledged %s", got)
	}
	srv.MustAddTool(m26.Tool{Name: "late", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{}, nil
	})
	select {
	case <-c.changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed on the subscription")
	}
	// The notification dropped the cached list (U-K5).
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 {
		t.Errorf("tools/list after the change: %d tools, want 2", len(res.Tools))
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Errorf("Err after Close = %v, want context.Canceled", sub.Err())
	}
}

func TestClientFallsBackToInitialize(t *testing.T) {
	legacy := m25.NewServer(m25.Implementation{Name: "old", Version: "1"})
	legacy.MustAddTool(m25.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m25.CallToolRequestParams) (*m25.CallToolResult, error) {
		return &m25.CallToolResult{Content: []m25.ContentBlock{{Value: &m25.TextContent{Text: "hi"}}}}, nil
	})
	c := &inputClient{changed: make(chan struct{}, 1)}
	cs, rec := connect26(t, m25.NewServerHandler(legacy), c, session.Options{})
	if cs.Era() != session.EraLegacy || cs.Revision().Name != m25.Revision {
		t.Fatalf("era %v, revision %v; want legacy at %s", cs.Era(), cs.Revision(), m25.Revision)
	}
	res, err := cs.CallTool(context.Background(), &m26.CallToolRequestParams{Name: "echo"})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if res.ResultType != "complete" || res.Content[0].Value.(*m26.TextContent).Text != "hi" {
		t.Errorf("CallTool = %+v, want complete with hi (V-12)", res)
	}
	// A cacheable result of a legacy server has no caching hints: it reads
	// as one not to reuse.
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if list.TTLMs != 0 || list.CacheScope != "private" || len(list.Tools) != 1 {
		t.Errorf("ListTools = ttl %d, scope %q, %d tools; want 0, private, 1", list.TTLMs, list.CacheScope, len(list.Tools))
	}
	want := []string{"server/discover", "initialize", "notifications/initialized", "tools/call", "tools/list"}
	if diff := cmp.Diff(want, rec.methods()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
	for _, b := range rec.sent[1:] {
		if strings.Contains(string(b), "io.modelcontextprotocol/") {
			t.Errorf("a legacy session got the stateless envelope: %s", b)
		}
	}
}

// A legacy server that never answers the probe (V-11: "or nothing"): the
// client gives up after ProbeTimeout, tells the server it cancelled the
// probe, and initializes; an answer to the probe that arrives after that is
// dropped.
func TestClientProbeTimeout(t *testing.T) {
	a, b := transport.Pipe()
	p := &peer{t: t, tr: a}
	done := make(chan error, 1)
	var cs *m26.ClientSession
	go func() {
		var err error
		cs, err = m26.Connect(context.Background(), b, &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}, Session: session.Options{ProbeTimeout: 50 * time.Millisecond}})
		done <- err
	}()
	probe := p.recvMsg()
	if probe["method"] != "server/discover" {
		t.Fatalf("first message %v, want the server/discover probe", probe)
	}
	if m := p.recvMsg(); m["method"] != "notifications/cancelled" {
		t.Fatalf("after the timeout: %v, want notifications/cancelled", m)
	}
	init := p.recvMsg()
	if init["method"] != "initialize" {
		t.Fatalf("then %v, want initialize", init)
	}
	p.send(`{"jsonrpc":"2.0","id":` + itoa(int(init["id"].(float64))) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	if m := p.recvMsg(); m["method"] != "notifications/initialized" {
		t.Fatalf("then %v, want notifications/initialized", m)
	}
	if err := <-done; err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if cs.Era() != session.EraLegacy || cs.Revision().Name != "2025-11-25" {
		t.Errorf("era %v at %v, want legacy at 2025-11-25", cs.Era(), cs.Revision())
	}
}

// A server of the stateless era that refuses the probe for a reason of its
// era is not taken for a legacy one: Connect fails, naming the error.
func TestClientModernRefusalIsNoFallback(t *testing.T) {
	a, b := transport.Pipe()
	p := &peer{t: t, tr: a}
	done := make(chan error, 1)
	go func() {
		_, err := m26.Connect(context.Background(), b, &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}})
		done <- err
	}()
	for _, supported := range []string{`["2026-07-28"]`, `["2026-07-28"]`} {
		probe := p.recvMsg()
		if probe["method"] != "server/discover" {
			t.Fatalf("got %v, want a server/discover probe", probe)
		}
		p.send(`{"jsonrpc":"2.0","id":` + itoa(int(probe["id"].(float64))) + `,"error":{"code":-32022,"message":"no","data":{"supported":` + supported + `,"requested":"2026-07-28"}}}`)
	}
	err := <-done
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != session.UnsupportedProtocolVersion {
		t.Fatalf("Connect = %v, want the -32022 error after one retry", err)
	}
}

// A server that asks for input without end gets MaxInputRounds answers,
// then the call fails; each retry has a new id, the state echoed verbatim.
func TestClientInputRoundsBounded(t *testing.T) {
	a, b := transport.Pipe()
	p := &peer{t: t, tr: a}
	type conn struct {
		cs  *m26.ClientSession
		err error
	}
	done := make(chan conn, 1)
	c := &inputClient{changed: make(chan struct{}, 1)}
	go func() {
		cs, err := m26.Connect(context.Background(), b, &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}, Capabilities: clientCaps, Handler: c})
		done <- conn{cs, err}
	}()
	probe := p.recvMsg()
	p.send(`{"jsonrpc":"2.0","id":` + itoa(int(probe["id"].(float64))) + `,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}`)
	cn := <-done
	if cn.err != nil {
		t.Fatal(cn.err)
	}
	defer cn.cs.Close()
	called := make(chan error, 1)
	go func() {
		_, err := cn.cs.CallTool(context.Background(), &m26.CallToolRequestParams{Name: "x"})
		called <- err
	}()
	seen := map[float64]bool{}
	for round := 0; round <= session.MaxInputRounds; round++ {
		m := p.recvMsg()
		id := m["id"].(float64)
		if seen[id] {
			t.Fatalf("round %d reused id %v (U-M3)", round, id)
		}
		seen[id] = true
		params := m["params"].(map[string]any)
		if round > 0 && params["requestState"] != `s"1` {
			t.Fatalf("round %d: requestState %v, want the state verbatim", round, params["requestState"])
		}
		p.send(`{"jsonrpc":"2.0","id":` + itoa(int(id)) + `,"result":{"resultType":"input_required","requestState":"s\"1","inputRequests":{"k":{"method":"elicitation/create","params":{"mode":"form","message":"?","requestedSchema":{"type":"object","properties":{}}}}}}}`)
	}
	if err := <-called; err == nil || !strings.Contains(err.Error(), "giving up") {
		t.Fatalf("CallTool = %v, want it to give up", err)
	}
	if c.elicited != session.MaxInputRounds {
		t.Errorf("%d elicitations answered, want %d", c.elicited, session.MaxInputRounds)
	}
}

// Options.Revisions without the handler's revision pins the client to the
// initialize era: no probe.
func TestClientPinnedToLegacy(t *testing.T) {
	srv, _ := modernServer(t)
	cs, rec := connect26(t, srv.Handler(), &inputClient{}, session.Options{Revisions: []string{"2025-06-18"}})
	if cs.Era() != session.EraLegacy || cs.Revision().Name != "2025-06-18" {
		t.Fatalf("era %v at %v, want legacy at 2025-06-18", cs.Era(), cs.Revision())
	}
	if got := rec.methods(); len(got) == 0 || got[0] != "initialize" {
		t.Errorf("methods sent %v, want initialize first", got)
	}
}

// After the fallback, the legacy server's real elicitation/create reaches
// the same Elicit handler that answers inputRequests in the stateless era.
func TestClientFallbackAnswersServerRequests(t *testing.T) {
	legacy := m25.NewServer(m25.Implementation{Name: "old", Version: "1"})
	legacy.MustAddTool(m25.Tool{Name: "ask", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m25.CallToolRequestParams) (*m25.CallToolResult, error) {
		ss, _ := m25.ServerSessionFrom(ctx)
		res, err := ss.Elicit(ctx, &m25.ElicitRequestParams{Value: &m25.ElicitRequestFormParams{
			Message:         "name?",
			RequestedSchema: m25.ElicitRequestFormParamsRequestedSchema{Properties: map[string]m25.PrimitiveSchemaDefinition{"name": {Value: &m25.StringSchema{}}}},
		}})
		if err != nil {
			return nil, err
		}
		name, _ := res.Content["name"].Value.(m25.ElicitResultContentValueString)
		return &m25.CallToolResult{Content: []m25.ContentBlock{{Value: &m25.TextContent{Text: "hi " + string(name)}}}}, nil
	})
	c := &inputClient{}
	cs, _ := connect26(t, m25.NewServerHandler(legacy), c, session.Options{})
	if cs.Era() != session.EraLegacy {
		t.Fatalf("era %v, want legacy", cs.Era())
	}
	res, err := cs.CallTool(context.Background(), &m26.CallToolRequestParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Value.(*m26.TextContent).Text; got != "hi Ada" || c.elicited != 1 {
		t.Errorf("CallTool = %q after %d elicitations, want \"hi Ada\" after 1", got, c.elicited)
	}
}

// The caller's own _meta members are kept, and the envelope fills in only
// what they lack.
func TestClientKeepsCallersMeta(t *testing.T) {
	srv, _ := modernServer(t)
	cs, rec := connect26(t, srv.Handler(), &inputClient{}, session.Options{})
	params := session.Raw(`{"_meta":{"x":1,"io.modelcontextprotocol/clientInfo":{"name":"mine","version":"2"}}}`)
	if _, err := cs.Call(context.Background(), "tools/list", params, session.WithoutCache()); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	last := string(rec.sent[len(rec.sent)-1])
	rec.mu.Unlock()
	want := `"_meta":{"x":1,"io.modelcontextprotocol/clientInfo":{"name":"mine","version":"2"},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	if !strings.Contains(last, want) {
		t.Errorf("sent %s\nwant its params to contain %s", last, want)
	}
}

// authedRecorder is a recorder whose requests carry an authorization that
// the test changes.
type authedRecorder struct {
	*recorder
	mu   sync.Mutex
	auth string
}

func (a *authedRecorder) AuthContext() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.auth
}

func (a *authedRecorder) set(auth string) {
	a.mu.Lock()
	a.auth = auth
	a.mu.Unlock()
}

// TestClientCachePrivatePerAuthorization: a "private" result cached for one
// authorization never answers a request made with another (U-K4); a
// "public" one does.
func TestClientCachePrivatePerAuthorization(t *testing.T) {
	for _, tc := range []struct {
		scope string
		sends int // tools/list requests for the three calls
	}{
		{"private", 2},
		{"public", 1},
	} {
		t.Run(tc.scope, func(t *testing.T) {
			srv := m26.NewServer(m26.Implementation{Name: "p", Version: "1"}, m26.WithCacheHint(m26.MethodToolsList, m26.CacheHint{TTL: 60e9, Scope: tc.scope}))
			srv.MustAddTool(m26.NewTool("t", ""), func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
				return m26.TextResult("t"), nil
			})
			a, b := transport.Pipe()
			s := session.New(session.Server, a, srv.Handler(), session.Options{})
			t.Cleanup(func() { s.Close() })
			rec := &authedRecorder{recorder: &recorder{Transport: b}, auth: "token-of-alice"}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := m26.Connect(ctx, rec, &m26.ClientOptions{Info: m26.Implementation{Name: "client", Version: "1"}, Capabilities: clientCaps})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			t.Cleanup(func() { cs.Close() })
			for _, auth := range []string{"token-of-alice", "token-of-alice", "token-of-bob"} {
				rec.set(auth)
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
			if n := strings.Count(strings.Join(rec.methods(), " "), "tools/list"); n != tc.sends {
				t.Errorf("tools/list sent %d times, want %d", n, tc.sends)
			}
		})
	}
}

// authFailure is an error of a transport that could not authorize.
type authFailure struct{}

func (authFailure) Error() string             { return "no token for you" }
func (authFailure) AuthorizationFailed() bool { return true }

// refusing is a transport whose writes fail with authFailure.
type refusing struct {
	*recorder
}

func (r refusing) Write(ctx context.Context, b []byte) error {
	r.recorder.Write(ctx, b)
	return authFailure{}
}

// TestConnectAuthorizationFailure: a probe that could not be authorized
// ends Connect with that error; initialize is not tried.
func TestConnectAuthorizationFailure(t *testing.T) {
	srv, _ := modernServer(t)
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	t.Cleanup(func() { s.Close() })
	rec := &recorder{Transport: b}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := m26.Connect(ctx, refusing{rec}, &m26.ClientOptions{Info: m26.Implementation{Name: "client", Version: "1"}, Capabilities: clientCaps})
	if !errors.As(err, new(authFailure)) {
		t.Fatalf("Connect: err = %v, want the authorization failure", err)
	}
	if diff := cmp.Diff([]string{"server/discover"}, rec.methods()); diff != "" {
		t.Errorf("methods sent (-want +got):\n%s", diff)
	}
}
