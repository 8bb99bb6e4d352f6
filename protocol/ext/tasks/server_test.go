package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	store "github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/validate"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// harness is a StandardServer serving a tasks Server, called statelessly.
type harness struct {
	t       *testing.T
	srv     *mcp20260728.StandardServer
	ts      *Server
	st      *store.MemoryStore
	clock   *fakeClock
	x       *session.Stateless
	release chan struct{} // closed: the "work" tool returns
	started chan string   // "work" sends its label when it starts
	stopped chan string   // "work" sends its label when its context ended
	seq     int
}

func text(s string) *mcp20260728.CallToolResult {
	return &mcp20260728.CallToolResult{Content: []mcp20260728.ContentBlock{{Value: &mcp20260728.TextContent{Text: s}}}}
}

func confirmForm(msg string) *mcp20260728.ElicitRequestParams {
	return &mcp20260728.ElicitRequestParams{Value: &mcp20260728.ElicitRequestFormParams{Message: msg,
		RequestedSchema: mcp20260728.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp20260728.PrimitiveSchemaDefinition{"ok": {Value: &mcp20260728.BooleanSchema{}}}}}}
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	return newHarnessMax(t, opts, 50)
}

// newHarnessMax is newHarness with a store of at most maxTasks tasks.
func newHarnessMax(t *testing.T, opts Options, maxTasks int) *harness {
	t.Helper()
	h := &harness{t: t, clock: &fakeClock{now: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)},
		release: make(chan struct{}), started: make(chan string, 100), stopped: make(chan string, 100)}
	h.st = store.NewMemoryStore(store.MemoryOptions{Now: h.clock.Now, MaxTasks: maxTasks})
	opts.Store = h.st
	if opts.Now == nil {
		opts.Now = h.clock.Now
	}
	h.ts = NewServer(opts)
	t.Cleanup(func() { h.ts.Close() })
	srv := mcp20260728.NewServer(mcp20260728.Implementation{Name: "tasks-test", Version: "1"}, mcp20260728.WithExtension(h.ts))
	args := func(p *mcp20260728.CallToolRequestParams) string {
		var in struct{ Label string }
		_ = json.Unmarshal(p.Arguments, &in)
		return in.Label
	}
	srv.MustAddTool(mcp20260728.Tool{Name: "echo"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		return text("echo " + args(p)), nil
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "work"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		label := args(p)
		h.started <- label
		select {
		case <-h.release:
			return text("worked " + label), nil
		case <-ctx.Done():
			h.stopped <- label
			return nil, ctx.Err()
		}
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "quick"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		return text("quick"), nil
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "required"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		return text("required ran"), nil
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "toolerr"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		return nil, errors.New("the disk is full")
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "protoerr"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32001, Message: "upstream refused", Data: jsontext.Value(`{"why":"quota"}`)}
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "panic"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		panic("boom")
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "ask"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		res, err := mcp20260728.Elicit(ctx, "confirm", confirmForm("sure?"))
		if err != nil {
			return nil, err
		}
		// Asking again for an answered key gives the same answer, without
		// parking (keys are never issued twice).
		again, err := mcp20260728.Elicit(ctx, "confirm", confirmForm("sure?"))
		if err != nil {
			return nil, err
		}
		return text("answered " + string(res.Action) + "/" + string(again.Action)), nil
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "ask2"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		answers, err := session.Ask(ctx, map[string]session.InputRequest{
			"a": {Method: mcp20260728.MethodElicitationCreate, Params: confirmForm("a?")},
			"b": {Method: mcp20260728.MethodElicitationCreate, Params: confirmForm("b?")},
		})
		if err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("%d answers", len(answers))), nil
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "sample"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		if _, err := mcp20260728.CreateMessage(ctx, "s", &mcp20260728.CreateMessageRequestParams{MaxTokens: 5}); err != nil {
			return nil, err
		}
		return text("sampled"), nil
	})
	srv.MustAddTool(mcp20260728.Tool{Name: "mrtr"}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		res, err := mcp20260728.Elicit(ctx, "user_name", confirmForm("name?"))
		if err != nil {
			return nil, err
		}
		if ctx, err = Start(ctx); err != nil {
			return nil, err
		}
		if _, err := Start(ctx); err != nil { // a second Start changes nothing
			return nil, err
		}
		// The task's context: Log and progress are dropped, not errors.
		if err := session.Log(ctx, "error", "", jsontext.Value(`"x"`)); err != nil {
			return nil, err
		}
		return text("hello " + string(res.Action)), nil
	})
	for name, s := range map[string]Support{"work": Optional, "quick": Optional, "required": Required, "toolerr": Optional, "protoerr": Optional, "panic": Optional, "ask": Optional, "ask2": Optional, "sample": Optional} {
		h.ts.SetToolSupport(name, s)
	}
	h.ts.SetToolSupport("mrtr", Optional, StartManually())
	h.srv = srv
	h.x = session.NewStateless(srv.Handler(), session.Options{})
	t.Cleanup(h.x.Close)
	return h
}

const declaring = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// call sends method with the members params (a JSON object's members, no
// braces) and the client capabilities caps, for principal, and returns the
// result or the error.
func (h *harness) call(principal, caps, method, params string) (jsontext.Value, *jsonrpc.Error) {
	h.t.Helper()
	h.seq++
	body := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params != "" {
		body += "," + params
	}
	body += "}"
	m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(int64(h.seq)), Method: method, Params: jsontext.Value(body)}
	ctx := context.Background()
	if principal != "" {
		ctx = session.WithPrincipal(ctx, principal)
	}
	resp, _ := h.x.Serve(ctx, m, func(context.Context, []byte) error { return nil })
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// mustCall is call that fails the test on an error.
func (h *harness) mustCall(principal, caps, method, params string) jsontext.Value {
	h.t.Helper()
	res, jerr := h.call(principal, caps, method, params)
	if jerr != nil {
		h.t.Fatalf("%s %s: error %d %s", method, params, jerr.Code, jerr.Message)
	}
	return res
}

// create calls a tool that must answer with a task, and returns it,
// strictly decoded.
func (h *harness) create(principal, tool, label string) *CreateTaskResult {
	h.t.Helper()
	raw := h.mustCall(principal, declaring, "tools/call", `"name":"`+tool+`","arguments":{"label":"`+label+`"}`)
	var any CallToolResults
	if err := wire.Unmarshal(raw, &any); err != nil {
		h.t.Fatalf("tools/call %s: the answer does not decode: %v\n%s", tool, err, raw)
	}
	ct, ok := any.Value.(*CreateTaskResult)
	if !ok {
		h.t.Fatalf("tools/call %s: want a CreateTaskResult, got %T: %s", tool, any.Value, raw)
	}
	return ct
}

// get returns tasks/get of id, strictly decoded.
func (h *harness) get(principal, id string) GetTaskResultValue {
	h.t.Helper()
	raw := h.mustCall(principal, declaring, "tasks/get", `"taskId":"`+id+`"`)
	var r GetTaskResult
	if err := wire.Unmarshal(raw, &r); err != nil {
		h.t.Fatalf("tasks/get: the answer does not decode: %v\n%s", err, raw)
	}
	if wire.Has(raw, "requestState") {
		h.t.Errorf("tasks/get carries requestState: %s", raw)
	}
	return r.Value
}

// waitStatus waits, at most 5 s, until the task is in status, and returns
// its tasks/get.
func (h *harness) waitStatus(principal, id string, status TaskStatus) GetTaskResultValue {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var version uint64
	for {
		rec, err := h.st.Wait(ctx, id, principalOf(principal), version)
		if err != nil {
			h.t.Fatalf("waiting for status %s: %v", status, err)
		}
		if TaskStatus(rec.Status) == status {
			return h.get(principal, id)
		}
		if rec.Status.Terminal() {
			h.t.Fatalf("the task ended %s, want %s", rec.Status, status)
		}
		version = rec.Version
	}
}

func principalOf(p string) string {
	if p == "" {
		return ""
	}
	return principal(session.WithPrincipal(context.Background(), p))
}

func statusOf(v GetTaskResultValue) string {
	switch v.(type) {
	case *GetTaskResultWorkingTask:
		return "working"
	case *GetTaskResultInputRequiredTask:
		return "input_required"
	case *GetTaskResultCompletedTask:
		return "completed"
	case *GetTaskResultFailedTask:
		return "failed"
	case *GetTaskResultCancelledTask:
		return "cancelled"
	}
	return fmt.Sprintf("%T", v)
}

// coreValidator validates against the core 2026-07-28 schema, as the
// conformance suite does.
func coreValidator(t *testing.T) *validate.Validator {
	t.Helper()
	v, err := validate.New("2026-07-28", schematest.Data(t, "2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCreateTaskResult(t *testing.T) {
	h := newHarness(t, Options{})
	raw := h.mustCall("", declaring, "tools/call", `"name":"quick","arguments":{}`)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval", "content"} {
		if _, ok := m[k]; ok {
			t.Errorf("CreateTaskResult carries %q: %s", k, raw)
		}
	}
	id, _ := m["taskId"].(string)
	if len(id) != 22 || m["resultType"] != "task" || m["status"] != "working" || m["ttlMs"] != float64(3600000) || m["pollIntervalMs"] != float64(1000) {
		t.Errorf("CreateTaskResult: %s", raw)
	}
	if m["createdAt"] != "2026-08-01T12:00:00.000Z" || m["lastUpdatedAt"] != "2026-08-01T12:00:00.000Z" {
		t.Errorf("times: %v %v", m["createdAt"], m["lastUpdatedAt"])
	}
	// Durable before the answer: an immediate tasks/get resolves.
	if s := statusOf(h.get("", id)); s != "working" && s != "completed" {
		t.Errorf("immediate tasks/get: %s", s)
	}
	ct := h.create("", "quick", "")
	if ct.TaskID == id {
		t.Error("two tasks with the same id")
	}
}

// TestWireTable checks every outcome of a task on tasks/get.
func TestWireTable(t *testing.T) {
	v := coreValidator(t)
	h := newHarness(t, Options{TTL: 2 * time.Minute, PollInterval: 250 * time.Millisecond})
	for _, tc := range []struct {
		tool   string
		status TaskStatus
		check  func(t *testing.T, g GetTaskResultValue)
	}{
		{"quick", "completed", func(t *testing.T, g GetTaskResultValue) {
			c := g.(*GetTaskResultCompletedTask)
			if ps := v.Definition("CallToolResult", c.Result); len(ps) > 0 {
				t.Errorf("the inlined result is not a core CallToolResult: %v", ps)
			}
			if !strings.Contains(string(c.Result), `"text":"quick"`) || wire.Has(c.Result, "isError") {
				t.Errorf("result: %s", c.Result)
			}
			meta, _ := wire.Member(c.Result, "_meta")
			if wire.Has(meta, "io.modelcontextprotocol/related-task") {
				t.Errorf("related-task _meta on the inlined result: %s", c.Result)
			}
			if *c.TTLMs != 120000 || *c.PollIntervalMs != 250 {
				t.Errorf("ttlMs %d, pollIntervalMs %d", *c.TTLMs, *c.PollIntervalMs)
			}
		}},
		{"toolerr", "completed", func(t *testing.T, g GetTaskResultValue) {
			c := g.(*GetTaskResultCompletedTask)
			if ps := v.Definition("CallToolResult", c.Result); len(ps) > 0 {
				t.Errorf("the inlined result is not a core CallToolResult: %v", ps)
			}
			if !strings.Contains(string(c.Result), `"isError":true`) || !strings.Contains(string(c.Result), "the disk is full") {
				t.Errorf("a tool error: %s", c.Result)
			}
		}},
		{"protoerr", "failed", func(t *testing.T, g GetTaskResultValue) {
			f := g.(*GetTaskResultFailedTask)
			if f.Error.Code != -32001 || f.Error.Message != "upstream refused" || string(f.Error.Data) != `{"why":"quota"}` {
				t.Errorf("error: %+v", f.Error)
			}
			if f.StatusMessage == nil || *f.StatusMessage != "upstream refused" {
				t.Errorf("statusMessage %v", f.StatusMessage)
			}
		}},
		{"panic", "failed", func(t *testing.T, g GetTaskResultValue) {
			f := g.(*GetTaskResultFailedTask)
			if f.Error.Code != jsonrpc.InternalError {
				t.Errorf("a panic: %+v", f.Error)
			}
		}},
		{"sample", "completed", func(t *testing.T, g GetTaskResultValue) {
			// The request declared no sampling: the tool's caller gets an
			// isError result saying so.
			c := g.(*GetTaskResultCompletedTask)
			if !strings.Contains(string(c.Result), `"isError":true`) || !strings.Contains(string(c.Result), "sampling") {
				t.Errorf("sampling undeclared: %s", c.Result)
			}
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			ct := h.create("", tc.tool, "")
			g := h.waitStatus("", ct.TaskID, tc.status)
			if _, ok := g.(*GetTaskResultCompletedTask); !ok && wire.Has(mustJSON(t, g), "result") {
				t.Errorf("a %s task carries result", tc.status)
			}
			tc.check(t, g)
		})
	}
}

func mustJSON(t *testing.T, v GetTaskResultValue) jsontext.Value {
	t.Helper()
	b, err := (&GetTaskResult{Value: v}).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSynchronousPaths(t *testing.T) {
	v := coreValidator(t)
	h := newHarness(t, Options{})
	noExt := `{"elicitation":{}}`
	for _, tc := range []struct {
		name, caps, tool string
		code             int64
		text             string
	}{
		{"a tool without task support", declaring, "echo", 0, "echo x"},
		{"optional, not declared", noExt, "quick", 0, "quick"},
		{"required, declared false", `{"extensions":{"io.modelcontextprotocol/tasks":false}}`, "required", session.MissingRequiredClientCapability, ""},
		{"required, not declared", noExt, "required", session.MissingRequiredClientCapability, ""},
		{"a tool error, not declared", noExt, "toolerr", 0, "the disk is full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, jerr := h.call("", tc.caps, "tools/call", `"name":"`+tc.tool+`","arguments":{"label":"x"},"task":{"ttl":1000}`)
			if tc.code != 0 {
				if jerr == nil || jerr.Code != tc.code {
					t.Fatalf("want error %d, got %v %s", tc.code, jerr, raw)
				}
				want := `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
				if string(jerr.Data) != want {
					t.Errorf("data %s, want %s", jerr.Data, want)
				}
				return
			}
			if jerr != nil {
				t.Fatalf("error %v", jerr)
			}
			if ps := v.Definition("CallToolResult", raw); len(ps) > 0 {
				t.Errorf("not a core CallToolResult: %v\n%s", ps, raw)
			}
			if !strings.Contains(string(raw), tc.text) || wire.Has(raw, "taskId") {
				t.Errorf("result: %s", raw)
			}
		})
	}
	// The required tool never ran: nothing was stored either.
	if n := h.st.Len(); n != 0 {
		t.Errorf("%d tasks stored", n)
	}
}

func TestTaskMethodErrors(t *testing.T) {
	h := newHarness(t, Options{})
	ct := h.create("alice", "work", "held")
	<-h.started
	noExt := `{}`
	for _, tc := range []struct {
		name, principal, caps, method, params string
		code                                  int64
	}{
		{"get, not declared (before the id)", "alice", noExt, "tasks/get", `"taskId":"gate-test"`, session.MissingRequiredClientCapability},
		{"update, not declared", "alice", noExt, "tasks/update", `"taskId":"` + ct.TaskID + `","inputResponses":{}`, session.MissingRequiredClientCapability},
		{"cancel, not declared", "alice", noExt, "tasks/cancel", `"taskId":"` + ct.TaskID + `"`, session.MissingRequiredClientCapability},
		{"get, unknown id", "alice", declaring, "tasks/get", `"taskId":"tasks-conformance-nonexistent-12345"`, jsonrpc.InvalidParams},
		{"update, unknown id", "alice", declaring, "tasks/update", `"taskId":"nope","inputResponses":{}`, jsonrpc.InvalidParams},
		{"cancel, unknown id", "alice", declaring, "tasks/cancel", `"taskId":"nope"`, jsonrpc.InvalidParams},
		{"get, another principal", "bob", declaring, "tasks/get", `"taskId":"` + ct.TaskID + `"`, jsonrpc.InvalidParams},
		{"update, another principal", "bob", declaring, "tasks/update", `"taskId":"` + ct.TaskID + `","inputResponses":{}`, jsonrpc.InvalidParams},
		{"cancel, another principal", "bob", declaring, "tasks/cancel", `"taskId":"` + ct.TaskID + `"`, jsonrpc.InvalidParams},
		{"get, no principal", "", declaring, "tasks/get", `"taskId":"` + ct.TaskID + `"`, jsonrpc.InvalidParams},
		{"get, no taskId", "alice", declaring, "tasks/get", ``, jsonrpc.InvalidParams},
		{"get, taskId not a string", "alice", declaring, "tasks/get", `"taskId":7`, jsonrpc.InvalidParams},
		{"update, no inputResponses", "alice", declaring, "tasks/update", `"taskId":"` + ct.TaskID + `"`, jsonrpc.InvalidParams},
		{"update, inputResponses not an object", "alice", declaring, "tasks/update", `"taskId":"` + ct.TaskID + `","inputResponses":[]`, jsonrpc.InvalidParams},
		{"tasks/result is removed", "alice", declaring, "tasks/result", `"taskId":"` + ct.TaskID + `"`, jsonrpc.MethodNotFound},
		{"tasks/list is removed", "alice", declaring, "tasks/list", ``, jsonrpc.MethodNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, jerr := h.call(tc.principal, tc.caps, tc.method, tc.params)
			if jerr == nil || jerr.Code != tc.code {
				t.Fatalf("got %v, want %d", jerr, tc.code)
			}
			if tc.code == jsonrpc.InvalidParams && strings.Contains(jerr.Message, "no such task") && jerr.Message != "tasks/"+strings.TrimPrefix(tc.method, "tasks/")+" params: /taskId: no such task (unknown, expired, or not yours)" {
				t.Errorf("message %q", jerr.Message)
			}
		})
	}
	// Alice's task was untouched by Bob's cancel.
	if s := statusOf(h.get("alice", ct.TaskID)); s != "working" {
		t.Errorf("after the others' calls: %s", s)
	}
}

func TestCancel(t *testing.T) {
	h := newHarness(t, Options{})
	ct := h.create("", "work", "c1")
	<-h.started
	raw := h.mustCall("", declaring, "tasks/cancel", `"taskId":"`+ct.TaskID+`"`)
	if string(raw) != `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tasks-test","version":"1"}}}` {
		t.Errorf("cancel ack: %s", raw)
	}
	g := h.get("", ct.TaskID)
	c, ok := g.(*GetTaskResultCancelledTask)
	if !ok || c.StatusMessage == nil {
		t.Fatalf("after cancel: %s", mustJSON(t, g))
	}
	// The handler's context was cancelled.
	select {
	case l := <-h.stopped:
		if l != "c1" {
			t.Errorf("stopped %q", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled")
	}
	// Terminal stays final: a second cancel is the same empty ack.
	raw = h.mustCall("", declaring, "tasks/cancel", `"taskId":"`+ct.TaskID+`"`)
	if !strings.HasPrefix(string(raw), `{"resultType":"complete"`) || wire.Has(raw, "status") {
		t.Errorf("second cancel: %s", raw)
	}
	q := h.create("", "quick", "")
	h.waitStatus("", q.TaskID, "completed")
	h.mustCall("", declaring, "tasks/cancel", `"taskId":"`+q.TaskID+`"`)
	if s := statusOf(h.get("", q.TaskID)); s != "completed" {
		t.Errorf("a completed task cancelled: %s", s)
	}
}

// TestCancelRacingCompletion: whichever terminal write wins stays.
func TestCancelRacingCompletion(t *testing.T) {
	h := newHarness(t, Options{})
	for i := range 30 {
		ct := h.create("", "quick", "")
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.mustCall("", declaring, "tasks/cancel", `"taskId":"`+ct.TaskID+`"`)
		}()
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rec, err := h.st.Wait(ctx, ct.TaskID, "", 0)
		for err == nil && !rec.Status.Terminal() {
			rec, err = h.st.Wait(ctx, ct.TaskID, "", rec.Version)
		}
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		first := statusOf(h.get("", ct.TaskID))
		if first != "completed" && first != "cancelled" {
			t.Fatalf("round %d: %s", i, first)
		}
		if again := statusOf(h.get("", ct.TaskID)); again != first {
			t.Fatalf("round %d: %s, then %s", i, first, again)
		}
	}
}

func TestAskParksAndUpdateResumes(t *testing.T) {
	h := newHarness(t, Options{})
	ct := h.create("", "ask", "")
	g := h.waitStatus("", ct.TaskID, "input_required").(*GetTaskResultInputRequiredTask)
	if len(g.InputRequests) != 1 {
		t.Fatalf("inputRequests: %v", g.InputRequests)
	}
	if _, ok := g.InputRequests["confirm"].Value.(*mcp20260728.ElicitRequest); !ok {
		t.Errorf("confirm: %T", g.InputRequests["confirm"].Value)
	}
	for _, tc := range []struct {
		name, responses string
		code            int64
	}{
		{"a key not outstanding is ignored", `{"unknown-key":{"ignored":true}}`, 0},
		{"an outstanding key that is not an ElicitResult", `{"confirm":{"action":"maybe"}}`, jsonrpc.InvalidParams},
		{"one bad value refuses the whole update", `{"confirm":{"action":42},"unknown-key":{}}`, jsonrpc.InvalidParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, jerr := h.call("", declaring, "tasks/update", `"taskId":"`+ct.TaskID+`","inputResponses":`+tc.responses)
			switch {
			case tc.code == 0 && jerr != nil:
				t.Fatalf("error %v", jerr)
			case tc.code == 0:
				var ack UpdateTaskResult
				if err := wire.Unmarshal(raw, &ack); err != nil || wire.Has(raw, "status") || wire.Has(raw, "taskId") {
					t.Errorf("ack %s (%v)", raw, err)
				}
			case jerr == nil || jerr.Code != tc.code:
				t.Fatalf("got %v %s, want %d", jerr, raw, tc.code)
			}
			if s := statusOf(h.get("", ct.TaskID)); s != "input_required" {
				t.Errorf("status %s", s)
			}
		})
	}
	h.mustCall("", declaring, "tasks/update", `"taskId":"`+ct.TaskID+`","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`)
	c := h.waitStatus("", ct.TaskID, "completed").(*GetTaskResultCompletedTask)
	if !strings.Contains(string(c.Result), "answered accept/accept") {
		t.Errorf("result %s", c.Result)
	}
	// Late answers to a finished task: still an ack.
	h.mustCall("", declaring, "tasks/update", `"taskId":"`+ct.TaskID+`","inputResponses":{"confirm":{"action":"decline"}}`)
}

func TestPartialUpdate(t *testing.T) {
	h := newHarness(t, Options{})
	ct := h.create("", "ask2", "")
	g := h.waitStatus("", ct.TaskID, "input_required").(*GetTaskResultInputRequiredTask)
	if len(g.InputRequests) != 2 {
		t.Fatalf("inputRequests: %v", g.InputRequests)
	}
	h.mustCall("", declaring, "tasks/update", `"taskId":"`+ct.TaskID+`","inputResponses":{"a":{"action":"accept","content":{"ok":true}}}`)
	g, ok := h.get("", ct.TaskID).(*GetTaskResultInputRequiredTask)
	if !ok {
		t.Fatal("no longer input_required after a partial update")
	}
	if _, ok := g.InputRequests["b"]; !ok || len(g.InputRequests) != 1 {
		t.Errorf("outstanding after answering a: %v", g.InputRequests)
	}
	h.mustCall("", declaring, "tasks/update", `"taskId":"`+ct.TaskID+`","inputResponses":{"b":{"action":"decline"}}`)
	c := h.waitStatus("", ct.TaskID, "completed").(*GetTaskResultCompletedTask)
	if !strings.Contains(string(c.Result), "2 answers") {
		t.Errorf("result %s", c.Result)
	}
}

// TestInputBeforeTask: a StartManually tool asks in a round of the request
// (InputRequiredResult, no task), then starts its task.
func TestInputBeforeTask(t *testing.T) {
	h := newHarness(t, Options{})
	raw := h.mustCall("", declaring, "tools/call", `"name":"mrtr","arguments":{}`)
	var r1 CallToolResults
	if err := wire.Unmarshal(raw, &r1); err != nil {
		t.Fatal(err)
	}
	ir, ok := r1.Value.(*mcp20260728.InputRequiredResult)
	if !ok || wire.Has(raw, "taskId") || ir.RequestState == nil {
		t.Fatalf("round 1: %s", raw)
	}
	state, _ := json.Marshal(*ir.RequestState)
	raw = h.mustCall("", declaring, "tools/call", `"name":"mrtr","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"ok":true}}},"requestState":`+string(state))
	var r2 CallToolResults
	if err := wire.Unmarshal(raw, &r2); err != nil {
		t.Fatal(err)
	}
	ct, ok := r2.Value.(*CreateTaskResult)
	if !ok || wire.Has(raw, "requestState") || wire.Has(raw, "inputRequests") {
		t.Fatalf("round 2: %s", raw)
	}
	c := h.waitStatus("", ct.TaskID, "completed").(*GetTaskResultCompletedTask)
	if !strings.Contains(string(c.Result), "hello accept") {
		t.Errorf("result %s", c.Result)
	}
	// Without the extension the same handler answers synchronously: Start
	// returns its context unchanged.
	raw = h.mustCall("", `{"elicitation":{}}`, "tools/call", `"name":"mrtr","arguments":{},"inputResponses":{"user_name":{"action":"decline"}},"requestState":`+string(state))
	if !strings.Contains(string(raw), "hello decline") || wire.Has(raw, "taskId") {
		t.Errorf("synchronous: %s", raw)
	}
}

func TestExpiry(t *testing.T) {
	h := newHarness(t, Options{TTL: 10 * time.Second, CollectEvery: time.Hour})
	live := h.create("", "work", "expiring")
	<-h.started
	done := h.create("", "quick", "")
	h.waitStatus("", done.TaskID, "completed")
	h.ts.SetToolSupport("quick", Optional, ToolTTL(-1))
	forever := h.create("", "quick", "")
	if forever.TTLMs != nil {
		t.Errorf("ttlMs %d, want null", *forever.TTLMs)
	}
	h.clock.Advance(10 * time.Second) // not after: not expired yet
	h.ts.collect()
	for _, id := range []string{live.TaskID, done.TaskID} {
		h.get("", id)
	}
	h.clock.Advance(time.Millisecond)
	h.ts.collect()
	for _, id := range []string{live.TaskID, done.TaskID} {
		if _, jerr := h.call("", declaring, "tasks/get", `"taskId":"`+id+`"`); jerr == nil || jerr.Code != jsonrpc.InvalidParams {
			t.Errorf("an expired task: %v", jerr)
		}
	}
	h.get("", forever.TaskID)
	select {
	case l := <-h.stopped:
		if l != "expiring" {
			t.Errorf("stopped %q", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the expired task's handler was not cancelled")
	}
}

func TestCloseStopsEverything(t *testing.T) {
	before := countGoroutines()
	h := newHarness(t, Options{})
	var ids []string
	for i := range 3 {
		ids = append(ids, h.create("", "work", fmt.Sprint(i)).TaskID)
		<-h.started
	}
	asking := h.create("", "ask", "")
	h.waitStatus("", asking.TaskID, "input_required")
	if err := h.ts.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range append(ids, asking.TaskID) {
		f, ok := h.get("", id).(*GetTaskResultFailedTask)
		if !ok || f.Error.Code != jsonrpc.InternalError || !strings.Contains(f.Error.Message, "shut down") {
			t.Errorf("after Close: %s", mustJSON(t, h.get("", id)))
		}
	}
	if _, jerr := h.call("", declaring, "tools/call", `"name":"quick","arguments":{}`); jerr == nil || jerr.Code != jsonrpc.InternalError {
		t.Errorf("a task after Close: %v", jerr)
	}
	h.x.Close()
	// Every goroutine the server started has ended (bounded wait: the
	// runtime takes a moment to reap them).
	for i := 0; countGoroutines() > before; i++ {
		if i == 200 {
			t.Fatalf("%d goroutines left over %d", countGoroutines(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func countGoroutines() int { return runtime.NumGoroutine() }

func TestMaxInputs(t *testing.T) {
	h := newHarness(t, Options{MaxInputs: 1})
	ct := h.create("", "ask2", "")
	c := h.waitStatus("", ct.TaskID, "completed").(*GetTaskResultCompletedTask)
	if !strings.Contains(string(c.Result), `"isError":true`) || !strings.Contains(string(c.Result), "at most 1") {
		t.Errorf("too many inputs: %s", c.Result)
	}
}

func TestStoreFull(t *testing.T) {
	h := newHarnessMax(t, Options{}, 1)
	h.create("", "quick", "")
	_, jerr := h.call("", declaring, "tools/call", `"name":"quick","arguments":{}`)
	if jerr == nil || jerr.Code != jsonrpc.InternalError || !strings.Contains(jerr.Message, "too many tasks") {
		t.Errorf("a full store: %v", jerr)
	}
}

func TestSupport(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	s.SetToolSupport("a", Required)
	s.SetToolSupport("b", Optional, StartManually())
	got := []string{s.ToolSupport("a").String(), s.ToolSupport("b").String(), s.ToolSupport("c").String(), Support(9).String()}
	if diff := cmp.Diff([]string{"required", "optional", "none", "Support(9)"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	s.SetToolSupport("a", None)
	if s.ToolSupport("a") != None {
		t.Error("a still supports tasks")
	}
	var names []string
	for _, m := range s.Methods() {
		names = append(names, m.Name)
	}
	if diff := cmp.Diff([]string{"tasks/cancel", "tasks/get", "tasks/update"}, names); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	if s.ID() != "io.modelcontextprotocol/tasks" || string(s.Capability()) != "{}" {
		t.Errorf("ID %q capability %s", s.ID(), s.Capability())
	}
}

// TestStreamableHTTP runs tasks over Streamable HTTP: Mcp-Name is the task
// id, and each principal (set by the layer in front, here a test header)
// sees only its own tasks.
func TestStreamableHTTP(t *testing.T) {
	h := newHarness(t, Options{})
	hh := h.srv.HTTPHandler(mcp20260728.HTTPOptions{})
	defer hh.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if p := r.Header.Get("X-Test-Principal"); p != "" {
			ctx = session.WithPrincipal(ctx, p)
		}
		hh.ServeHTTP(w, r.WithContext(ctx))
	}))
	defer ts.Close()
	post := func(principal, method, name, params string) (int, map[string]any) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + declaring + `},` + params + `}}`
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		if principal != "" {
			req.Header.Set("X-Test-Principal", principal)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatalf("%s: not JSON: %v", method, err)
		}
		return resp.StatusCode, m
	}
	status, m := post("alice", "tools/call", "quick", `"name":"quick","arguments":{}`)
	res, _ := m["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if status != 200 || res["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call over HTTP: %d %v", status, m)
	}
	h.waitStatus("alice", id, "completed")
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	for _, tc := range []struct {
		name, principal, method, header, params string
		status                                  int
		code                                    float64
	}{
		{"get", "alice", "tasks/get", id, `"taskId":"` + id + `"`, 200, 0},
		{"get, Mcp-Name of another task", "alice", "tasks/get", "other", `"taskId":"` + id + `"`, 400, session.HeaderMismatch},
		{"get, no Mcp-Name", "alice", "tasks/get", "", `"taskId":"` + id + `"`, 400, session.HeaderMismatch},
		{"update, Mcp-Name of another task", "alice", "tasks/update", "other", `"taskId":"` + id + `","inputResponses":{}`, 400, session.HeaderMismatch},
		{"cancel, Mcp-Name of another task", "alice", "tasks/cancel", "other", `"taskId":"` + id + `"`, 400, session.HeaderMismatch},
		{"get by another principal", "bob", "tasks/get", id, `"taskId":"` + id + `"`, 200, jsonrpc.InvalidParams},
		{"cancel by another principal", "bob", "tasks/cancel", id, `"taskId":"` + id + `"`, 200, jsonrpc.InvalidParams},
		{"tasks/list", "alice", "tasks/list", "", `"cursor":"x"`, 404, jsonrpc.MethodNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := post(tc.principal, tc.method, tc.header, tc.params)
			if status != tc.status || code(m) != tc.code {
				t.Fatalf("HTTP %d %v, want %d and code %v", status, m, tc.status, tc.code)
			}
			if tc.code == 0 && m["result"].(map[string]any)["status"] != "completed" {
				t.Errorf("result %v", m)
			}
		})
	}
}

// TestLegacySession: a 2025-11-25 session has no extensions: tools run
// synchronously, and a tool that needs a task says so in an isError result.
func TestLegacySession(t *testing.T) {
	h := newHarness(t, Options{})
	a, b := transport.Pipe()
	s := session.New(session.Server, a, h.srv.Handler(), session.Options{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	call := func(msg string) map[string]any {
		t.Helper()
		if err := b.Write(ctx, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		raw, err := b.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	if err := b.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool, want string
		isError    bool
	}{
		{"quick", "quick", false},
		{"required", "runs only as a task", true},
	} {
		m := call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tc.tool + `","arguments":{}}}`)
		r, _ := m["result"].(map[string]any)
		if r == nil || (r["isError"] == true) != tc.isError || !strings.Contains(fmt.Sprint(r["content"]), tc.want) || r["taskId"] != nil {
			t.Errorf("%s on a legacy session: %v", tc.tool, m)
		}
	}
	if m := call(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"x"}}`); m["error"].(map[string]any)["code"] != float64(jsonrpc.MethodNotFound) {
		t.Errorf("tasks/get on a legacy session: %v", m)
	}
	if n := h.st.Len(); n != 0 {
		t.Errorf("%d tasks stored", n)
	}
}

// TestFinishPlainError: a handler that is not the StandardServer's may
// return a plain error; the task completes with it as a tool error.
func TestFinishPlainError(t *testing.T) {
	h := newHarness(t, Options{})
	for _, tc := range []struct {
		name   string
		err    error
		status string
		text   string
	}{
		{"plain error", errors.New("no such row"), "completed", `"isError":true`},
		{"input asked the wrong way", &session.InputRequiredError{Requests: map[string]session.InputRequest{"k": {Method: "roots/list"}}}, "failed", "asked for input"},
		{"no result", nil, "failed", "no result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !h.ts.enter() {
				t.Fatal("closed")
			}
			tctx, rec, err := h.ts.begin(context.Background(), jsontext.Value(`{"name":"x"}`), toolConfig{support: Optional})
			if err != nil {
				t.Fatal(err)
			}
			h.ts.finish(tctx, rec, nil, tc.err)
			h.ts.wg.Done()
			g := h.get("", rec.ID)
			if statusOf(g) != tc.status || !strings.Contains(string(mustJSON(t, g)), tc.text) {
				t.Errorf("%s: %s", tc.name, mustJSON(t, g))
			}
		})
	}
}

// TestTTLOptions checks the rules of a task's ttlMs and pollIntervalMs:
// ToolTTL(0) leaves the server's TTL, a duration under a millisecond is
// one rather than none, and a task does not keep its request's params.
func TestTTLOptions(t *testing.T) {
	h := newHarness(t, Options{TTL: 20 * time.Second, PollInterval: 300 * time.Microsecond})
	for _, tt := range []struct {
		name     string
		opts     []ToolOption
		wantTTL  int64
		wantPoll int64
	}{
		{"the server's", nil, 20000, 1},
		{"ToolTTL(0) is the server's", []ToolOption{ToolTTL(0)}, 20000, 1},
		{"under a millisecond is one", []ToolOption{ToolTTL(500 * time.Microsecond)}, 1, 1},
		{"rounded up", []ToolOption{ToolTTL(1500 * time.Microsecond)}, 2, 1},
	} {
		h.ts.SetToolSupport("quick", Optional, tt.opts...)
		ct := h.create("", "quick", strings.Repeat("x", 1000))
		if ct.TTLMs == nil || *ct.TTLMs != tt.wantTTL {
			t.Errorf("%s: ttlMs %v, want %d", tt.name, ct.TTLMs, tt.wantTTL)
		}
		if ct.PollIntervalMs == nil || *ct.PollIntervalMs != tt.wantPoll {
			t.Errorf("%s: pollIntervalMs %v, want %d", tt.name, ct.PollIntervalMs, tt.wantPoll)
		}
		h.waitStatus("", ct.TaskID, "completed")
		rec, err := h.st.Get(t.Context(), ct.TaskID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Params) != 0 {
			t.Errorf("%s: the task keeps its request's params (%d bytes)", tt.name, len(rec.Params))
		}
	}
}
