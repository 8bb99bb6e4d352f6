package session_test

import (
	"context"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// L-1: initialize is the first interaction; other requests are refused
// before it, and the session keeps serving.
func TestL1RequestBeforeInitialize(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	m := p.call(1, "tools/list", "")
	if errorCode(t, m) != jsonrpc.InvalidRequest || !contains(errorMessage(m), "initialize") {
		t.Fatalf("tools/list before initialize: %v", m)
	}
	p.initialize("2025-11-25")
	if m := p.call(2, "tools/list", ""); errorCode(t, m) != 0 {
		t.Fatalf("tools/list after initialize: %v", m)
	}
}

// U-G1: ping is answered with {} at any time, even before initialize.
func TestUG1PingBeforeInitialize(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	m := p.call(7, "ping", "")
	if r := result(t, m); len(r) != 0 || m["id"].(float64) != 7 {
		t.Fatalf("ping: %v", m)
	}
}

// L-4: the server answers with the offered revision when it has it,
// otherwise with its newest; L-6: the answer has capabilities and
// serverInfo.
func TestL4Negotiation(t *testing.T) {
	for _, tt := range []struct{ offer, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2024-10-07", "2025-11-25"},
		{"2099-01-01", "2025-11-25"},
	} {
		t.Run(tt.offer, func(t *testing.T) {
			p, _ := serve(t, testServer(t), session.Options{})
			r := p.initialize(tt.offer)
			if r["protocolVersion"] != tt.want {
				t.Errorf("offered %s, answered %v, want %s", tt.offer, r["protocolVersion"], tt.want)
			}
			if _, ok := r["capabilities"].(map[string]any); !ok {
				t.Errorf("L-6: no capabilities in %v", r)
			}
			if info, ok := r["serverInfo"].(map[string]any); !ok || info["name"] != "test" {
				t.Errorf("L-6: no serverInfo in %v", r)
			}
		})
	}
	// A server restricted to some revisions answers within them.
	p, _ := serve(t, testServer(t), session.Options{Revisions: []string{"2025-03-26"}})
	if r := p.initialize("2025-11-25"); r["protocolVersion"] != "2025-03-26" {
		t.Errorf("restricted server answered %v", r["protocolVersion"])
	}
}

// A second initialize is refused.
func TestInitializeTwice(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-11-25")
	if m := p.call(9, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`); errorCode(t, m) != jsonrpc.InvalidRequest {
		t.Fatalf("second initialize: %v", m)
	}
}

// fakeServer answers the client's initialize with version and records what
// the client sends.
func fakeServer(t *testing.T, tr transport.Transport, version string) (got chan map[string]any) {
	got = make(chan map[string]any, 16)
	p := &peer{t: t, tr: tr}
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			b, err := tr.Read(ctx)
			cancel()
			if err != nil {
				close(got)
				return
			}
			var m map[string]any
			if jsonUnmarshal(b, &m) != nil {
				continue
			}
			got <- m
			if m["method"] == "initialize" {
				p.send(`{"jsonrpc":"2.0","id":` + itoa(int(m["id"].(float64))) + `,"result":{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`)
			}
		}
	}()
	return got
}

// L-2, L-3, L-7: the client offers its newest revision with capabilities
// and clientInfo, then sends notifications/initialized.
func TestL7ClientSendsInitialized(t *testing.T) {
	a, b := transport.Pipe()
	got := fakeServer(t, b, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := <-got
	params := init["params"].(map[string]any)
	if params["protocolVersion"] != "2025-11-25" || params["clientInfo"].(map[string]any)["name"] != "client" || params["capabilities"] == nil {
		t.Errorf("L-2/L-3: initialize params %v", params)
	}
	if n := <-got; n["method"] != "notifications/initialized" {
		t.Errorf("L-7: after initialize the client sent %v", n)
	}
}

// L-5: a client that does not implement the server's revision disconnects.
func TestL5ClientRejectsUnknownRevision(t *testing.T) {
	a, b := transport.Pipe()
	fakeServer(t, b, "2099-01-01")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}})
	if err == nil || !contains(err.Error(), "2099-01-01") {
		t.Fatalf("Connect to a server answering 2099-01-01: %v", err)
	}
}

// L-8: before initialize the client sends nothing but ping.
func TestL8NoRequestsBeforeInitialize(t *testing.T) {
	a, _ := transport.Pipe()
	s := session.New(session.Client, a, mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
	defer s.Close()
	if _, err := s.Call(context.Background(), "tools/list", nil); err == nil || !contains(err.Error(), "the session is not initialized") {
		t.Errorf("tools/list before initialize: %v", err)
	}
}

// L-9: the server sends no request but ping before the client's
// notifications/initialized.
func TestL9NoServerRequestsBeforeInitialized(t *testing.T) {
	p, s := serve(t, testServer(t), session.Options{})
	p.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"peer","version":"1"}}`)
	ss := &mcp.ServerSession{Session: s}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := ss.ListRoots(ctx, nil); err == nil || !contains(err.Error(), "has not sent notifications/initialized") {
		t.Errorf("roots/list before initialized: %v", err)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.call(99, "ping", "") // messages are handled in order: initialized has been seen
	// The server may now ask; the peer answers.
	done := make(chan error, 1)
	go func() {
		_, err := ss.ListRoots(ctx, nil)
		done <- err
	}()
	m := p.recvMsg()
	if m["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":` + itoa(int(m["id"].(float64))) + `,"result":{"roots":[]}}`)
	if err := <-done; err != nil {
		t.Errorf("roots/list after initialized: %v", err)
	}
}

// L-10, M-6: a 2025-03-26 session accepts batches and answers them as a
// batch, but never with initialize inside; later revisions refuse batches.
func TestM6Batches(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-03-26")
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
	batch, ok := p.recv().([]any)
	if !ok || len(batch) != 2 {
		t.Fatalf("want a batch of two responses, got %v", batch)
	}
	p.send(`[{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}]`)
	batch, _ = p.recv().([]any)
	if len(batch) != 1 || errorCode(t, batch[0].(map[string]any)) != jsonrpc.InvalidRequest {
		t.Fatalf("L-10: initialize in a batch: %v", batch)
	}
	for _, rev := range []string{"2025-06-18", "2025-11-25"} {
		p, _ := serve(t, testServer(t), session.Options{})
		p.initialize(rev)
		p.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
		if m := p.recvMsg(); errorCode(t, m) != jsonrpc.InvalidRequest || m["id"] != nil {
			t.Errorf("%s: a batch: %v", rev, m)
		}
	}
}

// Bad input never kills a session: each malformed message gets the right
// error, and the session keeps serving.
func TestBadInputKeepsServing(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-11-25")
	tests := []struct {
		name, send string
		code       int
		contains   string
	}{
		{"invalid JSON", `{"jsonrpc":"2.0",`, jsonrpc.ParseError, ""},
		{"not a request", `{"jsonrpc":"2.0","id":1}`, jsonrpc.InvalidRequest, ""},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, jsonrpc.InvalidRequest, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate"}`, jsonrpc.MethodNotFound, "tools/frobnicate"},
		{"server method the wrong way", `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, jsonrpc.MethodNotFound, ""},
		{"params with a wrong type", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, jsonrpc.InvalidParams, "/name: want string"},
		{"params missing", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, jsonrpc.InvalidParams, "required"},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`, jsonrpc.InvalidParams, ""},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, jsonrpc.InvalidParams, "nope"},
		{"handler panic", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic"}}`, jsonrpc.InternalError, "tools/call"},
		{"invalid cursor", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"!!"}}`, jsonrpc.InvalidParams, "cursor"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.send(tt.send)
			m := p.recvMsg()
			if errorCode(t, m) != tt.code || !contains(errorMessage(m), tt.contains) {
				t.Errorf("%s: got %v, want code %d mentioning %q", tt.send, m, tt.code, tt.contains)
			}
			if pong := p.call(1000+i, "ping", ""); errorCode(t, pong) != 0 {
				t.Errorf("ping after %s: %v", tt.name, pong)
			}
		})
	}
}

// U-C1, U-C4: notifications/cancelled cancels the handler's context, and
// the cancelled request gets no response.
func TestUC1IncomingCancellation(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"block"}}`)
	time.Sleep(50 * time.Millisecond)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}}`)
	select {
	case err := <-blockedDone:
		if err == nil {
			t.Error("the handler's context was not cancelled")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler was not cancelled")
	}
	if m := p.call(1, "ping", ""); m["id"].(float64) != 1 {
		t.Errorf("after the cancellation the next message was %v, not the ping's answer", m)
	}
	// Unknown and malformed cancellations are ignored.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`)
	if m := p.call(2, "ping", ""); errorCode(t, m) != 0 {
		t.Errorf("ping: %v", m)
	}
}

// U-C1, L-15: a cancelled or timed-out outgoing call sends
// notifications/cancelled with its ID; U-C3: initialize never is.
func TestUC1OutgoingCancellation(t *testing.T) {
	a, b := transport.Pipe()
	got := fakeServer(t, b, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}, Session: session.Options{CallTimeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-got // initialize
	<-got // initialized
	if _, err := c.Call(ctx, "tools/list", nil); err == nil {
		t.Fatal("a call the server never answers succeeded")
	}
	req := <-got
	if req["method"] != "tools/list" {
		t.Fatalf("want tools/list, got %v", req)
	}
	n := <-got
	if n["method"] != "notifications/cancelled" || n["params"].(map[string]any)["requestId"] != req["id"] {
		t.Errorf("after the timeout the client sent %v, want notifications/cancelled for %v", n, req["id"])
	}
}

// U-P1…U-P3: progress reports reach the caller's callback, in order.
func TestUPProgress(t *testing.T) {
	a, b := transport.Pipe()
	go mcp.Serve(context.Background(), a, testServer(t), session.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, b, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []float64
	res, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "progress"}, session.WithProgress(func(p session.Progress) {
		got = append(got, p.Progress)
	}))
	if err != nil || res.IsError != nil {
		t.Fatalf("progress tool: %v %v", res, err)
	}
	if len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("progress reports %v, want [1 2 3]", got)
	}
}

// Logging: notifications/message honours the level set with
// logging/setLevel.
func TestLoggingLevel(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-11-25")
	if m := p.call(1, "logging/setLevel", `{"level":"info"}`); errorCode(t, m) != 0 {
		t.Fatalf("setLevel: %v", m)
	}
	if m := p.call(2, "logging/setLevel", `{"level":"loud"}`); errorCode(t, m) != jsonrpc.InvalidParams {
		t.Errorf("setLevel loud: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"log"}}`)
	var levels []string
	for {
		m := p.recvMsg()
		if m["method"] == "notifications/message" {
			levels = append(levels, m["params"].(map[string]any)["level"].(string))
			continue
		}
		break
	}
	if len(levels) != 2 || levels[0] != "info" || levels[1] != "error" {
		t.Errorf("logged %v at level info, want [info error]", levels)
	}
}

// L-17: a request for a capability the server did not declare is refused
// by the server, and the client refuses to send one the server did not
// declare.
func TestL17CapabilityGating(t *testing.T) {
	p, _ := serve(t, bareServer{}, session.Options{})
	p.initialize("2025-11-25")
	if m := p.call(1, "tools/list", ""); errorCode(t, m) != jsonrpc.MethodNotFound || !contains(errorMessage(m), "tools") {
		t.Errorf("tools/list on a server without tools: %v", m)
	}
	a, b := transport.Pipe()
	go mcp.Serve(context.Background(), a, bareServer{}, session.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, b, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListTools(ctx, nil); err == nil || !contains(err.Error(), "the capability tools was not declared") {
		t.Errorf("client sending tools/list to a server without tools: %v", err)
	}
	// The server refuses to sample a client that did not declare sampling.
	ss := &mcp.ServerSession{}
	_ = ss
}

// bareServer declares no capabilities.
type bareServer struct{ mcp.UnimplementedServer }

func (bareServer) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ServerInfo: mcp.Implementation{Name: "bare", Version: "1"}}, nil
}

// L-11: after negotiating an older revision the server speaks only it:
// members the older revision lacks never reach the client.
func TestL11OlderRevisionGetsItsOwnShape(t *testing.T) {
	for _, tt := range []struct {
		rev          string
		title, icons bool
	}{
		{"2025-11-25", true, true},
		{"2025-06-18", true, false},
		{"2025-03-26", false, false},
	} {
		t.Run(tt.rev, func(t *testing.T) {
			p, _ := serve(t, testServer(t), session.Options{})
			p.initialize(tt.rev)
			r := result(t, p.call(1, "tools/list", ""))
			tool := r["tools"].([]any)[0].(map[string]any)
			if _, has := tool["title"]; has != tt.title {
				t.Errorf("title present = %v, want %v: %v", has, tt.title, tool)
			}
			if _, has := tool["icons"]; has != tt.icons {
				t.Errorf("icons present = %v, want %v: %v", has, tt.icons, tool)
			}
		})
	}
}

// Server → client requests: the server samples through the client.
func TestSampling(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}`)
	m := p.recvMsg()
	if m["method"] != "sampling/createMessage" {
		t.Fatalf("want sampling/createMessage, got %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":` + itoa(int(m["id"].(float64))) + `,"result":{"model":"m1","role":"assistant","content":{"type":"text","text":"ok"}}}`)
	r := result(t, p.recvMsg())
	if text := r["content"].([]any)[0].(map[string]any)["text"]; text != "model m1" {
		t.Errorf("tool result %v", r)
	}
}

// The in-flight limit answers excess requests with Busy, and a request ID
// already in flight is refused (M-2).
func TestInFlightLimitAndDuplicateIDs(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{MaxInFlight: 1})
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	time.Sleep(50 * time.Millisecond)
	if m := p.call(1, "tools/list", ""); errorCode(t, m) != jsonrpc.InvalidRequest {
		t.Errorf("duplicate ID: %v", m)
	}
	if m := p.call(2, "tools/list", ""); errorCode(t, m) != session.Busy {
		t.Errorf("over the limit: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	<-blockedDone
}

// Clean shutdown: Close cancels in-flight handlers (at once, with no drain
// time) and fails pending calls.
func TestCloseCancelsEverything(t *testing.T) {
	p, s := serve(t, testServer(t), session.Options{DrainTimeout: -1})
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	time.Sleep(50 * time.Millisecond)
	done := make(chan error, 1)
	go func() {
		_, err := (&mcp.ServerSession{Session: s}).ListRoots(context.Background(), nil)
		done <- err
	}()
	p.recvMsg() // the roots/list request
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-blockedDone:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not cancel the handler")
	}
	if err := <-done; err == nil {
		t.Error("a pending call survived Close")
	}
}

// slowWriter is a transport whose Write of requests blocks until its ctx
// ends, as Streamable HTTP's does while it waits for a JSON answer.
type slowWriter struct {
	transport.Transport
	sent chan string
}

func (w *slowWriter) Write(ctx context.Context, data []byte) error {
	var m map[string]any
	if jsonUnmarshal(data, &m) == nil && m["method"] == "tools/list" {
		<-ctx.Done()
		return ctx.Err()
	}
	if jsonUnmarshal(data, &m) == nil {
		if method, _ := m["method"].(string); method != "" {
			w.sent <- method
		}
	}
	return w.Transport.Write(ctx, data)
}

// U-C1: a call whose context ends while the transport is still sending it
// is cancelled at the peer too.
func TestUC1CancelWhileSending(t *testing.T) {
	a, b := transport.Pipe()
	fakeServer(t, b, "2025-11-25")
	w := &slowWriter{Transport: a, sent: make(chan string, 8)}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, w, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-w.sent // initialize
	<-w.sent // notifications/initialized
	callCtx, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if _, err := c.Call(callCtx, "tools/list", nil); err == nil {
		t.Fatal("the call succeeded")
	}
	select {
	case m := <-w.sent:
		if m != "notifications/cancelled" {
			t.Errorf("after the context ended the client sent %s, want notifications/cancelled", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/cancelled")
	}
}
