package interop_test

// Interop over the HTTP+SSE transport of 2024-11-05 (runtime/ssehttp),
// with the TypeScript SDK v1 (@modelcontextprotocol/sdk) on the other side:
//
//   - TestTypeScriptSSEClient: the SDK's SSEClientTransport (through
//     ts-sse-client.mjs) against examples/stdio-server --http, whose /sse
//     is an ssehttp.Server: initialize, tools/list, tools/call;
//   - TestGoClientTSSSEServer: ssehttp.Client, at each revision and at
//     2024-11-05, the transport's own, against the SDK's
//     SSEServerTransport (ts-sse-server.mjs);
//   - TestGoAutoClientTSSSEServer: ssehttp.AutoClient against the same
//     server, given its SSE URL: the Streamable HTTP attempt gets 405 and
//     the client falls back to the old transport, with the 2025-11-25
//     client and with the 2026-07-28 one (whose server/discover probe
//     comes first).
//
// Like the other interop tests they need Node and the SDK installed by
// "npm ci --prefix interop", and fail without them; they never skip.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// tsSSEEchoText is what ts-sse-client.mjs sends to echo (kept in step with
// the constant there).
const tsSSEEchoText = "hello over HTTP+SSE from the TypeScript SDK"

var exampleSSELine = regexp.MustCompile(`and (http://127\.0\.0\.1:\d+/sse) \(HTTP\+SSE\)`)

// tsSSEServerLine is the line ts-sse-server.mjs prints when it listens.
var tsSSEServerLine = regexp.MustCompile(`\{"url":"(http://127\.0\.0\.1:\d+/[^"]*)"\}`)

// startExampleHTTP runs examples/stdio-server --http on 127.0.0.1 and
// returns its HTTP+SSE URL. It is stopped with SIGTERM when the test ends.
func startExampleHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(exampleServer(t), "--http", "127.0.0.1:0")
	return startListening(t, "the example server", cmd, syscall.SIGTERM, exampleSSELine)[1]
}

// startTSSSEServer runs ts-sse-server.mjs and returns its SSE URL. It is
// stopped with SIGTERM when the test ends.
func startTSSSEServer(t *testing.T) string {
	t.Helper()
	node := nodeBin(t)
	interop, _ := dirs(t)
	cmd := exec.Command(node, filepath.Join(interop, "ts-sse-server.mjs"))
	cmd.Dir = interop
	return startListening(t, "ts-sse-server", cmd, syscall.SIGTERM, tsSSEServerLine)[1]
}

func TestTypeScriptSSEClient(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	sseURL := startExampleHTTP(t)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, filepath.Join(interop, "ts-sse-client.mjs"), sseURL)
	cmd.Dir = interop
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	t.Cleanup(func() {
		if t.Failed() || traceAlways {
			t.Logf("ts-sse-client stdout:\n%s", stdout.Bytes())
			t.Logf("ts-sse-client stderr (the messages exchanged):\n%s", stderr.Bytes())
		}
	})
	steps := map[string]json.RawMessage{}
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var s struct {
			Step string `json:"step"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("ts-sse-client printed a line that is not JSON: %v: %q", err, sc.Bytes())
		}
		steps[s.Step] = slices.Clone(sc.Bytes())
	}
	if s, ok := steps["error"]; ok {
		t.Fatalf("ts-sse-client failed: %s", s)
	}
	if err != nil {
		t.Fatalf("ts-sse-client: %v", err)
	}
	step := func(name string, v any) {
		t.Helper()
		raw, ok := steps[name]
		if !ok {
			t.Fatalf("ts-sse-client printed no %q line", name)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var init struct {
		Requested string `json:"requested"`
		Endpoint  string `json:"endpoint"`
	}
	step("initialize", &init)
	t.Logf("the TypeScript SSE client requested %s and POSTs to %s", init.Requested, init.Endpoint)
	if len(init.Endpoint) < len(sseURL) || init.Endpoint[:len(sseURL)] != sseURL {
		t.Errorf("endpoint %q, want %s?sessionId=...", init.Endpoint, sseURL)
	}
	var tools struct {
		Names []string `json:"names"`
	}
	step("tools/list", &tools)
	if !slices.Contains(tools.Names, "echo") {
		t.Errorf("tools/list: %q has no echo", tools.Names)
	}
	var call struct {
		Result result `json:"result"`
	}
	step("tools/call", &call)
	if got := call.Result.texts(); got != tsSSEEchoText || call.Result.IsError {
		t.Errorf("tools/call echo: %q (isError %v), want %q", got, call.Result.IsError, tsSSEEchoText)
	}
	if _, ok := steps["done"]; !ok {
		t.Error(`ts-sse-client exited without its "done" line`)
	}
}

// checkEcho lists the tools of p and calls echo.
func checkEcho(t *testing.T, ctx context.Context, p *peer) {
	t.Helper()
	tools, err := list(ctx, "tools/list", p.listTools)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools.Tools, func(ti toolInfo) bool { return ti.Name == "echo" }) {
		t.Fatalf("tools/list: no echo tool in %+v", tools.Tools)
	}
	raw, err := p.callTool(ctx, "echo", []byte(`{"text":"`+goEchoText+`"}`))
	if err != nil {
		t.Fatalf("tools/call echo: %v", err)
	}
	if got := decodeResult(t, "tools/call echo", raw).texts(); got != goEchoText {
		t.Fatalf("tools/call echo: %q, want %q", got, goEchoText)
	}
}

func TestGoClientTSSSEServer(t *testing.T) {
	sseURL := startTSSSEServer(t)
	for _, rev := range append(slices.Clone(revisions), mcp20241105.Revision) {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			var logs lockedBuffer
			c := ssehttp.NewClient(sseURL, ssehttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			tr := &tracer{Transport: c}
			t.Cleanup(func() {
				if t.Failed() || traceAlways {
					t.Logf("messages exchanged (-> sent, <- received):\n%s", tr)
					t.Logf("client transport log:\n%s", logs.String())
				}
			})
			p, err := connect(ctx, tr, rev)
			if err != nil {
				c.Close()
				t.Fatalf("handshake at %s: %v", rev, err)
			}
			defer p.s.Close()
			if r := p.s.Revision(); r == nil || r.Name != rev {
				t.Fatalf("negotiated %v, want %s", r, rev)
			}
			checkEcho(t, ctx, p)
		})
	}
}

func TestGoAutoClientTSSSEServer(t *testing.T) {
	sseURL := startTSSSEServer(t)
	newClient := func(t *testing.T) (*ssehttp.AutoClient, *tracer) {
		var logs lockedBuffer
		a := ssehttp.NewAutoClient(sseURL, ssehttp.AutoOptions{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		tr := &tracer{Transport: a}
		t.Cleanup(func() {
			if t.Failed() || traceAlways {
				t.Logf("messages exchanged (-> sent, <- received):\n%s", tr)
				t.Logf("client transport log:\n%s", logs.String())
			}
		})
		return a, tr
	}
	t.Run(mcp20251125.Revision, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		a, tr := newClient(t)
		p, err := connect(ctx, tr, mcp20251125.Revision)
		if err != nil {
			a.Close()
			t.Fatalf("handshake: %v", err)
		}
		defer p.s.Close()
		if _, ok := a.Transport().(*ssehttp.Client); !ok {
			t.Fatalf("transport %T, want the HTTP+SSE client", a.Transport())
		}
		checkEcho(t, ctx, p)
	})
	t.Run(mcp20260728.Revision+" client", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		a, tr := newClient(t)
		cs, err := mcp20260728.Connect(ctx, tr, &mcp20260728.ClientOptions{Info: mcp20260728.Implementation{Name: "mcpgen-interop", Version: "0.0.0"}})
		if err != nil {
			a.Close()
			t.Fatalf("Connect: %v", err)
		}
		defer cs.Close()
		if _, ok := a.Transport().(*ssehttp.Client); !ok || cs.Era() != session.EraLegacy {
			t.Fatalf("transport %T, era %v; want the HTTP+SSE client, legacy", a.Transport(), cs.Era())
		}
		res, err := cs.CallTool(ctx, &mcp20260728.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"` + goEchoText + `"}`)})
		if err != nil {
			t.Fatalf("tools/call echo: %v", err)
		}
		if tc, ok := res.Content[0].Value.(*mcp20260728.TextContent); !ok || tc.Text != goEchoText {
			t.Fatalf("tools/call echo: %+v", res)
		}
	})
}
