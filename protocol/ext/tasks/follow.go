package tasks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file is the client side of the extension (hand-written): Follower,
// which a client puts in mcp.ClientOptions.Extensions, and the raw task
// API for callers who start a task and come back to it later.

// The poll intervals of a client following a task (see Follower); it
// waits DefaultPollInterval when the server gave none.
const (
	// MinPollInterval is the shortest wait between two tasks/get: a
	// pollIntervalMs below it is read as it.
	MinPollInterval = 100 * time.Millisecond
	// MaxPollInterval is the longest: a pollIntervalMs above it is read as
	// it.
	MaxPollInterval = time.Hour
)

// maxAnswers bounds the input requests a client answers for one task.
const maxAnswers = 1024

// cancelTimeout bounds the tasks/cancel a follower sends when it gives a
// task up.
const cancelTimeout = 5 * time.Second

// ErrCancelled is wrapped by the error of a wait for a task that ended
// cancelled.
var ErrCancelled = errors.New("the task was cancelled")

// Follower is the client side of the Tasks extension
// (https://github.com/modelcontextprotocol/ext-tasks). A client that has it
// in mcp.ClientOptions.Extensions declares the extension in every request
// (capabilities.extensions["io.modelcontextprotocol/tasks"] = {}), may call
// tasks/get, tasks/update and tasks/cancel (GetTask, UpdateTask,
// CancelTask, Wait), and follows each task a tools/call is answered with:
// the call (CallTool, CallToolArgs, CallTypedTool) returns the task's
// outcome, as a synchronous call would have.
//
// Following a task, the client polls tasks/get, waiting pollIntervalMs
// between polls as the server last gave it (DefaultPollInterval when it
// gave none, never less than MinPollInterval nor more than
// MaxPollInterval). A task in input_required has its input requests
// answered by the client's handler (its Elicitor, Sampler, RootsLister, as
// for a multi round-trip result; see session.Session.AnswerInput) and the
// answers sent with tasks/update; a key is answered once, however often
// the server lists it, and a task that asks for more than 1024 inputs is
// given up. A completed task gives its result (isError included), a failed
// one its JSON-RPC error (a *jsonrpc.Error, mcp.RPCError), a cancelled one
// an error wrapping ErrCancelled.
//
// When the call's context ends, the client sends tasks/cancel (on a
// context of its own, bounded to 5 s) and returns the context's error at
// once, without waiting for the task to end cancelled. It cancels the task
// too when it gives it up for a reason of its own (an input request it
// cannot answer, a poll answer that is not this task), but not when
// tasks/get fails (the server unreachable, the task unknown or expired):
// the error then names the task, which Wait can resume. A context that
// ends before the server has answered the tools/call leaves no task to
// cancel: that request is cancelled as any other. Following is bounded by
// the context only; each request by the session's CallTimeout.
//
// The zero value is ready to use.
type Follower struct {
	// sleep waits between polls; nil for timerSleep. A pointer keeps
	// Follower comparable.
	sleep *sleeper
}

// sleeper waits d, or until ctx ends, and then returns ctx's error.
type sleeper func(ctx context.Context, d time.Duration) error

var _ session.ResultFollower = Follower{}

// ID is the extension's identifier, "io.modelcontextprotocol/tasks".
func (Follower) ID() string { return ID }

// Capability is what the client declares: {}.
func (Follower) Capability() jsontext.Value { return jsontext.Value(`{}`) }

// Methods are the extension's method table (Methods).
func (Follower) Methods() []wire.Method { return Methods() }

// ResultType is the resultType of a task: "task".
func (Follower) ResultType() string { return "task" }

// FollowResult follows the task result (a CreateTaskResult) that answered
// method (tools/call) to its end and returns the tool's result (see
// Follower).
func (fl Follower) FollowResult(ctx context.Context, s *session.Session, method string, params, result jsontext.Value) (jsontext.Value, error) {
	if method != mcp.MethodToolsCall {
		return nil, fmt.Errorf("%s result: resultType \"task\": only tools/call may be answered with a task", method)
	}
	ct, err := createdTask(s, result)
	if err != nil {
		return nil, err
	}
	f := &following{s: s, id: ct.TaskID, abandon: true, answered: map[string]bool{}, sleep: timerSleep}
	if fl.sleep != nil {
		f.sleep = *fl.sleep
	}
	f.setInterval(ct.PollIntervalMs)
	return f.run(ctx, ct.Status == TaskStatusWorking)
}

// createdTask decodes result, the answer to a tools/call, as a
// CreateTaskResult with a task id.
func createdTask(s *session.Session, result jsontext.Value) (*CreateTaskResult, error) {
	ct := new(CreateTaskResult)
	if err := s.UnmarshalReceived(result, ct); err != nil {
		return nil, fmt.Errorf("tools/call result: a task: %w", err)
	}
	if ct.TaskID == "" {
		return nil, errors.New("tools/call result: a task: /taskId: empty, so the task cannot be polled")
	}
	return ct, nil
}

// CallToolAsync sends tools/call as a task-augmented request and returns
// the task the server created, without following it: poll it with
// GetTask, answer it with UpdateTask, cancel it with CancelTask, or wait
// for it with Wait (also from another process, after a restart: the task
// id is all it takes). A server may answer at once instead (a tool that
// does not run as a task): that result is returned in res, and task is
// nil. Input a server asks for before it creates the task (a multi
// round-trip result) is answered by the client's handler, as for CallTool.
//
// cs must use the extension (Follower in mcp.ClientOptions.Extensions).
func CallToolAsync(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolRequestParams, opts ...session.CallOption) (task *CreateTaskResult, res *mcp.CallToolResult, err error) {
	if err := uses(cs); err != nil {
		return nil, nil, err
	}
	out, err := CallTool(ctx, cs, params, append(opts[:len(opts):len(opts)], session.WithoutFollow())...)
	if err != nil {
		return nil, nil, err
	}
	switch v := out.Value.(type) {
	case *CreateTaskResult:
		if v.TaskID == "" {
			return nil, nil, errors.New("tools/call result: a task: /taskId: empty, so the task cannot be polled")
		}
		return v, nil, nil
	case *mcp.CallToolResult:
		return nil, v, nil
	}
	return nil, nil, fmt.Errorf("tools/call result: a %T, neither a task nor a tool's result", out.Value)
}

// Wait follows the task taskID to its end, as Follower does for a call,
// and returns the tool's result: it polls tasks/get at once and then as
// the server asks, answers the input the task asks for with the client's
// handler, returns the JSON-RPC error of a failed task (a
// *jsonrpc.Error) and an error wrapping ErrCancelled for a cancelled one.
// It resumes a task started by CallToolAsync, by this client or by an
// earlier one that saved the id (a task belongs to whoever created it: a
// server that checks may refuse another principal's).
//
// Unlike a call, Wait never cancels the task: when ctx ends it returns
// ctx's error and the task goes on; cancel it with CancelTask. cs must use
// the extension (Follower in mcp.ClientOptions.Extensions).
func Wait(ctx context.Context, cs *mcp.ClientSession, taskID string) (*mcp.CallToolResult, error) {
	if err := uses(cs); err != nil {
		return nil, err
	}
	if taskID == "" {
		return nil, errors.New("tasks.Wait: the task id is empty")
	}
	f := &following{s: cs.Session, id: taskID, answered: map[string]bool{}, sleep: timerSleep}
	f.setInterval(nil)
	raw, err := f.run(ctx, false)
	if err != nil {
		return nil, err
	}
	r := new(mcp.CallToolResult)
	if err := cs.UnmarshalReceived(raw, r); err != nil {
		return nil, fmt.Errorf("task %s: the tool's result: %w", taskID, err)
	}
	return r, nil
}

// uses checks that cs uses the extension.
func uses(cs *mcp.ClientSession) error {
	if cs == nil || cs.Session == nil {
		return errors.New("tasks: no client session")
	}
	if !cs.UsesExtension(ID) {
		return fmt.Errorf("tasks: the client does not use the extension %s: put tasks.Follower{} in ClientOptions.Extensions", ID)
	}
	return nil
}

// following is one wait for a task.
type following struct {
	s        *session.Session
	id       string
	abandon  bool // cancel the task when the wait gives it up (a call's)
	interval time.Duration
	answered map[string]bool // the input keys answered
	sleep    sleeper
}

// timerSleep waits d, or until ctx ends, and then returns ctx's error.
func timerSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// setInterval takes the pollIntervalMs a server gave, nil for none (the
// last one given stands, DefaultPollInterval before any).
func (f *following) setInterval(ms *int64) {
	switch {
	case ms != nil && *ms < MinPollInterval.Milliseconds():
		f.interval = MinPollInterval
	case ms != nil && *ms > MaxPollInterval.Milliseconds():
		f.interval = MaxPollInterval
	case ms != nil:
		f.interval = time.Duration(*ms) * time.Millisecond
	case f.interval == 0:
		f.interval = DefaultPollInterval
	}
}

// run polls the task until it ends, first after the poll interval when
// sleep is set (the task is known to be working) and at once otherwise,
// and returns the tool's result, its resultType set.
func (f *following) run(ctx context.Context, sleep bool) (jsontext.Value, error) {
	for {
		if sleep {
			if f.sleep(ctx, f.interval) != nil || ctx.Err() != nil {
				return nil, f.ended(ctx)
			}
		}
		sleep = true
		raw, err := f.s.Call(ctx, MethodTasksGet, &GetTaskRequestParams{TaskID: f.id})
		if err != nil {
			if ctx.Err() != nil {
				return nil, f.ended(ctx)
			}
			return nil, fmt.Errorf("task %s: %w", f.id, err)
		}
		res, done, err := f.step(ctx, raw)
		if done {
			return res, err
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, f.ended(ctx)
			}
			return nil, f.giveUp(ctx, err)
		}
	}
}

// step reads one answer to tasks/get: the task's end (done, with the
// tool's result or the task's error), or, while it goes on, the input it
// asks for, answered (an error then is the wait's, not the task's).
func (f *following) step(ctx context.Context, raw jsontext.Value) (jsontext.Value, bool, error) {
	var got GetTaskResult
	if err := f.s.UnmarshalReceived(raw, &got); err != nil {
		return nil, false, fmt.Errorf("tasks/get result: %w", err)
	}
	switch v := got.Value.(type) {
	case *GetTaskResultWorkingTask:
		if err := f.check(v.TaskID); err != nil {
			return nil, false, err
		}
		f.setInterval(v.PollIntervalMs)
		return nil, false, nil
	case *GetTaskResultInputRequiredTask:
		if err := f.check(v.TaskID); err != nil {
			return nil, false, err
		}
		f.setInterval(v.PollIntervalMs)
		return nil, false, f.answer(ctx, raw)
	case *GetTaskResultCompletedTask:
		if err := f.check(v.TaskID); err != nil {
			return nil, false, err
		}
		res, err := toolResult(f.s, v.Result)
		if err != nil {
			return nil, false, fmt.Errorf("tasks/get result: /result: %w", err)
		}
		return res, true, nil
	case *GetTaskResultFailedTask:
		if err := f.check(v.TaskID); err != nil {
			return nil, false, err
		}
		return nil, true, &jsonrpc.Error{Code: v.Error.Code, Message: v.Error.Message, Data: v.Error.Data}
	case *GetTaskResultCancelledTask:
		if err := f.check(v.TaskID); err != nil {
			return nil, false, err
		}
		if v.StatusMessage != nil && *v.StatusMessage != "" {
			return nil, true, fmt.Errorf("task %s: %w: %s", f.id, ErrCancelled, *v.StatusMessage)
		}
		return nil, true, fmt.Errorf("task %s: %w", f.id, ErrCancelled)
	case *UnknownVariant:
		status, _ := wire.MemberString(v.Raw, "status")
		return nil, false, fmt.Errorf("tasks/get result: /status: %q is not a status of the extension this client knows", status)
	}
	return nil, false, errors.New("tasks/get result: no task")
}

// check checks that an answer to tasks/get is about the task polled.
func (f *following) check(id string) error {
	if id != f.id {
		return fmt.Errorf("tasks/get result: /taskId: %q, not the task polled", id)
	}
	return nil
}

// answer answers the input requests of raw, a task in input_required, that
// were not answered yet, and sends the answers with tasks/update.
func (f *following) answer(ctx context.Context, raw jsontext.Value) error {
	all, ok := wire.Member(raw, "inputRequests")
	if !ok {
		return errors.New("tasks/get result: /inputRequests: missing")
	}
	var reqs map[string]jsontext.Value
	if err := wire.DecodeValue(all, &reqs); err != nil {
		return fmt.Errorf("tasks/get result: /inputRequests: %w", err)
	}
	maps.DeleteFunc(reqs, func(k string, _ jsontext.Value) bool { return f.answered[k] })
	if len(reqs) == 0 {
		return nil // answered already: the server has not caught up yet
	}
	if len(f.answered)+len(reqs) > maxAnswers {
		return fmt.Errorf("the task asked for more than %d inputs; giving up", maxAnswers)
	}
	answers, err := f.s.AnswerInput(ctx, reqs)
	if err != nil {
		return fmt.Errorf("tasks/get result: %w", err)
	}
	for k := range answers {
		f.answered[k] = true
	}
	responses, err := wire.EncodeValue(answers)
	if err != nil {
		return fmt.Errorf("tasks/update params: %w", err)
	}
	params := jsontext.Value(`{}`)
	q, _ := jsontext.AppendQuote(nil, f.id)
	params, _ = wire.SetMember(params, "taskId", q)
	if params, err = wire.SetMember(params, "inputResponses", responses); err != nil {
		return fmt.Errorf("tasks/update params: %w", err)
	}
	out, err := f.s.Call(ctx, MethodTasksUpdate, session.Raw(params))
	if err != nil {
		return err
	}
	if err := f.s.UnmarshalReceived(out, new(UpdateTaskResult)); err != nil {
		return fmt.Errorf("tasks/update result: %w", err)
	}
	return nil
}

// toolResult checks the result of a completed task, a CallToolResult, and
// gives it resultType "complete" when it has none.
func toolResult(s *session.Session, raw jsontext.Value) (jsontext.Value, error) {
	if raw.Kind() != '{' {
		return nil, errors.New("not a JSON object")
	}
	if !wire.Has(raw, "resultType") {
		var err error
		if raw, err = wire.SetMember(raw, "resultType", jsontext.Value(`"complete"`)); err != nil {
			return nil, err
		}
	}
	if err := s.UnmarshalReceived(raw, new(mcp.CallToolResult)); err != nil {
		return nil, err
	}
	return raw, nil
}

// ended is the error of a wait whose context ended: the task is cancelled
// if the wait is a call's.
func (f *following) ended(ctx context.Context) error {
	if f.abandon {
		f.cancel(ctx)
	}
	return fmt.Errorf("task %s: %w", f.id, ctx.Err())
}

// giveUp is the error of a wait that stops before the task ends for a
// reason of its own, err, naming the task, which is cancelled if the wait
// is a call's.
func (f *following) giveUp(ctx context.Context, err error) error {
	if f.abandon {
		f.cancel(ctx)
	}
	return fmt.Errorf("task %s: %w", f.id, err)
}

// cancel sends tasks/cancel for the task, on a context of its own (with
// ctx's values) bounded by cancelTimeout; its outcome is not waited for.
func (f *following) cancel(ctx context.Context) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	_, _ = f.s.Call(cctx, MethodTasksCancel, &CancelTaskRequestParams{TaskID: f.id})
}
