package tasks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	store "github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// lockedBuffer is a bytes.Buffer safe for concurrent writes, for a logger.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// FuzzHandleRequest sends the tasks methods and tools/call arbitrary
// params (with a valid _meta): nothing panics (the runtime would turn a
// panic into -32603 and log it), and every request is answered.
func FuzzHandleRequest(f *testing.F) {
	for _, s := range []string{
		`"taskId":"x"`, `"taskId":7`, `"taskId":null`, `"taskId":"x","inputResponses":{"a":{"action":"accept"}}`,
		`"taskId":"x","inputResponses":null`, `"taskId":"x","inputResponses":{"a":null}`, `"taskId":"x","inputResponses":{"a":[]}`,
		`"name":"work","arguments":{"label":"z"}`, `"name":7`, `"name":"ask","arguments":[]`, `"name":"mrtr","inputResponses":{"user_name":{}}`,
		`"name":"mrtr","requestState":"zz"`, `"taskId":"` + strings.Repeat("a", 300) + `"`,
	} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, members string) {
		var logs lockedBuffer
		h := newHarness(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		x := session.NewStateless(h.srv.Handler(), session.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		defer x.Close()
		close(h.release)
		method := []string{"tasks/get", "tasks/update", "tasks/cancel", "tools/call"}[int(which)%4]
		body := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + declaring + `},` + members + `}`
		if !jsontext.Value(body).IsValid() {
			return
		}
		m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: method, Params: jsontext.Value(body)}
		resp, _ := x.Serve(context.Background(), m, func(context.Context, []byte) error { return nil })
		if resp == nil || resp.Result == nil && resp.Error == nil {
			t.Fatalf("%s %s: no answer", method, body)
		}
		h.ts.Close()
		if s := logs.String(); strings.Contains(s, "panicked") {
			t.Fatalf("%s %s: a panic:\n%s", method, body, s)
		}
	})
}

// outcomeFailing is a store that refuses the first n writes of a task's
// outcome (a terminal status other than cancelled), as a remote store may
// (a value too large, a connection lost).
type outcomeFailing struct {
	*store.MemoryStore
	n atomic.Int32
}

var errStoreDown = errors.New("the store is down")

func (s *outcomeFailing) Update(ctx context.Context, id, principal string, fn func(*store.Record) error) (*store.Record, error) {
	return s.MemoryStore.Update(ctx, id, principal, func(r *store.Record) error {
		if err := fn(r); err != nil {
			return err
		}
		if (r.Status == store.StatusCompleted || r.Status == store.StatusFailed) && s.n.Add(-1) >= 0 {
			return errStoreDown
		}
		return nil
	})
}

// TestOutcomeNotStored: when the outcome of a task cannot be stored (the
// store fails, or the result is not a JSON object a store keeps), the task
// does not stay working until it expires: it fails with -32603.
func TestOutcomeNotStored(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failures int32
		out      wire.Appender
		want     string
	}{
		{"the store fails once", 1, text("done"), "could not be stored"},
		{"the result is not an object", 0, session.Raw(`[1]`), "could not be stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			fs := &outcomeFailing{MemoryStore: h.st}
			fs.n.Store(tc.failures)
			ts := NewServer(Options{Store: fs})
			defer ts.Close()
			if !ts.enter() {
				t.Fatal("closed")
			}
			tctx, rec, err := ts.begin(context.Background(), jsontext.Value(`{"name":"x"}`), toolConfig{support: Optional})
			if err != nil {
				t.Fatal(err)
			}
			ts.finish(tctx, rec, tc.out, nil)
			ts.wg.Done()
			g := h.get("", rec.ID)
			f, ok := g.(*GetTaskResultFailedTask)
			if !ok || f.Error.Code != jsonrpc.InternalError || !strings.Contains(f.Error.Message, tc.want) {
				t.Errorf("after an outcome that could not be stored: %s", mustJSON(t, g))
			}
		})
	}
}

// TestSoak: tasks cancelled, answered, expired and polled at once, then
// Close: every task ends in a terminal status or is gone, and every
// goroutine the server started has ended.
func TestSoak(t *testing.T) {
	before := countGoroutines()
	h := newHarness(t, Options{TTL: time.Minute, CollectEvery: time.Hour})
	var ids []string
	for i := range 20 {
		tool := []string{"ask", "ask2", "work", "quick"}[i%4]
		ids = append(ids, h.create("", tool, fmt.Sprint(i)).TaskID)
	}
	// h.call is not safe for concurrent use (its request ids).
	call := func(method, params string) {
		body := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + declaring + `},` + params + `}`
		m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: method, Params: jsontext.Value(body)}
		h.x.Serve(context.Background(), m, func(context.Context, []byte) error { return nil })
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(3)
		go func() {
			defer wg.Done()
			if i%3 == 0 {
				call("tasks/cancel", `"taskId":"`+id+`"`)
			}
		}()
		go func() {
			defer wg.Done()
			call("tasks/update", `"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}},"a":{"action":"decline"},"b":{"action":"cancel"}}`)
		}()
		go func() {
			defer wg.Done()
			call("tasks/get", `"taskId":"`+id+`"`)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.clock.Advance(time.Minute + time.Millisecond)
		h.ts.collect()
	}()
	wg.Wait()
	if err := h.ts.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		rec, err := h.st.Get(context.Background(), id, "")
		if err == nil && !rec.Status.Terminal() {
			t.Errorf("after Close: a task %s", rec.Status)
		}
	}
	h.x.Close()
	for i := 0; countGoroutines() > before; i++ {
		if i == 300 {
			t.Fatalf("%d goroutines left over %d", countGoroutines(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStartAfterReturn: a StartManually handler whose goroutine calls
// Start after the handler returned (its answer is sent) makes no task:
// nobody would ever learn its id, nor its outcome.
func TestStartAfterReturn(t *testing.T) {
	h := newHarness(t, Options{})
	late := make(chan error, 1)
	answered := make(chan struct{})
	h.srv.MustAddTool(mcp20260728.Tool{Name: "escape"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		go func() {
			<-answered
			_, err := Start(ctx)
			late <- err
		}()
		return text("returned"), nil
	})
	h.ts.SetToolSupport("escape", Optional, StartManually())
	raw := h.mustCall("", declaring, "tools/call", `"name":"escape","arguments":{}`)
	if !strings.Contains(string(raw), "returned") || wire.Has(raw, "taskId") {
		t.Fatalf("tools/call: %s", raw)
	}
	close(answered)
	select {
	case err := <-late:
		if err == nil {
			t.Error("Start after the handler returned: no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Start did not return")
	}
	if n := h.st.Len(); n != 0 {
		t.Errorf("%d tasks stored by a Start after the handler returned", n)
	}
}

// waitFailing is a store whose first Wait fails as a remote store's may
// (a connection lost), and which reports its second Wait.
type waitFailing struct {
	*store.MemoryStore
	calls  atomic.Int32
	second chan struct{}
}

func (s *waitFailing) Wait(ctx context.Context, id, principal string, after uint64) (*store.Record, error) {
	switch s.calls.Add(1) {
	case 1:
		return nil, errStoreDown
	case 2:
		close(s.second)
	}
	return s.MemoryStore.Wait(ctx, id, principal, after)
}

// TestWatchStoreHiccup: a Wait of the store that fails for a reason other
// than the task being gone does not cancel the task's handler; the
// watcher waits again.
func TestWatchStoreHiccup(t *testing.T) {
	ws := &waitFailing{MemoryStore: store.NewMemoryStore(store.MemoryOptions{}), second: make(chan struct{})}
	ts := NewServer(Options{Store: ws, PollInterval: time.Millisecond})
	defer ts.Close()
	if !ts.enter() {
		t.Fatal("closed")
	}
	tctx, rec, err := ts.begin(context.Background(), jsontext.Value(`{"name":"x"}`), toolConfig{support: Optional})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-tctx.Done():
		t.Error("a failed Wait of the store cancelled the task's handler")
	case <-ws.second:
	case <-time.After(5 * time.Second):
		t.Error("the watcher did not wait again")
	}
	ts.finish(tctx, rec, text("done"), nil)
	ts.wg.Done()
	if r, err := ws.Get(context.Background(), rec.ID, ""); err != nil || r.Status != store.StatusCompleted {
		t.Errorf("the task: %v %v", r, err)
	}
}

// panicking is an Appender whose encoding panics.
type panicking struct{}

func (panicking) AppendJSON([]byte) ([]byte, error) { panic("encoding boom") }

// TestResultEncodingPanics: a task result whose encoding panics fails the
// task with -32603, as a synchronous call's would be answered, instead of
// ending the process.
func TestResultEncodingPanics(t *testing.T) {
	h := newHarness(t, Options{})
	if !h.ts.enter() {
		t.Fatal("closed")
	}
	tctx, rec, err := h.ts.begin(context.Background(), jsontext.Value(`{"name":"x"}`), toolConfig{support: Optional})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer h.ts.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("finish panicked: %v", p)
			}
		}()
		h.ts.finish(tctx, rec, panicking{}, nil)
	}()
	g := h.get("", rec.ID)
	if f, ok := g.(*GetTaskResultFailedTask); !ok || f.Error.Code != jsonrpc.InternalError {
		t.Errorf("after a result whose encoding panicked: %s", mustJSON(t, g))
	}
}

// createPanicking is a store whose Create panics.
type createPanicking struct{ *store.MemoryStore }

func (createPanicking) Create(context.Context, *store.Record) (*store.Record, error) {
	panic("store boom")
}

// TestCreatePanics: a store that panics in Create: the tools/call is
// answered (-32603), and Close still returns (nothing is left counted).
func TestCreatePanics(t *testing.T) {
	ts := NewServer(Options{Store: createPanicking{store.NewMemoryStore(store.MemoryOptions{})}})
	srv := mcp20260728.NewServer(mcp20260728.Implementation{Name: "t", Version: "1"}, mcp20260728.WithExtension(ts))
	srv.MustAddTool(mcp20260728.Tool{Name: "quick"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		return text("quick"), nil
	})
	ts.SetToolSupport("quick", Optional)
	ts.SetToolSupport("manual", Optional, StartManually())
	srv.MustAddTool(mcp20260728.Tool{Name: "manual"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		if _, err := Start(ctx); err != nil {
			return nil, err
		}
		return text("manual"), nil
	})
	x := session.NewStateless(srv.Handler(), session.Options{})
	defer x.Close()
	for _, tool := range []string{"quick", "manual"} {
		body := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + declaring + `},"name":"` + tool + `","arguments":{}}`
		resp, _ := x.Serve(context.Background(), &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/call", Params: jsontext.Value(body)}, func(context.Context, []byte) error { return nil })
		if resp.Error == nil || resp.Error.Code != jsonrpc.InternalError {
			t.Errorf("%s with a store that panics: %v %s", tool, resp.Error, resp.Result)
		}
	}
	closed := make(chan struct{})
	go func() {
		ts.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return: a goroutine count was left behind by the panic")
	}
}
