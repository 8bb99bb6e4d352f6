package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// fleetServer is a 2026-07-28 StandardServer on bus, as each instance of a
// fleet runs it: a tool with a title and structured content, one that
// logs, one that asks the client for its roots, and resources (so it
// declares tools and resources with listChanged and subscribe, logging,
// and no prompts).
func fleetServer(bus session.Bus) *m26.StandardServer {
	srv := m26.NewServer(m26.Implementation{Name: "fleet", Version: "1"}, m26.WithBus(bus))
	srv.MustAddTool(m26.Tool{Name: "echo", Title: ptr("Echo"), InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "echo"}}}, StructuredContent: jsontext.Value(`{"n":1}`)}, nil
		})
	srv.MustAddTool(m26.Tool{Name: "log", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			s, _ := session.FromContext(ctx)
			for _, level := range []string{"debug", "info", "warning", "error"} {
				if err := s.Log(ctx, level, "test", []byte(`"`+level+`"`)); err != nil {
					return nil, err
				}
			}
			return m26.TextResult("logged"), nil
		})
	srv.MustAddTool(m26.Tool{Name: "roots", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			r, err := m26.ListRoots(ctx, "roots")
			if err != nil {
				return nil, err
			}
			return m26.TextResult(fmt.Sprintf("%d roots", len(r.Roots))), nil
		})
	for _, uri := range []string{"test://a", "test://b"} {
		srv.MustAddResource(m26.Resource{URI: uri, Name: uri}, func(ctx context.Context, p *m26.ReadResourceRequestParams) (*m26.ReadResourceResult, error) {
			return &m26.ReadResourceResult{Contents: []m26.ReadResourceResultContentsItem{{Value: &m26.TextResourceContents{URI: p.URI, Text: "x"}}}}, nil
		})
	}
	return srv
}

// stateRecorder is an Options.OnLegacyState that keeps what it is given,
// and checks that it is called neither with the session's lock held (it
// takes a snapshot itself) nor concurrently with itself.
type stateRecorder struct {
	t       *testing.T
	s       atomic.Pointer[session.Session]
	running atomic.Int32
	mu      sync.Mutex
	got     []session.LegacyState
}

func (r *stateRecorder) add(st session.LegacyState) {
	if r.running.Add(1) != 1 {
		r.t.Error("OnLegacyState called concurrently with itself")
	}
	defer r.running.Add(-1)
	if s := r.s.Load(); s != nil {
		s.LegacyState() // would deadlock under the session's lock
	}
	r.mu.Lock()
	r.got = append(r.got, st)
	r.mu.Unlock()
}

// steps summarizes the states recorded: initialized, log level and
// subscriptions of each.
func (r *stateRecorder) steps() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, st := range r.got {
		out = append(out, fmt.Sprintf("%s init=%t level=%q subs=%v", st.Revision, st.Initialized, st.LogLevel, st.Subscriptions))
	}
	return out
}

// decoded decodes JSON text for comparisons.
func decoded(t *testing.T, v []byte) any {
	t.Helper()
	var out any
	if err := jsonUnmarshal(v, &out); err != nil {
		t.Fatalf("not JSON: %s", v)
	}
	return out
}

// nextNotification returns the next message, which must be a notification
// (at most 8 are read past answers to earlier requests).
func (p *peer) nextNotification() map[string]any {
	p.t.Helper()
	for range 8 {
		m := p.recvMsg()
		if _, ok := m["method"]; ok {
			return m
		}
	}
	p.t.Fatal("no notification among the next 8 messages")
	return nil
}

// TestLegacyStateAndResume runs a legacy session on one "instance",
// snapshots its state, ends it as if its process died, and resumes it on
// another transport from the state's JSON: the resumed session serves the
// same revision, capabilities, log level and subscriptions.
func TestLegacyStateAndResume(t *testing.T) {
	for _, tc := range []struct {
		rev        string
		structured bool // the revision has structuredContent and titles
	}{
		{"2025-03-26", false},
		{"2025-06-18", true},
		{"2025-11-25", true},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			bus := session.NewBus()
			srv := fleetServer(bus)

			// The owner.
			rec := &stateRecorder{t: t}
			a, b := transport.Pipe()
			orig := session.New(session.Server, a, srv.Handler(), session.Options{OnLegacyState: rec.add})
			rec.s.Store(orig)
			if _, ok := orig.LegacyState(); ok {
				t.Error("LegacyState before initialize: ok")
			}
			p := &peer{t: t, tr: b}
			clientCaps := `{"roots":{"listChanged":true}}`
			init := result(t, p.call(0, "initialize", `{"protocolVersion":"`+tc.rev+`","capabilities":`+clientCaps+`,"clientInfo":{"name":"peer","version":"1"}}`))
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			result(t, p.call(1, "logging/setLevel", `{"level":"warning"}`))
			result(t, p.call(2, "resources/subscribe", `{"uri":"test://a"}`))
			result(t, p.call(3, "resources/subscribe", `{"uri":"test://b"}`))
			result(t, p.call(4, "resources/subscribe", `{"uri":"test://b"}`)) // no change
			result(t, p.call(5, "resources/unsubscribe", `{"uri":"test://b"}`))
			result(t, p.call(6, "logging/setLevel", `{"level":"warning"}`)) // no change

			st, ok := orig.LegacyState()
			if !ok {
				t.Fatal("LegacyState of an initialized session: not ok")
			}
			if st.Revision != tc.rev || st.LogLevel != "warning" || !st.Initialized || !slices.Equal(st.Subscriptions, []string{"test://a"}) {
				t.Errorf("LegacyState = %+v", st)
			}
			initCaps, _ := json.Marshal(init["capabilities"])
			for name, pair := range map[string][2]any{
				"serverCapabilities": {decoded(t, initCaps), decoded(t, st.ServerCapabilities)},
				"clientCapabilities": {decoded(t, []byte(clientCaps)), decoded(t, st.ClientCapabilities)},
				"clientInfo":         {map[string]any{"name": "peer", "version": "1"}, decoded(t, st.ClientInfo)},
			} {
				if diff := cmp.Diff(pair[0], pair[1]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
			want := []string{
				tc.rev + ` init=false level="" subs=[]`,
				tc.rev + ` init=true level="" subs=[]`,
				tc.rev + ` init=true level="warning" subs=[]`,
				tc.rev + ` init=true level="warning" subs=[test://a]`,
				tc.rev + ` init=true level="warning" subs=[test://a test://b]`,
				tc.rev + ` init=true level="warning" subs=[test://a]`,
			}
			if diff := cmp.Diff(want, rec.steps()); diff != "" {
				t.Errorf("OnLegacyState calls (-want +got):\n%s", diff)
			}

			// The owner dies; its state goes through a store as JSON.
			stored, err := jsonv2.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			b.Close()
			<-orig.Done()
			st2, err := session.UnmarshalLegacyState(stored)
			if err != nil {
				t.Fatalf("UnmarshalLegacyState(%s): %v", stored, err)
			}
			if diff := cmp.Diff(st, st2); diff != "" {
				t.Fatalf("the state through JSON (-before +after):\n%s", diff)
			}

			// Another instance carries the session on.
			rec2 := &stateRecorder{t: t}
			a2, b2 := transport.Pipe()
			s2, err := session.Resume(a2, fleetServer(bus).Handler(), session.Options{OnLegacyState: rec2.add}, st2)
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			rec2.s.Store(s2)
			t.Cleanup(func() { s2.Close() })
			q := &peer{t: t, tr: b2}
			if got, ok := s2.LegacyState(); !ok || !cmp.Equal(st2, got) {
				t.Errorf("the resumed session's LegacyState = %+v, %t; want %+v", got, ok, st2)
			}

			// Requests are served at the revision, results converted to it.
			tools, _ := result(t, q.call(10, "tools/list", ""))["tools"].([]any)
			var echo map[string]any
			for _, tool := range tools {
				if tool.(map[string]any)["name"] == "echo" {
					echo = tool.(map[string]any)
				}
			}
			if _, has := echo["title"]; has != tc.structured {
				t.Errorf("tools/list at %s: echo = %v; want a title: %t", tc.rev, echo, tc.structured)
			}
			r := result(t, q.call(11, "tools/call", `{"name":"echo","arguments":{}}`))
			if _, has := r["structuredContent"]; has != tc.structured || r["content"] == nil {
				t.Errorf("tools/call at %s: %v; want structuredContent: %t", tc.rev, r, tc.structured)
			}

			// Logging is filtered at the level the client set.
			logged := func(id int) []string {
				q.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"log","arguments":{}}}`)
				var levels []string
				for range 5 {
					m := q.recvMsg()
					if m["id"] == float64(id) {
						result(t, m)
						break
					}
					levels = append(levels, m["params"].(map[string]any)["level"].(string))
				}
				return levels
			}
			if levels := logged(12); !slices.Equal(levels, []string{"warning", "error"}) {
				t.Errorf("log messages at level warning: %v, want [warning error]", levels)
			}

			// Requests to the client are numbered apart from the owner's.
			q.send(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"roots","arguments":{}}}`)
			req := q.recvMsg()
			id, _ := req["id"].(float64)
			if req["method"] != "roots/list" || id < 1<<20 || id >= 1<<53 {
				t.Fatalf("want roots/list with an id in [2^20, 2^53), got %v", req)
			}
			idText, _ := json.Marshal(req["id"])
			q.send(`{"jsonrpc":"2.0","id":` + string(idText) + `,"result":{"roots":[{"uri":"file:///r"}]}}`)
			if r := result(t, q.recvMsg()); r["content"].([]any)[0].(map[string]any)["text"] != "1 roots" {
				t.Errorf("roots tool: %v", r)
			}

			// The Bus: the subscribed resource's update reaches it, the
			// unsubscribed one's does not; list changes as declared.
			bus.Publish(session.Event{Method: session.ResourceUpdated, URI: "test://b"})
			bus.Publish(session.Event{Method: session.ResourceUpdated, URI: "test://a"})
			if n := q.nextNotification(); n["method"] != session.ResourceUpdated || n["params"].(map[string]any)["uri"] != "test://a" {
				t.Errorf("first event: %v, want the update of test://a", n)
			}
			bus.Publish(session.Event{Method: session.PromptsListChanged}) // no prompts declared
			bus.Publish(session.Event{Method: session.ToolsListChanged})
			if n := q.nextNotification(); n["method"] != session.ToolsListChanged {
				t.Errorf("next event: %v, want tools/list_changed", n)
			}

			// A second initialize is refused, as on the owner.
			m := q.call(14, "initialize", `{"protocolVersion":"`+tc.rev+`","capabilities":{},"clientInfo":{"name":"peer","version":"1"}}`)
			if errorCode(t, m) != -32600 || !strings.Contains(errorMessage(m), "already initialized") {
				t.Errorf("second initialize: %v", m)
			}

			// Changes go on being reported.
			result(t, q.call(15, "logging/setLevel", `{"level":"error"}`))
			if levels := logged(17); !slices.Equal(levels, []string{"error"}) {
				t.Errorf("log messages at level error: %v, want [error]", levels)
			}
			result(t, q.call(16, "resources/unsubscribe", `{"uri":"test://a"}`))
			want = []string{
				tc.rev + ` init=true level="error" subs=[test://a]`,
				tc.rev + ` init=true level="error" subs=[]`,
			}
			if diff := cmp.Diff(want, rec2.steps()); diff != "" {
				t.Errorf("OnLegacyState calls of the resumed session (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResumeInitializingAndCapabilities resumes sessions whose client had
// not sent notifications/initialized, with server capabilities other than
// the handler's: requests to the client wait for initialized, and the list
// changes heard follow the state's capabilities, not the handler's.
func TestResumeInitializingAndCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name  string
		caps  string
		heard string // the first of tools then prompts list_changed heard
	}{
		{"tools", `{"tools":{"listChanged":true},"logging":{}}`, session.ToolsListChanged},
		{"prompts", `{"tools":{},"prompts":{"listChanged":true},"logging":{}}`, session.PromptsListChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bus := session.NewBus()
			rec := &stateRecorder{t: t}
			a, b := transport.Pipe()
			st := session.LegacyState{
				Revision:           "2025-11-25",
				ServerCapabilities: jsontext.Value(tc.caps),
				ClientCapabilities: jsontext.Value(`{"roots":{}}`),
				ClientInfo:         jsontext.Value(`{"name":"peer","version":"1"}`),
			}
			s, err := session.Resume(a, fleetServer(bus).Handler(), session.Options{OnLegacyState: rec.add}, st)
			if err != nil {
				t.Fatal(err)
			}
			rec.s.Store(s)
			t.Cleanup(func() { s.Close() })
			p := &peer{t: t, tr: b}
			m := p.call(1, "tools/call", `{"name":"roots","arguments":{}}`)
			if r, _ := m["result"].(map[string]any); errorCode(t, m) == 0 && r["isError"] != true {
				t.Errorf("a tool asking the client before initialized: %v, want it refused", m)
			}
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			p.call(2, "ping", "")
			if got, ok := s.LegacyState(); !ok || !got.Initialized {
				t.Errorf("after initialized: %+v, %t", got, ok)
			}
			if diff := cmp.Diff([]string{`2025-11-25 init=true level="" subs=[]`}, rec.steps()); diff != "" {
				t.Errorf("OnLegacyState calls (-want +got):\n%s", diff)
			}
			bus.Publish(session.Event{Method: session.ToolsListChanged})
			bus.Publish(session.Event{Method: session.PromptsListChanged})
			if n := p.nextNotification(); n["method"] != tc.heard {
				t.Errorf("first list change heard: %v, want %s", n, tc.heard)
			}
		})
	}
}

// TestResumeErrors checks that Resume refuses what it cannot carry on,
// saying what is wrong, and starts nothing.
func TestResumeErrors(t *testing.T) {
	good := session.LegacyState{
		Revision:           "2025-06-18",
		ServerCapabilities: jsontext.Value(`{"tools":{}}`),
		ClientCapabilities: jsontext.Value(`{}`),
		ClientInfo:         jsontext.Value(`{"name":"c","version":"1"}`),
	}
	modern := m26.NewServer(m26.Implementation{Name: "s", Version: "1"}).Handler()
	legacy := mcp.NewServerHandler(mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}))
	with := func(f func(*session.LegacyState)) session.LegacyState {
		st := good
		f(&st)
		return st
	}
	for _, tc := range []struct {
		name    string
		h       session.Handler
		opts    session.Options
		st      session.LegacyState
		want    string
		unknown bool // errors.Is ErrUnknownRevision
	}{
		{"no revision", modern, session.Options{}, with(func(st *session.LegacyState) { st.Revision = "" }), "revision: missing", false},
		{"unknown revision", modern, session.Options{}, with(func(st *session.LegacyState) { st.Revision = "2099-01-01" }), `revision "2099-01-01": unknown protocol revision: mcpgen ships no revision "2099-01-01"`, true},
		{"stateless revision", modern, session.Options{}, with(func(st *session.LegacyState) { st.Revision = "2026-07-28" }), "revision 2026-07-28 is of the stateless era", false},
		{"not allowed", modern, session.Options{Revisions: []string{"2025-11-25"}}, good, "revision 2025-06-18 is not among the revisions this server allows (2025-11-25)", false},
		{"malformed capabilities", modern, session.Options{}, with(func(st *session.LegacyState) { st.ServerCapabilities = jsontext.Value(`{"tools":`) }), "serverCapabilities: malformed JSON", false},
		{"two values", modern, session.Options{}, with(func(st *session.LegacyState) { st.ClientCapabilities = jsontext.Value(`{} {}`) }), "clientCapabilities: malformed JSON: more follows the value", false},
		{"capabilities not an object", modern, session.Options{}, with(func(st *session.LegacyState) { st.ClientCapabilities = jsontext.Value(`[]`) }), "clientCapabilities: want a JSON object, got array", false},
		{"no server capabilities", modern, session.Options{}, with(func(st *session.LegacyState) { st.ServerCapabilities = nil }), "serverCapabilities: missing", false},
		{"client info not an object", modern, session.Options{}, with(func(st *session.LegacyState) { st.ClientInfo = jsontext.Value(`"c"`) }), "clientInfo: want a JSON object, got string", false},
		{"unknown log level", modern, session.Options{}, with(func(st *session.LegacyState) { st.LogLevel = "loud" }), `logLevel: unknown level "loud"`, false},
		{"subscriptions on a legacy handler", legacy, session.Options{}, with(func(st *session.LegacyState) { st.Subscriptions = []string{"test://a"} }), "this handler speaks 2025-11-25 and keeps its own", false},
		{"no handler", nil, session.Options{}, good, "the handler names no revision: want a server's handler", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := transport.Pipe()
			defer b.Close()
			s, err := session.Resume(a, tc.h, tc.opts, tc.st)
			if err == nil {
				s.Close()
				t.Fatal("Resume: no error")
			}
			if s != nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "session: resume: ") {
				t.Errorf("Resume: %v, %v; want an error containing %q", s, err, tc.want)
			}
			if got := errors.Is(err, session.ErrUnknownRevision); got != tc.unknown {
				t.Errorf("errors.Is(%v, ErrUnknownRevision) = %t, want %t", err, got, tc.unknown)
			}
		})
	}
}

// TestUnmarshalLegacyState checks the JSON form: members it does not know
// are ignored, and what it cannot use is an error naming the member.
func TestUnmarshalLegacyState(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     session.LegacyState
		err      string
	}{
		{"all", `{"revision":"2025-03-26","serverCapabilities":{"logging":{}},"clientCapabilities":{},"clientInfo":{"name":"c","version":"1"},"logLevel":"info","subscriptions":["a","b"],"initialized":true}`,
			session.LegacyState{Revision: "2025-03-26", ServerCapabilities: jsontext.Value(`{"logging":{}}`), ClientCapabilities: jsontext.Value(`{}`), ClientInfo: jsontext.Value(`{"name":"c","version":"1"}`), LogLevel: "info", Subscriptions: []string{"a", "b"}, Initialized: true}, ""},
		{"unknown members ignored", `{"revision":"2025-11-25","serverCapabilities":{},"clientCapabilities":{},"future":[1,2]}`,
			session.LegacyState{Revision: "2025-11-25", ServerCapabilities: jsontext.Value(`{}`), ClientCapabilities: jsontext.Value(`{}`)}, ""},
		{"not JSON", `{"revision":`, session.LegacyState{}, "legacy session state: jsontext: unexpected EOF"},
		{"duplicate member", `{"revision":"2025-11-25","revision":"2025-06-18"}`, session.LegacyState{}, "duplicate object member"},
		// json's wording varies from run to run on purpose: only its
		// stable part is checked.
		{"wrong type", `{"revision":7}`, session.LegacyState{}, `JSON number into Go string within "/revision"`},
		{"null capabilities", `{"revision":"2025-11-25","serverCapabilities":null,"clientCapabilities":{}}`, session.LegacyState{}, "serverCapabilities: want a JSON object, got null"},
		{"long revision", `{"revision":"` + strings.Repeat("x", 100) + `"}`, session.LegacyState{}, `revision "` + strings.Repeat("x", 32) + `"…: unknown protocol revision`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := session.UnmarshalLegacyState([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("UnmarshalLegacyState: %+v, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLegacyStateNotLegacy checks that sessions other than a legacy
// server's have no LegacyState: a client's, and a server's that serves
// the stateless era.
func TestLegacyStateNotLegacy(t *testing.T) {
	srv := testServer(t)
	a, b := transport.Pipe()
	s := session.New(session.Server, a, mcp.NewServerHandler(srv), session.Options{})
	c := session.New(session.Client, b, mcp.NewClientHandler(nil), session.Options{})
	defer c.Close()
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, session.Raw(`{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "ping", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.LegacyState(); !ok {
		t.Error("the server of an initialized session: not ok")
	}
	if st, ok := c.LegacyState(); ok {
		t.Errorf("a client's LegacyState: %+v, ok", st)
	}

	a2, b2 := transport.Pipe()
	defer b2.Close()
	s2 := session.New(session.Server, a2, m26.NewServer(m26.Implementation{Name: "s", Version: "1"}).Handler(), session.Options{})
	defer s2.Close()
	q := &peer{t: t, tr: b2}
	result(t, q.call(1, "tools/list", `{`+meta26+`}`))
	if st, ok := s2.LegacyState(); ok {
		t.Errorf("a server of the stateless era: %+v, ok", st)
	}
}

// FuzzLegacyState decodes arbitrary bytes as a stored state: it never
// panics, and a state it accepts encodes to JSON that decodes to the same
// state, which encodes to the same JSON.
func FuzzLegacyState(f *testing.F) {
	for _, s := range []string{
		`{"revision":"2025-06-18","serverCapabilities":{"tools":{"listChanged":true}},"clientCapabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"},"logLevel":"info","subscriptions":["test://a"],"initialized":true}`,
		`{"revision":"2025-11-25","serverCapabilities":{ },"clientCapabilities":{"x":[1, 2.50]},"more":null}`,
		`{"revision":"2026-07-28","serverCapabilities":{},"clientCapabilities":{}}`,
		`{"revision":"2025-03-26","serverCapabilities":[],"clientCapabilities":{}}`,
		`{"revision":"2025-03-26","serverCapabilities":{},"clientCapabilities":{},"subscriptions":[]}`,
		`{"revision":"2025-03-26","serverCapabilities":{},"clientCapabilities":{},"logLevel":"loud"}`,
		`{`, `null`, `[]`, "\xff", `{"revision":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := session.UnmarshalLegacyState(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "legacy session state: ") {
				t.Errorf("error %q does not say what it is about", err)
			}
			return
		}
		b, err := jsonv2.Marshal(st)
		if err != nil {
			t.Fatalf("Marshal of an accepted state %+v: %v", st, err)
		}
		st2, err := session.UnmarshalLegacyState(b)
		if err != nil {
			t.Fatalf("UnmarshalLegacyState(%s), which Marshal made: %v", b, err)
		}
		compact := cmp.Transformer("compact", func(v jsontext.Value) string {
			c := v.Clone()
			if err := c.Compact(); err != nil {
				return "invalid: " + string(v)
			}
			return string(c)
		})
		if diff := cmp.Diff(st, st2, compact); diff != "" {
			t.Fatalf("through JSON (-before +after):\n%s", diff)
		}
		b2, err := jsonv2.Marshal(st2)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("encoded again: %s, %v; want %s", b2, err, b)
		}
	})
}
