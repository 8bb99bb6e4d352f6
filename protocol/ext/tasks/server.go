// This file is hand-written, beside the files mcpgen generates in this
// package (it leaves files it did not generate alone): the server side of
// the Tasks extension, on the runtime/tasks Store.

package tasks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	store "github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The defaults of Options.
const (
	// DefaultTTL is how long a task is kept from its creation (ttlMs
	// 3 600 000) unless Options.TTL or the tool's TTL says otherwise.
	DefaultTTL = time.Hour
	// DefaultPollInterval is the pollIntervalMs suggested to clients.
	DefaultPollInterval = time.Second
	// DefaultMaxInputs bounds the input requests a task has outstanding at
	// once.
	DefaultMaxInputs = 32
)

// Support is how a tool runs as a task, which the server decides per tool
// (the core Tool has no member for it). None is the default.
type Support int

const (
	// None: the tool never runs as a task; its tools/call is answered as
	// without the extension.
	None Support = iota
	// Optional: the tool runs as a task when the request declares the
	// extension, synchronously otherwise.
	Optional
	// Required: the tool runs only as a task; a request that does not
	// declare the extension gets error -32021 naming it, and the tool does
	// not run.
	Required
)

// String returns "none", "optional" or "required".
func (s Support) String() string {
	switch s {
	case None:
		return "none"
	case Optional:
		return "optional"
	case Required:
		return "required"
	}
	return fmt.Sprintf("Support(%d)", int(s))
}

// ToolOption configures how a tool runs as a task (SetToolSupport).
type ToolOption func(*toolConfig)

// StartManually makes the tool's handler run on the request first, as a
// synchronous call does, and become a task only where it calls Start: so
// that it may ask for input in rounds of the request (an
// InputRequiredResult) before the task is created. Without it the task is
// created before the handler runs.
func StartManually() ToolOption { return func(c *toolConfig) { c.manual = true } }

// ToolTTL sets the time to live of the tool's tasks (ttlMs), instead of
// the server's; a negative d keeps them until the server deletes them
// otherwise (ttlMs null), and 0 leaves the server's. It is rounded up to
// whole milliseconds.
func ToolTTL(d time.Duration) ToolOption {
	return func(c *toolConfig) { c.ttl = d; c.ttlSet = d != 0 }
}

// wholeMillis rounds a positive d up to whole milliseconds, the unit of
// ttlMs and pollIntervalMs, so that a duration under a millisecond stays
// one rather than becoming 0 (which a TTL reads as "no limit").
func wholeMillis(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

type toolConfig struct {
	support Support
	manual  bool
	ttl     time.Duration
	ttlSet  bool
}

// Options configure a Server. The zero value gives the defaults.
type Options struct {
	// Store keeps the tasks; nil means a store.NewMemoryStore with its
	// defaults (at most store.DefaultMaxTasks tasks), for one process.
	Store store.Store
	// TTL is how long a task is kept from its creation (ttlMs): 0 means
	// DefaultTTL, a negative TTL keeps tasks until the store deletes them
	// otherwise (ttlMs null). A task still running when its time is up is
	// cancelled, and every expired task is deleted: tasks/get then answers
	// -32602 as for an unknown task. Whole milliseconds.
	TTL time.Duration
	// PollInterval is the pollIntervalMs suggested to clients; 0 means
	// DefaultPollInterval. Whole milliseconds.
	PollInterval time.Duration
	// MaxInputs bounds the input requests a task has outstanding at once;
	// 0 means DefaultMaxInputs. A handler that asks for more gets an error.
	MaxInputs int
	// Logger receives what goes wrong in the background (a handler that
	// panicked, a store that fails); nil discards it. Task ids are never
	// logged.
	Logger *slog.Logger
	// Now is the clock expiry is judged by; nil means time.Now. Give a
	// store the same clock (store.MemoryOptions.Now).
	Now func() time.Time
	// CollectEvery is how often expired tasks are collected; 0 means a
	// tenth of the TTL, between a second and a minute.
	CollectEvery time.Duration
	// Bus carries the changes of the tasks' status to the
	// subscriptions/listen streams that watch them (notifications/tasks,
	// see Server.Listen); nil means one of the Server's own, for one
	// process. Instances of a server that share a Store share a Bus here
	// too (it may be the one given to mcp20260728.WithBus), so that a
	// stream on one instance hears of a task another one runs.
	Bus session.Bus
	// MaxListenTasks bounds the tasks one subscriptions/listen stream
	// watches; 0 means DefaultMaxListenTasks. The ids past it are left out
	// of the acknowledgement, as unknown ones are.
	MaxListenTasks int
}

// Server serves the Tasks extension (io.modelcontextprotocol/tasks, see
// https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md)
// for a StandardServer of 2026-07-28: serve it with
// mcp20260728.WithExtension(srv) or AddExtension. It implements
// session.Extension (tasks/get, tasks/update and tasks/cancel; the removed
// tasks/result and tasks/list stay -32601) and session.ToolCallWrapper:
// the tools/call of a tool declared with SetToolSupport runs as a task when
// the request declares the extension.
//
// A task's handler is the tool's own, the function a synchronous call
// runs. It runs on a goroutine of its own with a context that is not the
// request's: cancelled by tasks/cancel, by the task's expiry and by Close.
// Asking for input in it (session.Ask, mcp20260728.Elicit and the like)
// parks the task in status input_required, with the outstanding requests,
// until tasks/update answers them all; progress and log notifications have
// no stream to go to and are dropped. A plain error from the handler is a
// tool error (status completed, isError true), a *jsonrpc.Error a failed
// task, and a panic a failed task with -32603, as is an outcome the Store
// refuses to keep.
//
// It is also a session.ListenExtension: a subscriptions/listen stream may
// ask for notifications/tasks of its principal's tasks (see Listen).
//
// Every task belongs to the principal of the request that created it
// (session.PrincipalOf, kept as a SHA-256 digest): tasks/get, update and
// cancel of another principal's task answer -32602, exactly as for an
// unknown task. Without a principal (no authentication in front of the
// server), the 128-bit random task id is what guards a task.
type Server struct {
	st        store.Store
	ttl       time.Duration // <0: unlimited
	poll      time.Duration
	maxInputs int
	log       *slog.Logger
	now       func() time.Time
	bus       session.Bus
	maxListen int

	mu     sync.Mutex
	tools  map[string]toolConfig
	live   map[string]context.CancelFunc // running handlers, by task id
	closed bool

	wg   sync.WaitGroup // handlers, watchers and the collector
	stop chan struct{}
	once sync.Once
}

var (
	_ session.Extension       = (*Server)(nil)
	_ session.ToolCallWrapper = (*Server)(nil)
)

// NewServer returns a Server with opts, and starts its collector of
// expired tasks (stopped by Close).
func NewServer(opts Options) *Server {
	s := &Server{
		st:        opts.Store,
		ttl:       opts.TTL,
		poll:      opts.PollInterval,
		maxInputs: opts.MaxInputs,
		log:       opts.Logger,
		now:       opts.Now,
		bus:       opts.Bus,
		maxListen: opts.MaxListenTasks,
		tools:     map[string]toolConfig{},
		live:      map[string]context.CancelFunc{},
		stop:      make(chan struct{}),
	}
	if s.st == nil {
		s.st = store.NewMemoryStore(store.MemoryOptions{Now: opts.Now})
	}
	if s.ttl == 0 {
		s.ttl = DefaultTTL
	}
	if s.poll <= 0 {
		s.poll = DefaultPollInterval
	}
	if s.maxInputs <= 0 {
		s.maxInputs = DefaultMaxInputs
	}
	if s.bus == nil {
		s.bus = session.NewBus()
	}
	if s.maxListen <= 0 {
		s.maxListen = DefaultMaxListenTasks
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	every := opts.CollectEvery
	if every <= 0 {
		every = min(max(s.ttl/10, time.Second), time.Minute)
	}
	s.wg.Add(1)
	go s.collector(every)
	return s
}

// SetToolSupport declares how the named tool runs as a task: None (the
// default for a tool never declared), Optional or Required. opts may make
// its tasks start where the handler calls Start (StartManually), or give
// them a TTL of their own (ToolTTL). It may be called at any time; a call
// in progress keeps the support it began with.
func (s *Server) SetToolSupport(name string, support Support, opts ...ToolOption) {
	c := toolConfig{support: support}
	for _, o := range opts {
		o(&c)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if support == None && len(opts) == 0 {
		delete(s.tools, name)
		return
	}
	s.tools[name] = c
}

// ToolSupport returns how the named tool runs as a task.
func (s *Server) ToolSupport(name string) Support {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools[name].support
}

// ID returns the extension's identifier, io.modelcontextprotocol/tasks.
func (s *Server) ID() string { return ID }

// Capability returns {}, the capability the server declares
// (TasksExtensionCapability has no members).
func (s *Server) Capability() jsontext.Value { return jsontext.Value(`{}`) }

// Methods returns the extension's requests: tasks/cancel, tasks/get and
// tasks/update.
func (s *Server) Methods() []wire.Method {
	var out []wire.Method
	for _, m := range Methods() {
		if !m.Notification && m.Direction&wire.ClientToServer != 0 {
			out = append(out, m)
		}
	}
	return out
}

// Close stops the collector, cancels the tasks' handlers still running
// (their tasks fail with -32603, the server shutting down) and waits for
// them to return: a handler must honour its context. Later task calls get
// -32603. Close does not close the Store.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		for _, cancel := range s.live {
			cancel()
		}
		s.mu.Unlock()
		close(s.stop)
	})
	s.wg.Wait()
	return nil
}

// errorClosed answers what arrives after Close.
var errorClosed = &jsonrpc.Error{Code: jsonrpc.InternalError, Message: "the tasks server is shut down"}

// principal returns the owner of the request of ctx, as stored: a digest
// of session.PrincipalOf, "" for none.
func principal(ctx context.Context) string {
	p := session.PrincipalOf(ctx)
	if p == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(p))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// invalidTask is the answer for a task that does not exist, has expired or
// is another principal's: the three look alike.
func invalidTask(method string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /taskId: no such task (unknown, expired, or not yours)", method)
}

// HandleRequest answers tasks/get, tasks/update and tasks/cancel
// (session.Extension). A request that does not declare the extension gets
// -32021 naming it, before its task id is looked at.
func (s *Server) HandleRequest(ctx context.Context, _ *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	if !session.ClientDeclares(ctx, ID) {
		return nil, session.MissingExtensionError(ID)
	}
	id, err := taskID(method, params)
	if err != nil {
		return nil, err
	}
	switch method {
	case MethodTasksGet:
		return s.get(ctx, id)
	case MethodTasksUpdate:
		return s.update(ctx, id, params)
	case MethodTasksCancel:
		return s.cancel(ctx, id)
	}
	return nil, jsonrpc.Errorf(jsonrpc.MethodNotFound, "method %q not found", method)
}

// taskID returns params.taskId.
func taskID(method string, params jsontext.Value) (string, *jsonrpc.Error) {
	raw, ok := wire.Member(params, "taskId")
	if !ok {
		return "", jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /taskId: missing, but required", method)
	}
	var id string
	if err := wire.DecodeValue(raw, &id); err != nil {
		return "", jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /taskId: not a string", method)
	}
	return id, nil
}

// storeError turns an error of the store into the answer of method.
func (s *Server) storeError(method string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return invalidTask(method)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	s.log.Error("tasks: the store failed", "method", method, "err", err)
	return jsonrpc.Errorf(jsonrpc.InternalError, "%s: the task store failed", method)
}

func (s *Server) get(ctx context.Context, id string) (wire.Appender, error) {
	rec, err := s.st.Get(ctx, id, principal(ctx))
	if err != nil {
		return nil, s.storeError(MethodTasksGet, err)
	}
	res, err := getResult(rec)
	if err != nil {
		s.log.Error("tasks: a stored task cannot be sent", "err", err)
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "tasks/get: the stored task cannot be sent")
	}
	return res, nil
}

// errNoChange aborts a store update that would change nothing.
var errNoChange = errors.New("no change")

func (s *Server) update(ctx context.Context, id string, params jsontext.Value) (wire.Appender, error) {
	raw, ok := wire.Member(params, "inputResponses")
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "tasks/update params: /inputResponses: missing, but required")
	}
	// Kept raw: only the answers to outstanding requests are decoded, by
	// their request's method; the others are ignored, as the extension asks.
	var answers map[string]jsontext.Value
	if err := wire.DecodeValue(raw, &answers); err != nil || answers == nil {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "tasks/update params: /inputResponses: not an object")
	}
	_, err := s.st.Update(ctx, id, principal(ctx), func(r *store.Record) error {
		changed := false
		for _, k := range sortedKeys(answers) {
			req, ok := r.Outstanding[k]
			if !ok {
				continue // never asked, answered already, or superseded
			}
			if jerr := checkAnswer(k, req, answers[k]); jerr != nil {
				return jerr
			}
			if r.Answers == nil {
				r.Answers = map[string]jsontext.Value{}
			}
			r.Answers[k] = answers[k]
			delete(r.Outstanding, k)
			changed = true
		}
		if !changed {
			return errNoChange
		}
		if len(r.Outstanding) == 0 && r.Status == store.StatusInputRequired {
			r.Status = store.StatusWorking
		}
		return nil
	})
	// The task's return to working is announced by its handler's Ask,
	// which the answers wake: so that it comes before the outcome the
	// handler then writes, on the handler's goroutine.
	var jerr *jsonrpc.Error
	switch {
	case err == nil, errors.Is(err, errNoChange), errors.Is(err, store.ErrTerminal):
		return &UpdateTaskResult{}, nil
	case errors.As(err, &jerr):
		return nil, jerr
	}
	return nil, s.storeError(MethodTasksUpdate, err)
}

// checkAnswer decodes answer strictly as the result of the input request
// req (its method's result type).
func checkAnswer(key string, req, answer jsontext.Value) *jsonrpc.Error {
	method, _ := wire.MemberString(req, "method")
	var v wire.Codec
	switch method {
	case mcp20260728.MethodElicitationCreate:
		v = new(mcp20260728.ElicitResult)
	case mcp20260728.MethodSamplingCreateMessage:
		v = new(mcp20260728.CreateMessageResult)
	case mcp20260728.MethodRootsList:
		v = new(mcp20260728.ListRootsResult)
	default:
		if answer.Kind() != '{' {
			return jsonrpc.Errorf(jsonrpc.InvalidParams, "tasks/update params: /inputResponses/%s: not an object", key)
		}
		return nil
	}
	if err := wire.Unmarshal(answer, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "tasks/update params: /inputResponses/%s: not a result of %s: %v", key, method, err)
	}
	return nil
}

func (s *Server) cancel(ctx context.Context, id string) (wire.Appender, error) {
	rec, err := s.st.Update(ctx, id, principal(ctx), func(r *store.Record) error {
		r.CancelRequested = true
		r.Status = store.StatusCancelled
		r.StatusMessage = "cancelled by the client"
		r.Outstanding = nil
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrTerminal) {
		return nil, s.storeError(MethodTasksCancel, err)
	}
	if err == nil {
		s.publish(rec)
	}
	// Cooperative: the handler's context is cancelled (by its watcher, on
	// whichever instance runs it); the task is cancelled already.
	s.mu.Lock()
	if cancel := s.live[id]; cancel != nil {
		cancel()
	}
	s.mu.Unlock()
	return &CancelTaskResult{}, nil
}

// WrapToolCall runs a tools/call (session.ToolCallWrapper): as a task when
// the tool supports tasks and the request declares the extension, answering
// CreateTaskResult once the task is stored; with -32021 when the tool
// requires a task and the request does not declare the extension (on a
// legacy session, whose revision has no extensions, with a tool result with
// isError saying so); and as without the extension otherwise.
func (s *Server) WrapToolCall(ctx context.Context, _ *session.Session, params jsontext.Value, call func(context.Context) (wire.Appender, error)) (wire.Appender, error) {
	name, _ := wire.MemberString(params, "name")
	s.mu.Lock()
	cfg := s.tools[name]
	closed := s.closed
	s.mu.Unlock()
	if cfg.support == None {
		return call(ctx)
	}
	if !session.IsStateless(ctx) {
		// A legacy session (initialize, up to 2025-11-25): its revision has
		// no extensions, and -32021 no meaning; a tool that needs a task
		// tells its caller so.
		if cfg.support == Required {
			yes := true
			return &mcp20260728.CallToolResult{ResultType: "complete", IsError: &yes, Content: []mcp20260728.ContentBlock{{Value: &mcp20260728.TextContent{
				Text: "the tool " + name + " runs only as a task, which needs the extension " + ID + " of protocol revision 2026-07-28 or later; this session's revision has none"}}}}, nil
		}
		return call(ctx)
	}
	if !session.ClientDeclares(ctx, ID) {
		if cfg.support == Required {
			return nil, session.MissingExtensionError(ID)
		}
		return call(ctx)
	}
	if closed || !s.enter() {
		return nil, errorClosed
	}
	if cfg.manual {
		return s.runManual(ctx, params, cfg, call)
	}
	running := false
	defer func() {
		if !running { // begin failed, or panicked (a Store's bug)
			s.wg.Done()
		}
	}()
	tctx, rec, err := s.begin(ctx, params, cfg)
	if err != nil {
		return nil, err
	}
	running = true
	go func() {
		defer s.wg.Done()
		out, err := safeCall(tctx, call, s.log)
		s.finish(tctx, rec, out, err)
	}()
	return createResult(rec), nil
}

// enter counts a goroutine the server runs, unless it is shut down.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

// runManual runs the handler of a StartManually tool on its own goroutine
// (counted by enter already) and answers with what comes first: its answer
// (a synchronous result, or an InputRequiredResult), or the task it started
// with Start.
func (s *Server) runManual(ctx context.Context, params jsontext.Value, cfg toolConfig, call func(context.Context) (wire.Appender, error)) (wire.Appender, error) {
	st := &starter{srv: s, params: params, cfg: cfg, started: make(chan struct{})}
	hctx := context.WithValue(ctx, starterKey{}, st)
	type answer struct {
		out wire.Appender
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer s.wg.Done()
		out, err := safeCall(hctx, call, s.log)
		if tctx, rec := st.returned(); rec != nil {
			s.finish(tctx, rec, out, err)
			return
		}
		done <- answer{out, err}
	}()
	select {
	case a := <-done:
		return a.out, a.err
	case <-st.started:
		return createResult(st.rec), nil
	}
}

// starter is what Start finds in the context of a StartManually handler.
type starter struct {
	srv     *Server
	params  jsontext.Value
	cfg     toolConfig
	mu      sync.Mutex
	rec     *store.Record
	tctx    context.Context
	started chan struct{}
	done    bool // the handler returned: Start makes no task any more
}

// returned marks the handler returned and returns the task Start made, if
// it did.
func (st *starter) returned() (context.Context, *store.Record) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done = true
	return st.tctx, st.rec
}

// errStartLate is Start's error once the handler has returned.
var errStartLate = errors.New("tasks.Start: the handler has returned already and its tools/call is answered; call Start before the handler returns")

type starterKey struct{}

// Start makes the tools/call whose handler ctx belongs to a task, for a
// tool declared with StartManually, and returns the context the handler
// goes on with: the request is answered with the task (CreateTaskResult)
// at once, and the handler's outcome becomes the task's. The handler must
// use the returned context from then on: the one it was given ends with
// the request. Before Start, asking for input is a round of the request
// (InputRequiredResult); after it, it parks the task.
//
// Anywhere else (a tool without StartManually, a request that does not
// declare the extension, a legacy session, a second call) Start returns
// ctx and nil: the handler goes on as it was. The error is the store's,
// when the task cannot be created, which the handler should return; or,
// for a Start on a goroutine that outlives the handler, an error saying
// that it came too late (the call was answered without a task).
func Start(ctx context.Context) (context.Context, error) {
	st, _ := ctx.Value(starterKey{}).(*starter)
	if st == nil {
		return ctx, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.rec != nil {
		return st.tctx, nil
	}
	if st.done {
		return ctx, errStartLate
	}
	tctx, rec, err := st.srv.begin(ctx, st.params, st.cfg)
	if err != nil {
		return ctx, err
	}
	st.rec, st.tctx = rec, tctx
	close(st.started)
	return tctx, nil
}

// begin creates the task of a tools/call and returns the context its
// handler runs with: the request's values, not its cancellation; cancelled
// by tasks/cancel, expiry and Close; Ask parking the task; no further Start.
func (s *Server) begin(ctx context.Context, params jsontext.Value, cfg toolConfig) (context.Context, *store.Record, error) {
	ttl := s.ttl
	if cfg.ttlSet {
		ttl = cfg.ttl
	}
	if ttl < 0 {
		ttl = 0
	}
	// The request's params are not kept: nothing runs a task's request
	// again, and a client chooses their size.
	rec := &store.Record{
		ID:           store.NewID(),
		Principal:    principal(ctx),
		Method:       mcp20260728.MethodToolsCall,
		Status:       store.StatusWorking,
		CreatedAt:    s.now().UTC().Truncate(time.Millisecond),
		TTL:          wholeMillis(ttl),
		PollInterval: wholeMillis(s.poll),
	}
	// The watcher, counted before the store is asked, so that Close waits
	// for it.
	if !s.enter() {
		return nil, nil, errorClosed
	}
	watching := false
	defer func() {
		if !watching { // Create failed, or panicked (a Store's bug)
			s.wg.Done()
		}
	}()
	created, err := s.st.Create(context.WithoutCancel(ctx), rec)
	if err != nil {
		if errors.Is(err, store.ErrFull) {
			return nil, nil, jsonrpc.Errorf(jsonrpc.InternalError, "tools/call: too many tasks; try again later")
		}
		return nil, nil, s.storeError(mcp20260728.MethodToolsCall, err)
	}
	tctx, cancel := context.WithCancel(session.Detach(ctx))
	tctx = context.WithValue(tctx, starterKey{}, (*starter)(nil))
	tctx = session.WithAsker(tctx, s.asker(created.ID, created.Principal))
	s.mu.Lock()
	s.live[created.ID] = cancel
	if s.closed {
		cancel()
	}
	s.mu.Unlock()
	// The watcher cancels the handler when the task ends otherwise
	// (cancelled, expired) on any instance.
	watching = true
	go func() {
		defer s.wg.Done()
		s.watch(tctx, cancel, created)
	}()
	return tctx, created, nil
}

// watch waits on the task's record and cancels its handler once the record
// is terminal or gone, or tctx ends.
func (s *Server) watch(tctx context.Context, cancel context.CancelFunc, rec *store.Record) {
	version := rec.Version
	for {
		r, err := s.wait(tctx, rec.ID, rec.Principal, version)
		if err != nil {
			cancel()
			return
		}
		if r.Status.Terminal() || r.CancelRequested {
			cancel()
			return
		}
		version = r.Version
	}
}

// wait is the store's Wait, tried again after the poll interval when it
// fails for another reason than the record being gone or ctx ending (a
// store out of the process that cannot be reached for a moment): that does
// not end the task.
func (s *Server) wait(ctx context.Context, id, owner string, after uint64) (*store.Record, error) {
	for {
		r, err := s.st.Wait(ctx, id, owner, after)
		if err == nil || ctx.Err() != nil || errors.Is(err, store.ErrNotFound) {
			return r, err
		}
		s.log.Warn("tasks: waiting on a task's record failed; waiting again", "err", err)
		t := time.NewTimer(s.poll)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// safeCall runs call, turning a panic into -32603.
func safeCall(ctx context.Context, call func(context.Context) (wire.Appender, error), log *slog.Logger) (out wire.Appender, err error) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("tasks: a tool handler panicked", "panic", p, "stack", string(debug.Stack()))
			out, err = nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: "internal error handling tools/call"}
		}
	}()
	return call(ctx)
}

// finish records the outcome of a task's handler: completed with its
// result (a tool error included), or failed with its protocol error. A
// task already terminal (cancelled) stays as it is.
func (s *Server) finish(tctx context.Context, rec *store.Record, out wire.Appender, herr error) {
	stopped := tctx.Err() != nil // by tasks/cancel, expiry or Close
	s.mu.Lock()
	if cancel := s.live[rec.ID]; cancel != nil {
		cancel() // stops the watcher
		delete(s.live, rec.ID)
	}
	closed := s.closed
	s.mu.Unlock()
	var result, jerrJSON jsontext.Value
	var msg string
	switch {
	case herr == nil && out == nil:
		herr = jsonrpc.Errorf(jsonrpc.InternalError, "tools/call: the handler returned no result")
	case herr == nil:
		b, err := encodeResult(out, s.log)
		if err == nil {
			b, err = stripMembers(b, "requestState", "inputRequests")
		}
		if err != nil {
			herr = jsonrpc.Errorf(jsonrpc.InternalError, "tools/call: the result cannot be encoded: %v", err)
		} else {
			result = b
		}
	}
	if herr != nil {
		var je *jsonrpc.Error
		var ir *session.InputRequiredError
		switch {
		case closed && stopped:
			je = jsonrpc.Errorf(jsonrpc.InternalError, "the server shut down before the task finished")
		case errors.As(herr, &je):
		case errors.As(herr, &ir):
			je = jsonrpc.Errorf(jsonrpc.InternalError, "tools/call: the handler asked for input in a way a task cannot answer")
		case stopped:
			je = jsonrpc.Errorf(jsonrpc.InternalError, "tools/call: the task was stopped: %v", herr)
		default:
			// A plain error is the tool's own: a tool result with isError.
			yes := true
			b, err := (&mcp20260728.CallToolResult{ResultType: "complete", IsError: &yes, Content: []mcp20260728.ContentBlock{{Value: &mcp20260728.TextContent{Text: herr.Error()}}}}).AppendJSON(nil)
			if err != nil {
				je = jsonrpc.Errorf(jsonrpc.InternalError, "tools/call: %v", err)
			} else {
				result = b
			}
		}
		if je != nil {
			b, err := (&mcp20260728.Error{Code: je.Code, Message: je.Message, Data: je.Data}).AppendJSON(nil)
			if err != nil {
				b, _ = (&mcp20260728.Error{Code: jsonrpc.InternalError, Message: "internal error handling tools/call"}).AppendJSON(nil)
			}
			jerrJSON, msg = b, je.Message
		}
	}
	done, err := s.st.Update(context.Background(), rec.ID, rec.Principal, func(r *store.Record) error {
		r.Outstanding = nil
		if jerrJSON != nil {
			r.Status, r.Error, r.StatusMessage = store.StatusFailed, jerrJSON, msg
		} else {
			r.Status, r.Result = store.StatusCompleted, result
		}
		return nil
	})
	if err == nil {
		s.publish(done)
		return
	}
	if errors.Is(err, store.ErrTerminal) || errors.Is(err, store.ErrNotFound) {
		return
	}
	s.log.Error("tasks: the outcome of a task cannot be stored", "err", err)
	// The handler is gone: a task left working would be polled until it
	// expires. Fail it with an error small enough for any store.
	lost, _ := (&mcp20260728.Error{Code: jsonrpc.InternalError, Message: lostOutcome}).AppendJSON(nil)
	done, err = s.st.Update(context.Background(), rec.ID, rec.Principal, func(r *store.Record) error {
		r.Outstanding = nil
		r.Status, r.Error, r.Result, r.StatusMessage = store.StatusFailed, lost, nil, lostOutcome
		return nil
	})
	if err == nil {
		s.publish(done)
	}
	if err != nil && !errors.Is(err, store.ErrTerminal) && !errors.Is(err, store.ErrNotFound) {
		s.log.Error("tasks: a task whose outcome cannot be stored cannot be marked failed either; it stays as it is until it expires", "err", err)
	}
}

// encodeResult returns the JSON of a handler's result; a panic in its
// encoding is the handler's, an error here as it is in a synchronous call.
// The panic is logged, not told to the client.
func encodeResult(out wire.Appender, log *slog.Logger) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("tasks: encoding a tool's result panicked", "panic", p, "stack", string(debug.Stack()))
			b, err = nil, errors.New("encoding it panicked")
		}
	}()
	return out.AppendJSON(nil)
}

// lostOutcome is the message of a task whose outcome could not be stored.
const lostOutcome = "tools/call: the task ended, but its outcome could not be stored"

// asker returns the Asker of a task's handler: it stores the input
// requests not answered yet as outstanding (status input_required) and
// waits until tasks/update has answered every one, or the task ends.
func (s *Server) asker(id, owner string) session.Asker {
	return func(ctx context.Context, reqs map[string]session.InputRequest) (map[string]jsontext.Value, error) {
		if len(reqs) == 0 {
			return map[string]jsontext.Value{}, nil
		}
		caps := session.ClientCapabilities(ctx)
		enc := make(map[string]jsontext.Value, len(reqs))
		for _, k := range sortedKeys(reqs) {
			r := reqs[k]
			if md := mcp20260728.Protocol.Find(r.Method); md == nil || !md.Embedded {
				return nil, fmt.Errorf("input %q: %s is not a request for input", k, r.Method)
			} else if md.Gate != "" && !session.HasCapability(caps, md.Gate) {
				return nil, fmt.Errorf("input %q: %s: %w: the request did not declare the capability %s", k, r.Method, session.ErrClientCannotAnswer, md.Gate)
			}
			b, err := encodeInput(r)
			if err != nil {
				return nil, fmt.Errorf("input %q: %w", k, err)
			}
			enc[k] = b
		}
		rec, err := s.st.Update(ctx, id, owner, func(r *store.Record) error {
			missing, added := 0, false
			for k, b := range enc {
				if _, ok := r.Answers[k]; ok {
					continue
				}
				if _, ok := r.Outstanding[k]; !ok {
					if r.Outstanding == nil {
						r.Outstanding = map[string]jsontext.Value{}
					}
					r.Outstanding[k] = b
					added = true
					if !contains(r.Issued, k) {
						r.Issued = append(r.Issued, k)
					}
				}
				missing++
			}
			if len(r.Outstanding) > s.maxInputs {
				return fmt.Errorf("the task would have %d input requests outstanding; at most %d", len(r.Outstanding), s.maxInputs)
			}
			if missing == 0 || !added && r.Status == store.StatusInputRequired {
				return errNoChange
			}
			r.Status = store.StatusInputRequired
			return nil
		})
		if err == nil {
			s.publish(rec)
		}
		if errors.Is(err, errNoChange) {
			rec, err = s.st.Get(ctx, id, owner)
		}
		waited := false
		for err == nil {
			if out, ok := answered(rec, reqs); ok {
				if waited && rec.Status == store.StatusWorking {
					s.publish(rec) // resumed by tasks/update
				}
				return out, nil
			}
			if rec.Status.Terminal() {
				return nil, context.Canceled
			}
			rec, err = s.wait(ctx, id, owner, rec.Version)
			waited = true
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("asking for input: %w", err)
	}
}

// answered returns the answers of rec to every key of reqs, if it has them
// all.
func answered(rec *store.Record, reqs map[string]session.InputRequest) (map[string]jsontext.Value, bool) {
	out := make(map[string]jsontext.Value, len(reqs))
	for k := range reqs {
		a, ok := rec.Answers[k]
		if !ok {
			return nil, false
		}
		out[k] = a
	}
	return out, true
}

// encodeInput returns the JSON of an input request: {method, params}.
func encodeInput(r session.InputRequest) (jsontext.Value, error) {
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"method":`)
	e.String(r.Method)
	if r.Params != nil {
		p, err := r.Params.AppendJSON(nil)
		if err != nil {
			return nil, fmt.Errorf("%s params: %w", r.Method, err)
		}
		if len(p) > 0 {
			e.Name(`"params":`)
			e.Raw(p)
		}
	}
	e.EndObject()
	return e.Bytes()
}

// collector deletes expired tasks every period until Close.
func (s *Server) collector(every time.Duration) {
	defer s.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.collect()
		}
	}
}

// collect deletes the tasks expired now and cancels their handlers here
// (their watchers see them gone too).
func (s *Server) collect() {
	ids, err := s.st.Expire(context.Background(), s.now())
	if err != nil {
		s.log.Error("tasks: collecting expired tasks failed", "err", err)
		return
	}
	s.mu.Lock()
	for _, id := range ids {
		if cancel := s.live[id]; cancel != nil {
			cancel()
		}
	}
	s.mu.Unlock()
}

// createResult is the CreateTaskResult of a new task.
func createResult(r *store.Record) *CreateTaskResult {
	t := taskFields(r)
	return &CreateTaskResult{TaskID: t.id, Status: TaskStatus(r.Status), StatusMessage: t.msg, CreatedAt: t.created, LastUpdatedAt: t.updated, TTLMs: t.ttl, PollIntervalMs: t.poll}
}

type fields struct {
	id, created, updated string
	msg                  *string
	ttl, poll            *int64
}

// timeFormat is RFC 3339 (ISO 8601) in UTC, to the millisecond.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func taskFields(r *store.Record) fields {
	f := fields{id: r.ID, created: r.CreatedAt.UTC().Format(timeFormat), updated: r.UpdatedAt.UTC().Format(timeFormat)}
	if r.StatusMessage != "" {
		m := r.StatusMessage
		f.msg = &m
	}
	if r.TTL > 0 {
		ms := r.TTL.Milliseconds()
		f.ttl = &ms
	}
	if r.PollInterval > 0 {
		ms := r.PollInterval.Milliseconds()
		f.poll = &ms
	}
	return f
}

// getResult is the GetTaskResult of a stored task.
func getResult(r *store.Record) (*GetTaskResult, error) {
	f := taskFields(r)
	switch r.Status {
	case store.StatusWorking:
		return &GetTaskResult{Value: &GetTaskResultWorkingTask{TaskID: f.id, StatusMessage: f.msg, CreatedAt: f.created, LastUpdatedAt: f.updated, TTLMs: f.ttl, PollIntervalMs: f.poll}}, nil
	case store.StatusInputRequired:
		reqs := mcp20260728.InputRequests{}
		for k, raw := range r.Outstanding {
			var ir mcp20260728.InputRequest
			if err := wire.Unmarshal(raw, &ir); err != nil {
				return nil, fmt.Errorf("input request %q: %w", k, err)
			}
			reqs[k] = ir
		}
		return &GetTaskResult{Value: &GetTaskResultInputRequiredTask{TaskID: f.id, StatusMessage: f.msg, CreatedAt: f.created, LastUpdatedAt: f.updated, TTLMs: f.ttl, PollIntervalMs: f.poll, InputRequests: reqs}}, nil
	case store.StatusCompleted:
		return &GetTaskResult{Value: &GetTaskResultCompletedTask{TaskID: f.id, StatusMessage: f.msg, CreatedAt: f.created, LastUpdatedAt: f.updated, TTLMs: f.ttl, PollIntervalMs: f.poll, Result: r.Result}}, nil
	case store.StatusFailed:
		var e mcp20260728.Error
		if err := wire.Unmarshal(r.Error, &e); err != nil {
			return nil, fmt.Errorf("error: %w", err)
		}
		return &GetTaskResult{Value: &GetTaskResultFailedTask{TaskID: f.id, StatusMessage: f.msg, CreatedAt: f.created, LastUpdatedAt: f.updated, TTLMs: f.ttl, PollIntervalMs: f.poll, Error: e}}, nil
	case store.StatusCancelled:
		return &GetTaskResult{Value: &GetTaskResultCancelledTask{TaskID: f.id, StatusMessage: f.msg, CreatedAt: f.created, LastUpdatedAt: f.updated, TTLMs: f.ttl, PollIntervalMs: f.poll}}, nil
	}
	return nil, fmt.Errorf("unknown status %q", r.Status)
}

// stripMembers returns the object v without the named members.
func stripMembers(v jsontext.Value, names ...string) (jsontext.Value, error) {
	if v.Kind() != '{' {
		return v, nil
	}
	has := false
	for _, n := range names {
		if wire.Has(v, n) {
			has = true
		}
	}
	if !has {
		return v, nil
	}
	var m map[string]jsontext.Value
	if err := wire.DecodeValue(v, &m); err != nil {
		return nil, err
	}
	for _, n := range names {
		delete(m, n)
	}
	e := wire.NewEncoder(nil)
	e.BeginObject()
	for _, k := range sortedKeys(m) {
		q, _ := jsontext.AppendQuote(nil, k)
		e.Name(string(q) + ":")
		e.Raw(m[k])
	}
	e.EndObject()
	return e.Bytes()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
