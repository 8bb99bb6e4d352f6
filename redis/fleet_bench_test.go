package redis_test

// Benchmarks of a fleet on Redis: each path a request can take on a fleet
// (row "mcpgen", instances on a redis-server of their own, each with its
// redis.NewFleet), against the same path on one instance with the
// in-memory defaults (row "floor"). Names are Fleet<Path>/<impl>, which
// bench/cmd/benchtable pairs.
//
// Besides time and allocations, each reports redis-cmds/op: the commands
// the instances sent Redis per operation, counted in the instances: by a
// hook on each one's go-redis client (opCounter), and, for the one command
// a request sends on a Pub/Sub connection, by a wrapper of the Bus that
// counts its Check (a PING on the connection of the Bus's subscription,
// before a listen stream is acknowledged). So a script (EVALSHA) counts as
// one command and a MULTI/EXEC block as its commands, each as sent; the
// Pub/Sub connections' keep-alive PINGs, which are not per request, and
// the measuring itself count for nothing. The server's own count (INFO
// commandstats), the other way to measure, also counts each command a
// script runs inside Redis, and sees the keep-alive PINGs, and needs an
// INFO (itself counted) around every window: TestFleetRedisCounts checks
// that the two agree where the design fixes the count.
//
// Requests are sent straight to the instance each path needs (a client
// transport that picks the instance per request), not through a
// round-robin proxy: each benchmark measures exactly its path.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	store "github.com/mcpgen/mcpgen/runtime/tasks"
	goredis "github.com/redis/go-redis/v9"
)

// benchTimeout bounds every wait of a benchmark's operation.
const benchTimeout = 30 * time.Second

// benchFleetSize is how many instances the fleet of a benchmark runs: a path
// plays on one or two of them, the others hear its Pub/Sub messages as
// they would in production.
const benchFleetSize = 3

// benchURI is the resource the legacy sessions subscribe to.
const benchURI = "file:///bench/status"

// benchNode is one instance of a benchmark: a server with every path's tools,
// on a fleet (Fleet set) or with the in-memory defaults.
type benchNode struct {
	Server *mcp.StandardServer
	Host   string          // host:port of its httptest.Server on 127.0.0.1
	Fleet  *redis.Fleet    // nil for the in-memory defaults
	Client *goredis.Client // nil for the in-memory defaults
	// Ops counts the commands Client sent and the Bus's checks; empty
	// without a fleet.
	Ops *opCounter
}

// benchBus is a fleet's Bus whose Check, a PING on the Bus's Pub/Sub
// connection (which no client hook sees), is counted in ops.
type benchBus struct {
	*redis.Bus
	ops *opCounter
}

func (b benchBus) Check(ctx context.Context) error {
	b.ops.add(goredis.NewStatusCmd(ctx, "ping"))
	return b.Bus.Check(ctx)
}

// benchServer returns the server of one instance: on f's seams, with the
// fleet's keys and audience, or with every in-memory default when f is nil.
// Its tools:
//
//   - echo {value}: answers value;
//   - ask: asks one question, then answers the answer;
//   - quick {item}: runs as a task (Optional) and answers at once;
//   - touch {uri}: announces that the resource uri changed.
func benchServer(tb testing.TB, f *redis.Fleet, ops *opCounter, ring *reqstate.Ring) (http.Handler, *mcp.StandardServer) {
	var (
		opts  []mcp.ServerOption
		topts tasks.Options
		sess  session.Options
		hopts mcp.HTTPOptions
		sopts mcp.SSEOptions
	)
	if f != nil {
		bus := benchBus{Bus: f.Bus, ops: ops}
		opts = append(opts, mcp.WithBus(bus))
		topts = tasks.Options{Store: f.Tasks, Bus: bus}
		sess = session.Options{Sealer: session.SealWith(&reqstate.Sealer{Ring: ring}), StateAudience: fleetAudience}
		hopts = mcp.HTTPOptions{Session: sess, Fleet: f.Node, EventStore: f.Events}
		sopts = mcp.SSEOptions{Session: sess, Fleet: f.Node}
	}
	if f == nil {
		// The memory store, with room for every task a benchmark's run
		// creates (by default it holds 10000, then refuses new ones).
		topts.Store = store.NewMemoryStore(store.MemoryOptions{MaxTasks: 1 << 20, MaxTasksPerPrincipal: -1, MaxBytes: 1 << 30})
	}
	ts := tasks.NewServer(topts)
	opts = append(opts, mcp.WithExtension(ts))
	srv := mcp.NewServer(mcp.Implementation{Name: "fleet-bench", Version: "1.0.0"}, opts...)
	mcp.MustAddTypedTool(srv, mcp.NewTool("echo", "Answers its value"), func(ctx context.Context, a echoArgs) (*mcp.CallToolResult, error) {
		return mcp.TextResult(a.Value), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("ask", "Asks one question"), func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, error) {
		res, err := mcp.Elicit(ctx, "one", question("one?"))
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(answerOf(res)), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("quick", "Answers at once, as a task"), func(ctx context.Context, a itemArgs) (*mcp.CallToolResult, error) {
		return mcp.TextResult("done " + a.Item), nil
	})
	mcp.MustAddTypedTool(srv, mcp.NewTool("touch", "Announces that a resource changed"), func(ctx context.Context, a touchArgs) (*mcp.CallToolResult, error) {
		srv.NotifyResourceUpdated(a.URI)
		return mcp.TextResult("touched " + a.URI), nil
	})
	ts.SetToolSupport("quick", tasks.Optional)
	srv.MustAddResource(mcp.NewResource(benchURI, "status", ""), func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return mcp.ResourceText(p.URI, "", "ok"), nil
	})
	h := srv.HTTPHandler(hopts)
	sse := srv.SSEHandler(sopts)
	tb.Cleanup(func() {
		h.Close()
		sse.Close()
		ts.Close()
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", sse)
	return mux, srv
}

// startBenchNode starts an instance on 127.0.0.1: on the fleet prefix of rs
// when rs is not nil, else with the in-memory defaults. It is stopped when
// the benchmark ends.
func startBenchNode(tb testing.TB, rs *redistest.Server, prefix string, i int, ring *reqstate.Ring) *benchNode {
	tb.Helper()
	n := &benchNode{Ops: newOpCounter()}
	if rs != nil {
		n.Client = goredis.NewClient(&goredis.Options{Addr: rs.Addr()})
		n.Client.AddHook(n.Ops)
		ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
		defer cancel()
		var err error
		n.Fleet, err = redis.NewFleet(ctx, n.Client, prefix, redis.FleetOptions{InstanceID: fmt.Sprintf("bench%d", i)})
		if err != nil {
			n.Client.Close()
			tb.Fatalf("instance %d: %v", i, err)
		}
		tb.Cleanup(func() {
			n.Fleet.Close()
			n.Client.Close()
		})
	}
	h, srv := benchServer(tb, n.Fleet, n.Ops, ring)
	n.Server = srv
	hs := httptest.NewServer(h)
	tb.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	u, _ := url.Parse(hs.URL)
	n.Host = u.Host
	return n
}

// startBenchNodes starts k instances of one fleet on a redis-server of their
// own, or, when k is 0, one instance with the in-memory defaults.
func startBenchNodes(tb testing.TB, k int) []*benchNode {
	tb.Helper()
	key, err := reqstate.GenerateKey("bench-1")
	if err != nil {
		tb.Fatal(err)
	}
	ring, err := reqstate.NewRing(key)
	if err != nil {
		tb.Fatal(err)
	}
	if k == 0 {
		return []*benchNode{startBenchNode(tb, nil, "", 0, ring)}
	}
	rs := redistest.Start(tb)
	var ns []*benchNode
	for i := range k {
		ns = append(ns, startBenchNode(tb, rs, "bench", i, ring))
	}
	return ns
}

// benchRedisCmds returns the commands the instances ns sent Redis so far, but
// for the handshakes of new connections (HELLO, CLIENT SETINFO).
func benchRedisCmds(ns []*benchNode) int {
	total := 0
	for _, n := range ns {
		for k, v := range n.Ops.Snapshot() {
			if k != "hello" && k != "client" {
				total += v
			}
		}
	}
	return total
}

// benchRouter is a client's HTTP transport that sends each request straight to
// the instance pick names (its host:port), whatever URL the client holds.
type benchRouter struct {
	base *http.Transport
	pick func(r *http.Request) string
}

func (rt *benchRouter) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.URL.Host = rt.pick(r)
	out.Host = ""
	return rt.base.RoundTrip(out)
}

// benchHTTPClient returns an HTTP client that routes by pick, its idle
// connections closed when the benchmark ends.
func benchHTTPClient(tb testing.TB, pick func(r *http.Request) string) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 16
	tb.Cleanup(base.CloseIdleConnections)
	return &http.Client{Transport: &benchRouter{base: base, pick: pick}}
}

// benchTo returns a pick that sends everything to n.
func benchTo(n *benchNode) func(*http.Request) string {
	return func(*http.Request) string { return n.Host }
}

// benchUser is a client of either revision: it answers questions and
// hears resource updates.
type benchUser struct {
	mcp.UnimplementedClient
	updated chan string
}

func newBenchUser() *benchUser { return &benchUser{updated: make(chan string, 1024)} }

func (u *benchUser) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"answer": "yes"})
}

func (u *benchUser) ResourceUpdated(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
	select {
	case u.updated <- p.URI:
	default:
	}
}

// benchLegacyUser is a 2025-11-25 client that hears resource updates.
type benchLegacyUser struct {
	m25.UnimplementedClient
	updated chan string
}

func (u *benchLegacyUser) ResourceUpdated(ctx context.Context, p *m25.ResourceUpdatedNotificationParams) {
	select {
	case u.updated <- p.URI:
	default:
	}
}

// benchAwait waits until updated yields uri, or fails.
func benchAwait(ctx context.Context, updated <-chan string, uri string) error {
	for {
		select {
		case got := <-updated:
			if got == uri {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("no update of %s heard: %w", uri, ctx.Err())
		}
	}
}

// benchModernClient connects a 2026-07-28 client (with the Tasks extension)
// that routes by pick; closed when the benchmark ends.
func benchModernClient(tb testing.TB, ctx context.Context, pick func(*http.Request) string, h mcp.Client) *mcp.ClientSession {
	tb.Helper()
	t := streamhttp.NewClient("http://mcp.invalid/mcp", streamhttp.ClientOptions{HTTPClient: benchHTTPClient(tb, pick)})
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{
		Info:       mcp.Implementation{Name: "bench-client", Version: "1.0.0"},
		Handler:    h,
		Revisions:  []string{mcp.Revision},
		Extensions: []mcp.ClientExtension{tasks.Follower{}},
	})
	if err != nil {
		tb.Fatalf("Connect: %v", err)
	}
	tb.Cleanup(func() { cs.Close() })
	if _, err := cs.ListTools(ctx, nil); err != nil {
		tb.Fatalf("tools/list: %v", err)
	}
	return cs
}

// benchLegacyClient opens a 2025-11-25 session over Streamable HTTP (or, with
// sse, over HTTP+SSE) that routes by pick; closed when the benchmark ends.
func benchLegacyClient(tb testing.TB, ctx context.Context, sse bool, pick func(*http.Request) string, u *benchLegacyUser) *m25.ClientSession {
	tb.Helper()
	hc := benchHTTPClient(tb, pick)
	var cs *m25.ClientSession
	var err error
	opts := &m25.ClientOptions{Info: m25.Implementation{Name: "bench-client", Version: "1.0.0"}, Handler: u}
	if sse {
		cs, err = m25.Connect(ctx, ssehttp.NewClient("http://mcp.invalid/sse", ssehttp.ClientOptions{HTTPClient: hc}), opts)
	} else {
		cs, err = m25.Connect(ctx, streamhttp.NewClient("http://mcp.invalid/mcp", streamhttp.ClientOptions{HTTPClient: hc}), opts)
	}
	if err != nil {
		tb.Fatalf("Connect at 2025-11-25: %v", err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// benchLegacyEcho calls echo in a legacy session and checks its answer.
func benchLegacyEcho(ctx context.Context, cs *m25.ClientSession) error {
	args, _ := json.Marshal(echoArgs{Value: "v"})
	res, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "echo", Arguments: args})
	if err != nil {
		return err
	}
	if len(res.Content) == 0 {
		return fmt.Errorf("echo answered no content")
	}
	if t, ok := res.Content[0].Value.(*m25.TextContent); !ok || t.Text != "v" {
		return fmt.Errorf("echo answered %+v, want v", res.Content[0].Value)
	}
	return nil
}

// benchOpener sets up one path on ns (a fleet, or one in-memory instance) and
// returns its operation.
type benchOpener func(tb testing.TB, ctx context.Context, ns []*benchNode) (op func(ctx context.Context) error)

// benchRoles returns the instances a path plays on: the first and second of
// ns, or the only one twice. On a fleet, a is the instance a client first
// reaches (the owner of a legacy session, the holder of a stream) and b
// another one.
func benchRoles(ns []*benchNode) (a, b *benchNode) {
	if len(ns) == 1 {
		return ns[0], ns[0]
	}
	return ns[0], ns[1]
}

// benchStateless: a 2026-07-28 tools/call, on one instance.
func benchStateless(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	cs := benchModernClient(tb, ctx, benchTo(ns[0]), newBenchUser())
	return func(ctx context.Context) error {
		got, err := call(ctx, cs, "echo", echoArgs{Value: "v"})
		if err == nil && got != "v" {
			err = fmt.Errorf("echo answered %q", got)
		}
		return err
	}
}

// benchMRTR: a 2026-07-28 tools/call that asks one question: its first
// round on a, its retry with the answer on b.
func benchMRTR(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	a, b := benchRoles(ns)
	var round atomic.Int64
	cs := benchModernClient(tb, ctx, func(r *http.Request) string {
		if r.Header.Get("Mcp-Method") == "tools/call" && round.Add(1)%2 == 0 {
			return b.Host
		}
		return a.Host
	}, newBenchUser())
	return func(ctx context.Context) error {
		got, err := call(ctx, cs, "ask", struct{}{})
		if err == nil && got != "yes" {
			err = fmt.Errorf("ask answered %q", got)
		}
		return err
	}
}

// benchLegacyOwner: a tools/call of a 2025-11-25 session, every request on
// the session's owner.
func benchLegacyOwner(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	cs := benchLegacyClient(tb, ctx, false, benchTo(ns[0]), &benchLegacyUser{})
	return func(ctx context.Context) error { return benchLegacyEcho(ctx, cs) }
}

// benchLegacyRelay: a tools/call of a 2025-11-25 session whose initialize
// and GET stream went to its owner a, posted to b, which carries it to a
// through the Relay.
func benchLegacyRelay(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	a, b := benchRoles(ns)
	cs := benchLegacyClient(tb, ctx, false, func(r *http.Request) string {
		if r.Method == http.MethodGet || r.Header.Get("Mcp-Session-Id") == "" {
			return a.Host
		}
		return b.Host
	}, &benchLegacyUser{})
	return func(ctx context.Context) error { return benchLegacyEcho(ctx, cs) }
}

// benchLegacyNotify: a change announced on the owner of a 2025-11-25
// session that subscribed to it, heard on the session's GET stream: on a
// fleet through the Bus, and kept in the shared EventStore.
func benchLegacyNotify(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	u := &benchLegacyUser{updated: make(chan string, 1024)}
	cs := benchLegacyClient(tb, ctx, false, benchTo(ns[0]), u)
	if _, err := cs.Subscribe(ctx, &m25.SubscribeRequestParams{URI: benchURI}); err != nil {
		tb.Fatalf("resources/subscribe: %v", err)
	}
	// The GET stream is open once a notification comes through it.
	if err := benchNotify(ctx, ns[0], u); err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context) error { return benchNotify(ctx, ns[0], u) }
}

// benchSSE: a tools/call of an HTTP+SSE session whose stream is on a,
// posted to b, which carries it to a.
func benchSSE(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	a, b := benchRoles(ns)
	cs := benchLegacyClient(tb, ctx, true, func(r *http.Request) string {
		if r.Method == http.MethodGet {
			return a.Host
		}
		return b.Host
	}, &benchLegacyUser{})
	return func(ctx context.Context) error { return benchLegacyEcho(ctx, cs) }
}

// benchListen: subscriptions/listen opened on a (and acknowledged), a
// change made through b, heard on the stream, which is then closed.
func benchListen(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	a, b := benchRoles(ns)
	u := newBenchUser()
	cs := benchModernClient(tb, ctx, func(r *http.Request) string {
		if r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			return a.Host
		}
		return b.Host
	}, u)
	var seq int
	return func(ctx context.Context) error {
		seq++
		uri := fmt.Sprintf("file:///bench/%d", seq)
		sub, err := cs.Listen(ctx, &mcp.SubscriptionsListenRequestParams{Notifications: mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}}})
		if err != nil {
			return fmt.Errorf("subscriptions/listen: %w", err)
		}
		defer sub.Close()
		if _, err := call(ctx, cs, "touch", touchArgs{URI: uri}); err != nil {
			return err
		}
		return benchAwait(ctx, u.updated, uri)
	}
}

// benchTask: a task created on a, then tasks/get on b (whatever the
// task's state then: the task completes by itself).
func benchTask(tb testing.TB, ctx context.Context, ns []*benchNode) func(context.Context) error {
	a, b := benchRoles(ns)
	cs := benchModernClient(tb, ctx, func(r *http.Request) string {
		if r.Header.Get("Mcp-Method") == "tasks/get" {
			return b.Host
		}
		return a.Host
	}, newBenchUser())
	args, _ := json.Marshal(itemArgs{Item: "x"})
	return func(ctx context.Context) error {
		task, _, err := tasks.CallToolAsync(ctx, cs, &mcp.CallToolRequestParams{Name: "quick", Arguments: args})
		if err != nil {
			return fmt.Errorf("tools/call as a task: %w", err)
		}
		if task == nil {
			return fmt.Errorf("tools/call as a task answered without a task")
		}
		if _, err := tasks.GetTask(ctx, cs, &tasks.GetTaskRequestParams{TaskID: task.TaskID}); err != nil {
			return fmt.Errorf("tasks/get: %w", err)
		}
		return nil
	}
}

// benchNotify announces a change of benchURI on n and waits until the
// legacy session of u hears it.
func benchNotify(ctx context.Context, n *benchNode, u *benchLegacyUser) error {
	n.Server.NotifyResourceUpdated(benchURI)
	return benchAwait(ctx, u.updated, benchURI)
}

// benchPath runs p on a fleet (mcpgen) and on one in-memory instance
// (floor), each started once for every run of the benchmark, and reports
// redis-cmds/op besides time and allocations.
func benchPath(b *testing.B, open benchOpener) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, impl := range []struct {
		name  string
		nodes int
	}{{"mcpgen", benchFleetSize}, {"floor", 0}} {
		ns := startBenchNodes(b, impl.nodes)
		op := open(b, ctx, ns)
		// One operation first: connections open, scripts loaded.
		if err := op(ctx); err != nil {
			b.Fatalf("%s: %v", impl.name, err)
		}
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			cmds := benchRedisCmds(ns)
			b.ResetTimer()
			for i := range b.N {
				octx, ocancel := context.WithTimeout(ctx, benchTimeout)
				err := op(octx)
				ocancel()
				if err != nil {
					b.Fatalf("operation %d: %v", i, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(benchRedisCmds(ns)-cmds)/float64(b.N), "redis-cmds/op")
		})
	}
}

func BenchmarkFleetStateless(b *testing.B)    { benchPath(b, benchStateless) }
func BenchmarkFleetMRTR(b *testing.B)         { benchPath(b, benchMRTR) }
func BenchmarkFleetLegacyOwner(b *testing.B)  { benchPath(b, benchLegacyOwner) }
func BenchmarkFleetLegacyRelay(b *testing.B)  { benchPath(b, benchLegacyRelay) }
func BenchmarkFleetLegacyNotify(b *testing.B) { benchPath(b, benchLegacyNotify) }
func BenchmarkFleetSSE(b *testing.B)          { benchPath(b, benchSSE) }
func BenchmarkFleetListen(b *testing.B)       { benchPath(b, benchListen) }
func BenchmarkFleetTask(b *testing.B)         { benchPath(b, benchTask) }

// benchNodeOps returns the commands the instances ns sent so far, by name.
func benchNodeOps(ns []*benchNode) map[string]int {
	all := map[string]int{}
	for _, n := range ns {
		for k, v := range n.Ops.Snapshot() {
			all[k] += v
		}
	}
	return all
}

// benchTimes returns ops with every count multiplied by n.
func benchTimes(ops map[string]int, n int) map[string]int {
	out := map[string]int{}
	for k, v := range ops {
		out[k] = v * n
	}
	return out
}

// TestFleetRedisCounts: the paths whose Redis commands the design fixes
// cost exactly those, by the instances' count (the benchmarks') and by the
// server's (INFO commandstats, INFO itself and PING left out: the Pub/Sub
// connections' keep-alives come whenever they are due; and the handshake
// of a new connection):
//
//   - a stateless tools/call, and one with a round of input on another
//     instance, carry everything they need: nothing;
//   - a request of a legacy session on its owner is answered from the
//     owner's memory: nothing;
//   - one that lands on another instance is carried to the owner: that
//     instance reads the session's record to find the owner and principal
//     (one HMGET) and PUBLISHes the request on the owner's channel; the
//     owner PUBLISHes the answer back in frames, one per flush of the
//     body, the first with the head (status and headers): the POST's
//     answer is an SSE stream, its priming event (whose id lets the client
//     resume it) with the head, then the response; and the end: four
//     PUBLISH, or three when two pieces written close together leave in
//     one frame;
//   - an HTTP+SSE POST that lands on another instance than the stream's:
//     the same lookup and request, and an answer of a head (202 Accepted)
//     and an end, the response going on the SSE stream: three PUBLISH.
func TestFleetRedisCounts(t *testing.T) {
	tests := []struct {
		name string
		open benchOpener
		want map[string]int // per operation
		// fewer is how many fewer commands of a kind an operation may
		// send: pieces of an answer written close together may leave in
		// one frame.
		fewer map[string]int
	}{
		{"stateless tools/call", benchStateless, map[string]int{}, nil},
		{"tools/call with a round of input on another instance", benchMRTR, map[string]int{}, nil},
		{"legacy tools/call on the owner", benchLegacyOwner, map[string]int{}, nil},
		{"legacy tools/call carried to the owner", benchLegacyRelay, map[string]int{"hmget": 1, "publish": 4}, map[string]int{"publish": 1}},
		{"HTTP+SSE POST carried to the stream's instance", benchSSE, map[string]int{"hmget": 1, "publish": 3}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
			defer cancel()
			ns := startBenchNodes(t, benchFleetSize)
			op := tt.open(t, ctx, ns)
			for range 3 { // connections opened
				if err := op(ctx); err != nil {
					t.Fatal(err)
				}
			}
			obs := goredis.NewClient(&goredis.Options{Addr: ns[0].Client.Options().Addr})
			defer obs.Close()
			commandStats(t, obs) // obs's own connection opened before the window
			const n = 20
			c0, s0 := benchNodeOps(ns), commandStats(t, obs)
			for i := range n {
				if err := op(ctx); err != nil {
					t.Fatalf("operation %d: %v", i, err)
				}
			}
			s1, c1 := commandStats(t, obs), benchNodeOps(ns)
			client, server := diffOps(c0, c1), diffOps(s0, s1)
			delete(server, "info")
			delete(server, "ping")
			// A connection a client's pool opens (at most a few per run,
			// whenever requests overlap) says HELLO and CLIENT SETINFO: not
			// the cost of a request.
			for _, ops := range []map[string]int{client, server} {
				delete(ops, "hello")
				delete(ops, "client")
			}
			want := benchTimes(tt.want, n)
			for _, got := range []map[string]int{client, server} {
				for kind, fewer := range tt.fewer {
					if got[kind] < want[kind] && got[kind] >= want[kind]-fewer*n {
						got[kind] = want[kind] // within what coalescing saves
					}
				}
			}
			if !maps.Equal(client, want) {
				t.Errorf("%d operations: the instances sent %s, want %s (fewer by at most %v)", n, formatOps(client), formatOps(want), tt.fewer)
			}
			if !maps.Equal(server, want) {
				t.Errorf("%d operations: the server executed %s, want %s (fewer by at most %v)", n, formatOps(server), formatOps(want), tt.fewer)
			}
		})
	}
}
