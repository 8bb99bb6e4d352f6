package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkLoad: BenchmarkLoad/<legacy|stateless>/c<N>/<impl> and
// BenchmarkLoad/stdio/c<N>/<impl>: the echo tool served by each library in
// a process of its own limited to one core (GOMAXPROCS=1; see
// serveChild), driven by N virtual clients of a raw load generator.
//
//   - legacy: each client opens a Streamable HTTP session at 2025-11-25
//     (initialize, notifications/initialized, then its Mcp-Session-Id on
//     every request) and calls tools/call echo in a loop.
//   - stateless: each client sends 2026-07-28 tools/call requests with
//     their _meta and headers, no session (go-sdk and mcp-go in their
//     stateless modes).
//   - stdio: one session at 2025-11-25 on the server's stdin and stdout,
//     with N requests in flight.
//
// b.N requests in all per point, from N goroutines: ns/op is wall time per
// request, and req/s its inverse. Every answer is checked (its id, the
// echoed text, no error; each client's first in full); an error or a lost
// answer fails the benchmark. Reported: req/s, p50-µs and p99-µs (the
// latency of each request, as a client saw it), cpu-µs/req (the server
// process's user+system CPU time per request, from /proc), rss-MiB (its
// resident memory at the end), srv-allocs/req and srv-B/req (the heap
// objects and bytes the server allocated per request, from its
// runtime.MemStats; the B/op and allocs/op that -benchmem adds are the
// load generator's). Each server starts once per run and serves every
// concurrency level of its mode.
//
// With the environment variable BENCH_PROFILE set to a directory, the
// mcpgen rows at c50 (legacy and stateless) write the server's CPU profile
// of the timed loop there (<mode>-cpu.pb.gz) and its allocation profiles
// before and after it (<mode>-allocs-base.pb.gz, <mode>-allocs.pb.gz; read
// them with go tool pprof -base): scripts/bench PROFILE=1 does this.
func BenchmarkLoad(b *testing.B) {
	p := &loadPool{children: map[string]*child{}, open: map[string]*loadClients{}}
	defer p.stopAll()
	impls := []string{"mcpgen", "gosdk", "mcpgo"}
	for _, mode := range []string{"legacy", "stateless"} {
		for _, n := range []int{1, 50, 256} {
			for _, impl := range impls {
				name := fmt.Sprintf("%s/c%d/%s", mode, n, impl)
				b.Run(name, func(b *testing.B) {
					ch := p.child(b, impl, mode)
					cl := p.clients(b, ch, name, mode, n)
					profile := ""
					if impl == "mcpgen" && n == 50 {
						profile = mode
					}
					measureLoad(b, ch, n, profile, func(ctx context.Context, w int, id int64) error {
						_, err := cl.calls[w](ctx, id)
						return err
					})
				})
				p.closeClients(b, name)
			}
		}
		for _, impl := range impls {
			p.stop(impl + "/" + mode)
		}
	}
	for _, n := range []int{1, 8} {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("stdio/c%d/%s", n, impl), func(b *testing.B) {
				ch := p.child(b, impl, "stdio")
				s := p.stdioSession(b, ch)
				measureLoad(b, ch, n, "", func(ctx context.Context, _ int, id int64) error {
					_, err := s.call(ctx, id)
					return err
				})
			})
		}
	}
}

// loadPool holds the servers of one BenchmarkLoad run and the clients of
// the point being measured, across the calls of its sub-benchmark.
type loadPool struct {
	mu       sync.Mutex
	children map[string]*child        // by impl/kind
	open     map[string]*loadClients  // by sub-benchmark name
	stdio    map[*child]*stdioSession // the session of each stdio server
	nextID   atomic.Int64
}

// child returns the server impl/kind, started on first use.
func (p *loadPool) child(b *testing.B, impl, kind string) *child {
	b.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch := p.children[impl+"/"+kind]; ch != nil {
		return ch
	}
	ch, err := startChild(impl, kind)
	if err != nil {
		b.Fatal(err)
	}
	p.children[impl+"/"+kind] = ch
	return ch
}

func (p *loadPool) stop(key string) {
	p.mu.Lock()
	ch := p.children[key]
	delete(p.children, key)
	p.mu.Unlock()
	if ch != nil {
		ch.stop()
	}
}

func (p *loadPool) stopAll() {
	for key := range p.children {
		p.stop(key)
	}
}

// loadClients are the virtual clients of one point: calls[i] is client i's
// echo call with a request id.
type loadClients struct {
	hc       *http.Client
	calls    []func(ctx context.Context, id int64) ([]byte, error)
	sessions []*legacySession
}

// clients returns the n clients of the point name, opened (and each
// checked with one call) on first use.
func (p *loadPool) clients(b *testing.B, ch *child, name, mode string, n int) *loadClients {
	b.Helper()
	if cl := p.open[name]; cl != nil {
		return cl
	}
	cl := &loadClients{hc: loadHTTPClient(n), calls: make([]func(context.Context, int64) ([]byte, error), n)}
	if mode == "legacy" {
		cl.sessions = make([]*legacySession, n)
	}
	err := forEach(n, 16, func(i int) error {
		return withTimeout(time.Minute, func(ctx context.Context) error {
			id := p.nextID.Add(1)
			switch mode {
			case "legacy":
				s, err := openLegacy(ctx, cl.hc, ch.url)
				if err != nil {
					return err
				}
				cl.sessions[i], cl.calls[i] = s, s.call
				ans, err := s.call(ctx, id)
				if err == nil {
					err = verifyEcho(ans, id)
				}
				return err
			default:
				raw := &httpRaw{url: ch.url, hc: cl.hc, name: "echo"}
				cl.calls[i] = func(ctx context.Context, id int64) ([]byte, error) { return statelessCall(ctx, raw, id) }
				ans, err := statelessCall(ctx, raw, id)
				if err == nil {
					err = verifyAnswer(ans, id, "complete")
				}
				return err
			}
		})
	})
	if err != nil {
		b.Fatalf("the %s server: opening %d clients: %v", ch.name, n, err)
	}
	p.open[name] = cl
	return cl
}

// closeClients ends the sessions of the point name (DELETE) and its
// connections.
func (p *loadPool) closeClients(b *testing.B, name string) {
	cl := p.open[name]
	if cl == nil {
		return
	}
	delete(p.open, name)
	err := forEach(len(cl.sessions), 16, func(i int) error {
		return withTimeout(time.Minute, cl.sessions[i].close)
	})
	cl.hc.CloseIdleConnections()
	if err != nil {
		b.Fatalf("%s: closing the sessions: %v", name, err)
	}
}

// stdioSession is a legacy session over a stdio server's stdin and stdout.
type stdioSession struct {
	raw *stdioRaw
}

// stdioSession returns the session with the stdio server ch, opened and
// checked on first use.
func (p *loadPool) stdioSession(b *testing.B, ch *child) *stdioSession {
	b.Helper()
	if p.stdio == nil {
		p.stdio = map[*child]*stdioSession{}
	}
	if s := p.stdio[ch]; s != nil {
		return s
	}
	s := &stdioSession{raw: newStdioRaw(ch.stdin, ch.stdout)}
	err := withTimeout(time.Minute, func(ctx context.Context) error {
		ans, err := s.raw.do(ctx, 0, []byte(legacyInitRequest))
		if err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		if err := checkInitialized(ans, 0, legacyVersion); err != nil {
			return err
		}
		s.raw.wmu.Lock()
		_, err = s.raw.w.Write([]byte(initializedNote + "\n"))
		s.raw.wmu.Unlock()
		if err != nil {
			return fmt.Errorf("notifications/initialized: %w", err)
		}
		id := p.nextID.Add(1)
		if ans, err = s.call(ctx, id); err == nil {
			err = verifyEcho(ans, id)
		}
		return err
	})
	if err != nil {
		b.Fatalf("the %s server: %v; its stderr: %s", ch.name, err, ch.tail.String())
	}
	p.stdio[ch] = s
	return s
}

// call makes the echo call with request id and checks the answer.
func (s *stdioSession) call(ctx context.Context, id int64) ([]byte, error) {
	ans, err := s.raw.do(ctx, id, floorRequest(make([]byte, 0, 160), id))
	if err != nil {
		return nil, err
	}
	return ans, checkEcho(ans, id)
}

// loadIDs numbers the requests of the timed loops (unique in the run).
var loadIDs atomic.Int64

func init() { loadIDs.Store(1 << 20) }

// measureLoad runs b.N calls of call from workers goroutines (worker w
// calls call(ctx, w, id)) and reports the rate, the latencies, and the
// server's CPU time per request and RSS. With profile set (and
// BENCH_PROFILE), it also saves the server's profiles of the timed loop.
func measureLoad(b *testing.B, ch *child, workers int, profile string, call func(ctx context.Context, w int, id int64) error) {
	b.Helper()
	dir := os.Getenv("BENCH_PROFILE")
	if dir == "" {
		profile = ""
	}
	n := b.N
	lat := make([]time.Duration, n)
	s0, err := ch.stats()
	if err != nil {
		b.Fatal(err)
	}
	cpu0, err := ch.cpu()
	if err != nil {
		b.Fatal(err)
	}
	if profile != "" {
		saveProfile(b, ch, "/debug/pprof/allocs", filepath.Join(dir, profile+"-allocs-base.pb.gz"))
		if _, err := ch.get("/cpuprofile/start"); err != nil {
			b.Fatal(err)
		}
	}
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
		done  atomic.Int64
	)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for {
				k := next.Add(1) - 1
				if k >= int64(n) {
					return
				}
				t0 := time.Now()
				if err := call(ctx, w, loadIDs.Add(1)); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
				lat[k] = time.Since(t0)
				done.Add(1)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	b.StopTimer()
	if first != nil {
		b.Fatalf("the %s server: %v; its stderr: %s", ch.name, first, ch.tail.String())
	}
	if got := done.Load(); got != int64(n) {
		b.Fatalf("the %s server answered %d of %d requests", ch.name, got, n)
	}
	cpu1, err := ch.cpu()
	if err != nil {
		b.Fatal(err)
	}
	s1, err := ch.stats()
	if err != nil {
		b.Fatal(err)
	}
	if profile != "" {
		cpu, err := ch.get("/cpuprofile/stop")
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, profile+"-cpu.pb.gz"), cpu, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
		saveProfile(b, ch, "/debug/pprof/allocs", filepath.Join(dir, profile+"-allocs.pb.gz"))
	}
	rss, err := ch.rss()
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(n)/wall.Seconds(), "req/s")
	b.ReportMetric(micros(percentile(lat, 50)), "p50-µs")
	b.ReportMetric(micros(percentile(lat, 99)), "p99-µs")
	b.ReportMetric(micros(cpu1-cpu0)/float64(n), "cpu-µs/req")
	b.ReportMetric(float64(rss)/(1<<20), "rss-MiB")
	b.ReportMetric(float64(s1.Mallocs-s0.Mallocs)/float64(n), "srv-allocs/req")
	b.ReportMetric(float64(s1.TotalAlloc-s0.TotalAlloc)/float64(n), "srv-B/req")
}

// saveProfile writes the child's profile at path to file.
func saveProfile(b *testing.B, ch *child, path, file string) {
	b.Helper()
	body, err := ch.get(path)
	if err == nil {
		err = os.WriteFile(file, body, 0o644)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// percentile returns the p-th percentile of the sorted sample s (nearest
// rank), 0 for none.
func percentile(s []time.Duration, p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	i := (len(s)*p + 99) / 100 // ceil(len*p/100)
	return s[max(i, 1)-1]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// forEach calls f(i) for i in [0, n) from at most par goroutines, and
// stops at the first error, which it returns.
func forEach(n, par int, f func(i int) error) error {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range min(par, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
