package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

const (
	pipedInit        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`
	pipedInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// answers decodes the lines of out and returns the response of each ID.
func answers(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	for line := range strings.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if _, ok := m["method"]; ok {
			continue
		}
		id := fmt.Sprint(m["id"])
		if _, dup := got[id]; dup {
			t.Fatalf("two answers to ID %s", id)
		}
		got[id] = m
	}
	return got
}

// serveInput runs srv over stdio with input as the whole of standard input,
// as `server < file` does, and returns what it wrote once Serve returned.
func serveInput(t *testing.T, srv mcp.Server, input string, opts session.Options) string {
	t.Helper()
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mcp.Serve(ctx, stdio.New(strings.NewReader(input), &out), srv, opts) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return")
	}
	return out.String()
}

// slowServer has a tool that yields before answering, as real tools do:
// the end of the input is seen while it runs.
func slowServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "slow", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "slow", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			for range 3 {
				runtime.Gosched()
			}
			time.Sleep(time.Millisecond) // a tool at work, not a timing assertion
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
		})
	srv.MustAddTool(mcp.Tool{Name: "block", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, fmt.Errorf("block: %w", ctx.Err())
		})
	return srv
}

// Defect: a piped request lost its answer, because the end of input
// cancelled the session while the handler ran, and the transport refused
// the answer. Every run must answer the call.
func TestPipedRequestAnswered(t *testing.T) {
	runs := 50
	if testing.Short() {
		runs = 10
	}
	input := pipedInit + "\n" + pipedInitialized + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n"
	srv := slowServer()
	for i := range runs {
		got := answers(t, serveInput(t, srv, input, session.Options{}))
		if _, ok := got["1"]["result"]; !ok {
			t.Fatalf("run %d: the tools/call was not answered with a result: %v", i, got)
		}
	}
}

// 10,000 piped calls get 10,000 results, each ID once: the end of input
// loses none, and a peer that sends faster than the handlers answer is
// held back by the transport, not refused with Busy (the default
// MaxInFlight is far below n).
func TestPipedManyCallsAllAnswered(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	var in strings.Builder
	in.WriteString(pipedInit + "\n" + pipedInitialized + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n", i)
	}
	got := answers(t, serveInput(t, slowServer(), in.String(), session.Options{}))
	var missing, refused []int
	for i := 1; i <= n; i++ {
		m, ok := got[fmt.Sprint(i)]
		switch {
		case !ok:
			missing = append(missing, i)
		case m["result"] == nil:
			refused = append(refused, i)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d calls unanswered, first %d", len(missing), n, missing[0])
	}
	if len(refused) > 0 {
		t.Errorf("%d of %d calls answered with an error, first %d: %v", len(refused), n, refused[0], got[fmt.Sprint(refused[0])])
	}
}

// The same over a pipe, with the client reading answers as they come and
// closing its end of the input only after the last call was written.
func TestPipeStreamManyCallsAllAnswered(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- mcp.Serve(ctx, stdio.New(inR, outW), slowServer(), session.Options{MaxInFlight: n})
	}()
	go func() {
		defer inW.Close()
		w := bufio.NewWriter(inW)
		w.WriteString(pipedInit + "\n" + pipedInitialized + "\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n", i)
		}
		w.Flush()
	}()
	var out strings.Builder
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, outR)
		read <- err
	}()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return")
	}
	if err := <-read; err != nil {
		t.Fatalf("reading the output: %v", err)
	}
	got := answers(t, out.String())
	for i := 1; i <= n; i++ {
		if _, ok := got[fmt.Sprint(i)]["result"]; !ok {
			t.Fatalf("call %d not answered with a result: %v", i, got[fmt.Sprint(i)])
		}
	}
}

// Close answers the requests already received before it closes the
// transport; past DrainTimeout, handlers are cancelled and what they then
// return is still answered.
func TestCloseDrains(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		drain time.Duration
		want  string // "result", or the error message the answer must mention
	}{
		{"finishes within the limit", "slow", time.Minute, "result"},
		{"cancelled past the limit", "block", time.Millisecond, "context canceled"},
		{"no drain", "block", -1, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			s := session.New(session.Server, a, mcp.NewServerHandler(slowServer()), session.Options{DrainTimeout: tt.drain})
			p := &peer{t: t, tr: b}
			p.initialize("2025-11-25")
			p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tt.tool + `","arguments":{}}}`)
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			m := p.recvMsg()
			got := "result"
			if _, ok := m["result"]; !ok {
				got = errorMessage(m)
				if r, ok := m["result"].(map[string]any); ok && r["isError"] == true {
					got = fmt.Sprint(r["content"])
				}
			}
			if m["id"] != 7.0 || !strings.Contains(got, tt.want) {
				t.Errorf("answer %v, want one to ID 7 mentioning %q", m, tt.want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := b.Read(ctx); !errors.Is(err, io.EOF) {
				t.Errorf("after the answer: %v, want io.EOF (the transport closed)", err)
			}
		})
	}
}

// A reused progress token (allowed once the first request is done) has
// its progress delivered, and no progress state outlives its request.
func TestProgressTokenReused(t *testing.T) {
	p, _ := serve(t, testServer(t), session.Options{})
	p.initialize("2025-11-25")
	for i := range 3 {
		p.send(`{"jsonrpc":"2.0","id":` + itoa(10+i) + `,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"tok"}}}`)
		var got []float64
		for {
			m := p.recvMsg()
			if m["method"] == "notifications/progress" {
				got = append(got, m["params"].(map[string]any)["progress"].(float64))
				continue
			}
			if m["id"] != float64(10+i) {
				t.Fatalf("round %d: unexpected %v", i, m)
			}
			if r := result(t, m); r["isError"] == true {
				t.Fatalf("round %d: the tool failed: %v", i, r)
			}
			break
		}
		if diff := cmp.Diff([]float64{1, 2, 3}, got); diff != "" {
			t.Errorf("round %d: progress (-want +got):\n%s", i, diff)
		}
	}
}

// N requests with progress tokens leave nothing behind: the heap after them
// is within a generous bound of the heap before (the per-token record was
// about 60 B per request, kept until the session ended).
func TestProgressTokensForgotten(t *testing.T) {
	const n = 20000
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "p", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			if err := session.ReportProgress(ctx, 1, nil, ""); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{}}, nil
		})
	p, _ := serve(t, srv, session.Options{})
	p.initialize("2025-11-25")
	call := func(i int) {
		p.send(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"tools/call","params":{"name":"p","arguments":{},"_meta":{"progressToken":"token-` + itoa(i) + `"}}}`)
		for {
			m := p.recvMsg()
			if m["method"] == nil {
				if m["id"] != float64(i) || m["result"] == nil {
					t.Fatalf("call %d: %v", i, m)
				}
				return
			}
		}
	}
	for i := range 1000 { // warm up pools and workers
		call(i)
	}
	before := liveHeap()
	for i := range n {
		call(1000 + i)
	}
	after := liveHeap()
	const bound = n * 16 // well under the ~60 B per request that leaked
	if after > before && after-before > bound {
		t.Errorf("heap grew by %d B over %d requests with progress tokens (bound %d B)", after-before, n, bound)
	}
}

// A long session over stdio pipes: calls that report progress, calls the
// client cancels while the server runs them, and plain calls, in turn.
// Every call ends as it should (progress delivered in order, cancelled
// calls return context.Canceled and get no answer), and nothing per call
// stays behind on either side: the heap after is within a generous bound
// of the heap before.
func TestLongSessionLeavesNothingBehind(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 600
	}
	started := make(chan struct{}, 1)
	srv := mcp.NewServer(mcp.Implementation{Name: "long", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "progress", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			for i := 1; i <= 2; i++ {
				if err := session.ReportProgress(ctx, float64(i), nil, ""); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{}}, nil
		})
	srv.MustAddTool(mcp.Tool{Name: "wait", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.MustAddTool(mcp.Tool{Name: "plain", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{}}, nil
		})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- mcp.Serve(ctx, stdio.New(c2sR, s2cW), srv, session.Options{}) }()
	cs, err := mcp.Connect(ctx, stdio.New(s2cR, c2sW), &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}

	round := func(i int) {
		switch i % 3 {
		case 0:
			var got []float64
			_, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "progress"}, session.WithProgress(func(p session.Progress) { got = append(got, p.Progress) }))
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			// Progress comes before the answer, on the reader goroutine.
			if diff := cmp.Diff([]float64{1, 2}, got); diff != "" {
				t.Fatalf("call %d: progress (-want +got):\n%s", i, diff)
			}
		case 1:
			cctx, ccancel := context.WithCancel(ctx)
			go func() {
				select {
				case <-started:
				case <-ctx.Done():
				}
				ccancel()
			}()
			if _, err := cs.CallTool(cctx, &mcp.CallToolRequestParams{Name: "wait"}); !errors.Is(err, context.Canceled) {
				t.Fatalf("call %d: %v, want context.Canceled", i, err)
			}
		default:
			if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "plain"}); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
	}
	for i := range 300 { // warm up pools and workers
		round(i)
	}
	before := liveHeap()
	for i := range n {
		round(i)
	}
	after := liveHeap()
	if bound := uint64(n * 16); after > before && after-before > bound {
		t.Errorf("heap grew by %d B over %d calls (bound %d B)", after-before, n, bound)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("client Close: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return after the client closed")
	}
}

// A request that arrives while the session is ending (its handlers still
// draining) is answered with an error, not dropped: a request received is
// answered.
func TestRequestWhileEndingAnswered(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	srv := mcp.NewServer(mcp.Implementation{Name: "hold", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "hold", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			close(started)
			<-release
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "held"}}}}, nil
		})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, mcp.NewServerHandler(srv), session.Options{DrainTimeout: time.Minute})
	p := &peer{t: t, tr: b}
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	<-started
	session.BeginShutdown(s)
	p.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	m := p.recvMsg()
	if m["id"] != 8.0 || errorCode(t, m) != session.Busy || !strings.Contains(errorMessage(m), "ending") {
		t.Fatalf("answer %v, want a Busy error to ID 8 saying the session is ending", m)
	}
	close(release)
	if m := p.recvMsg(); m["id"] != 7.0 || m["result"] == nil {
		t.Fatalf("answer %v, want the result of ID 7", m)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// The reader holds back while MaxInFlight requests run, but not while a
// handler waits for the peer's answer to a call of its own: that answer
// must be read. Here the one request allowed in flight asks the client for
// its roots; the client sends a second request before it answers.
func TestReaderReadsAnswersWhileFull(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "ask", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "ask", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			s, _ := session.FromContext(ctx)
			if _, err := (&mcp.ServerSession{Session: s}).ListRoots(ctx, nil); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "asked"}}}}, nil
		})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		// CallTimeout beyond the test's bound: a reader that does not read
		// the roots answer leaves the tool waiting until the test fails.
		served <- mcp.Serve(ctx, stdio.New(inR, outW), srv, session.Options{MaxInFlight: 1, CallTimeout: time.Hour})
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	next := func() map[string]any {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server's output ended")
			}
			return m
		case <-ctx.Done():
			t.Fatal("no message from the server: is its reader stuck?")
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"pipe","version":"1"}}}`)
	next()
	send(pipedInitialized)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	ask := next()
	if ask["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", ask)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"roots":[]}}`, ask["id"]))
	got := map[float64]map[string]any{}
	for len(got) < 2 {
		m := next()
		got[m["id"].(float64)] = m
	}
	if got[1]["result"] == nil || got[2]["result"] == nil {
		t.Errorf("answers %v, want results to IDs 1 and 2", got)
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// liveHeap returns the bytes of live heap objects, after collecting twice
// (the second collection frees what the first one's finalizers released).
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Abort cancels the handlers in flight at once, whatever DrainTimeout says,
// also when Close already began a drain: the peer is gone.
func TestAbortCancelsAtOnce(t *testing.T) {
	for _, closeFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("close first %v", closeFirst), func(t *testing.T) {
			a, b := transport.Pipe()
			s := session.New(session.Server, a, mcp.NewServerHandler(slowServer()), session.Options{DrainTimeout: time.Hour})
			p := &peer{t: t, tr: b}
			p.initialize("2025-11-25")
			p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
			if closeFirst {
				go s.Close()
			}
			done := make(chan error, 1)
			go func() { done <- s.Abort() }()
			m := p.recvMsg()
			r, _ := m["result"].(map[string]any)
			if m["id"] != 7.0 || !strings.Contains(fmt.Sprint(m), "context canceled") {
				t.Errorf("answer %v (result %v), want one to ID 7 saying its context was cancelled", m, r)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Abort: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Abort did not return")
			}
		})
	}
}
