package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// headerLog records the headers of every POST an http.Handler gets.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Clone())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *headerLog) find(method string) []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []http.Header
	for _, h := range l.seen {
		if h.Get("Mcp-Method") == method {
			out = append(out, h)
		}
	}
	return out
}

type askingClient struct {
	m26.UnimplementedClient
	changed chan string
}

func (askingClient) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	return &m26.ElicitResult{Action: "accept", Content: map[string]m26.ElicitResultContentValue{"ok": {Value: m26.ElicitResultContentValueBoolean(true)}}}, nil
}

func (c askingClient) ToolListChanged(ctx context.Context, p *m26.NotificationParams) {
	select {
	case c.changed <- "tools":
	default:
	}
}

func TestClientStatelessHTTP(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "regional", InputSchema: []byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			res, err := m26.Elicit(ctx, "confirm", &m26.ElicitRequestParams{Value: &m26.ElicitRequestFormParams{
				Message:         "Sure?",
				RequestedSchema: m26.ElicitRequestFormParamsRequestedSchema{Properties: map[string]m26.PrimitiveSchemaDefinition{"ok": {Value: &m26.BooleanSchema{}}}},
			}})
			if err != nil {
				return nil, err
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: string(res.Action)}}}}, nil
		})
	if err := srv.AddTool(m26.Tool{Name: "broken", InputSchema: []byte(`{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			return &m26.CallToolResult{}, nil
		}); err == nil {
		t.Fatal("AddTool took a tool whose x-mcp-header annotates a number")
	}
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	log := &headerLog{}
	ts := httptest.NewServer(log.wrap(h))
	t.Cleanup(func() { h.Close(); ts.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := askingClient{changed: make(chan string, 1)}
	cs, err := m26.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}, Capabilities: m26.ClientCapabilities{Elicitation: &m26.ClientCapabilitiesElicitation{}}, Handler: c})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.Era() != session.EraModern || session.KnownEra(ts.URL) != session.EraModern {
		t.Fatalf("era %v (remembered %v), want modern", cs.Era(), session.KnownEra(ts.URL))
	}

	// T-N8: the tool whose annotation is on a number is dropped.
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"regional"}, names); diff != "" {
		t.Errorf("tools listed (-want +got):\n%s", diff)
	}

	res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "regional", Arguments: []byte(`{"region":"eu-west"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Value.(*m26.TextContent).Text; got != "accept" {
		t.Errorf("tool answered %q, want accept", got)
	}
	calls := log.find("tools/call")
	if len(calls) != 2 {
		t.Fatalf("%d tools/call POSTs, want 2 (the request and its retry)", len(calls))
	}
	for _, hd := range calls {
		got := []string{hd.Get("MCP-Protocol-Version"), hd.Get("Mcp-Name"), hd.Get("Mcp-Param-Region"), hd.Get("Mcp-Session-Id")}
		if diff := cmp.Diff([]string{"2026-07-28", "regional", "eu-west", ""}, got); diff != "" {
			t.Errorf("tools/call headers (-want +got):\n%s", diff)
		}
	}

	// A client that calls before it lists: the tools are listed first, so
	// that the call carries its Mcp-Param header (T-N8).
	fresh, err := m26.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &m26.ClientOptions{Info: m26.Implementation{Name: "c2", Version: "1"}, Capabilities: m26.ClientCapabilities{Elicitation: &m26.ClientCapabilitiesElicitation{}}, Handler: c})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.CallTool(ctx, &m26.CallToolRequestParams{Name: "regional", Arguments: []byte(`{"region":"ap-south"}`)}); err != nil {
		t.Fatalf("a tools/call before any tools/list: %v", err)
	}
	fresh.Close()
	var regions []string
	for _, hd := range log.find("tools/call") {
		regions = append(regions, hd.Get("Mcp-Param-Region"))
	}
	if diff := cmp.Diff([]string{"eu-west", "eu-west", "ap-south", "ap-south"}, regions); diff != "" {
		t.Errorf("Mcp-Param-Region of the tools/call POSTs (-want +got):\n%s", diff)
	}

	// A subscription: acknowledged, then told of a new tool; Close ends it.
	sub, err := cs.Listen(ctx, &m26.SubscriptionsListenRequestParams{Notifications: m26.SubscriptionFilter{ToolsListChanged: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	srv.MustAddTool(m26.Tool{Name: "late", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{}, nil
	})
	select {
	case <-c.changed:
	case <-ctx.Done():
		t.Fatal("no list_changed on the subscription")
	}
	sub.Close()
	if n := len(log.find("notifications/cancelled")); n != 0 {
		t.Errorf("%d notifications/cancelled POSTed; the stateless era cancels by closing the stream (T-N5)", n)
	}
}

func TestClientHTTPFallback(t *testing.T) {
	legacy := m25.NewServer(m25.Implementation{Name: "old", Version: "1"})
	legacy.MustAddTool(m25.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *m25.CallToolRequestParams) (*m25.CallToolResult, error) {
		return &m25.CallToolResult{Content: []m25.ContentBlock{{Value: &m25.TextContent{Text: "hi"}}}}, nil
	})
	h := streamhttp.NewServer(func() session.Handler { return m25.NewServerHandler(legacy) }, streamhttp.ServerOptions{})
	log := &headerLog{}
	ts := httptest.NewServer(log.wrap(h))
	t.Cleanup(func() { h.Close(); ts.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 2 {
		cs, err := m26.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}})
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if cs.Era() != session.EraLegacy || cs.Revision().Name != m25.Revision {
			t.Errorf("connection %d: era %v at %v, want legacy at %s", i, cs.Era(), cs.Revision(), m25.Revision)
		}
		res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "echo"})
		if err != nil || res.Content[0].Value.(*m26.TextContent).Text != "hi" {
			t.Errorf("connection %d: CallTool = %v, %v", i, res, err)
		}
		cs.Close()
	}
	// The second connection remembered the era: one probe in all.
	if n := len(log.find("server/discover")); n != 1 {
		t.Errorf("%d server/discover probes for two connections, want 1", n)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if !slices.ContainsFunc(log.seen, func(h http.Header) bool { return h.Get("Mcp-Session-Id") != "" }) {
		t.Error("no POST of the legacy sessions carried a session id")
	}
	if slices.ContainsFunc(log.seen, func(h http.Header) bool { return h.Get("Mcp-Session-Id") != "" && h.Get("Mcp-Method") != "" }) {
		t.Error("a legacy session's POST carried the stateless era's Mcp-Method")
	}
}

func ptr[T any](v T) *T { return &v }

// A client told to speak only a revision of the initialize era does not
// teach the process that the server is legacy: the next client, with the
// default revisions, still finds the stateless era.
func TestRestrictedClientLeavesEraUnknown(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	h := srv.HTTPHandler(m26.HTTPOptions{})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info := m26.Implementation{Name: "c", Version: "1"}

	old, err := m26.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &m26.ClientOptions{Info: info, Revisions: []string{"2025-11-25"}})
	if err != nil {
		t.Fatal(err)
	}
	if old.Era() != session.EraLegacy {
		t.Errorf("a client restricted to 2025-11-25 is in era %v, want legacy", old.Era())
	}
	old.Close()
	if e := session.KnownEra(ts.URL); e == session.EraLegacy {
		t.Fatalf("after a restricted client, the server is remembered as legacy")
	}

	cs, err := m26.Connect(ctx, streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{}), &m26.ClientOptions{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.Era() != session.EraModern {
		t.Fatalf("a default client after a restricted one is in era %v, want modern", cs.Era())
	}
}
