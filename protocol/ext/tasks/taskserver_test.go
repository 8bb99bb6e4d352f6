package tasks_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// taskServer is a small Tasks server built on the extension seam
// (session.Extension, session.ToolCallWrapper, session.WithAsker): every
// tools/call of a request that declares the extension runs as a task. It
// stands in for the runtime's own Tasks server in the client's tests.
type taskServer struct {
	// poll gives the pollIntervalMs of the n-th answer about a task (0 the
	// CreateTaskResult); nil gives none.
	poll func(n int) *int64
	// polled is sent to, without blocking, on each tasks/get.
	polled chan struct{}

	mu    sync.Mutex
	tasks map[string]*serverTask
	calls []string // the tasks/* methods received, in order
}

type serverTask struct {
	status   tasks.TaskStatus
	message  *string
	answers  int // polls answered
	result   jsontext.Value
	err      *jsonrpc.Error
	asked    map[string]jsontext.Value // outstanding input requests
	got      map[string]jsontext.Value // answers received, by key
	wake     chan struct{}             // closed and replaced when got or status changes
	cancel   context.CancelFunc
	done     chan struct{}
	created  time.Time
	updated  time.Time
	canceled bool
}

func newTaskServer() *taskServer {
	return &taskServer{tasks: map[string]*serverTask{}, polled: make(chan struct{}, 1)}
}

func (ts *taskServer) ID() string                 { return tasks.ID }
func (ts *taskServer) Capability() jsontext.Value { return jsontext.Value(`{}`) }
func (ts *taskServer) Methods() []wire.Method {
	var out []wire.Method
	for _, m := range tasks.Methods() {
		if !m.Notification {
			out = append(out, m)
		}
	}
	return out
}

// task returns the task id, or nil.
func (ts *taskServer) task(id string) *serverTask {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.tasks[id]
}

// count returns the number of tasks created.
func (ts *taskServer) count() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.tasks)
}

// only returns the id of the one task created.
func (ts *taskServer) only(t *testing.T) string {
	t.Helper()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.tasks) != 1 {
		t.Fatalf("%d tasks created, want 1", len(ts.tasks))
	}
	for id := range ts.tasks {
		return id
	}
	return ""
}

// methods returns the tasks/* methods received.
func (ts *taskServer) methods() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.calls...)
}

// status returns the status of task id, and whether its handler is done.
func (ts *taskServer) status(id string) (tasks.TaskStatus, bool) {
	ts.mu.Lock()
	t := ts.tasks[id]
	ts.mu.Unlock()
	if t == nil {
		return "", false
	}
	select {
	case <-t.done:
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return t.status, true
	default:
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return t.status, false
}

// waitDone waits for the handler of task id to end, or ctx.
func (ts *taskServer) waitDone(ctx context.Context, id string) (tasks.TaskStatus, error) {
	t := ts.task(id)
	if t == nil {
		return "", errors.New("no such task")
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	st, _ := ts.status(id)
	return st, nil
}

func (ts *taskServer) WrapToolCall(ctx context.Context, s *session.Session, params jsontext.Value, call func(context.Context) (wire.Appender, error)) (wire.Appender, error) {
	if !session.ClientDeclares(ctx, tasks.ID) {
		return call(ctx)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	hctx, cancel := context.WithCancel(session.Detach(ctx))
	now := time.Now().UTC()
	t := &serverTask{status: tasks.TaskStatusWorking, asked: map[string]jsontext.Value{}, got: map[string]jsontext.Value{},
		wake: make(chan struct{}), cancel: cancel, done: make(chan struct{}), created: now, updated: now}
	ts.mu.Lock()
	ts.tasks[id] = t
	ts.mu.Unlock()
	hctx = session.WithAsker(hctx, func(ctx context.Context, reqs map[string]session.InputRequest) (map[string]jsontext.Value, error) {
		return ts.ask(ctx, t, reqs)
	})
	go func() {
		defer close(t.done)
		defer cancel()
		res, err := call(hctx)
		ts.mu.Lock()
		defer ts.mu.Unlock()
		t.updated = time.Now().UTC()
		var je *jsonrpc.Error
		switch {
		case t.canceled:
			t.status = tasks.TaskStatusCancelled
			msg := "cancelled by the client"
			t.message = &msg
		case errors.As(err, &je):
			t.status, t.err = tasks.TaskStatusFailed, je
		case err != nil:
			t.status, t.err = tasks.TaskStatusFailed, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: err.Error()}
		default:
			raw, err := res.AppendJSON(nil)
			if err != nil {
				t.status, t.err = tasks.TaskStatusFailed, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: err.Error()}
				break
			}
			t.status, t.result = tasks.TaskStatusCompleted, raw
		}
		close(t.wake)
		t.wake = make(chan struct{})
	}()
	return &tasks.CreateTaskResult{TaskID: id, Status: tasks.TaskStatusWorking, CreatedAt: now.Format(time.RFC3339Nano),
		LastUpdatedAt: now.Format(time.RFC3339Nano), PollIntervalMs: ts.pollMs(0)}, nil
}

func (ts *taskServer) pollMs(n int) *int64 {
	if ts.poll == nil {
		return nil
	}
	return ts.poll(n)
}

// ask parks the handler of t until every key of reqs is answered.
func (ts *taskServer) ask(ctx context.Context, t *serverTask, reqs map[string]session.InputRequest) (map[string]jsontext.Value, error) {
	ts.mu.Lock()
	for k, r := range reqs {
		if _, ok := t.got[k]; ok {
			continue
		}
		req := jsontext.Value(`{}`)
		q, _ := jsontext.AppendQuote(nil, r.Method)
		req, _ = wire.SetMember(req, "method", q)
		if r.Params != nil {
			p, err := r.Params.AppendJSON(nil)
			if err != nil {
				ts.mu.Unlock()
				return nil, err
			}
			req, _ = wire.SetMember(req, "params", p)
		}
		t.asked[k] = req
	}
	if len(t.asked) > 0 {
		t.status = tasks.TaskStatusInputRequired
	}
	for {
		all := true
		for k := range reqs {
			if _, ok := t.got[k]; !ok {
				all = false
			}
		}
		if all {
			out := map[string]jsontext.Value{}
			for k := range reqs {
				out[k] = t.got[k]
			}
			if len(t.asked) == 0 {
				t.status = tasks.TaskStatusWorking
			}
			ts.mu.Unlock()
			return out, nil
		}
		wake := t.wake
		ts.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		ts.mu.Lock()
	}
}

func (ts *taskServer) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	if !session.ClientDeclares(ctx, tasks.ID) {
		return nil, session.MissingExtensionError(tasks.ID)
	}
	id, _ := wire.MemberString(params, "taskId")
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.calls = append(ts.calls, method)
	t := ts.tasks[id]
	if t == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "no such task"}
	}
	switch method {
	case tasks.MethodTasksGet:
		select {
		case ts.polled <- struct{}{}:
		default:
		}
		t.answers++
		return ts.detailed(id, t), nil
	case tasks.MethodTasksUpdate:
		in, _ := wire.Member(params, "inputResponses")
		var answers map[string]jsontext.Value
		if err := wire.DecodeValue(in, &answers); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: err.Error()}
		}
		for k, a := range answers {
			if _, ok := t.asked[k]; !ok {
				continue // not outstanding: ignored
			}
			delete(t.asked, k)
			t.got[k] = a
		}
		close(t.wake)
		t.wake = make(chan struct{})
		return session.Raw(`{}`), nil
	case tasks.MethodTasksCancel:
		if !terminal(t.status) {
			t.canceled = true
			t.cancel()
		}
		return session.Raw(`{}`), nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: method}
}

// detailed is the GetTaskResult of t.
func (ts *taskServer) detailed(id string, t *serverTask) wire.Appender {
	v := jsontext.Value(`{}`)
	set := func(name string, val any) {
		b, err := wire.EncodeValue(val)
		if err != nil {
			panic(err)
		}
		v, _ = wire.SetMember(v, name, b)
	}
	set("taskId", id)
	set("status", string(t.status))
	set("createdAt", t.created.Format(time.RFC3339Nano))
	set("lastUpdatedAt", t.updated.Format(time.RFC3339Nano))
	v, _ = wire.SetMember(v, "ttlMs", jsontext.Value(`null`))
	if ms := ts.pollMs(t.answers); ms != nil {
		set("pollIntervalMs", *ms)
	}
	if t.message != nil {
		set("statusMessage", *t.message)
	}
	switch t.status {
	case tasks.TaskStatusInputRequired:
		set("inputRequests", t.asked)
	case tasks.TaskStatusCompleted:
		v, _ = wire.SetMember(v, "result", t.result)
	case tasks.TaskStatusFailed:
		e := map[string]any{"code": t.err.Code, "message": t.err.Message}
		if t.err.Data != nil {
			e["data"] = t.err.Data
		}
		set("error", e)
	}
	return session.Raw(v)
}

var _ session.ToolCallWrapper = (*taskServer)(nil)
var _ session.Extension = (*taskServer)(nil)

// terminal reports whether st is a final status.
func terminal(st tasks.TaskStatus) bool {
	return st == tasks.TaskStatusCompleted || st == tasks.TaskStatusFailed || st == tasks.TaskStatusCancelled
}
