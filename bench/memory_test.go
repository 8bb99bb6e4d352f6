package bench

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkMemory: BenchmarkMemory/<what>/<impl>, what a server holds for
// what its clients leave open, each in a fresh server process of its own
// (GOMAXPROCS=1; see serveChild). Heap is the server's HeapAlloc after a
// garbage collection, RSS its VmRSS after debug.FreeOSMemory, both
// differences from the server's own numbers at the start of the
// measurement (after one warm-up exchange, so that what a server sets up
// once is not counted); the client's connections are closed before each
// reading, so that only what the server keeps for the session or stream
// counts (an open stream keeps its connection: its cost is included).
//
//   - idle: MEM_SESSIONS (default 2000) legacy Streamable HTTP sessions at
//     2025-11-25 (initialize and notifications/initialized, nothing else
//     open): heap-B, rss-B and goroutines per session; then each is ended
//     with DELETE, and heap-after-close-B is the heap then minus at start.
//   - get: the same sessions, each with its GET stream open: per session
//     with its stream.
//   - sse: MEM_SESSIONS HTTP+SSE streams (the 2024-11-05 transport:
//     mcpgen's runtime/ssehttp, go-sdk's SSEHandler, mcp-go's SSEServer),
//     each initialized: per stream; then all closed.
//   - listen: MEM_SESSIONS subscriptions/listen streams at 2026-07-28,
//     each acknowledged (mcpgen only: the peers do not serve it): per
//     stream; then all closed.
//   - stateless: MEM_SESSIONS completed 2026-07-28 requests (go-sdk and
//     mcp-go in their stateless modes): heap-after-B, the heap after them
//     minus before (0 is the goal: nothing stays once a request is done).
//   - churn: MEM_CHURN (default 10,000) legacy sessions opened by 16
//     clients at a time, of which 4% end with DELETE and the rest vanish,
//     on a server whose idle sessions expire after MEM_IDLE (default 3s):
//     mcpgen's streamhttp IdleTimeout, go-sdk's SessionTimeout, mcp-go's
//     WithSessionIdleTTL. heap-churn-MiB is the heap right after the
//     churn, heap-expired-B once expiry has run (after twice MEM_IDLE; for
//     mcp-go, which sweeps every max(TTL/2, 1 s), at least MEM_IDLE and
//     1.5 s), both minus at start, with the goroutines likewise.
//
// With BENCH_PROFILE set to a directory, each row saves the server's heap
// profile at its end there (see memProfile): scripts/bench PROFILE=1
// BENCH=Memory/... does this.
//
// The ns/op is the time to open one session or stream (for stateless, to
// complete one request; for churn, one session of the churn). The
// measurement runs once per call, whatever b.N: scripts/bench runs it
// with -benchtime=1x. With -benchtime=1x alone (scripts/test), the counts
// are small (50 sessions, a churn of 200, 200ms expiry), which checks the
// benchmark without measuring much.
func BenchmarkMemory(b *testing.B) {
	cfg := memConfig{sessions: 2000, churn: 10_000, idle: 3 * time.Second}
	if quickRun() {
		cfg = memConfig{sessions: 50, churn: 200, idle: 200 * time.Millisecond}
	}
	cfg.sessions = envInt(b, "MEM_SESSIONS", cfg.sessions)
	cfg.churn = envInt(b, "MEM_CHURN", cfg.churn)
	if v := envInt(b, "MEM_IDLE_MS", 0); v > 0 {
		cfg.idle = time.Duration(v) * time.Millisecond
	}
	all := []string{"mcpgen", "gosdk", "mcpgo"}
	for _, what := range []struct {
		name  string
		impls []string
		run   func(b *testing.B, cfg memConfig, impl string) time.Duration
	}{
		{"idle", all, memIdle},
		{"get", all, memGet},
		{"sse", all, memSSE},
		{"listen", []string{"mcpgen"}, memListen},
		{"stateless", all, memStateless},
		{"churn", all, memChurn},
	} {
		for _, impl := range all {
			if !slices.Contains(what.impls, impl) {
				continue
			}
			b.Run(what.name+"/"+impl, func(b *testing.B) {
				var per time.Duration
				measured := false
				for b.Loop() {
					if !measured {
						per = what.run(b, cfg, impl)
						measured = true
					}
				}
				b.ReportMetric(float64(per), "ns/op")
			})
		}
	}
}

type memConfig struct {
	sessions, churn int
	idle            time.Duration
}

// memStart starts the server impl/kind and does the warm-up: warm (if
// set) once, then the connections closed; it returns the server and its
// stats and RSS then.
func memStart(b *testing.B, impl, kind string, env []string, hc *http.Client, warm func(ch *child) error) (*child, serverStats, int64) {
	b.Helper()
	if os.Getenv("BENCH_PROFILE") != "" {
		env = append(env, envMemProfileRate+"=4096")
	}
	ch, err := startChild(impl, kind, env...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ch.stop)
	if warm != nil {
		if err := warm(ch); err != nil {
			b.Fatalf("the %s server: warming up: %v", ch.name, err)
		}
	}
	hc.CloseIdleConnections()
	s, rss := memRead(b, ch)
	memProfile(b, ch, "start")
	return ch, s, rss
}

// memRead waits until the server holds still and returns its stats and
// RSS.
func memRead(b *testing.B, ch *child) (serverStats, int64) {
	b.Helper()
	s, err := ch.settle()
	if err != nil {
		b.Fatal(err)
	}
	rss, err := ch.rss()
	if err != nil {
		b.Fatal(err)
	}
	return s, rss
}

// reportPer reports the heap, RSS and goroutines from s0/rss0 to s1/rss1
// over n, per unit (session or stream).
func reportPer(b *testing.B, n int, unit string, s0, s1 serverStats, rss0, rss1 int64) {
	b.ReportMetric((float64(s1.HeapAlloc)-float64(s0.HeapAlloc))/float64(n), "heap-B/"+unit)
	b.ReportMetric(float64(rss1-rss0)/float64(n), "rss-B/"+unit)
	b.ReportMetric(float64(s1.Goroutines-s0.Goroutines)/float64(n), "goroutines/"+unit)
}

// warmLegacy opens a session, calls the echo tool and ends the session.
func warmLegacy(hc *http.Client) func(ch *child) error {
	return func(ch *child) error {
		return withTimeout(time.Minute, func(ctx context.Context) error {
			s, err := openLegacy(ctx, hc, ch.url)
			if err != nil {
				return err
			}
			ans, err := s.call(ctx, 1)
			if err == nil {
				err = verifyEcho(ans, 1)
			}
			if err != nil {
				return err
			}
			return s.close(ctx)
		})
	}
}

// memSessions opens n legacy sessions, 8 at a time; with streams set, each
// also opens its GET stream.
func memSessions(b *testing.B, ch *child, hc, streams *http.Client, n int) ([]*legacySession, []*sseStream) {
	b.Helper()
	sessions := make([]*legacySession, n)
	var gets []*sseStream
	if streams != nil {
		gets = make([]*sseStream, n)
	}
	err := forEach(n, 8, func(i int) error {
		return withTimeout(time.Minute, func(ctx context.Context) error {
			s, err := openLegacy(ctx, hc, ch.url)
			if err != nil {
				return err
			}
			sessions[i] = s
			if streams != nil {
				gets[i], err = s.openGET(context.Background(), streams)
			}
			return err
		})
	})
	if err != nil {
		b.Fatalf("the %s server: opening %d sessions: %v; its stderr: %s", ch.name, n, err, ch.tail.String())
	}
	return sessions, gets
}

// closeSessions ends the sessions with DELETE, 8 at a time, then closes
// the streams.
func closeSessions(b *testing.B, ch *child, sessions []*legacySession, streams []*sseStream) {
	b.Helper()
	err := forEach(len(sessions), 8, func(i int) error {
		return withTimeout(time.Minute, sessions[i].close)
	})
	for _, s := range streams {
		s.close()
	}
	if err != nil {
		b.Fatalf("the %s server: closing the sessions: %v", ch.name, err)
	}
}

func memIdle(b *testing.B, cfg memConfig, impl string) time.Duration {
	return memLegacy(b, cfg, impl, false)
}

func memGet(b *testing.B, cfg memConfig, impl string) time.Duration {
	return memLegacy(b, cfg, impl, true)
}

// memLegacy measures cfg.sessions idle legacy sessions (with their GET
// streams when get is set), then their end.
func memLegacy(b *testing.B, cfg memConfig, impl string, get bool) time.Duration {
	hc := loadHTTPClient(8)
	var streams *http.Client
	if get {
		streams = streamHTTPClient()
	}
	ch, s0, rss0 := memStart(b, impl, "legacy", nil, hc, warmLegacy(hc))
	start := time.Now()
	sessions, gets := memSessions(b, ch, hc, streams, cfg.sessions)
	per := time.Since(start) / time.Duration(cfg.sessions)
	hc.CloseIdleConnections()
	s1, rss1 := memRead(b, ch)
	reportPer(b, cfg.sessions, "session", s0, s1, rss0, rss1)
	memProfile(b, ch, "open")
	closeSessions(b, ch, sessions, gets)
	hc.CloseIdleConnections()
	if streams != nil {
		streams.CloseIdleConnections()
	}
	s2, _ := memRead(b, ch)
	b.ReportMetric(float64(s2.HeapAlloc)-float64(s0.HeapAlloc), "heap-after-close-B")
	memProfile(b, ch, "closed")
	return per
}

// memProfile saves, when BENCH_PROFILE names a directory, the server's
// heap profile there as memory-<what>-<impl>-<stage>.pb.gz: what it holds
// (inuse_space) and what it allocated since it started (alloc_space),
// recorded every 4 KiB allocated.
func memProfile(b *testing.B, ch *child, stage string) {
	b.Helper()
	dir := os.Getenv("BENCH_PROFILE")
	if dir == "" {
		return
	}
	what := filepath.Base(filepath.Dir(b.Name())) + "-" + filepath.Base(b.Name())
	saveProfile(b, ch, "/debug/pprof/heap?gc=1", filepath.Join(dir, "memory-"+what+"-"+stage+".pb.gz"))
}

// memStreams opens n streams with open, 8 at a time, and measures them
// open (after closing the idle connections of hc), then closed.
func memStreams(b *testing.B, ch *child, hc *http.Client, n int, s0 serverStats, rss0 int64, open func(ctx context.Context, i int) (*sseStream, error)) time.Duration {
	b.Helper()
	streams := make([]*sseStream, n)
	start := time.Now()
	err := forEach(n, 8, func(i int) error {
		var err error
		streams[i], err = open(context.Background(), i)
		return err
	})
	per := time.Since(start) / time.Duration(n)
	defer func() {
		for _, s := range streams {
			if s != nil {
				s.close()
			}
		}
	}()
	if err != nil {
		b.Fatalf("the %s server: opening %d streams: %v; its stderr: %s", ch.name, n, err, ch.tail.String())
	}
	hc.CloseIdleConnections()
	s1, rss1 := memRead(b, ch)
	reportPer(b, n, "stream", s0, s1, rss0, rss1)
	memProfile(b, ch, "open")
	for _, s := range streams {
		s.close()
	}
	s2, _ := memRead(b, ch)
	b.ReportMetric(float64(s2.HeapAlloc)-float64(s0.HeapAlloc), "heap-after-close-B")
	memProfile(b, ch, "closed")
	return per
}

func memSSE(b *testing.B, cfg memConfig, impl string) time.Duration {
	posts, streams := loadHTTPClient(8), streamHTTPClient()
	open := func(ctx context.Context, ch *child) (*sseStream, error) {
		return openSSESession(ctx, streams, posts, ch.url)
	}
	ch, s0, rss0 := memStart(b, impl, "sse", nil, posts, func(ch *child) error {
		s, err := open(context.Background(), ch)
		if err == nil {
			s.close()
		}
		return err
	})
	return memStreams(b, ch, posts, cfg.sessions, s0, rss0, func(ctx context.Context, i int) (*sseStream, error) {
		return open(ctx, ch)
	})
}

func memListen(b *testing.B, cfg memConfig, impl string) time.Duration {
	hc := streamHTTPClient()
	ch, s0, rss0 := memStart(b, impl, "stateless", nil, hc, func(ch *child) error {
		s, err := openListen(context.Background(), hc, ch.url, 1)
		if err == nil {
			s.close()
		}
		return err
	})
	return memStreams(b, ch, hc, cfg.sessions, s0, rss0, func(ctx context.Context, i int) (*sseStream, error) {
		return openListen(ctx, hc, ch.url, int64(i)+2)
	})
}

func memStateless(b *testing.B, cfg memConfig, impl string) time.Duration {
	hc := loadHTTPClient(8)
	var raw *httpRaw
	ch, s0, _ := memStart(b, impl, "stateless", nil, hc, func(ch *child) error {
		raw = &httpRaw{url: ch.url, hc: hc, name: "echo"}
		return withTimeout(time.Minute, func(ctx context.Context) error {
			for id := int64(1); id <= 10; id++ {
				ans, err := statelessCall(ctx, raw, id)
				if err == nil {
					err = verifyAnswer(ans, id, "complete")
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
	start := time.Now()
	err := forEach(cfg.sessions, 8, func(i int) error {
		return withTimeout(time.Minute, func(ctx context.Context) error {
			_, err := statelessCall(ctx, raw, int64(i)+100)
			return err
		})
	})
	per := time.Since(start) / time.Duration(cfg.sessions)
	if err != nil {
		b.Fatalf("the %s server: %v", ch.name, err)
	}
	hc.CloseIdleConnections()
	s1, _ := memRead(b, ch)
	b.ReportMetric(float64(s1.HeapAlloc)-float64(s0.HeapAlloc), "heap-after-B")
	b.ReportMetric(float64(s1.Goroutines-s0.Goroutines), "goroutines-after")
	memProfile(b, ch, "done")
	return per
}

// expiryWait is how long a churn waits for the idle sessions of impl to
// expire: twice the idle time (mcpgen's reaper looks every quarter of it;
// go-sdk times each session out on its own), and for mcp-go, whose
// sweeper runs every max(TTL/2, 1 s), at least the idle time and 1.5 s.
func expiryWait(impl string, idle time.Duration) time.Duration {
	if impl == "mcpgo" {
		return max(2*idle, idle+1500*time.Millisecond)
	}
	return 2 * idle
}

func memChurn(b *testing.B, cfg memConfig, impl string) time.Duration {
	hc := loadHTTPClient(16)
	ch, s0, _ := memStart(b, impl, "legacy", []string{envIdle + "=" + cfg.idle.String()}, hc, warmLegacy(hc))
	var (
		mu      sync.Mutex
		deleted int
	)
	start := time.Now()
	err := forEach(cfg.churn, 16, func(i int) error {
		return withTimeout(time.Minute, func(ctx context.Context) error {
			s, err := openLegacy(ctx, hc, ch.url)
			if err != nil || i%25 != 0 {
				return err // 96% vanish
			}
			mu.Lock()
			deleted++
			mu.Unlock()
			return s.close(ctx)
		})
	})
	per := time.Since(start) / time.Duration(cfg.churn)
	if err != nil {
		b.Fatalf("the %s server: the churn: %v; its stderr: %s", ch.name, err, ch.tail.String())
	}
	if want := (cfg.churn + 24) / 25; deleted != want {
		b.Fatalf("the churn deleted %d sessions, want %d", deleted, want)
	}
	hc.CloseIdleConnections()
	s1, err := ch.stats()
	if err != nil {
		b.Fatal(err)
	}
	memProfile(b, ch, "churned")
	time.Sleep(expiryWait(impl, cfg.idle))
	s2, _ := memRead(b, ch)
	b.ReportMetric((float64(s1.HeapAlloc)-float64(s0.HeapAlloc))/(1<<20), "heap-churn-MiB")
	b.ReportMetric(float64(s1.Goroutines-s0.Goroutines), "goroutines-churn")
	b.ReportMetric(float64(s2.HeapAlloc)-float64(s0.HeapAlloc), "heap-expired-B")
	b.ReportMetric(float64(s2.Goroutines-s0.Goroutines), "goroutines-expired")
	memProfile(b, ch, "expired")
	return per
}
