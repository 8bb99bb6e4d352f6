package session_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// trace is a middleware that records what passes through it, one line
// per message: side, direction, kind, method, era, revision.
type trace struct {
	side string
	mu   sync.Mutex
	seen []string
}

func (tr *trace) mw(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		dir, kind, rev := "in", "request", "-"
		if r.Outgoing {
			dir = "out"
		}
		if r.Notification {
			kind = "note"
		}
		if r.Revision != nil {
			rev = r.Revision.Name
		}
		tr.mu.Lock()
		tr.seen = append(tr.seen, tr.side+" "+dir+" "+kind+" "+r.Method+" "+r.Era.String()+" "+rev)
		tr.mu.Unlock()
		return next(ctx, r)
	}
}

// missing returns the lines of want not seen yet, and what was seen. A
// notification is handled on a worker of its own, which may still be
// running when the session has ended: missing waits, for ctx at most,
// until every line has been seen.
func (tr *trace) missing(ctx context.Context, want []string) (missing, seen []string) {
	for {
		tr.mu.Lock()
		missing = nil
		for _, w := range want {
			if !slices.Contains(tr.seen, w) {
				missing = append(missing, w)
			}
		}
		seen = slices.Clone(tr.seen)
		tr.mu.Unlock()
		if len(missing) == 0 || ctx.Err() != nil {
			return missing, seen
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

type noteClient struct {
	mcp.UnimplementedClient
	logs chan string
}

func (c *noteClient) LoggingMessage(ctx context.Context, p *mcp.LoggingMessageNotificationParams) {
	c.logs <- string(p.Level)
}

// TestMiddlewareBothDirections runs a client and a server, each with
// tracing middleware, in both eras, and checks what each saw pass in and
// out.
func TestMiddlewareBothDirections(t *testing.T) {
	t.Run("legacy", func(t *testing.T) {
		srvTrace, cliTrace := &trace{side: "server"}, &trace{side: "client"}
		a, b := transport.Pipe()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		served := make(chan struct{})
		go func() {
			defer close(served)
			mcp.Serve(ctx, a, testServer(t), session.Options{Middleware: []session.Middleware{srvTrace.mw}})
		}()
		c := &noteClient{logs: make(chan string, 8)}
		cs, err := mcp.Connect(ctx, b, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}, Handler: c, Session: session.Options{Middleware: []session.Middleware{cliTrace.mw}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "log"}); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			select {
			case <-c.logs:
			case <-ctx.Done():
				t.Fatal("log messages not received")
			}
		}
		cs.Close()
		<-served
		const r = "2025-11-25"
		for _, tc := range []struct {
			tr   *trace
			want []string
		}{
			{srvTrace, []string{
				"server in request initialize legacy -", // not negotiated when it arrives
				"server in note notifications/initialized legacy " + r,
				"server in request tools/call legacy " + r,
				"server out note notifications/message legacy " + r,
			}},
			{cliTrace, []string{
				"client out request initialize unknown -",
				"client out note notifications/initialized legacy " + r,
				"client out request tools/call legacy " + r,
				"client in note notifications/message legacy " + r,
			}},
		} {
			if m, seen := tc.tr.missing(ctx, tc.want); len(m) > 0 {
				t.Errorf("%s middleware did not see %q; it saw %q", tc.tr.side, m, seen)
			}
		}
	})
	t.Run("stateless", func(t *testing.T) {
		srvTrace, cliTrace := &trace{side: "server"}, &trace{side: "client"}
		srv, _ := modernServer(t)
		a, b := transport.Pipe()
		s := session.New(session.Server, a, srv.Handler(), session.Options{Sealer: testSealer{}, Middleware: []session.Middleware{srvTrace.mw}})
		t.Cleanup(func() { s.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := &inputClient{changed: make(chan struct{}, 1)}
		cs, err := m26.Connect(ctx, b, &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}, Capabilities: clientCaps, Handler: c, Session: session.Options{Middleware: []session.Middleware{cliTrace.mw}}})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if _, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "greet"}); err != nil {
			t.Fatal(err)
		}
		const r = "2026-07-28"
		for _, tc := range []struct {
			tr   *trace
			want []string
		}{
			{srvTrace, []string{
				"server in request server/discover modern " + r,
				"server in request tools/call modern " + r, // twice: the input round and its retry
			}},
			{cliTrace, []string{
				"client out request server/discover modern " + r,
				"client out request tools/call modern " + r, // once for both rounds
				"client in request elicitation/create modern " + r,
			}},
		} {
			if m, seen := tc.tr.missing(ctx, tc.want); len(m) > 0 {
				t.Errorf("%s middleware did not see %q; it saw %q", tc.tr.side, m, seen)
			}
		}
		count := func(tr *trace, line string) int {
			tr.mu.Lock()
			defer tr.mu.Unlock()
			n := 0
			for _, s := range tr.seen {
				if s == line {
					n++
				}
			}
			return n
		}
		if n := count(srvTrace, "server in request tools/call modern "+r); n != 2 {
			t.Errorf("the server's middleware saw %d tools/call, want 2 (the round asking for input and its retry)", n)
		}
		if n := count(cliTrace, "client out request tools/call modern "+r); n != 1 {
			t.Errorf("the client's middleware saw %d tools/call, want 1", n)
		}
	})
}

type valueKey struct{}

// TestMiddlewareRefusesAndPassesContext checks, in both eras on the wire,
// that a middleware can refuse a request with its own error (the handler
// never runs), and that the context it passes on reaches the handler.
func TestMiddlewareRefusesAndPassesContext(t *testing.T) {
	guard := func(next session.HandlerFunc) session.HandlerFunc {
		return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
			if r.Method == "tools/call" && string(r.Params) != "" && contains(string(r.Params), `"secret"`) {
				return nil, &jsonrpc.Error{Code: -32001, Message: "refused by policy"}
			}
			return next(context.WithValue(ctx, valueKey{}, "from middleware"), r)
		}
	}
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	ran := make(chan string, 8)
	for _, name := range []string{"secret", "open"} {
		srv.MustAddTool(m26.Tool{Name: name, InputSchema: []byte(`{"type":"object"}`)},
			func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
				ran <- p.Name
				v, _ := ctx.Value(valueKey{}).(string)
				return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: v}}}}, nil
			})
	}
	stateless := func(name string) string {
		return `{"name":"` + name + `",` + meta26 + `}`
	}
	legacy := func(name string) string { return `{"name":"` + name + `"}` }
	for _, tc := range []struct {
		name     string
		init     bool
		params   func(string) string
		tool     string
		wantCode int
		wantText string
	}{
		{"stateless refused", false, stateless, "secret", -32001, ""},
		{"stateless passed", false, stateless, "open", 0, "from middleware"},
		{"legacy refused", true, legacy, "secret", -32001, ""},
		{"legacy passed", true, legacy, "open", 0, "from middleware"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := transport.Pipe()
			s := session.New(session.Server, a, srv.Handler(), session.Options{Middleware: []session.Middleware{guard}})
			t.Cleanup(func() { s.Close() })
			p := &peer{t: t, tr: b}
			if tc.init {
				p.initialize("2025-11-25")
			}
			m := p.call(1, "tools/call", tc.params(tc.tool))
			if got := errorCode(t, m); got != tc.wantCode {
				t.Fatalf("error code %d, want %d: %v", got, tc.wantCode, m)
			}
			if tc.wantCode != 0 {
				if msg := errorMessage(m); msg != "refused by policy" {
					t.Errorf("error message %q", msg)
				}
				select {
				case name := <-ran:
					t.Errorf("the handler of %s ran for a refused request", name)
				default:
				}
				return
			}
			<-ran
			content := result(t, m)["content"].([]any)
			if diff := cmp.Diff(tc.wantText, content[0].(map[string]any)["text"]); diff != "" {
				t.Errorf("value the handler saw (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMiddlewareStateless checks Stateless (the server with no session)
// runs its middleware, and that its notifications pass as outgoing ones.
func TestMiddlewareStateless(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "work", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			if err := session.ReportProgress(ctx, 1, nil, "half"); err != nil {
				return nil, err
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "done"}}}}, nil
		})
	tr := &trace{side: "stateless"}
	x := session.NewStateless(srv.Handler(), session.Options{Middleware: []session.Middleware{tr.mw}})
	defer x.Close()
	msg := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/call",
		Params: jsontext.Value(`{"name":"work","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)}
	var notes int
	resp, status := x.Serve(context.Background(), msg, func(context.Context, []byte) error { notes++; return nil })
	if resp.Kind != jsonrpc.Response || status != 200 || notes != 1 {
		t.Fatalf("Serve = %v (status %d), %d notifications", resp, status, notes)
	}
	want := []string{
		"stateless in request tools/call modern 2026-07-28",
		"stateless out note notifications/progress modern 2026-07-28",
	}
	if diff := cmp.Diff(want, tr.seen); diff != "" {
		t.Errorf("seen (-want +got):\n%s", diff)
	}
}
