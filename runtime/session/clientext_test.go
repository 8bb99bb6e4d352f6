package session_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// deferExt is the server side of a test extension: it answers every
// tools/call of a request that declares it with a result of resultType
// "deferred" naming a ticket, and its method ticket/get answers the
// ticket's result.
type deferExt struct{ probeExt }

func (x *deferExt) WrapToolCall(ctx context.Context, s *session.Session, params jsontext.Value, call func(context.Context) (wire.Appender, error)) (wire.Appender, error) {
	if !session.ClientDeclares(ctx, x.id) {
		return call(ctx)
	}
	return session.Raw(`{"resultType":"deferred","ticket":"t-7"}`), nil
}

func (x *deferExt) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	if method != "ticket/get" {
		return x.probeExt.HandleRequest(ctx, s, method, params)
	}
	ticket, _ := wire.MemberString(params, "ticket")
	return session.Raw(`{"content":[{"type":"text","text":"ticket ` + ticket + `"}]}`), nil
}

// ticketClient is the client side: it follows "deferred" results by
// calling ticket/get (when follow is set; otherwise it returns ret).
type ticketClient struct {
	id     string
	rt     string
	ret    jsontext.Value // returned as it is when set
	mu     sync.Mutex
	method string // the method of the last result followed
	params jsontext.Value
}

func (c *ticketClient) ID() string                 { return c.id }
func (c *ticketClient) Capability() jsontext.Value { return jsontext.Value(`{"level":1}`) }
func (c *ticketClient) Methods() []wire.Method {
	return []wire.Method{
		{Name: "ticket/get", Direction: wire.ClientToServer, Message: "TicketRequest", ParamsRequired: true},
		{Name: "probe/echo", Direction: wire.ClientToServer, Message: "ProbeRequest"},
		{Name: "ticket/changed", Direction: wire.ServerToClient, Notification: true},
	}
}
func (c *ticketClient) ResultType() string { return c.rt }
func (c *ticketClient) FollowResult(ctx context.Context, s *session.Session, method string, params, result jsontext.Value) (jsontext.Value, error) {
	c.mu.Lock()
	c.method, c.params = method, params
	c.mu.Unlock()
	if c.ret != nil {
		return c.ret, nil
	}
	ticket, _ := wire.Member(result, "ticket")
	return s.Call(ctx, "ticket/get", session.Raw(`{"ticket":`+string(ticket)+`}`))
}

// connectExt connects a 2026-07-28 client with opts to a server serving
// deferExt, over a pipe.
func connectExt(t *testing.T, h m26.Client, opts session.Options) (*m26.ClientSession, error) {
	t.Helper()
	x := &deferExt{probeExt{id: testExtID, methods: []string{"probe/echo", "ticket/get"}}}
	srv := m26.NewServer(m26.Implementation{Name: "ext", Version: "1"}, m26.WithExtension(x))
	srv.MustAddTool(m26.Tool{Name: "hello"}, func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "hi"}}}}, nil
	})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, srv.Handler(), session.Options{})
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := m26.Connect(ctx, b, &m26.ClientOptions{Handler: h, Session: opts})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestClientExtension: a client declares the extensions it uses, calls
// their methods, and has a ResultFollower complete the results of its
// resultType, unless the call asks not to.
func TestClientExtension(t *testing.T) {
	tests := []struct {
		name   string
		ext    *ticketClient // nil: none
		opts   []session.CallOption
		method string // called: "tools/call" (hello) or "probe/echo"
		want   string // in the result
		err    string // in the error
	}{
		{name: "declared", ext: &ticketClient{id: testExtID, rt: "deferred"}, method: "probe/echo", want: `"declared":true`},
		{name: "followed", ext: &ticketClient{id: testExtID, rt: "deferred"}, method: "tools/call", want: `"text":"ticket t-7"`},
		{name: "not followed when asked", ext: &ticketClient{id: testExtID, rt: "deferred"}, opts: []session.CallOption{session.WithoutFollow()}, method: "tools/call", want: `"ticket":"t-7"`},
		{name: "a follower that does not complete", ext: &ticketClient{id: testExtID, rt: "deferred", ret: jsontext.Value(`{"resultType":"deferred"}`)}, method: "tools/call",
			err: `extension io.example/probe followed a result of resultType "deferred" to one of resultType "deferred"`},
		{name: "a resultType nobody follows", ext: &ticketClient{id: testExtID, rt: "other"}, method: "tools/call", err: `/resultType: unrecognised value "deferred"`},
		{name: "another extension's", ext: &ticketClient{id: "io.example/other", rt: "deferred"}, method: "tools/call", want: `"text":"hi"`},
		{name: "without extensions", method: "tools/call", want: `"text":"hi"`},
		{name: "a method of no extension", method: "probe/echo", err: "probe/echo: not a request a client may send in revision 2026-07-28"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts session.Options
			if tt.ext != nil {
				opts.Extensions = []session.ClientExtension{tt.ext}
			}
			cs, err := connectExt(t, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.UsesExtension(testExtID); got != (tt.ext != nil && tt.ext.id == testExtID) {
				t.Errorf("UsesExtension = %v", got)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			params := `{"name":"hello"}`
			if tt.method == "probe/echo" {
				params = `{"v":1}`
			}
			res, err := cs.Call(ctx, tt.method, session.Raw(params), tt.opts...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Call: %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if !strings.Contains(string(res), tt.want) {
				t.Errorf("Call = %s, want %s in it", res, tt.want)
			}
			if tt.ext != nil && tt.ext.method != "" {
				caps, _ := wire.Member(tt.ext.params, "_meta")
				caps, _ = wire.Member(caps, session.MetaClientCapabilities)
				if tt.ext.method != "tools/call" || !wire.Has(caps, "extensions", testExtID, "level") {
					t.Errorf("FollowResult got %s %s: want tools/call, params as sent (with the capability)", tt.ext.method, tt.ext.params)
				}
			}
		})
	}
}

// TestClientExtensionsChecked: Connect refuses extensions it cannot use.
func TestClientExtensionsChecked(t *testing.T) {
	follower := func(id, rt string) session.ClientExtension { return &ticketClient{id: id, rt: rt} }
	tests := []struct {
		name string
		exts []session.ClientExtension
		want string
	}{
		{"nil", []session.ClientExtension{nil}, "Options.Extensions[0] is nil"},
		{"no id", []session.ClientExtension{follower("", "x")}, "Options.Extensions[0] has no ID"},
		{"twice", []session.ClientExtension{follower("a", "x"), follower("a", "y")}, "Options.Extensions[1]: extension a is there twice"},
		{"capability not an object", []session.ClientExtension{&badCapability{ticketClient{id: "a", rt: "x"}}}, "its capability is not a JSON object"},
		{"a method of the revision", []session.ClientExtension{&revisionMethod{ticketClient{id: "a", rt: "x"}}}, "method tools/call is one of revision 2026-07-28's own"},
		{"following complete", []session.ClientExtension{follower("a", "complete")}, `cannot follow resultType "complete"`},
		{"following input_required", []session.ClientExtension{follower("a", "input_required")}, `cannot follow resultType "input_required"`},
		{"a resultType followed twice", []session.ClientExtension{follower("a", "x"), follower("b", "x")}, `follows resultType "x", which extension a follows already`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := connectExt(t, nil, session.Options{Extensions: tt.exts})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Connect: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

type badCapability struct{ ticketClient }

func (*badCapability) Capability() jsontext.Value { return jsontext.Value(`true`) }

type revisionMethod struct{ ticketClient }

func (*revisionMethod) Methods() []wire.Method {
	return []wire.Method{{Name: "tools/call", Direction: wire.ClientToServer}}
}

// answering answers elicitations with accept and the message as content.
type answering struct {
	m26.UnimplementedClient
	fail error
}

func (a *answering) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	if a.fail != nil {
		return nil, a.fail
	}
	f, _ := p.Value.(*m26.ElicitRequestFormParams)
	return m26.Accept(map[string]any{"m": f.Message})
}

// TestAnswerInput: the client's handler answers input requests given to
// AnswerInput, with the checks of a multi round-trip result's.
func TestAnswerInput(t *testing.T) {
	const elicit = `{"method":"elicitation/create","params":{"mode":"form","message":"%s","requestedSchema":{"type":"object","properties":{}}}}`
	req := func(msg string) jsontext.Value { return jsontext.Value(strings.Replace(elicit, "%s", msg, 1)) }
	tests := []struct {
		name    string
		handler *answering
		reqs    map[string]jsontext.Value
		want    map[string]string
		err     string
	}{
		{name: "answered", handler: &answering{}, reqs: map[string]jsontext.Value{"a": req("one"), "b": req("two")},
			want: map[string]string{"a": `{"action":"accept","content":{"m":"one"}}`, "b": `{"action":"accept","content":{"m":"two"}}`}},
		{name: "none", handler: &answering{}, reqs: nil, want: map[string]string{}},
		{name: "a capability not declared", handler: &answering{}, reqs: map[string]jsontext.Value{"s": jsontext.Value(`{"method":"roots/list"}`)},
			err: "/inputRequests/s: the server asked for roots/list, but this client did not declare the capability roots"},
		{name: "not an input request", handler: &answering{}, reqs: map[string]jsontext.Value{"x": jsontext.Value(`{"method":"tools/list"}`)},
			err: `/inputRequests/x: "tools/list" is not an input request of revision 2026-07-28`},
		{name: "not an object", handler: &answering{}, reqs: map[string]jsontext.Value{"x": jsontext.Value(`7`)}, err: "/inputRequests/x: not a JSON object"},
		{name: "the handler fails", handler: &answering{fail: errors.New("no user")}, reqs: map[string]jsontext.Value{"a": req("one")}, err: "/inputRequests/a (elicitation/create): no user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := connectExt(t, tt.handler, session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err := cs.AnswerInput(ctx, tt.reqs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("AnswerInput: %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("AnswerInput: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("AnswerInput = %s, want %s", got, tt.want)
			}
			for k, w := range tt.want {
				if string(got[k]) != w {
					t.Errorf("answer %s = %s, want %s", k, got[k], w)
				}
			}
		})
	}
}

// TestAnswerInputServer: a server session has no input handler to ask.
func TestAnswerInputServer(t *testing.T) {
	a, _ := transport.Pipe()
	s := session.New(session.Server, a, m26.NewServer(m26.Implementation{Name: "s", Version: "1"}).Handler(), session.Options{})
	defer s.Close()
	if _, err := s.AnswerInput(context.Background(), nil); err == nil {
		t.Fatal("AnswerInput on a server: no error")
	}
	if s.UsesExtension(testExtID) {
		t.Error("UsesExtension on a server: true")
	}
}
