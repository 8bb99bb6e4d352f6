package session_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The requestState tests run a tool, "confirm", that asks the client for
// its roots under the key "r" and completes once it has them.
const (
	rootsMeta   = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	rootsAnswer = `"inputResponses":{"r":{"roots":[{"uri":"file:///home/alice"}]}}`
)

// stateServer is a StandardServer of 2026-07-28 with the tool "confirm",
// which records for each run whether it had the client's answer.
type stateServer struct {
	srv  *m26.StandardServer
	mu   sync.Mutex
	runs []bool
}

func newStateServer(t *testing.T) *stateServer {
	t.Helper()
	s := &stateServer{srv: m26.NewServer(m26.Implementation{Name: "state", Version: "1"})}
	err := s.srv.AddTool(m26.Tool{Name: "confirm", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			_, err := m26.ListRoots(ctx, "r")
			s.mu.Lock()
			s.runs = append(s.runs, err == nil)
			s.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "confirmed"}}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ranWith returns, for each run of the tool so far, whether it had the
// answer, and forgets them.
func (s *stateServer) ranWith() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.runs
	s.runs = nil
	return r
}

// endpoint is a server that answers stateless requests: a Stateless, as
// Streamable HTTP has one per endpoint, or a Session reading them (stdio).
type endpoint interface {
	// call sends tools/call confirm, as principal, with args and the
	// members extra (inputResponses, requestState; "" for none).
	call(t *testing.T, principal, args, extra string) *jsonrpc.Message
}

type statelessEndpoint struct{ x *session.Stateless }

func newStatelessEndpoint(t *testing.T, s *stateServer, opts session.Options) endpoint {
	x := session.NewStateless(s.srv.Handler(), opts)
	t.Cleanup(x.Close)
	return statelessEndpoint{x}
}

func (e statelessEndpoint) call(t *testing.T, principal, args, extra string) *jsonrpc.Message {
	t.Helper()
	ctx := context.Background()
	if principal != "" {
		ctx = session.WithPrincipal(ctx, principal)
	}
	m, _ := e.x.Serve(ctx, confirmRequest(args, extra), func(context.Context, []byte) error { return nil })
	return m
}

func confirmRequest(args, extra string) *jsonrpc.Message {
	params := `{` + rootsMeta + `,"name":"confirm","arguments":` + args
	if extra != "" {
		params += `,` + extra
	}
	return &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/call", Params: []byte(params + `}`)}
}

// sessionEndpoint is a Session serving stateless requests over a pipe.
type sessionEndpoint struct{ p *peer }

func newSessionEndpoint(t *testing.T, s *stateServer, opts session.Options) endpoint {
	a, b := transport.Pipe()
	sess := session.New(session.Server, a, s.srv.Handler(), opts)
	t.Cleanup(func() { sess.Close() })
	return sessionEndpoint{&peer{t: t, tr: b}}
}

func (e sessionEndpoint) call(t *testing.T, principal, args, extra string) *jsonrpc.Message {
	t.Helper()
	if principal != "" {
		t.Fatal("a Session over a pipe has no principal")
	}
	m := e.p.call(1, "tools/call", string(confirmRequest(args, extra).Params))
	out := &jsonrpc.Message{Kind: jsonrpc.Response}
	if r, ok := m["result"]; ok {
		out.Result, _ = json.Marshal(r)
	} else {
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		msg, _ := e["message"].(string)
		out.Error = &jsonrpc.Error{Code: int64(code), Message: msg}
	}
	return out
}

// inputRequired returns the requestState of m, an InputRequiredResult that
// asks for "r".
func inputRequired(t *testing.T, what string, m *jsonrpc.Message) string {
	t.Helper()
	var r struct {
		ResultType    string         `json:"resultType"`
		InputRequests map[string]any `json:"inputRequests"`
		RequestState  string         `json:"requestState"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.ResultType != "input_required" || r.InputRequests["r"] == nil || r.RequestState == "" {
		t.Fatalf("%s: %s %v, want an InputRequiredResult asking for r, with a requestState", what, m.Result, m.Error)
	}
	return r.RequestState
}

// completed fails t unless m is the tool's complete result.
func completed(t *testing.T, what string, m *jsonrpc.Message) {
	t.Helper()
	if m.Error != nil || !strings.Contains(string(m.Result), `"resultType":"complete"`) || !strings.Contains(string(m.Result), "confirmed") {
		t.Fatalf("%s: %s %v, want the tool's complete result", what, m.Result, m.Error)
	}
}

// refused fails t unless m is -32602 about the requestState, with want in
// its message.
func refused(t *testing.T, what string, m *jsonrpc.Message, want string) {
	t.Helper()
	if m.Error == nil || m.Error.Code != jsonrpc.InvalidParams || !strings.Contains(m.Error.Message, "/requestState") || !strings.Contains(m.Error.Message, want) {
		t.Fatalf("%s: %s %v, want -32602 about /requestState saying %q", what, m.Result, m.Error, want)
	}
}

func retry(state string) string {
	q, _ := json.Marshal(state)
	return rootsAnswer + `,"requestState":` + string(q)
}

// Two servers in one process do not accept each other's requestState: a
// client of one (or an attacker holding a state of one) cannot take it to
// the other, whether they use the default key and audience or share a key
// ring; only servers given the same keys and the same StateAudience, the
// instances of one deployment, do.
func TestStateAudience(t *testing.T) {
	ring, err := reqstate.NewRing(mustKey(t, "k1"))
	if err != nil {
		t.Fatal(err)
	}
	shared := session.SealWith(&reqstate.Sealer{Ring: ring})
	const fleet = "https://mcp.example.com/mcp"
	tests := []struct {
		name     string
		a, b     session.Options
		sameSrv  bool // one StandardServer behind both endpoints
		sessions bool // Sessions (stdio) rather than Stateless (HTTP)
		accepted bool
	}{
		{name: "default key and audience", a: session.Options{}, b: session.Options{}},
		{name: "one server at two endpoints", a: session.Options{}, b: session.Options{}, sameSrv: true},
		{name: "two sessions", a: session.Options{}, b: session.Options{}, sessions: true},
		{name: "same ring, default audiences", a: session.Options{Sealer: shared}, b: session.Options{Sealer: shared}},
		{name: "same ring, other audiences", a: session.Options{Sealer: shared, StateAudience: "https://a.example.com/mcp"}, b: session.Options{Sealer: shared, StateAudience: "https://b.example.com/mcp"}},
		{name: "same ring, same audience", a: session.Options{Sealer: shared, StateAudience: fleet}, b: session.Options{Sealer: shared, StateAudience: fleet}, accepted: true},
		{name: "same ring, same audience, sessions", a: session.Options{Sealer: shared, StateAudience: fleet}, b: session.Options{Sealer: shared, StateAudience: fleet}, sessions: true, accepted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srvA, srvB := newStateServer(t), newStateServer(t)
			if tt.sameSrv {
				srvB = srvA
			}
			newEndpoint := newStatelessEndpoint
			if tt.sessions {
				newEndpoint = newSessionEndpoint
			}
			a, b := newEndpoint(t, srvA, tt.a), newEndpoint(t, srvB, tt.b)
			state := inputRequired(t, "A's first round", a.call(t, "", `{}`, ""))
			srvA.ranWith()

			m := b.call(t, "", `{}`, retry(state))
			if !tt.accepted {
				refused(t, "A's state at B", m, "issued for another request")
				if runs := srvB.ranWith(); len(runs) != 0 {
					t.Errorf("B ran the tool %d times on a state it refused", len(runs))
				}
				// A still takes its own state.
				completed(t, "A's state at A", a.call(t, "", `{}`, retry(state)))
				return
			}
			completed(t, "A's state at B", m)
			if runs := srvB.ranWith(); len(runs) != 1 || !runs[0] {
				t.Errorf("B's runs with the answer: %v, want [true]", runs)
			}
		})
	}
}

// The server's own audience binds its states, whatever audience the values
// it serves a request with (those of an HTTP request) name: two servers
// that are given the same one there still refuse each other's states.
func TestStateAudienceOfServer(t *testing.T) {
	srvA, srvB := newStateServer(t), newStateServer(t)
	a := session.NewStateless(srvA.srv.Handler(), session.Options{})
	defer a.Close()
	b := session.NewStateless(srvB.srv.Handler(), session.Options{})
	defer b.Close()
	vals := session.WithStateAudience(context.Background(), "https://mcp.example.com/mcp")
	discard := func(context.Context, []byte) error { return nil }
	m, _ := a.Serve(vals, confirmRequest(`{}`, ""), discard)
	state := inputRequired(t, "A's first round", m)
	m, _ = b.Serve(vals, confirmRequest(`{}`, retry(state)), discard)
	refused(t, "A's state at B", m, "issued for another request")
	m, _ = a.Serve(vals, confirmRequest(`{}`, retry(state)), discard)
	completed(t, "A's state at A", m)
}

// A server that restarted between two rounds (a new process, so a new
// default key), or whose ring no longer has the key of a state, cannot open
// it: the retry starts the call over, as a first round, and the answers that
// came with the state are not given to the handler, which asks again. The
// client then completes the call with the new server.
func TestStateRestartStartsOver(t *testing.T) {
	const fleet = "https://mcp.example.com/mcp"
	ephemeral := func() session.Options {
		return session.Options{Sealer: session.SealWith(&reqstate.Sealer{Ring: reqstate.NewEphemeralRing()}), StateAudience: fleet}
	}
	ring, err := reqstate.NewRing(mustKey(t, "k1"))
	if err != nil {
		t.Fatal(err)
	}
	rotating := session.Options{Sealer: session.SealWith(&reqstate.Sealer{Ring: ring}), StateAudience: fleet}
	tests := []struct {
		name     string
		before   session.Options
		restart  func(t testing.TB)
		after    func() session.Options
		sessions bool
	}{
		{
			name:    "default key, new process",
			restart: session.NewProcessKey,
		},
		{
			name:     "default key, new process, sessions",
			restart:  session.NewProcessKey,
			sessions: true,
		},
		{
			name:   "ephemeral rings, same audience",
			before: ephemeral(),
			after:  ephemeral,
		},
		{
			name:   "key retired",
			before: rotating,
			restart: func(t testing.TB) {
				if err := ring.Rotate(mustKey(t, "k2")); err != nil {
					t.Fatal(err)
				}
				if err := ring.Retire("k1"); err != nil {
					t.Fatal(err)
				}
			},
			after: func() session.Options { return rotating },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newEndpoint := newStatelessEndpoint
			if tt.sessions {
				newEndpoint = newSessionEndpoint
			}
			first := newStateServer(t)
			state := inputRequired(t, "first round", newEndpoint(t, first, tt.before).call(t, "", `{}`, ""))

			if tt.restart != nil {
				tt.restart(t)
			}
			opts := tt.before
			if tt.after != nil {
				opts = tt.after()
			}
			srv := newStateServer(t)
			e := newEndpoint(t, srv, opts)
			state2 := inputRequired(t, "retry after the restart", e.call(t, "", `{}`, retry(state)))
			if runs := srv.ranWith(); len(runs) != 1 || runs[0] {
				t.Fatalf("runs after the restart (whether each had the answer): %v, want one run without it", runs)
			}
			completed(t, "the new round", e.call(t, "", `{}`, retry(state2)))
			if runs := srv.ranWith(); len(runs) != 1 || !runs[0] {
				t.Errorf("runs of the new round: %v, want one run with the answer", runs)
			}
		})
	}
}

// A state sealed under a key the server has but that does not open (changed,
// moved to other arguments or another user, expired, unreadable) is still
// refused with -32602, and the tool does not run: starting over is only for
// keys the server does not have.
func TestStateKnownKeyRefused(t *testing.T) {
	ring, err := reqstate.NewRing(mustKey(t, "k1"))
	if err != nil {
		t.Fatal(err)
	}
	clock := struct {
		sync.Mutex
		now time.Time
	}{now: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	now := func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		return clock.now
	}
	srv := newStateServer(t)
	e := newStatelessEndpoint(t, srv, session.Options{Sealer: session.SealWith(&reqstate.Sealer{Ring: ring, Now: now})})
	state := inputRequired(t, "first round", e.call(t, "alice", `{"n":1}`, ""))
	srv.ranWith()

	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2+4] ^= 1 // in the ciphertext, past the key ID
	tampered := base64.RawURLEncoding.EncodeToString(raw)

	tests := []struct {
		name, principal, args, extra, want string
	}{
		{"tampered", "alice", `{"n":1}`, retry(tampered), "tampered"},
		{"other arguments", "alice", `{"n":2}`, retry(state), "issued for another request"},
		{"other principal", "mallory", `{"n":1}`, retry(state), "issued for another request"},
		{"no principal", "", `{"n":1}`, retry(state), "issued for another request"},
		{"not base64url", "alice", `{"n":1}`, retry(state + "!"), "malformed"},
		{"not a string", "alice", `{"n":1}`, rootsAnswer + `,"requestState":7`, "not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused(t, tt.name, e.call(t, tt.principal, tt.args, tt.extra), tt.want)
			if runs := srv.ranWith(); len(runs) != 0 {
				t.Errorf("the tool ran %d times on a state that was refused", len(runs))
			}
		})
	}

	completed(t, "the state itself", e.call(t, "alice", `{"n":1}`, retry(state)))
	srv.ranWith()
	clock.Lock()
	clock.now = clock.now.Add(reqstate.DefaultTTL)
	clock.Unlock()
	refused(t, "expired", e.call(t, "alice", `{"n":1}`, retry(state)), "expired")
	if runs := srv.ranWith(); len(runs) != 0 {
		t.Errorf("the tool ran %d times on an expired state", len(runs))
	}
}

// mustKey returns a key with a random secret.
func mustKey(t testing.TB, id string) reqstate.Key {
	t.Helper()
	k, err := reqstate.GenerateKey(id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
