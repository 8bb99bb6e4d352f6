package redis_test

// The fleet harness: N instances of one server, each an httptest.Server on
// 127.0.0.1 with its own go-redis client and redis.Fleet (Bus, TaskStore,
// SessionStore, Relay, EventStore) on one redis-server, the same requestState keys and audience, behind an in-test
// round-robin reverse proxy that records which instance served each
// request. Tests of either era build on it: the server each instance runs
// is the fleetConfig's Serve.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
	goredis "github.com/redis/go-redis/v9"
)

// fleetTimeout bounds every wait of the fleet tests.
const fleetTimeout = 30 * time.Second

// fleetAudience is the StateAudience every instance of a fleet shares.
const fleetAudience = "https://fleet.test/mcp"

// fleetConfig says what a fleet runs.
type fleetConfig struct {
	// Instances is how many instances run; 0 means 3.
	Instances int
	// Redis is the redis-server the fleet shares; nil starts one.
	Redis *redistest.Server
	// Serve returns the HTTP handler of the instance in, built from its
	// resources (in.Bus, in.Store, in.Fleet, in.SessionOptions()), and a
	// function that ends what it started (nil for none), run when the
	// instance is killed or the test ends, before its Fleet is closed.
	Serve func(t *testing.T, in *instance) (http.Handler, func())
	// Setup, if not nil, is called for each instance before Serve: it may
	// change the instance's Ring or Audience (to show what breaks when
	// they differ).
	Setup func(in *instance)
}

// testFleet is N instances of one server behind a round-robin reverse proxy.
type testFleet struct {
	t      *testing.T
	Redis  *redistest.Server
	Prefix string         // the fleet's name in Redis, shared by the instances
	Ring   *reqstate.Ring // the requestState keys, shared by the instances
	Proxy  *httptest.Server
	URL    string // the proxy's URL, where clients connect

	instances []*instance

	mu   sync.Mutex
	next int   // the instance the proxy tries first for the next request
	hits []hit // every request the proxy passed on, in order
}

// instance is one instance of a fleet.
type instance struct {
	Index  int
	Client *goredis.Client // its own connections to the fleet's Redis
	// Fleet is the instance's share of the fleet (redis.NewFleet on
	// Client): Bus and Store are its Bus and Tasks; its Node and Events
	// serve legacy sessions (streamhttp.ServerOptions Fleet and
	// EventStore).
	Fleet    *redis.Fleet
	Bus      *redis.Bus
	Store    *redis.TaskStore
	Ops      *opCounter     // the commands Client sent (Pub/Sub aside)
	Ring     *reqstate.Ring // the fleet's, unless Setup changed it
	Audience string         // fleetAudience, unless Setup changed it
	Server   *httptest.Server

	proxy     *httputil.ReverseProxy
	transport *http.Transport
	stop      func()
	dead      atomic.Bool
	killOnce  sync.Once
}

// hit is a request the proxy passed on to an instance.
type hit struct {
	Instance   int
	HTTPMethod string // POST, GET, DELETE
	// Method is the JSON-RPC method: the Mcp-Method header's, or else
	// that of the request a POST body holds ("" for a response, a
	// notification's method for a notification, "" for a batch).
	Method    string
	Name      string // the tool's name, from the Mcp-Name header ("" without)
	SessionID string // the Mcp-Session-Id header (legacy sessions; "" without)
}

// maxPeek bounds the POST body the proxy reads to find a method.
const maxPeek = 1 << 20

// methodOf returns the method of r: its Mcp-Method header, or that of the
// message its body holds (the body is read and put back).
func methodOf(r *http.Request) string {
	if m := r.Header.Get("Mcp-Method"); m != "" || r.Method != http.MethodPost || r.Body == nil {
		return m
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	if err == nil && len(b) < maxPeek {
		// The whole body: the instance reads it from memory, and the
		// request's own is not read again (which the proxy's transport
		// did, now and then, as the instance's answer started, and failed
		// the request).
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	} else {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	}
	if err != nil {
		return ""
	}
	var m struct{ Method string }
	_ = json.Unmarshal(b, &m)
	return m.Method
}

// instanceHeader is the response header in which the proxy names the
// instance that served a request (a test-only header).
const instanceHeader = "X-Fleet-Instance"

// newFleet starts a fleet of cfg on 127.0.0.1, torn down when the test ends.
func newFleet(t *testing.T, cfg fleetConfig) *testFleet {
	t.Helper()
	if cfg.Instances == 0 {
		cfg.Instances = 3
	}
	if cfg.Redis == nil {
		cfg.Redis = redistest.Start(t)
	}
	key, err := reqstate.GenerateKey("fleet-1")
	if err != nil {
		t.Fatal(err)
	}
	ring, err := reqstate.NewRing(key)
	if err != nil {
		t.Fatal(err)
	}
	f := &testFleet{t: t, Redis: cfg.Redis, Prefix: "fleet-" + strings.ReplaceAll(t.Name(), "/", "-"), Ring: ring}
	for i := range cfg.Instances {
		f.instances = append(f.instances, f.start(i, ring, cfg))
	}
	f.Proxy = httptest.NewServer(http.HandlerFunc(f.serve))
	f.URL = f.Proxy.URL
	t.Cleanup(func() {
		f.Proxy.CloseClientConnections()
		f.Proxy.Close()
		for _, in := range f.instances {
			f.Kill(in.Index)
		}
	})
	return f
}

// start starts instance i.
func (f *testFleet) start(i int, ring *reqstate.Ring, cfg fleetConfig) *instance {
	t := f.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	in := &instance{Index: i, Ops: newOpCounter(), Ring: ring, Audience: fleetAudience}
	in.Client = goredis.NewClient(&goredis.Options{
		Addr: f.Redis.Addr(),
		// While Redis is away, fail in about a second rather than the
		// default's five: the requests that need it fail fast.
		DialTimeout: time.Second,
		MaxRetries:  1,
	})
	in.Client.AddHook(in.Ops)
	var err error
	in.Fleet, err = redis.NewFleet(ctx, in.Client, f.Prefix, redis.FleetOptions{
		InstanceID: fmt.Sprintf("instance%d", i),
		Logger:     testLogger(t, fmt.Sprintf("instance %d", i)),
	})
	if err != nil {
		t.Fatalf("instance %d: %v", i, err)
	}
	in.Bus, in.Store = in.Fleet.Bus, in.Fleet.Tasks
	if cfg.Setup != nil {
		cfg.Setup(in)
	}
	h, stop := cfg.Serve(t, in)
	in.stop = stop
	in.Server = httptest.NewServer(h)
	target, _ := url.Parse(in.Server.URL)
	in.transport = http.DefaultTransport.(*http.Transport).Clone()
	in.transport.MaxIdleConnsPerHost = 64
	in.proxy = &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     in.transport,
		FlushInterval: -1,                         // SSE streams flow at once
		ErrorLog:      log.New(io.Discard, "", 0), // a killed instance's streams break: expected
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return in
}

// SessionOptions are the session options of an instance: its key ring and
// audience (the fleet's).
func (in *instance) SessionOptions() session.Options {
	return session.Options{
		Sealer:        session.SealWith(&reqstate.Sealer{Ring: in.Ring}),
		StateAudience: in.Audience,
	}
}

// serve is the proxy: it passes each request on to the next live instance,
// round-robin, records it, and names the instance in instanceHeader.
func (f *testFleet) serve(w http.ResponseWriter, r *http.Request) {
	in := f.pick(r)
	if in == nil {
		http.Error(w, "no live instance", http.StatusBadGateway)
		return
	}
	w.Header().Set(instanceHeader, strconv.Itoa(in.Index))
	in.proxy.ServeHTTP(w, r)
}

// pick chooses the instance of r and records the hit.
func (f *testFleet) pick(r *http.Request) *instance {
	method := methodOf(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	for range len(f.instances) {
		in := f.instances[f.next%len(f.instances)]
		f.next = (f.next + 1) % len(f.instances)
		if !in.dead.Load() {
			f.hits = append(f.hits, hit{Instance: in.Index, HTTPMethod: r.Method, Method: method, Name: r.Header.Get("Mcp-Name"), SessionID: r.Header.Get("Mcp-Session-Id")})
			return in
		}
	}
	return nil
}

// Next makes the proxy try instance i first for the next request.
func (f *testFleet) Next(i int) {
	f.mu.Lock()
	f.next = i
	f.mu.Unlock()
}

// Hits returns the requests the proxy passed on so far, in order.
func (f *testFleet) Hits() []hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.hits)
}

// HitsOf returns the requests passed on so far whose JSON-RPC method is
// method.
func (f *testFleet) HitsOf(method string) []hit {
	var out []hit
	for _, h := range f.Hits() {
		if h.Method == method {
			out = append(out, h)
		}
	}
	return out
}

// CloseIdle closes the proxy's idle connections to the instances.
func (f *testFleet) CloseIdle() {
	for _, in := range f.instances {
		in.transport.CloseIdleConnections()
	}
}

// Instance returns instance i.
func (f *testFleet) Instance(i int) *instance { return f.instances[i] }

// Instances returns every instance, dead ones included.
func (f *testFleet) Instances() []*instance { return f.instances }

// Kill stops instance i as a crash would, as far as its clients can tell:
// the proxy stops sending it requests, its client connections are closed
// (the streams they carry break), then what its server started, its
// listener, its Fleet and its Redis client. Killing a
// dead instance does nothing.
func (f *testFleet) Kill(i int) {
	in := f.instances[i]
	in.killOnce.Do(func() {
		in.dead.Store(true)
		in.Server.CloseClientConnections()
		if in.stop != nil {
			in.stop()
		}
		in.Server.Close()
		in.transport.CloseIdleConnections()
		if err := in.Fleet.Close(); err != nil {
			f.t.Logf("instance %d: %v", i, err)
		}
		in.Client.Close()
	})
}

// Ops returns the commands the instances sent Redis so far, all together,
// by name (the Pub/Sub connections' aside: SUBSCRIBE and their health
// checks).
func (f *testFleet) Ops() map[string]int {
	all := map[string]int{}
	for _, in := range f.instances {
		for k, v := range in.Ops.Snapshot() {
			all[k] += v
		}
	}
	return all
}

// opCounter is a go-redis hook that counts the commands a client sends.
type opCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func newOpCounter() *opCounter { return &opCounter{n: map[string]int{}} }

func (c *opCounter) add(cmds ...goredis.Cmder) {
	c.mu.Lock()
	for _, cmd := range cmds {
		c.n[strings.ToLower(cmd.Name())]++
	}
	c.mu.Unlock()
}

// Snapshot returns the counts so far.
func (c *opCounter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.n))
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

func (c *opCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (c *opCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}

func (c *opCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.add(cmds...)
		return next(ctx, cmds)
	}
}

// diffOps returns after - before, without the zero entries.
func diffOps(before, after map[string]int) map[string]int {
	d := map[string]int{}
	for k, v := range after {
		if n := v - before[k]; n != 0 {
			d[k] = n
		}
	}
	for k, v := range before {
		if _, ok := after[k]; !ok && v != 0 {
			d[k] = -v
		}
	}
	return d
}

// commandStats returns the calls of each command the redis-server at c
// executed so far (INFO commandstats), by lower-case name.
func commandStats(t *testing.T, c *goredis.Client) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fleetTimeout)
	defer cancel()
	s, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	out := map[string]int{}
	for line := range strings.SplitSeq(s, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
		n, err := strconv.Atoi(calls)
		if err != nil {
			t.Fatalf("INFO commandstats: line %q: %v", line, err)
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = n
	}
	return out
}

// testLogger returns a logger that writes to the test's log, named.
func testLogger(t *testing.T, name string) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})).With("who", name)
}

// testWriter writes to t.Log until the test has ended.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	defer func() { _ = recover() }() // a log line after the test ended
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// stableGoroutines returns the number of goroutines once it has stopped
// changing (the same at two readings 50ms apart), or after fleetTimeout.
func stableGoroutines() int {
	deadline := time.Now().Add(fleetTimeout)
	n := runtime.NumGoroutine()
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// settleGoroutines waits until at most want goroutines run, for at most
// fleetTimeout, and returns how many run.
func settleGoroutines(want int) int {
	deadline := time.Now().Add(fleetTimeout)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFleetHarnessMethodOf: the proxy names a request's method by its
// Mcp-Method header, or else by the body of a POST, which the instance
// then reads whole.
func TestFleetHarnessMethodOf(t *testing.T) {
	tests := []struct {
		name, httpMethod, header, body, want string
	}{
		{"header", http.MethodPost, "tools/call", `{"method":"other"}`, "tools/call"},
		{"legacy request", http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "initialize"},
		{"response", http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"batch", http.MethodPost, "", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, ""},
		{"GET stream", http.MethodGet, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.httpMethod, "/", strings.NewReader(tt.body))
			if tt.header != "" {
				r.Header.Set("Mcp-Method", tt.header)
			}
			if got := methodOf(r); got != tt.want {
				t.Errorf("methodOf = %q, want %q", got, tt.want)
			}
			b, err := io.ReadAll(r.Body)
			if err != nil || string(b) != tt.body {
				t.Errorf("the body left for the instance is %q (%v), want %q", b, err, tt.body)
			}
		})
	}
}

// echoLoad runs calls echoes from each of clients goroutines at once,
// each call echoing a value of its own, and fails t unless every answer
// came, and was its own call's. call(i, want) makes one call of client i.
func echoLoad(t *testing.T, clients, calls int, call func(i int, want string) (string, error)) {
	t.Helper()
	var (
		mu       sync.Mutex
		failures []string
		answered int
		wg       sync.WaitGroup
	)
	for i := range clients {
		wg.Go(func() {
			for j := range calls {
				want := fmt.Sprintf("client %d call %d", i, j)
				got, err := call(i, want)
				mu.Lock()
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", want, err))
				case got != want:
					failures = append(failures, fmt.Sprintf("%s: answered %q", want, got))
				default:
					answered++
				}
				stop := len(failures) > 10
				mu.Unlock()
				if stop {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d calls answered right; %d failed, the first: %s", answered, clients*calls, len(failures), strings.Join(failures[:min(len(failures), 5)], "; "))
	}
	if answered != clients*calls {
		t.Fatalf("%d answers, want %d", answered, clients*calls)
	}
}

// spread fails t unless each of the n instances of f served at least a
// sixth of the total tools/calls, and returns how many each served.
func (f *testFleet) spread(t *testing.T, n, total int) map[int]int {
	t.Helper()
	perInstance := map[int]int{}
	for _, h := range f.HitsOf("tools/call") {
		perInstance[h.Instance]++
	}
	for i := range n {
		if perInstance[i] < total/6 {
			t.Errorf("instance %d served %d calls of %d: the load was not spread", i, perInstance[i], total)
		}
	}
	return perInstance
}
