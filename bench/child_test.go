package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	rpprof "runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	m1125 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The load and memory benchmarks (load_test.go, memory_test.go) run each
// server in a process of its own: the test binary again, with the
// environment variable envServer set to "<impl>/<kind>". TestMain then runs
// that server instead of the tests, and never returns.
//
// Kinds:
//
//   - legacy: Streamable HTTP with sessions, at 2025-11-25 (the newest
//     revision with initialize that all three speak). mcpgen serves an
//     mcp20251125.StandardServer with runtime/streamhttp; go-sdk its
//     StreamableHTTPHandler; mcp-go its StreamableHTTPServer. JSON answers
//     for mcpgen and go-sdk (as in RoundTrip/http); mcp-go answers a call
//     with JSON by itself. envIdle, when set, is the idle-session expiry:
//     streamhttp's IdleTimeout, go-sdk's SessionTimeout, mcp-go's
//     WithSessionIdleTTL.
//   - stateless: Streamable HTTP without sessions, at 2026-07-28. mcpgen
//     serves an mcp20260728.StandardServer (its stateless POST path and
//     subscriptions/listen); go-sdk its handler with Stateless (which
//     serves 2026-07-28 only that way); mcp-go its server with
//     WithStateLess(true).
//   - sse: the HTTP+SSE transport of 2024-11-05: mcpgen's runtime/ssehttp
//     (with the mcp20251125 server), go-sdk's SSEHandler, mcp-go's
//     SSEServer.
//   - stdio: newline-delimited JSON on the process's stdin and stdout.
//
// The child prints, on stderr, "BENCH-STATS <host:port>" (its stats
// listener) and, for the HTTP kinds, "BENCH-MCP <url>" (its MCP
// endpoint), both on 127.0.0.1 at ports chosen at run time. The stats
// listener serves:
//
//   - /stats: runtime.GC and the return of free memory to the OS
//     (debug.FreeOSMemory), then {"heapAlloc","heapInuse","goroutines",
//     "mallocs","totalAlloc"} (see serverStats);
//   - /cpuprofile/start and /cpuprofile/stop: a CPU profile of the time
//     between them (stop answers it);
//   - /debug/pprof/: net/http/pprof.
//
// It exits when its stdin ends (the parent closed it or died), and the
// parent also asks Linux to kill it when the parent dies (Pdeathsig).
const (
	envServer = "BENCH_SERVER"
	envIdle   = "BENCH_IDLE"
	// envMemProfileRate sets runtime.MemProfileRate in the child, for
	// finer allocation profiles (scripts/bench PROFILE=1).
	envMemProfileRate = "BENCH_MEMPROFILERATE"
)

// The legacy revision of the load and memory benchmarks.
const legacyVersion = "2025-11-25"

func TestMain(m *testing.M) {
	if spec := os.Getenv(envServer); spec != "" {
		if err := serveChild(spec); err != nil {
			fmt.Fprintf(os.Stderr, "bench server %s: %v\n", spec, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serverStats is what the child's /stats answers.
type serverStats struct {
	HeapAlloc  uint64 `json:"heapAlloc"`
	HeapInuse  uint64 `json:"heapInuse"`
	Goroutines int    `json:"goroutines"`
	// Mallocs and TotalAlloc are runtime.MemStats's: the count and bytes
	// of the heap objects allocated so far.
	Mallocs    uint64 `json:"mallocs"`
	TotalAlloc uint64 `json:"totalAlloc"`
}

// serveChild runs the server spec names ("<impl>/<kind>") until stdin
// ends (HTTP kinds) or the protocol stream does (stdio).
func serveChild(spec string) error {
	impl, kind, ok := strings.Cut(spec, "/")
	if !ok {
		return fmt.Errorf("%s=%q: want <impl>/<kind>", envServer, spec)
	}
	if v := os.Getenv(envMemProfileRate); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q: %w", envMemProfileRate, v, err)
		}
		runtime.MemProfileRate = n
	}
	var idle time.Duration
	if v := os.Getenv(envIdle); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s=%q: %w", envIdle, v, err)
		}
		idle = d
	}
	statsAddr, err := serveStats()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "BENCH-STATS %s\n", statsAddr)
	if kind == "stdio" {
		return serveStdioChild(impl)
	}
	h, err := childHandler(impl, kind, idle)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	path := "/mcp"
	if kind == "sse" {
		path = "/sse"
	}
	fmt.Fprintf(os.Stderr, "BENCH-MCP http://%s%s\n", ln.Addr(), path)
	// Until the parent closes stdin (or dies).
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// childHandler returns the HTTP handler of impl for kind.
func childHandler(impl, kind string, idle time.Duration) (http.Handler, error) {
	mux := http.NewServeMux()
	switch impl + "/" + kind {
	case "mcpgen/legacy":
		srv := newMcpgen1125Server()
		mux.Handle("/mcp", streamhttp.NewServer(func() session.Handler { return m1125.NewServerHandler(srv) },
			streamhttp.ServerOptions{JSONResponse: true, IdleTimeout: idle}))
	case "gosdk/legacy":
		srv := newSDKServer()
		mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
			&sdk.StreamableHTTPOptions{JSONResponse: true, SessionTimeout: idle}))
	case "mcpgo/legacy":
		var opts []mcpgoserver.StreamableHTTPOption
		if idle > 0 {
			opts = append(opts, mcpgoserver.WithSessionIdleTTL(idle))
		}
		mux.Handle("/mcp", mcpgoserver.NewStreamableHTTPServer(newMcpgoServer(), opts...))
	case "mcpgen/stateless":
		mux.Handle("/mcp", streamhttp.NewServer(newMcpgenModernServer().Handler, streamhttp.ServerOptions{JSONResponse: true}))
	case "gosdk/stateless":
		srv := newSDKServer()
		mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
			&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	case "mcpgo/stateless":
		mux.Handle("/mcp", mcpgoserver.NewStreamableHTTPServer(newMcpgoServer(), mcpgoserver.WithStateLess(true)))
	case "mcpgen/sse":
		srv := newMcpgen1125Server()
		mux.Handle("/sse", ssehttp.NewServer(func() session.Handler { return m1125.NewServerHandler(srv) }, ssehttp.ServerOptions{}))
	case "gosdk/sse":
		srv := newSDKServer()
		mux.Handle("/sse", sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	case "mcpgo/sse":
		// Its SSE endpoint is /sse, its message endpoint /message.
		return mcpgoserver.NewSSEServer(newMcpgoServer()), nil
	default:
		return nil, fmt.Errorf("no server %s/%s", impl, kind)
	}
	return mux, nil
}

// serveStdioChild serves impl on stdin and stdout until stdin ends.
func serveStdioChild(impl string) error {
	ctx := context.Background()
	switch impl {
	case "mcpgen":
		// It ends when stdin does, with an error that says so.
		_ = m1125.Serve(ctx, stdio.New(os.Stdin, os.Stdout), newMcpgen1125Server(), session.Options{})
		return nil
	case "gosdk":
		return newSDKServer().Run(ctx, &sdk.IOTransport{Reader: os.Stdin, Writer: os.Stdout})
	case "mcpgo":
		return mcpgoserver.NewStdioServer(newMcpgoServer()).Listen(ctx, os.Stdin, os.Stdout)
	}
	return fmt.Errorf("no stdio server %s", impl)
}

// newMcpgen1125Server returns mcpgen's 2025-11-25 StandardServer with the
// echo tool (the same tool as newMcpgenServer's).
func newMcpgen1125Server() *m1125.StandardServer {
	srv := m1125.NewServer(m1125.Implementation{Name: "bench", Version: "1.0.0"})
	srv.MustAddTool(m1125.Tool{Name: "echo", InputSchema: []byte(echoSchema)},
		func(ctx context.Context, p *m1125.CallToolRequestParams) (*m1125.CallToolResult, error) {
			text, _ := wire.MemberString(p.Arguments, "text")
			return &m1125.CallToolResult{Content: []m1125.ContentBlock{{Value: &m1125.TextContent{Text: text}}}}, nil
		})
	return srv
}

// serveStats starts the stats listener and returns its address.
func serveStats() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(serverStats{HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, Goroutines: runtime.NumGoroutine(), Mallocs: ms.Mallocs, TotalAlloc: ms.TotalAlloc})
	})
	var (
		cpuMu  sync.Mutex
		cpuBuf *bytes.Buffer
	)
	mux.HandleFunc("/cpuprofile/start", func(w http.ResponseWriter, r *http.Request) {
		cpuMu.Lock()
		defer cpuMu.Unlock()
		if cpuBuf != nil {
			rpprof.StopCPUProfile()
		}
		cpuBuf = new(bytes.Buffer)
		if err := rpprof.StartCPUProfile(cpuBuf); err != nil {
			cpuBuf = nil
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/cpuprofile/stop", func(w http.ResponseWriter, r *http.Request) {
		cpuMu.Lock()
		defer cpuMu.Unlock()
		if cpuBuf == nil {
			http.Error(w, "no CPU profile was started", http.StatusConflict)
			return
		}
		rpprof.StopCPUProfile()
		_, _ = w.Write(cpuBuf.Bytes())
		cpuBuf = nil
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	go func() { _ = http.Serve(ln, mux) }()
	return ln.Addr().String(), nil
}

// readChildLines reads the child's stderr: it returns the values of the
// "BENCH-STATS" and "BENCH-MCP" lines once it has those wanted (want is 1
// or 2), and keeps the tail of the rest in tail.
func readChildLines(r io.Reader, want int, tail *tailBuffer) (stats, mcpURL string, err error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "BENCH-STATS "); ok {
			stats = v
		} else if v, ok := strings.CutPrefix(strings.TrimSpace(line), "BENCH-MCP "); ok {
			mcpURL = v
		} else {
			tail.Write([]byte(line))
		}
		n := 0
		if stats != "" {
			n++
		}
		if mcpURL != "" {
			n++
		}
		if n >= want {
			go func() { _, _ = io.Copy(tail, br) }()
			return stats, mcpURL, nil
		}
		if err != nil {
			return "", "", fmt.Errorf("the server exited before it printed its address: %w; its stderr: %s", err, tail.String())
		}
	}
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4096; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
