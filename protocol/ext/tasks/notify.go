// This file is hand-written, beside the files mcpgen generates in this
// package: notifications/tasks on subscriptions/listen, the status
// notifications of the Tasks extension.

package tasks

import (
	"context"
	"errors"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	store "github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// DefaultMaxListenTasks bounds the tasks one subscriptions/listen stream
// watches, unless Options.MaxListenTasks says otherwise.
const DefaultMaxListenTasks = 100

var _ session.ListenExtension = (*Server)(nil)

// ListenFilter returns "taskIds", the member of the subscriptions/listen
// filter the extension defines (session.ListenExtension).
func (s *Server) ListenFilter() []string { return []string{"taskIds"} }

// Listen serves notifications.taskIds of a subscriptions/listen stream
// (session.ListenExtension; see
// https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-status-notifications).
// A request that does not declare the extension gets -32021 naming it. Of
// the ids asked for (repeats counted once, at most Options.MaxListenTasks,
// the others left out), those of tasks that exist and belong to the
// request's principal are accepted and acknowledged; an id that is
// another principal's is left out exactly like an unknown one. The stream
// then carries, for each accepted task, its state at the acknowledgement
// and every change of its status after it (working and input_required in
// turn, new input requests, then its final status), each as
// notifications/tasks with the whole task, as tasks/get gives it, until
// the task ends. Changes come through Options.Bus, from whichever
// instance makes them. No progress or log notification of a task goes on
// the stream.
func (s *Server) Listen(ctx context.Context, asked jsontext.Value, send func(method string, params jsontext.Value)) (jsontext.Value, error) {
	if !session.ClientDeclares(ctx, ID) {
		return nil, session.MissingExtensionError(ID)
	}
	raw, _ := wire.Member(asked, "taskIds")
	var ids []string
	if err := wire.DecodeValue(raw, &ids); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "subscriptions/listen params: /notifications/taskIds: want an array of task id strings: %v", err)
	}
	l := &listener{owner: principal(ctx), send: send, tasks: map[string]*watched{}}
	var order []string
	for _, id := range ids {
		if len(order) == s.maxListen {
			break
		}
		if _, ok := l.tasks[id]; !ok && id != "" {
			l.tasks[id] = &watched{}
			order = append(order, id)
		}
	}
	// Subscribed before the tasks are read: a change written after a read
	// is published after it, and reaches the listener; one written before
	// is in what the read returns.
	if len(order) > 0 {
		stop := s.bus.Subscribe(l.event)
		context.AfterFunc(ctx, stop)
	}
	accepted := []string{}
	for _, id := range order {
		rec, err := s.st.Get(ctx, id, l.owner)
		if err != nil {
			l.refuse(id)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !errors.Is(err, store.ErrNotFound) {
				s.log.Error("tasks: the store failed reading a task a subscriptions/listen stream asked for; it is left out", "err", err)
			}
			continue
		}
		p, err := notificationParams(rec)
		if err != nil {
			l.refuse(id)
			s.log.Error("tasks: a stored task cannot be sent", "err", err)
			continue
		}
		l.accept(id, rec.Version, rec.Status.Terminal(), p)
		accepted = append(accepted, id)
	}
	list, err := wire.EncodeValue(accepted)
	if err != nil {
		return nil, err
	}
	return wire.SetMember(jsontext.Value(`{}`), "taskIds", list)
}

// change is what the Bus carries of a task's new state (session.Event.Data
// of a notifications/tasks event): the task, the owner and the version of
// its record, and the notification's params.
type change struct {
	TaskID  string         `json:"taskId"`
	Owner   string         `json:"owner,omitzero"`
	Version uint64         `json:"version"`
	Final   bool           `json:"final,omitzero"`
	Params  jsontext.Value `json:"params"`
}

// publish announces the state of rec as written to the listen streams that
// watch it, on any instance that shares the Bus.
func (s *Server) publish(rec *store.Record) {
	p, err := notificationParams(rec)
	if err != nil {
		s.log.Error("tasks: a task's status notification cannot be made", "err", err)
		return
	}
	data, err := wire.EncodeValue(change{TaskID: rec.ID, Owner: rec.Principal, Version: rec.Version, Final: rec.Status.Terminal(), Params: p})
	if err != nil {
		s.log.Error("tasks: a task's status notification cannot be made", "err", err)
		return
	}
	s.bus.Publish(session.Event{Method: MethodNotificationsTasks, Data: data})
}

// listener is the taskIds part of one listen stream.
type listener struct {
	owner string
	send  func(string, jsontext.Value)

	mu    sync.Mutex
	tasks map[string]*watched // asked for, until refused or ended
}

// watched is a task a listener asked for.
type watched struct {
	owned bool    // read, and the listener's principal's
	last  uint64  // the version of the record last sent
	held  *change // the latest change heard before the task was read
}

// event is the Bus subscriber of a listener.
func (l *listener) event(ev session.Event) {
	if ev.Method != MethodNotificationsTasks || ev.Data == nil {
		return
	}
	id, ok := wire.MemberString(ev.Data, "taskId")
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.tasks[id]
	if w == nil {
		return
	}
	var c change
	if wire.DecodeValue(ev.Data, &c) != nil || c.Owner != l.owner || c.Params.Kind() != '{' {
		return
	}
	if !w.owned {
		if w.held == nil || c.Version > w.held.Version {
			w.held = &c
		}
		return
	}
	l.deliver(id, w, c.Version, c.Final, c.Params)
}

// accept marks the task id the listener's, read at version with params,
// and sends that state, then a later one heard while it was read.
func (l *listener) accept(id string, version uint64, final bool, params jsontext.Value) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.tasks[id]
	if w == nil {
		return
	}
	w.owned = true
	held := w.held
	w.held = nil
	l.deliver(id, w, version, final, params)
	if held != nil && l.tasks[id] != nil {
		l.deliver(id, w, held.Version, held.Final, held.Params)
	}
}

// refuse forgets a task id the listener may not watch.
func (l *listener) refuse(id string) {
	l.mu.Lock()
	delete(l.tasks, id)
	l.mu.Unlock()
}

// deliver sends a state of the task newer than the last one sent, and
// forgets the task once it has ended. l.mu is held.
func (l *listener) deliver(id string, w *watched, version uint64, final bool, params jsontext.Value) {
	if version <= w.last {
		return
	}
	w.last = version
	l.send(MethodNotificationsTasks, params)
	if final {
		delete(l.tasks, id)
	}
}

// notificationParams are the params of the notifications/tasks of a stored
// task: the task as tasks/get gives it, without resultType.
func notificationParams(r *store.Record) (jsontext.Value, error) {
	g, err := getResult(r)
	if err != nil {
		return nil, err
	}
	var p TaskStatusNotificationParams
	switch v := g.Value.(type) {
	case *GetTaskResultWorkingTask:
		p.Value = &TaskStatusNotificationParamsWorkingTask{TaskID: v.TaskID, StatusMessage: v.StatusMessage, CreatedAt: v.CreatedAt, LastUpdatedAt: v.LastUpdatedAt, TTLMs: v.TTLMs, PollIntervalMs: v.PollIntervalMs}
	case *GetTaskResultInputRequiredTask:
		p.Value = &TaskStatusNotificationParamsInputRequiredTask{TaskID: v.TaskID, StatusMessage: v.StatusMessage, CreatedAt: v.CreatedAt, LastUpdatedAt: v.LastUpdatedAt, TTLMs: v.TTLMs, PollIntervalMs: v.PollIntervalMs, InputRequests: v.InputRequests}
	case *GetTaskResultCompletedTask:
		p.Value = &TaskStatusNotificationParamsCompletedTask{TaskID: v.TaskID, StatusMessage: v.StatusMessage, CreatedAt: v.CreatedAt, LastUpdatedAt: v.LastUpdatedAt, TTLMs: v.TTLMs, PollIntervalMs: v.PollIntervalMs, Result: v.Result}
	case *GetTaskResultFailedTask:
		p.Value = &TaskStatusNotificationParamsFailedTask{TaskID: v.TaskID, StatusMessage: v.StatusMessage, CreatedAt: v.CreatedAt, LastUpdatedAt: v.LastUpdatedAt, TTLMs: v.TTLMs, PollIntervalMs: v.PollIntervalMs, Error: v.Error}
	case *GetTaskResultCancelledTask:
		p.Value = &TaskStatusNotificationParamsCancelledTask{TaskID: v.TaskID, StatusMessage: v.StatusMessage, CreatedAt: v.CreatedAt, LastUpdatedAt: v.LastUpdatedAt, TTLMs: v.TTLMs, PollIntervalMs: v.PollIntervalMs}
	}
	return p.AppendJSON(nil)
}
