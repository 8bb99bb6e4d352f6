package session_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// stdioPeer is a scripted client of a server session over stdio pipes,
// which reads the server's output only when the test says so.
type stdioPeer struct {
	t   *testing.T
	ctx context.Context
	in  *io.PipeWriter // the server's input
	out *bufio.Reader  // the server's output
}

// newStdioPeer starts a server session for srv over stdio pipes, with
// opts, and initializes it as a client with the roots capability.
func newStdioPeer(t *testing.T, srv *mcp.StandardServer, opts session.Options) (*stdioPeer, *session.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := session.New(session.Server, stdio.New(inR, outW), mcp.NewServerHandler(srv), opts)
	t.Cleanup(func() {
		// Let the server end: read what it still writes, end its input.
		go io.Copy(io.Discard, outR)
		inW.Close()
		select {
		case <-s.Done():
		case <-time.After(10 * time.Second):
			t.Error("the session did not end after its input did")
		}
		outR.Close()
	})
	p := &stdioPeer{t: t, ctx: ctx, in: inW, out: bufio.NewReader(outR)}
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"peer","version":"1"}}}`)
	if m := p.next(); m["id"] != 0.0 || m["result"] == nil {
		t.Fatalf("initialize answer: %v", m)
	}
	p.send(pipedInitialized)
	// A round trip: the server has seen notifications/initialized.
	p.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	if m := p.next(); m["id"] != "sync" {
		t.Fatalf("ping answer: %v", m)
	}
	return p, s
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// read runs f, which reads the server's output, failing the test if the
// output does not come.
func (p *stdioPeer) read(what string, f func() error) {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			p.t.Fatalf("reading %s: %v", what, err)
		}
	case <-p.ctx.Done():
		p.t.Fatalf("no %s from the server", what)
	}
}

// next returns the next message the server writes.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	var m map[string]any
	p.read("message", func() error {
		line, err := p.out.ReadString('\n')
		if err != nil {
			return err
		}
		return json.Unmarshal([]byte(line), &m)
	})
	return m
}

// askServer has the tools count (answers at once), big (answers 256 KiB)
// and ask (asks the client for its roots, then answers).
func askServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "ask", Version: "1"})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: s}}}}
	}
	srv.MustAddTool(mcp.Tool{Name: "count", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text("counted"), nil
	})
	srv.MustAddTool(mcp.Tool{Name: "big", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return text(strings.Repeat("x", 256<<10)), nil
	})
	srv.MustAddTool(mcp.Tool{Name: "ask", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		s, _ := session.FromContext(ctx)
		if _, err := (&mcp.ServerSession{Session: s}).ListRoots(ctx, nil); err != nil {
			return nil, err
		}
		return text("asked"), nil
	})
	return srv
}

// Defect: while MaxInFlight answers waited to be written (the peer was not
// reading yet), a stdio session read nothing, not even the answer to a
// call of its own, so the call waited until it timed out. Between two
// mcpgen peers that both did so, neither ever read again. Here MaxInFlight
// is 1, the one answer (256 KiB, more than a pipe holds) waits for the
// peer to read, and the server has asked the peer for its roots: the
// peer's answer must be read.
func TestOwnCallAnsweredWhileAnswersWait(t *testing.T) {
	p, s := newStdioPeer(t, askServer(), session.Options{MaxInFlight: 1, CallTimeout: time.Hour})
	roots := make(chan error, 1)
	go func() {
		_, err := (&mcp.ServerSession{Session: s}).ListRoots(p.ctx, nil)
		roots <- err
	}()
	ask := p.next()
	if ask["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", ask)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	// The answer is being written: read its start, and no more for now.
	start := make([]byte, 64)
	p.read("start of the big answer", func() error {
		_, err := io.ReadFull(p.out, start)
		return err
	})
	if !strings.Contains(string(start), `"id":1,"result"`) {
		t.Fatalf("start of the output %q, want the answer to id 1", start)
	}
	// Whatever the reader was doing, it now reads with that answer
	// waiting: first an (ignored) notification, then the roots.
	p.send(`{"jsonrpc":"2.0","method":"notifications/unknown"}`)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"roots":[]}}`, ask["id"]))
	select {
	case err := <-roots:
		if err != nil {
			t.Fatalf("ListRoots: %v", err)
		}
	case <-p.ctx.Done():
		t.Fatal("the server's call was not answered: its reader did not read the answer while its own answer waited to be written")
	}
	// Now the peer reads: the big answer arrives whole.
	var rest string
	p.read("rest of the big answer", func() (err error) {
		rest, err = p.out.ReadString('\n')
		return err
	})
	if len(start)+len(rest) < 256<<10 {
		t.Errorf("the big answer is %d bytes, want over 256 KiB", len(start)+len(rest))
	}
}

// A request that arrives while the session awaits the answer to a call of
// its own and MaxInFlight requests run waits for room and is handled; it
// was refused with Busy.
func TestRequestWaitsWhileAwaitingAnswer(t *testing.T) {
	p, _ := newStdioPeer(t, askServer(), session.Options{MaxInFlight: 1, CallTimeout: time.Hour})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	ask := p.next()
	if ask["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", ask)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"roots":[]}}`, ask["id"]))
	got := map[float64]map[string]any{}
	for len(got) < 2 {
		m := p.next()
		got[m["id"].(float64)] = m
	}
	for id, want := range map[float64]string{1: "asked", 2: "counted"} {
		if r, _ := got[id]["result"].(map[string]any); r == nil || !strings.Contains(fmt.Sprint(r["content"]), want) {
			t.Errorf("answer to %v: %v, want a result saying %q", id, got[id], want)
		}
	}
}

// A request waiting for room that the peer cancels is dropped: it is
// neither handled nor answered.
func TestWaitingRequestCancelled(t *testing.T) {
	p, _ := newStdioPeer(t, askServer(), session.Options{MaxInFlight: 1, CallTimeout: time.Hour})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	ask := p.next()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"roots":[]}}`, ask["id"]))
	if m := p.next(); m["id"] != 1.0 {
		t.Fatalf("first answer %v, want the one to id 1", m)
	}
	// A ping after it is answered next: nothing came for id 2.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := p.next(); m["id"] != 3.0 {
		t.Fatalf("answer %v, want the one to the ping (id 3): the cancelled request was answered", m)
	}
}

// Requests waiting for room when the session is closed are answered with
// Busy, as the session ends; the request whose call the end cut short is
// answered too.
func TestCloseAnswersWaitingRequests(t *testing.T) {
	p, s := newStdioPeer(t, askServer(), session.Options{MaxInFlight: 1, CallTimeout: time.Hour})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if m := p.next(); m["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
	for session.Parked(s) == 0 { // id 2 was read, and waits
		if p.ctx.Err() != nil {
			t.Fatal("the request did not wait for room")
		}
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	got := map[float64]map[string]any{}
	for len(got) < 2 {
		m := p.next()
		got[m["id"].(float64)] = m
	}
	if r, _ := got[1]["result"].(map[string]any); r == nil || r["isError"] != true || !strings.Contains(fmt.Sprint(r["content"]), "session closed") {
		t.Errorf("answer to id 1: %v, want a tool error saying the session closed", got[1])
	}
	if errorCode(t, got[2]) != session.Busy || !strings.Contains(errorMessage(got[2]), "ending") {
		t.Errorf("answer to id 2: %v, want a Busy error saying the session is ending", got[2])
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
}

// valve sits in a pipe between two stdio transports, to make a peer's
// pipe fill up at chosen moments. Open (the default), it passes bytes on,
// holding at most one chunk, as a pipe does; holding, it takes whatever
// is written and keeps it, in order (writes go through); shut, it takes
// nothing more (writes block). Set back to open, it passes on what it
// kept, then the rest.
type valve struct {
	mu   sync.Mutex
	cond sync.Cond
	mode int
	kept []byte
	err  error
}

const (
	valveOpen = iota
	valveHold
	valveShut
)

// newValve returns a valve from r to w, running until r ends.
func newValve(r io.Reader, w *io.PipeWriter) *valve {
	v := &valve{}
	v.cond.L = &v.mu
	go func() { // takes from r
		chunk := make([]byte, 32<<10)
		for {
			v.mu.Lock()
			for v.mode == valveShut || v.mode == valveOpen && len(v.kept) > 0 {
				v.cond.Wait()
			}
			v.mu.Unlock()
			n, err := r.Read(chunk)
			v.mu.Lock()
			v.kept = append(v.kept, chunk[:n]...)
			v.err = err
			v.cond.Broadcast()
			v.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { // passes on to w
		for {
			v.mu.Lock()
			for v.err == nil && (v.mode != valveOpen || len(v.kept) == 0) {
				v.cond.Wait()
			}
			b, err := v.kept, v.err
			v.kept = nil
			v.mu.Unlock()
			if len(b) > 0 {
				if _, werr := w.Write(b); werr != nil {
					return
				}
			}
			if err != nil && len(b) == 0 || err != nil && v.done() {
				w.CloseWithError(err)
				return
			}
			v.mu.Lock()
			v.cond.Broadcast()
			v.mu.Unlock()
		}
	}()
	return v
}

func (v *valve) done() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.kept) == 0
}

func (v *valve) set(mode int) {
	v.mu.Lock()
	v.mode = mode
	v.cond.Broadcast()
	v.mu.Unlock()
}

// rootsClient answers roots/list, once released, with roots of 256 KiB.
type rootsClient struct {
	mcp.UnimplementedClient
	started chan struct{}
	release chan struct{}
}

func (c *rootsClient) ListRoots(ctx context.Context, _ *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	c.started <- struct{}{}
	<-c.release
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///" + strings.Repeat("r", 256<<10)}}}, nil
}

// Two mcpgen peers over stdio, each with MaxInFlight 1, each waiting for
// the answer to a call to the other, and each with its own answer to the
// other's call waiting to be written behind 2.1 MiB it sent first, more
// than the other's transport reads ahead: neither pipe moves until a
// session reads. Before, each session held back from reading while its
// answer waited, so neither ever read again (a deadlock, until the calls
// timed out); each must read on, and both calls must complete.
func TestTwoPeersWaitingForEachOther(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts := session.Options{MaxInFlight: 1, CallTimeout: time.Hour, DrainTimeout: time.Second, StallTimeout: time.Second}

	// server → valve → client, client → valve → server
	s2cR, s2cW := io.Pipe()
	s2cR2, s2cW2 := io.Pipe()
	c2sR, c2sW := io.Pipe()
	c2sR2, c2sW2 := io.Pipe()
	toClient, toServer := newValve(s2cR, s2cW2), newValve(c2sR, c2sW2)

	toolStarted, toolRelease := make(chan struct{}, 1), make(chan struct{})
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "t", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		toolStarted <- struct{}{}
		<-toolRelease
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: strings.Repeat("t", 256<<10)}}}}, nil
	})
	ss := session.New(session.Server, stdio.New(c2sR2, s2cW), mcp.NewServerHandler(srv), opts)
	rc := &rootsClient{started: make(chan struct{}, 1), release: make(chan struct{})}
	cs, err := mcp.Connect(ctx, stdio.New(s2cR2, c2sW), &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}, Capabilities: mcp.ClientCapabilities{Roots: &mcp.ClientCapabilitiesRoots{}}, Handler: rc, Session: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(toolRelease)
		cs.Close()
		ss.Close()
	}()
	// A round trip: the server has seen notifications/initialized.
	if _, err := cs.Call(ctx, "ping", nil); err != nil {
		t.Fatal(err)
	}
	wait := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%s did not happen", what)
		}
	}

	// Each side calls the other; both handlers wait.
	rootsDone := make(chan error, 1)
	go func() {
		_, err := (&mcp.ServerSession{Session: ss}).ListRoots(ctx, nil)
		rootsDone <- err
	}()
	wait("the client's roots/list handler", rc.started)
	toolDone := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "t"})
		toolDone <- err
	}()
	wait("the server's tool handler", toolStarted)

	// Each side sends 2.1 MiB of notifications, kept in its valve, then
	// its answer, which its shut valve keeps from going through. (A reader
	// already waiting in Read when its answer began to wait takes one
	// notification more: the rest still fills the read-ahead.)
	fill := func(s *session.Session, v *valve) {
		t.Helper()
		v.set(valveHold)
		msg := strings.Repeat("f", 700<<10)
		for range 3 {
			if err := s.Notify(ctx, "notifications/progress", &mcp.ProgressNotificationParams{ProgressToken: wire.StringID("none"), Progress: 1, Message: &msg}); err != nil {
				t.Fatalf("notify: %v", err)
			}
		}
		v.set(valveShut)
	}
	answerWaits := func(what string, s *session.Session) {
		t.Helper()
		for session.Answering(s) == 0 {
			if ctx.Err() != nil {
				t.Fatalf("the %s's answer is not being written", what)
			}
			time.Sleep(time.Millisecond)
		}
	}
	fill(ss, toClient)
	toolRelease <- struct{}{}
	answerWaits("server", ss)
	fill(cs.Session, toServer)
	close(rc.release)
	answerWaits("client", cs.Session)

	// Now let the pipes move: what each valve kept fills the other side's
	// read-ahead, and each answer waits behind it.
	toClient.set(valveOpen)
	toServer.set(valveOpen)
	for range 2 {
		select {
		case err := <-rootsDone:
			if err != nil {
				t.Fatalf("the server's roots/list: %v", err)
			}
		case err := <-toolDone:
			if err != nil {
				t.Fatalf("the client's tools/call: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("deadlock: neither peer read the answer to its call while its own answer waited to be written")
		}
	}
}

// checkedReads is a stdio transport that fails the test if the session
// reads while it has parked as many requests as it may.
type checkedReads struct {
	*stdio.Transport
	t      *testing.T
	s      atomic.Pointer[session.Session]
	failed atomic.Bool
}

func (c *checkedReads) Read(ctx context.Context) ([]byte, error) {
	if s := c.s.Load(); s != nil {
		if n := session.Parked(s); n >= session.MaxParked && c.failed.CompareAndSwap(false, true) {
			c.t.Errorf("the session reads on with %d bytes of requests parked (bound %d)", n, session.MaxParked)
		}
	}
	return c.Transport.Read(ctx)
}

// A peer that never reads, while the server awaits the answer to a call of
// its own, cannot make it take requests without bound: the server reads
// on (the answer could come), handles no more than MaxInFlight, keeps the
// rest, and stops reading once it keeps 1 MiB of them, so that the peer's
// writes block. Closed, it answers them with Busy (which the peer does not
// take), gives up on the peer and ends.
func TestWaitingRequestsBounded(t *testing.T) {
	const maxInFlight, flood = 2, 30000
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var handled atomic.Int64
	srv := askServer()
	srv.MustAddTool(mcp.Tool{Name: "counted", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		handled.Add(1)
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{}}, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer outR.Close()
	tr := &checkedReads{Transport: stdio.New(inR, struct{ io.Writer }{outW}), t: t}
	s := session.New(session.Server, tr, mcp.NewServerHandler(srv), session.Options{MaxInFlight: maxInFlight, CallTimeout: time.Hour, StallTimeout: 100 * time.Millisecond})
	tr.s.Store(s)
	p := &stdioPeer{t: t, ctx: ctx, in: inW, out: bufio.NewReader(outR)}
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"peer","version":"1"}}}`)
	p.next()
	p.send(pipedInitialized)
	p.send(`{"jsonrpc":"2.0","id":"ask","method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if m := p.next(); m["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", m)
	}
	// From now on the peer reads nothing, and floods.
	sent := make(chan int, 1)
	go func() {
		n := 0
		for i := range flood {
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"counted","arguments":{}}}`+"\n", i); err != nil {
				break
			}
			n++
		}
		sent <- n
	}()
	for session.Parked(s) < session.MaxParked {
		select {
		case n := <-sent:
			t.Fatalf("the peer wrote all %d requests, and the server parked only %d bytes of them", n, session.Parked(s))
		case <-ctx.Done():
			t.Fatalf("the server parked %d bytes of requests, want it to reach %d", session.Parked(s), session.MaxParked)
		case <-time.After(time.Millisecond):
		}
	}
	err := s.Close()
	if !errors.Is(err, session.ErrPeerNotReading) {
		t.Errorf("Close = %v, want an error wrapping ErrPeerNotReading", err)
	}
	if n := <-sent; n >= flood {
		t.Errorf("the peer wrote all %d requests: the server read them all", n)
	}
	if n := handled.Load(); n > maxInFlight {
		t.Errorf("%d requests handled for a peer that reads nothing, want at most MaxInFlight (%d)", n, maxInFlight)
	}
}
