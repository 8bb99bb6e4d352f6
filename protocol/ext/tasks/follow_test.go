package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	store "github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// testTimeout bounds every test's waits.
const testTimeout = 10 * time.Second

func ms(n int64) *int64 { return &n }

// elicitor answers elicitations: accept, with content {"answer": <the
// request's message>}; it counts the calls by message.
type elicitor struct {
	mcp.UnimplementedClient
	mu    sync.Mutex
	asked []string
}

func (e *elicitor) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	msg := ""
	if f, ok := p.Value.(*mcp.ElicitRequestFormParams); ok {
		msg = f.Message
	}
	e.mu.Lock()
	e.asked = append(e.asked, msg)
	e.mu.Unlock()
	return mcp.Accept(map[string]any{"answer": msg})
}

func (e *elicitor) questions() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(slices.Values(e.asked))
}

// form is an elicitation with message msg.
func form(msg string) *mcp.ElicitRequestParams {
	return &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: msg, RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}}}
}

// answerOf returns the content member "answer" of an accepted elicitation.
func answerOf(r *mcp.ElicitResult) string {
	if r == nil || r.Action != "accept" {
		return "(declined)"
	}
	return fmt.Sprint(r.Content["answer"].Value)
}

// fixture is a StandardServer serving the Tasks extension (tasks.Server,
// every tool Optional, polls every 100 ms) with the test tools, and what
// it saw.
type fixture struct {
	srv     *mcp.StandardServer
	ts      *tasks.Server
	store   *store.MemoryStore
	started chan struct{} // told when "block" starts
	polled  chan struct{} // told, without blocking, on each tasks/get

	mu      sync.Mutex
	methods []string // the tasks/* requests received, in order
	taskID  string   // the taskId of the last of them
}

// lastTask returns the task id the last tasks/* request named.
func (fx *fixture) lastTask() string {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	return fx.taskID
}

// count returns the number of tasks created.
func (fx *fixture) count() int { return fx.store.Len() }

// received returns the tasks/* requests received.
func (fx *fixture) received() []string {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	return slices.Clone(fx.methods)
}

// record is a server middleware that records the tasks/* requests.
func (fx *fixture) record(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		if !r.Outgoing && strings.HasPrefix(r.Method, "tasks/") {
			fx.mu.Lock()
			fx.methods = append(fx.methods, r.Method)
			fx.taskID, _ = wire.MemberString(r.Params, "taskId")
			fx.mu.Unlock()
			if r.Method == tasks.MethodTasksGet {
				select {
				case fx.polled <- struct{}{}:
				default:
				}
			}
		}
		return next(ctx, r)
	}
}

// newFixture is a StandardServer with the Tasks server and the test tools.
func newFixture(t *testing.T) *fixture {
	fx := &fixture{started: make(chan struct{}, 8), polled: make(chan struct{}, 1), store: store.NewMemoryStore(store.MemoryOptions{})}
	fx.ts = tasks.NewServer(tasks.Options{Store: fx.store, PollInterval: 100 * time.Millisecond})
	t.Cleanup(func() { fx.ts.Close() })
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks-test", Version: "1"}, mcp.WithExtension(fx.ts), mcp.WithMiddleware(fx.record))
	add := func(name string, fn mcp.ToolHandler) {
		srv.MustAddTool(mcp.NewTool(name, name), fn)
		fx.ts.SetToolSupport(name, tasks.Optional)
	}
	add("echo", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		name, _ := wire.MemberString(p.Arguments, "name")
		return mcp.TextResult("hello " + name), nil
	})
	add("quote", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		name, _ := wire.MemberString(p.Arguments, "name")
		return mcp.TextResult(`"hello ` + name + `"`), nil
	})
	add("tool_error", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, errors.New("the disk is full")
	})
	add("fail", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32001, Message: "quota exceeded", Data: jsontext.Value(`{"retryAfter":5}`)}
	})
	add("confirm", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		r, err := mcp.Elicit(ctx, "confirm", form("sure?"))
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("confirm: " + answerOf(r)), nil
	})
	add("both", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		rs, err := mcp.AskInput(ctx, mcp.InputRequests{
			"a": {Value: &mcp.ElicitRequest{Params: *form("first?")}},
			"b": {Value: &mcp.ElicitRequest{Params: *form("second?")}},
		})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, k := range []string{"a", "b"} {
			r, ok := rs[k].Value.(*mcp.ElicitResult)
			if !ok {
				return nil, fmt.Errorf("input %s: %T", k, rs[k].Value)
			}
			out = append(out, answerOf(r))
		}
		return mcp.TextResult("both: " + strings.Join(out, ", ")), nil
	})
	add("steps", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		a, err := mcp.Elicit(ctx, "a", form("first?"))
		if err != nil {
			return nil, err
		}
		b, err := mcp.Elicit(ctx, "b", form("second?"))
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("steps: " + answerOf(a) + ", " + answerOf(b)), nil
	})
	add("required", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("done"), nil
	})
	fx.ts.SetToolSupport("required", tasks.Required)
	add("block", func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		fx.started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	fx.srv = srv
	return fx
}

// statusOf polls task id from cs until it is terminal (or ctx ends) and
// returns its status.
func statusOf(ctx context.Context, cs *mcp.ClientSession, id string) (string, error) {
	for {
		got, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: id})
		if err != nil {
			return "", err
		}
		switch got.Value.(type) {
		case *tasks.GetTaskResultCancelledTask:
			return "cancelled", nil
		case *tasks.GetTaskResultCompletedTask:
			return "completed", nil
		case *tasks.GetTaskResultFailedTask:
			return "failed", nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// connectors connect a client to a server handler: over an in-memory
// pipe, and over Streamable HTTP on 127.0.0.1 (where the headers the
// client sets are checked: Mcp-Name must be the task id).
var connectors = []struct {
	name    string
	connect func(t *testing.T, h func() session.Handler, opts *mcp.ClientOptions) *mcp.ClientSession
}{
	{"pipe", func(t *testing.T, h func() session.Handler, opts *mcp.ClientOptions) *mcp.ClientSession {
		serverEnd, clientEnd := transport.Pipe()
		server := session.New(session.Server, serverEnd, h(), session.Options{})
		t.Cleanup(func() { server.Close() })
		return connect(t, clientEnd, opts)
	}},
	{"http", func(t *testing.T, h func() session.Handler, opts *mcp.ClientOptions) *mcp.ClientSession {
		sh := streamhttp.NewServer(h, streamhttp.ServerOptions{})
		hs := httptest.NewServer(checkTaskHeaders(t, sh))
		t.Cleanup(hs.Close)
		return connect(t, mcp.HTTP(hs.URL, nil), opts)
	}},
}

// checkTaskHeaders fails t when a tasks/* request does not name its task
// in Mcp-Name.
func checkTaskHeaders(t *testing.T, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := r.Header.Get("Mcp-Method"); strings.HasPrefix(m, "tasks/") && r.Header.Get("Mcp-Name") == "" {
			t.Errorf("%s sent without Mcp-Name", m)
		}
		next.ServeHTTP(w, r)
	})
}

func connect(t *testing.T, tr transport.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs, err := mcp.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(name string, args map[string]any) *mcp.CallToolRequestParams {
	p := &mcp.CallToolRequestParams{Name: name}
	if args != nil {
		p.Arguments, _ = wire.EncodeValue(args)
	}
	return p
}

// TestFollow: a client that uses the extension gets the outcome of the
// task from CallTool, as a synchronous call would give it.
func TestFollow(t *testing.T) {
	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		want      string   // the result's text
		isError   bool     // the result's isError
		code      int64    // else the *jsonrpc.Error's code
		questions []string // the elicitations the client answered
	}{
		{name: "completed", tool: "echo", args: map[string]any{"name": "Ada"}, want: "hello Ada"},
		{name: "tool error stays a result", tool: "tool_error", want: "the disk is full", isError: true},
		{name: "failed gives the JSON-RPC error", tool: "fail", code: -32001},
		{name: "one input", tool: "confirm", want: "confirm: sure?", questions: []string{"sure?"}},
		{name: "two inputs at once", tool: "both", want: "both: first?, second?", questions: []string{"first?", "second?"}},
		{name: "two inputs in turn", tool: "steps", want: "steps: first?, second?", questions: []string{"first?", "second?"}},
	}
	for _, c := range connectors {
		for _, tt := range tests {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				fx := newFixture(t)
				h := &elicitor{}
				cs := c.connect(t, fx.srv.Handler, &mcp.ClientOptions{Handler: h, Extensions: []mcp.ClientExtension{tasks.Follower{}}})
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				res, err := cs.CallTool(ctx, call(tt.tool, tt.args))
				if tt.code != 0 {
					var je *mcp.RPCError
					if !errors.As(err, &je) || je.Code != tt.code || je.Message != "quota exceeded" || string(je.Data) != `{"retryAfter":5}` {
						t.Fatalf("CallTool: %v (%#v), want the tool's JSON-RPC error %d", err, je, tt.code)
					}
				} else {
					if err != nil {
						t.Fatalf("CallTool: %v", err)
					}
					if got := res.Text(); got != tt.want || res.Failed() != tt.isError {
						t.Errorf("CallTool = %q (isError %v), want %q (isError %v)", got, res.Failed(), tt.want, tt.isError)
					}
				}
				if got := h.questions(); !slices.Equal(got, tt.questions) {
					t.Errorf("the client answered %q, want %q (each once)", got, tt.questions)
				}
				if fx.count() != 1 {
					t.Errorf("%d tasks created, want 1", fx.count())
				}
				if got := fx.received(); !slices.Contains(got, tasks.MethodTasksGet) || slices.Contains(got, tasks.MethodTasksCancel) {
					t.Errorf("the server got %q: want tasks/get, and no tasks/cancel", got)
				}
			})
		}
	}
}

// TestFollowHelpers: CallToolArgs and CallTypedTool follow too.
func TestFollowHelpers(t *testing.T) {
	fx := newFixture(t)
	cs := connectors[0].connect(t, fx.srv.Handler, &mcp.ClientOptions{Extensions: []mcp.ClientExtension{tasks.Follower{}}})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallToolArgs(ctx, "echo", map[string]any{"name": "Bo"})
	if err != nil || res.Text() != "hello Bo" {
		t.Fatalf("CallToolArgs = %v, %v; want hello Bo", res, err)
	}
	out, _, err := mcp.CallTypedTool[string](ctx, cs, "quote", struct {
		Name string `json:"name"`
	}{"Cy"})
	if err != nil || out != "hello Cy" {
		t.Fatalf("CallTypedTool = %q, %v; want hello Cy", out, err)
	}
	if n := fx.count(); n != 2 {
		t.Errorf("%d tasks created, want 2", n)
	}
}

// TestFollowCancel: when the call's context ends, the client sends
// tasks/cancel, and the task ends cancelled on the server.
func TestFollowCancel(t *testing.T) {
	for _, c := range connectors {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			cs := c.connect(t, fx.srv.Handler, &mcp.ClientOptions{Extensions: []mcp.ClientExtension{tasks.Follower{}}})
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			callCtx, stop := context.WithCancel(ctx)
			go func() {
				// Once the client polls, it knows the task.
				select {
				case <-fx.polled:
				case <-ctx.Done():
				}
				stop()
			}()
			_, err := cs.CallTool(callCtx, call("block", nil))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool: %v, want context.Canceled", err)
			}
			if st, err := statusOf(ctx, cs, fx.lastTask()); err != nil || st != "cancelled" {
				t.Errorf("the task ended %q (%v), want cancelled", st, err)
			}
			if got := fx.received(); !slices.Contains(got, tasks.MethodTasksCancel) {
				t.Errorf("the server got %q, want a tasks/cancel", got)
			}
		})
	}
}

// TestFollowNeverEnds: a task that never ends is followed until the
// context does, and then cancelled.
func TestFollowNeverEnds(t *testing.T) {
	fx := newFixture(t)
	cs := connectors[0].connect(t, fx.srv.Handler, &mcp.ClientOptions{Extensions: []mcp.ClientExtension{tasks.Follower{}}})
	ctx, cancel := context.WithTimeout(context.Background(), 350*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, call("block", nil))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CallTool: %v, want context.DeadlineExceeded", err)
	}
	got := fx.received()
	if len(got) == 0 || got[len(got)-1] != tasks.MethodTasksCancel || !slices.Contains(got, tasks.MethodTasksGet) {
		t.Errorf("the server got %q, want polls then a tasks/cancel", got)
	}
}

// TestPollInterval: the client waits as long as the server last asked,
// within MinPollInterval and MaxPollInterval, DefaultPollInterval when it
// never said.
func TestPollInterval(t *testing.T) {
	tests := []struct {
		name string
		in   []*int64
		want []time.Duration
	}{
		{"none", []*int64{nil}, []time.Duration{time.Second}},
		{"given", []*int64{ms(250)}, []time.Duration{250 * time.Millisecond}},
		{"too short", []*int64{ms(0), ms(-5), ms(99)}, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}},
		{"too long", []*int64{ms(1 << 53)}, []time.Duration{time.Hour}},
		{"changes", []*int64{ms(300), ms(1200), nil, ms(200)}, []time.Duration{300 * time.Millisecond, 1200 * time.Millisecond, 1200 * time.Millisecond, 200 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tasks.Interval(tt.in...); !slices.Equal(got, tt.want) {
				t.Errorf("intervals %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFollowChangingInterval: a server that changes pollIntervalMs from
// answer to answer is followed.
func TestFollowChangingInterval(t *testing.T) {
	poll := func(ms int) string {
		return strings.Replace(get("working", ""), `"pollIntervalMs":100`, `"pollIntervalMs":`+fmt.Sprint(ms), 1)
	}
	sc := &scripted{create: jsontext.Value(strings.Replace(task1, `"pollIntervalMs":100`, `"pollIntervalMs":250`, 1)),
		gets: []string{poll(400), strings.Replace(get("working", ""), `,"pollIntervalMs":100`, ``, 1), poll(150), get("completed", `,"result":{"content":[{"type":"text","text":"ok"}]}`)}}
	var waits []time.Duration // the client's goroutine only
	sleep := func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	cs := connectors[0].connect(t, scriptedServer(sc).Handler, &mcp.ClientOptions{Extensions: []mcp.ClientExtension{tasks.FollowerSleeping(sleep)}})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, call("x", nil))
	if err != nil || res.Text() != "ok" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	// The CreateTaskResult's interval, then each answer's; one without
	// pollIntervalMs keeps the last one.
	want := []time.Duration{250 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond, 150 * time.Millisecond}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
}

// TestAsyncAndResume: CallToolAsync starts a task and returns it; GetTask
// sees it; a new client, connected afresh with the saved id, waits for
// it, answering its input.
func TestAsyncAndResume(t *testing.T) {
	for _, c := range connectors {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			// The first client declares elicitation (the task may ask), but
			// does not follow the task: it answers nothing.
			h1 := &elicitor{}
			first := c.connect(t, fx.srv.Handler, &mcp.ClientOptions{Handler: h1, Extensions: []mcp.ClientExtension{tasks.Follower{}}})
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			task, res, err := tasks.CallToolAsync(ctx, first, call("confirm", nil))
			if err != nil || task == nil || res != nil {
				t.Fatalf("CallToolAsync = %v, %v, %v; want a task", task, res, err)
			}
			got, err := tasks.GetTask(ctx, first, &tasks.GetTaskRequestParams{TaskID: task.TaskID})
			if err != nil {
				t.Fatalf("GetTask: %v", err)
			}
			switch v := got.Value.(type) {
			case *tasks.GetTaskResultWorkingTask, *tasks.GetTaskResultInputRequiredTask:
			default:
				t.Fatalf("GetTask = %T, want working or input_required", v)
			}
			first.Close()

			h := &elicitor{}
			second := c.connect(t, fx.srv.Handler, &mcp.ClientOptions{Handler: h, Extensions: []mcp.ClientExtension{tasks.Follower{}}})
			out, err := tasks.Wait(ctx, second, task.TaskID)
			if err != nil || out.Text() != "confirm: sure?" {
				t.Fatalf("Wait = %v, %v; want the tool's result", out, err)
			}
			if q := h.questions(); !slices.Equal(q, []string{"sure?"}) {
				t.Errorf("the second client answered %q", q)
			}
			if q := h1.questions(); len(q) != 0 {
				t.Errorf("the first client answered %q", q)
			}
		})
	}
}

// TestRawCancel: CancelTask cancels a task; Wait then says so, and a
// Wait whose context ends does not cancel the task.
func TestRawCancel(t *testing.T) {
	fx := newFixture(t)
	cs := connectors[0].connect(t, fx.srv.Handler, &mcp.ClientOptions{Extensions: []mcp.ClientExtension{tasks.Follower{}}})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	task, _, err := tasks.CallToolAsync(ctx, cs, call("block", nil))
	if err != nil || task == nil {
		t.Fatalf("CallToolAsync = %v, %v", task, err)
	}
	short, stop := context.WithTimeout(ctx, 150*time.Millisecond)
	_, err = tasks.Wait(short, cs, task.TaskID)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait: %v, want context.DeadlineExceeded", err)
	}
	if slices.Contains(fx.received(), tasks.MethodTasksCancel) {
		t.Fatal("Wait cancelled the task")
	}
	if _, err := tasks.CancelTask(ctx, cs, &tasks.CancelTaskRequestParams{TaskID: task.TaskID}); err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	_, err = tasks.Wait(ctx, cs, task.TaskID)
	if !errors.Is(err, tasks.ErrCancelled) || !strings.Contains(err.Error(), "cancelled by the client") {
		t.Fatalf("Wait: %v, want ErrCancelled with the status message", err)
	}
}

// TestWithoutTasks: a client that does not use the extension declares
// nothing and gets a synchronous result; the raw API tells it what to do.
func TestWithoutTasks(t *testing.T) {
	for _, c := range connectors {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			cs := c.connect(t, fx.srv.Handler, nil)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			res, err := cs.CallTool(ctx, call("echo", map[string]any{"name": "Di"}))
			if err != nil || res.Text() != "hello Di" {
				t.Fatalf("CallTool = %v, %v", res, err)
			}
			if fx.count() != 0 {
				t.Errorf("a task was created for a client without the extension")
			}
			_, err = cs.CallTool(ctx, call("required", nil))
			if je := (*mcp.RPCError)(nil); !errors.As(err, &je) || je.Code != session.MissingRequiredClientCapability {
				t.Errorf("CallTool of a tool that requires a task: %v, want -32021", err)
			}
			_, _, err = tasks.CallToolAsync(ctx, cs, call("echo", nil))
			if err == nil || !strings.Contains(err.Error(), "tasks.Follower{}") {
				t.Errorf("CallToolAsync: %v, want an error saying to use tasks.Follower", err)
			}
			if _, err := tasks.Wait(ctx, cs, "x"); err == nil || !strings.Contains(err.Error(), "tasks.Follower{}") {
				t.Errorf("Wait: %v, want an error saying to use tasks.Follower", err)
			}
			if _, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: "x"}); err == nil || !strings.Contains(err.Error(), "tasks/get") {
				t.Errorf("GetTask: %v, want an error", err)
			}
		})
	}
}

// TestAsyncSync: a server that answers a task-augmented call at once
// gives CallToolAsync the result.
func TestAsyncSync(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "sync", Version: "1"})
	srv.MustAddTool(mcp.NewTool("echo", "Says hello"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("hi"), nil
	})
	cs := connectors[0].connect(t, srv.Handler, &mcp.ClientOptions{Extensions: []mcp.ClientExtension{tasks.Follower{}}})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	task, res, err := tasks.CallToolAsync(ctx, cs, call("echo", nil))
	if err != nil || task != nil || res == nil || res.Text() != "hi" {
		t.Fatalf("CallToolAsync = %v, %v, %v; want the result", task, res, err)
	}
}

// scripted is a hostile Tasks server: it answers a tools/call with
// create and the n-th tasks/get with gets[n] (the last one repeated),
// whatever they are, and records tasks/update and tasks/cancel.
type scripted struct {
	create jsontext.Value
	gets   []string

	mu      sync.Mutex
	n       int
	updates []string // the inputResponses of each tasks/update
	cancels int
}

func (sc *scripted) ID() string                 { return tasks.ID }
func (sc *scripted) Capability() jsontext.Value { return jsontext.Value(`{}`) }
func (sc *scripted) Methods() []wire.Method {
	var out []wire.Method
	for _, m := range tasks.Methods() {
		if !m.Notification {
			out = append(out, m)
		}
	}
	return out
}
func (sc *scripted) WrapToolCall(ctx context.Context, s *session.Session, params jsontext.Value, call func(context.Context) (wire.Appender, error)) (wire.Appender, error) {
	return session.Raw(sc.create), nil
}

func (sc *scripted) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	switch method {
	case tasks.MethodTasksGet:
		i := min(sc.n, len(sc.gets)-1)
		sc.n++
		return session.Raw(sc.gets[i]), nil
	case tasks.MethodTasksUpdate:
		in, _ := wire.Member(params, "inputResponses")
		sc.updates = append(sc.updates, string(in))
	case tasks.MethodTasksCancel:
		sc.cancels++
	}
	return session.Raw(`{}`), nil
}

// scriptedServer is a StandardServer serving sc, with a tool "x".
func scriptedServer(sc *scripted) *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "hostile", Version: "1"}, mcp.WithExtension(sc))
	srv.MustAddTool(mcp.NewTool("x", "x"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("sync"), nil
	})
	return srv
}

const task1 = `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"pollIntervalMs":100}`

// get is a GetTaskResult of task t1 with status and more members.
func get(status, more string) string {
	return `{"resultType":"complete","taskId":"t1","status":"` + status + `","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"pollIntervalMs":100` + more + `}`
}

func elicit(msg string) string {
	return `{"method":"elicitation/create","params":{"mode":"form","message":"` + msg + `","requestedSchema":{"type":"object","properties":{}}}}`
}

// TestHostile: what a server sends is checked; a client gives up with an
// error that says what was wrong, cancels the task when it had one, and
// never answers a key twice.
func TestHostile(t *testing.T) {
	done := get("completed", `,"result":{"content":[{"type":"text","text":"ok"}]}`)
	tests := []struct {
		name      string
		create    string
		gets      []string
		timeout   time.Duration // 0: testTimeout
		want      string        // in the error; "" for none
		text      string        // else the result's text
		cancels   bool          // a tasks/cancel was sent
		updates   []string      // the inputResponses sent
		questions []string
	}{
		{name: "empty taskId", create: strings.Replace(task1, `"t1"`, `""`, 1), want: "/taskId: empty"},
		{name: "taskId not a string", create: strings.Replace(task1, `"t1"`, `7`, 1), want: "taskId"},
		{name: "no ttlMs", create: strings.Replace(task1, `"ttlMs":null,`, ``, 1), want: "ttlMs"},
		{name: "poll answer not a task", create: task1, gets: []string{`{"resultType":"complete","content":[]}`}, want: "tasks/get result", cancels: true},
		{name: "poll answer a task again", create: task1, gets: []string{strings.Replace(task1, "t1", "t2", 1)}, want: "only tools/call may be answered with a task"},
		{name: "poll answer of another task", create: task1, gets: []string{strings.Replace(get("working", ""), "t1", "t2", 1)}, want: `/taskId: "t2", not the task polled`, cancels: true},
		{name: "unknown status", create: task1, gets: []string{get("paused", "")}, want: "status", cancels: true},
		{name: "completed without result", create: task1, gets: []string{get("completed", "")}, want: "result", cancels: true},
		{name: "result not a tool result", create: task1, gets: []string{get("completed", `,"result":{"content":7}`)}, want: "/result", cancels: true},
		{name: "input of an undeclared capability", create: task1,
			gets: []string{get("input_required", `,"inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}`)},
			want: "did not declare the capability sampling", cancels: true},
		{name: "input not an input request", create: task1,
			gets: []string{get("input_required", `,"inputRequests":{"x":{"method":"tools/list"}}`)},
			want: "not an input request", cancels: true},
		{name: "a key listed again is answered once", create: task1,
			gets: []string{
				get("input_required", `,"inputRequests":{"a":`+elicit("one?")+`}`),
				get("input_required", `,"inputRequests":{"a":`+elicit("one?")+`}`),
				get("input_required", `,"inputRequests":{"a":`+elicit("one?")+`,"b":`+elicit("two?")+`}`),
				done,
			},
			text:      "ok",
			updates:   []string{`{"a":{"action":"accept","content":{"answer":"one?"}}}`, `{"b":{"action":"accept","content":{"answer":"two?"}}}`},
			questions: []string{"one?", "two?"}},
		{name: "input asked forever", create: task1, timeout: 400 * time.Millisecond,
			gets: []string{get("input_required", `,"inputRequests":{"a":`+elicit("one?")+`}`)},
			want: "context deadline exceeded", cancels: true,
			updates: []string{`{"a":{"action":"accept","content":{"answer":"one?"}}}`}, questions: []string{"one?"}},
		{name: "failed", create: task1, gets: []string{get("failed", `,"error":{"code":-32603,"message":"boom"}`)}, want: "jsonrpc error -32603: boom"},
		{name: "cancelled", create: task1, gets: []string{get("cancelled", "")}, want: "task t1: the task was cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scripted{create: jsontext.Value(tt.create), gets: tt.gets}
			if sc.gets == nil {
				sc.gets = []string{done}
			}
			srv := scriptedServer(sc)
			h := &elicitor{}
			cs := connectors[0].connect(t, srv.Handler, &mcp.ClientOptions{Handler: h, Extensions: []mcp.ClientExtension{tasks.Follower{}}})
			timeout := tt.timeout
			if timeout == 0 {
				timeout = testTimeout
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			res, err := cs.CallTool(ctx, call("x", nil))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("CallTool: %v", err)
			case tt.want == "" && res.Text() != tt.text:
				t.Errorf("CallTool = %q, want %q", res.Text(), tt.text)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("CallTool: %v, want an error with %q", err, tt.want)
			}
			sc.mu.Lock()
			defer sc.mu.Unlock()
			if (sc.cancels > 0) != tt.cancels {
				t.Errorf("%d tasks/cancel sent, want any: %v", sc.cancels, tt.cancels)
			}
			if !slices.Equal(sc.updates, tt.updates) {
				t.Errorf("tasks/update sent %q, want %q", sc.updates, tt.updates)
			}
			if got := h.questions(); !slices.Equal(got, tt.questions) {
				t.Errorf("the client answered %q, want %q", got, tt.questions)
			}
		})
	}
}

// TestExtensionsChecked: Connect refuses extensions it cannot use.
func TestExtensionsChecked(t *testing.T) {
	tests := []struct {
		name string
		exts []mcp.ClientExtension
		want string
	}{
		{"nil", []mcp.ClientExtension{nil}, "Options.Extensions[0] is nil"},
		{"twice", []mcp.ClientExtension{tasks.Follower{}, tasks.Follower{}}, "is there twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
			serverEnd, clientEnd := transport.Pipe()
			server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
			defer server.Close()
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			_, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Extensions: tt.exts})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Connect: %v, want an error with %q", err, tt.want)
			}
		})
	}
}
