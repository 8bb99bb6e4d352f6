package redis_test

// Fleet tests of the stateless era (2026-07-28): three instances of one
// StandardServer on one redis-server, behind a round-robin proxy, reached
// by the 2026-07-28 client over Streamable HTTP.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	goredis "github.com/redis/go-redis/v9"
)

// statusURI is the resource every instance serves.
const statusURI = "file:///fleet/status"

// Args of the tools of the modern fleet server.
type (
	echoArgs struct {
		Value string `json:"value"`
	}
	touchArgs struct {
		URI string `json:"uri"`
	}
	itemArgs struct {
		Item string `json:"item"`
	}
)

// serveModern is the server every instance of the modern fleet runs: a
// StandardServer on the instance's Bus, with the fleet's keys and audience,
// serving the Tasks extension on the instance's TaskStore. Its tools:
//
//   - echo {value}: answers value (needs nothing but the request);
//   - ask_twice: asks for input twice (elicitations "first" and
//     "second"), then answers both answers;
//   - touch {uri}: announces that the resource uri changed (on the Bus);
//   - approve {item}: runs as a task (Optional), asks whether to approve
//     item, and answers what it was told;
//   - quick {item}: runs as a task (Optional) and answers at once.
func serveModern(t *testing.T, in *instance) (http.Handler, func()) {
	ts := tasks.NewServer(tasks.Options{Store: in.Store, Bus: in.Bus, PollInterval: 10 * time.Millisecond, Logger: testLogger(t, fmt.Sprintf("instance %d tasks", in.Index))})
	opts := in.SessionOptions()
	opts.Logger = testLogger(t, fmt.Sprintf("instance %d session", in.Index))
	srv := mcp.NewServer(mcp.Implementation{Name: "fleet", Version: "1.0.0"}, mcp.WithBus(in.Bus), mcp.WithSessionOptions(opts), mcp.WithExtension(ts))
	mcp.MustAddTypedTool(srv, mcp.NewTool("echo", "Answers its value"), func(ctx context.Context, a echoArgs) (*mcp.CallToolResult, error) {
		return mcp.TextResult(a.Value), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("ask_twice", "Asks two questions"), func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
		first, err := mcp.Elicit(ctx, "first", question("first?"))
		if err != nil {
			return nil, err
		}
		second, err := mcp.Elicit(ctx, "second", question("second?"))
		if err != nil {
			return nil, err
		}
		return mcp.TextResult("first=" + answerOf(first) + " second=" + answerOf(second)), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("touch", "Announces that a resource changed"), func(ctx context.Context, a touchArgs) (*mcp.CallToolResult, error) {
		srv.NotifyResourceUpdated(a.URI)
		return mcp.TextResult("touched " + a.URI), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("approve", "Asks whether to approve an item, as a task"), func(ctx context.Context, a itemArgs) (*mcp.CallToolResult, error) {
		res, err := mcp.Elicit(ctx, "approve", question("approve "+a.Item+"?"))
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(a.Item + ": " + answerOf(res)), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("quick", "Answers at once, as a task"), func(ctx context.Context, a itemArgs) (*mcp.CallToolResult, error) {
		return mcp.TextResult("done " + a.Item), nil
	})
	ts.SetToolSupport("approve", tasks.Optional)
	ts.SetToolSupport("quick", tasks.Optional)
	srv.MustAddResource(mcp.NewResource(statusURI, "status", ""), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return mcp.ResourceText(p.URI, "", "ok"), nil
	})
	h := srv.HTTPHandler(mcp.HTTPOptions{})
	return h, func() {
		h.Close()
		ts.Close()
	}
}

// question is a form that asks for one string, "answer".
func question(msg string) *mcp.ElicitRequestParams {
	return &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message: msg,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{"answer": {Value: &mcp.StringSchema{}}},
			Required:   []string{"answer"},
		},
	}}
}

// answerOf returns the answer of an accepted question, or the action.
func answerOf(res *mcp.ElicitResult) string {
	if res.Action != mcp.ElicitResultActionAccept {
		return string(res.Action)
	}
	s, _ := res.Content["answer"].Value.(mcp.ElicitResultContentValueString)
	return string(s)
}

// client is the handler of a fleet test's client: it answers each
// question "<question> yes", and records the resource updates it hears.
type client struct {
	mcp.UnimplementedClient
	updated chan string // the URIs of the resource updates, as heard
}

func newClient() *client { return &client{updated: make(chan string, 64)} }

func (c *client) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	f, ok := p.Value.(*mcp.ElicitRequestFormParams)
	if !ok {
		return mcp.Decline()
	}
	return mcp.Accept(map[string]any{"answer": f.Message + " yes"})
}

func (c *client) ResourceUpdated(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
	select {
	case c.updated <- p.URI:
	default:
	}
}

// heard waits until c hears that uri changed, or fails the test.
func (c *client) heard(t *testing.T, ctx context.Context, uri string) {
	t.Helper()
	for {
		select {
		case got := <-c.updated:
			if got == uri {
				return
			}
		case <-ctx.Done():
			t.Fatalf("the listen stream did not hear that %s changed: %v", uri, ctx.Err())
		}
	}
}

// newModernFleet starts a fleet of serveModern; setup, if not nil, may
// change each instance's keys or audience first.
func newModernFleet(t *testing.T, setup func(*instance)) *testFleet {
	return newFleet(t, fleetConfig{Setup: setup, Serve: serveModern})
}

// connect connects a 2026-07-28 client with handler h to the fleet's
// proxy, using the Tasks extension; closed when the test ends.
func (f *testFleet) connect(t *testing.T, ctx context.Context, h mcp.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(f.URL, streamhttp.ClientOptions{}), &mcp.ClientOptions{
		Info:       mcp.Implementation{Name: "fleet-client", Version: "1.0.0"},
		Handler:    h,
		Revisions:  []string{mcp.Revision},
		Extensions: []mcp.ClientExtension{tasks.Follower{}},
	})
	if err != nil {
		t.Fatalf("Connect through the proxy: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if cs.Era() != session.EraModern {
		t.Fatalf("the client speaks the %v era, want the stateless one", cs.Era())
	}
	// The client lists the tools before its first call (to learn their
	// headers): done here, so that the tests steer each call.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list through the proxy: %v", err)
	}
	return cs
}

// call calls the tool name with args, as a plain call, and returns its text.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args any) (string, error) {
	res, err := cs.CallToolArgs(ctx, name, args)
	if err != nil {
		return "", err
	}
	if res.Failed() {
		return "", fmt.Errorf("tool %s failed: %s", name, res.Text())
	}
	return res.Text(), nil
}

// instancesOf returns the instances of hits, in order.
func instancesOf(hits []hit) []int {
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.Instance
	}
	return out
}

// distinct reports whether no instance appears twice in ids.
func distinct(ids ...int) bool {
	seen := map[int]bool{}
	for _, id := range ids {
		if seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}

// TestFleetMRTR: the rounds of a multi round-trip request land on three
// instances, one after the other, and the request completes, because the
// instances share the requestState keys and audience; an instance with
// another audience, or instances with keys of their own, refuse a state
// sealed elsewhere.
func TestFleetMRTR(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*instance)
		want  string // the tool's answer; "" when the call must fail
		err   string // in the error of a call that must fail
	}{
		{name: "shared keys and audience", want: "first=first? yes second=second? yes"},
		{
			name: "one instance with another audience",
			setup: func(in *instance) {
				if in.Index == 1 {
					in.Audience = "https://elsewhere.test/mcp"
				}
			},
			err: "/requestState",
		},
		{
			name: "each instance with keys of its own",
			setup: func(in *instance) {
				key, err := reqstate.GenerateKey(fmt.Sprintf("own-%d", in.Index))
				if err != nil {
					panic(err)
				}
				if in.Ring, err = reqstate.NewRing(key); err != nil {
					panic(err)
				}
			},
			err: "giving up",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
			defer cancel()
			f := newModernFleet(t, tt.setup)
			cs := f.connect(t, ctx, newClient())
			f.Next(0)
			got, err := call(ctx, cs, "ask_twice", struct{}{})
			rounds := instancesOf(f.HitsOf("tools/call"))
			switch {
			case tt.want != "" && err != nil:
				t.Fatalf("ask_twice: %v (rounds on instances %v)", err, rounds)
			case tt.want != "" && got != tt.want:
				t.Fatalf("ask_twice = %q, want %q", got, tt.want)
			case tt.want == "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("ask_twice = %q, %v; want an error saying %q (rounds on instances %v)", got, err, tt.err, rounds)
			}
			if tt.want == "" {
				t.Logf("refused: %v", err)
				if len(rounds) < 2 || rounds[0] == rounds[1] {
					t.Fatalf("rounds on instances %v: the state never crossed to another instance", rounds)
				}
				var rpc *jsonrpc.Error
				if tt.err == "/requestState" && (!errors.As(err, &rpc) || rpc.Code != jsonrpc.InvalidParams) {
					t.Errorf("error %v, want a JSON-RPC error -32602", err)
				}
				return
			}
			if len(rounds) != 3 || !distinct(rounds...) {
				t.Fatalf("the three rounds landed on instances %v, want three distinct ones", rounds)
			}
		})
	}
}

// TestFleetListen: a subscriptions/listen stream held by one instance
// hears a change made through another.
func TestFleetListen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	f := newModernFleet(t, nil)
	c := newClient()
	cs := f.connect(t, ctx, c)
	const uri = "file:///fleet/a.txt"
	f.Next(0)
	sub, err := cs.Listen(ctx, &mcp.SubscriptionsListenRequestParams{Notifications: mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}}})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	defer sub.Close()
	listens := f.HitsOf("subscriptions/listen")
	a := listens[len(listens)-1].Instance
	f.Next(a + 1)
	if _, err := call(ctx, cs, "touch", touchArgs{URI: uri}); err != nil {
		t.Fatal(err)
	}
	touches := f.HitsOf("tools/call")
	b := touches[len(touches)-1].Instance
	if a == b {
		t.Fatalf("the stream and the change are both on instance %d; want two instances", a)
	}
	c.heard(t, ctx, uri)
}

// TestFleetTask: a task created on one instance, answered through a
// second and polled through a third completes with the answer; a cancel
// that comes after the result does not overwrite it.
func TestFleetTask(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	f := newModernFleet(t, nil)
	cs := f.connect(t, ctx, newClient())
	f.Next(0)
	args, _ := json.Marshal(itemArgs{Item: "invoice-7"})
	task, res, err := tasks.CallToolAsync(ctx, cs, &mcp.CallToolRequestParams{Name: "approve", Arguments: args})
	if err != nil || task == nil {
		t.Fatalf("CallToolAsync = %v, %v, %v; want a task", task, res, err)
	}
	created := f.HitsOf("tools/call")
	a := created[len(created)-1].Instance

	// Poll (anywhere) until the task asks its question.
	var asked *tasks.GetTaskResultInputRequiredTask
	for i := 0; asked == nil; i++ {
		if i == 1000 {
			t.Fatal("the task did not ask for input within 1000 polls")
		}
		got, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: task.TaskID})
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		switch v := got.Value.(type) {
		case *tasks.GetTaskResultInputRequiredTask:
			asked = v
		case *tasks.GetTaskResultWorkingTask:
			time.Sleep(5 * time.Millisecond)
		default:
			t.Fatalf("tasks/get: a %T task, want working or input_required", v)
		}
	}
	if _, ok := asked.InputRequests["approve"]; !ok {
		t.Fatalf("the task asks for %v, want approve", slices.Collect(maps.Keys(asked.InputRequests)))
	}

	// Answer through another instance.
	b := (a + 1) % 3
	f.Next(b)
	answer, _ := mcp.Accept(map[string]any{"answer": "yes, through B"})
	if _, err := tasks.UpdateTask(ctx, cs, &tasks.UpdateTaskRequestParams{TaskID: task.TaskID, InputResponses: mcp.InputResponses{"approve": {Value: answer}}}); err != nil {
		t.Fatalf("tasks/update: %v", err)
	}
	updates := f.HitsOf("tasks/update")
	if got := updates[len(updates)-1].Instance; got != b {
		t.Fatalf("tasks/update went to instance %d, want %d", got, b)
	}

	// Poll through the third until it completes.
	c := (a + 2) % 3
	var done *tasks.GetTaskResultCompletedTask
	for i := 0; done == nil; i++ {
		if i == 1000 {
			t.Fatal("the task did not complete within 1000 polls")
		}
		f.Next(c)
		got, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: task.TaskID})
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		switch v := got.Value.(type) {
		case *tasks.GetTaskResultCompletedTask:
			done = v
		case *tasks.GetTaskResultWorkingTask, *tasks.GetTaskResultInputRequiredTask:
			time.Sleep(5 * time.Millisecond)
		default:
			t.Fatalf("tasks/get: a %T task, want working or completed", v)
		}
	}
	gets := f.HitsOf("tasks/get")
	if polled := gets[len(gets)-1].Instance; !distinct(a, b, polled) {
		t.Fatalf("created on %d, answered through %d, polled through %d: want three instances", a, b, polled)
	}
	const want = "invoice-7: yes, through B"
	if !strings.Contains(string(done.Result), want) {
		t.Fatalf("the task's result is %s, want the text %q", done.Result, want)
	}

	// A late cancel, through each instance: the result stands.
	for i := range 3 {
		f.Next(i)
		if _, err := tasks.CancelTask(ctx, cs, &tasks.CancelTaskRequestParams{TaskID: task.TaskID}); err != nil {
			t.Fatalf("tasks/cancel through instance %d: %v", i, err)
		}
	}
	got, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: task.TaskID})
	if err != nil {
		t.Fatalf("tasks/get after the cancels: %v", err)
	}
	after, ok := got.Value.(*tasks.GetTaskResultCompletedTask)
	if !ok || string(after.Result) != string(done.Result) {
		t.Fatalf("after late cancels the task is %T %+v, want it completed with %s", got.Value, got.Value, done.Result)
	}
}

// TestFleetListenAfterKill: when the instance that holds a listen stream
// dies, the stream ends; the client listens again, through the proxy, on
// a live instance, and hears the changes made afterwards.
func TestFleetListenAfterKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	f := newModernFleet(t, nil)
	c := newClient()
	cs := f.connect(t, ctx, c)
	filter := &mcp.SubscriptionsListenRequestParams{Notifications: mcp.SubscriptionFilter{ResourceSubscriptions: []string{statusURI}}}
	f.Next(1)
	sub, err := cs.Listen(ctx, filter)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	listens := f.HitsOf("subscriptions/listen")
	a := listens[len(listens)-1].Instance
	f.Kill(a)
	select {
	case <-sub.Done():
	case <-ctx.Done():
		t.Fatalf("the listen stream on instance %d did not end when it was killed", a)
	}
	if sub.Err() == nil {
		t.Error("the stream of a killed instance ended without an error, as if the server had ended it")
	}

	again, err := cs.Listen(ctx, filter)
	if err != nil {
		t.Fatalf("Listen again: %v", err)
	}
	defer again.Close()
	listens = f.HitsOf("subscriptions/listen")
	b := listens[len(listens)-1].Instance
	if b == a {
		t.Fatalf("listened again on the killed instance %d", a)
	}
	// The change, through the instance that holds neither stream.
	f.Next(3 - a - b)
	if _, err := call(ctx, cs, "touch", touchArgs{URI: statusURI}); err != nil {
		t.Fatal(err)
	}
	touches := f.HitsOf("tools/call")
	if got := touches[len(touches)-1].Instance; got == b || got == a {
		t.Fatalf("the change went through instance %d; want the third one", got)
	}
	c.heard(t, ctx, statusURI)
}

// TestFleetLoad: many clients calling through the proxy at once each get
// their own answers, none lost; the goroutines and the heap come back
// afterwards.
func TestFleetLoad(t *testing.T) {
	clients, calls := 64, 500
	if testing.Short() {
		clients, calls = 8, 50
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	f := newModernFleet(t, nil)

	// The baseline: the fleet up, warmed by one client that came and went.
	warm := f.connect(t, ctx, newClient())
	if _, err := call(ctx, warm, "echo", echoArgs{Value: "warm"}); err != nil {
		t.Fatal(err)
	}
	warm.Close()
	f.CloseIdle()
	g0 := stableGoroutines()
	var m0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)

	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = f.connect(t, ctx, newClient())
	}
	echoLoad(t, clients, calls, func(i int, want string) (string, error) {
		return call(ctx, sessions[i], "echo", echoArgs{Value: want})
	})
	perInstance := f.spread(t, 3, clients*calls)
	t.Logf("%d calls by %d clients; tools/call per instance: %v", clients*calls, clients, perInstance)

	for _, cs := range sessions {
		cs.Close()
	}
	f.CloseIdle()
	const slack = 8
	if g := settleGoroutines(g0 + slack); g > g0+slack {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the load, %d before\n%s", g, g0, buf[:runtime.Stack(buf, true)])
	}
	var m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	const heapSlack = 64 << 20
	if m1.HeapAlloc > m0.HeapAlloc+heapSlack {
		t.Errorf("heap %d bytes after the load, %d before: more than %d bytes were kept", m1.HeapAlloc, m0.HeapAlloc, heapSlack)
	}
	t.Logf("goroutines %d before, %d after; heap %d KiB before, %d KiB after", g0, runtime.NumGoroutine(), m0.HeapAlloc>>10, m1.HeapAlloc>>10)
}

// opsWindow is what Redis executed while a piece of traffic ran: by the
// server's count (INFO commandstats, INFO itself left out) and by the
// instances' clients (their hooks: the Pub/Sub connections aside).
type opsWindow struct{ server, client map[string]int }

// measureOps runs fn and returns the Redis commands it cost. obs is a
// client of the fleet's Redis that none of the instances uses.
func measureOps(t *testing.T, f *testFleet, obs *goredis.Client, fn func()) opsWindow {
	t.Helper()
	s0, c0 := commandStats(t, obs), f.Ops()
	fn()
	s1, c1 := commandStats(t, obs), f.Ops()
	w := opsWindow{server: diffOps(s0, s1), client: diffOps(c0, c1)}
	delete(w.server, "info")
	return w
}

func (w opsWindow) String() string {
	return fmt.Sprintf("server %s, clients %s", formatOps(w.server), formatOps(w.client))
}

// formatOps writes ops in name order: "{evalsha:1 get:2}", or "{}".
func formatOps(ops map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(ops)) {
		parts = append(parts, fmt.Sprintf("%s:%d", k, ops[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// TestFleetRedisOps: the stateless requests of 2026-07-28, multi
// round-trip ones included, cost Redis nothing at all, neither by the
// server's count nor by the instances' clients'. The costs of the paths
// that do need Redis are logged, for the benchmark table.
func TestFleetRedisOps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	f := newModernFleet(t, nil)
	obs := f.Redis.Client()
	commandStats(t, obs) // obs's own connection is set up before any window
	cs := f.connect(t, ctx, newClient())
	const n = 30
	stateless := []struct {
		name string
		call func() error
	}{
		{"tools/call", func() error {
			got, err := call(ctx, cs, "echo", echoArgs{Value: "v"})
			if err == nil && got != "v" {
				err = fmt.Errorf("echo answered %q", got)
			}
			return err
		}},
		{"tools/call with two rounds of input", func() error {
			_, err := call(ctx, cs, "ask_twice", struct{}{})
			return err
		}},
		{"tools/list", func() error { _, err := cs.ListTools(ctx, nil); return err }},
		{"resources/read", func() error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: statusURI})
			return err
		}},
		{"server/discover", func() error { _, err := cs.Discover(ctx, nil); return err }},
	}
	for _, tt := range stateless {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			w := measureOps(t, f, obs, func() {
				for range n {
					if err = tt.call(); err != nil {
						return
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			// The Bus's Pub/Sub connections PING Redis when they have been
			// quiet for a while, whatever the traffic: by the server's count,
			// PING is left out; the clients' count, which has no Pub/Sub
			// connection in it, must be empty, PING included.
			delete(w.server, "ping")
			if len(w.server) != 0 || len(w.client) != 0 {
				t.Errorf("%d × %s cost Redis %v; want nothing", n, tt.name, w)
			}
		})
	}

	// The paths that need Redis: measured, logged.
	const uri = "file:///fleet/ops.txt"
	c := newClient()
	ls := f.connect(t, ctx, c)
	var sub *session.Subscription
	w := measureOps(t, f, obs, func() {
		var err error
		if sub, err = ls.Listen(ctx, &mcp.SubscriptionsListenRequestParams{Notifications: mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}}}); err != nil {
			t.Fatalf("Listen: %v", err)
		}
	})
	t.Logf("Redis ops of subscriptions/listen, opened and acknowledged: %v", w)
	w = measureOps(t, f, obs, func() {
		if _, err := call(ctx, cs, "touch", touchArgs{URI: uri}); err != nil {
			t.Fatal(err)
		}
		c.heard(t, ctx, uri)
	})
	t.Logf("Redis ops of a change announced on one instance and heard on a stream: %v", w)
	sub.Close()

	// A task, twice: the first also opens connections and loads the
	// scripts into Redis; the second is the steady cost.
	for _, run := range []string{"first", "second"} {
		var id string
		gets := 0
		f.Next(0)
		w = measureOps(t, f, obs, func() {
			args, _ := json.Marshal(itemArgs{Item: run})
			task, _, err := tasks.CallToolAsync(ctx, cs, &mcp.CallToolRequestParams{Name: "quick", Arguments: args})
			if err != nil || task == nil {
				t.Fatalf("CallToolAsync = %v, %v; want a task", task, err)
			}
			id = task.TaskID
			for gets < 1000 {
				got, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: id})
				gets++
				if err != nil {
					t.Fatalf("tasks/get: %v", err)
				}
				if _, ok := got.Value.(*tasks.GetTaskResultCompletedTask); ok {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Fatal("the task did not complete within 1000 polls")
		})
		get := measureOps(t, f, obs, func() {
			if _, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: id}); err != nil {
				t.Fatalf("tasks/get: %v", err)
			}
		})
		t.Logf("Redis ops of the %s task: created, run and completed, and polled %d times: %v", run, gets, w)
		t.Logf("Redis ops of tasks/get (%s task): %v", run, get)
		w = measureOps(t, f, obs, func() {
			if _, err := tasks.CancelTask(ctx, cs, &tasks.CancelTaskRequestParams{TaskID: id}); err != nil {
				t.Fatalf("tasks/cancel: %v", err)
			}
		})
		t.Logf("Redis ops of tasks/cancel of a completed task (%s task): %v", run, w)
	}
}

// requestTimeout bounds each request of TestFleetRedisRestart: a request
// that needs Redis while it is away must fail well before it, not hang.
const requestTimeout = 20 * time.Second

// rpcError returns err's JSON-RPC error, failing the test unless err is
// one that the server sent (not the end of the request's context).
func rpcError(t *testing.T, what string, err error) *jsonrpc.Error {
	t.Helper()
	var rpc *jsonrpc.Error
	switch {
	case err == nil:
		t.Fatalf("%s succeeded while Redis was away; want a JSON-RPC error", what)
	case errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("%s did not fail within %v while Redis was away (it hung): %v", what, requestTimeout, err)
	case !errors.As(err, &rpc):
		t.Fatalf("%s: %v (%T), want a JSON-RPC error from the server", what, err, err)
	}
	t.Logf("%s while Redis is away: %v", what, err)
	return rpc
}

// TestFleetRedisRestart: while Redis is away, the requests that need it
// (subscriptions/listen, tasks) fail at once with a JSON-RPC error that
// says what is missing, on every instance, and the stateless calls that
// need no Redis go on; once Redis is back, listen streams hear the other
// instances' changes again and tasks run again, with no instance
// restarted.
func TestFleetRedisRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*fleetTimeout)
	defer cancel()
	f := newModernFleet(t, nil)
	c := newClient()
	cs := f.connect(t, ctx, c)
	filter := &mcp.SubscriptionsListenRequestParams{Notifications: mcp.SubscriptionFilter{ResourceSubscriptions: []string{statusURI}}}
	quick := func(ctx context.Context, item string) (*tasks.CreateTaskResult, error) {
		args, _ := json.Marshal(itemArgs{Item: item})
		task, _, err := tasks.CallToolAsync(ctx, cs, &mcp.CallToolRequestParams{Name: "quick", Arguments: args})
		if err == nil && task == nil {
			err = errors.New("answered without a task")
		}
		return task, err
	}
	before, err := quick(ctx, "before")
	if err != nil {
		t.Fatalf("a task before Redis went away: %v", err)
	}

	f.Redis.Stop()
	for i := range 3 {
		t.Run(fmt.Sprintf("Redis away, instance %d", i), func(t *testing.T) {
			rctx, cancel := context.WithTimeout(ctx, requestTimeout)
			defer cancel()
			f.Next(i)
			if got, err := call(rctx, cs, "echo", echoArgs{Value: "still here"}); err != nil || got != "still here" {
				t.Errorf("a stateless tools/call while Redis is away = %q, %v; want its answer", got, err)
			}
			f.Next(i)
			sub, err := cs.Listen(rctx, filter)
			if err == nil {
				sub.Close()
			}
			if rpc := rpcError(t, "subscriptions/listen", err); !strings.Contains(rpc.Message, "subscriptions/listen") {
				t.Errorf("subscriptions/listen: error %v, want it to name the request", rpc)
			}
			f.Next(i)
			_, err = tasks.GetTask(rctx, cs, &tasks.GetTaskRequestParams{TaskID: before.TaskID})
			if rpc := rpcError(t, "tasks/get", err); rpc.Code != jsonrpc.InternalError || !strings.Contains(rpc.Message, "task store") {
				t.Errorf("tasks/get: error %v, want -32603 saying the task store failed", rpc)
			}
			f.Next(i)
			_, err = quick(rctx, "while away")
			if rpc := rpcError(t, "tools/call as a task", err); rpc.Code != jsonrpc.InternalError {
				t.Errorf("tools/call as a task: error %v, want -32603", rpc)
			}
		})
	}

	f.Redis.Restart()
	// Tasks at once, on every instance.
	for i := range 3 {
		f.Next(i)
		task, err := quick(ctx, fmt.Sprintf("after %d", i))
		if err != nil {
			t.Fatalf("a task on instance %d after Redis came back: %v", i, err)
		}
		res, err := tasks.Wait(ctx, cs, task.TaskID)
		if want := fmt.Sprintf("done after %d", i); err != nil || res.Text() != want {
			t.Fatalf("the task on instance %d after Redis came back = %v, %v; want %q", i, res, err, want)
		}
	}
	// A stream on one instance hears a change made on another once every
	// Bus has subscribed again, which go-redis does by itself: the change
	// is made again until it is heard (at most 100 times).
	f.Next(0)
	sub, err := cs.Listen(ctx, filter)
	if err != nil {
		t.Fatalf("Listen after Redis came back: %v", err)
	}
	defer sub.Close()
	for try := 0; ; try++ {
		if try == 100 {
			t.Fatal("the stream on instance 0 heard no change made on instance 1 after Redis came back, in 100 tries")
		}
		f.Next(1)
		if _, err := call(ctx, cs, "touch", touchArgs{URI: statusURI}); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		select {
		case <-c.updated:
		case <-wctx.Done():
		}
		heard := wctx.Err() == nil
		cancel()
		if heard {
			break
		}
	}
}
