package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The SpanKind numbers the stdout exporter prints.
const (
	kindServer = int(trace.SpanKindServer)
	kindClient = int(trace.SpanKindClient)
)

// span is what the tests read of a span the stdout exporter printed.
type span struct {
	Name        string
	SpanKind    int
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct {
		TraceID, SpanID string
		Remote          bool
	}
	Attributes []struct {
		Key   string
		Value struct{ Value any }
	}
}

func (s span) attr(key string) (any, bool) {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.Value, true
		}
	}
	return nil, false
}

// printed is what the stdout exporters printed: the spans, and the names
// of the metrics.
type printed struct {
	spans   []span
	metrics map[string]bool
}

// readPrinted decodes the JSON objects of out, one after the other.
func readPrinted(t *testing.T, out []byte) printed {
	t.Helper()
	p := printed{metrics: map[string]bool{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var obj struct {
			span
			ScopeMetrics []struct {
				Metrics []struct{ Name string }
			}
		}
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("the standard output is not a series of JSON objects: %v\n%s", err, out)
		}
		for _, sm := range obj.ScopeMetrics {
			for _, m := range sm.Metrics {
				p.metrics[m.Name] = true
			}
		}
		if obj.ScopeMetrics == nil && obj.Name != "" {
			p.spans = append(p.spans, obj.span)
		}
	}
	return p
}

// find returns the spans named name of kind k whose mcp.protocol.version
// is version.
func (p printed) find(name string, k int, version string) []span {
	var out []span
	for _, s := range p.spans {
		if v, _ := s.attr("mcp.protocol.version"); s.Name == name && s.SpanKind == k && v == version {
			out = append(out, s)
		}
	}
	return out
}

// lockedBuffer is a bytes.Buffer the exporters may write from several
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.b.Bytes())
}

// TestDemo runs the program as `go run .` does, the stdout exporter
// writing into a buffer: in both eras the tools/call of greet is a CLIENT
// span and a SERVER span of one trace, the server's the child of the
// client's; the opt-in attributes are there only when asked for; the
// duration histograms are printed at the end.
func TestDemo(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantArgs bool // gen_ai.tool.call.arguments on the tools/call spans
	}{
		{"default", nil, false},
		{"tool arguments", []string{"--tool-arguments", "--exporter", "stdout"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
			t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var stdout, stderr lockedBuffer
			if err := run(ctx, tt.args, &stdout, &stderr); err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, stderr.Bytes())
			}
			p := readPrinted(t, stdout.Bytes())
			for _, era := range []struct{ version, line string }{
				{"2026-07-28", `2026-07-28, stateless: tools/call greet answered "Hello, Ada"`},
				{"2025-11-25", `2025-11-25, a session: tools/call greet answered "Hello, Ada"`},
			} {
				if !strings.Contains(string(stderr.Bytes()), era.line) {
					t.Errorf("stderr lacks %q:\n%s", era.line, stderr.Bytes())
				}
				clients := p.find("tools/call greet", kindClient, era.version)
				servers := p.find("tools/call greet", kindServer, era.version)
				if len(clients) != 1 || len(servers) != 1 {
					t.Fatalf("%s: %d client and %d server spans \"tools/call greet\", want 1 and 1; spans: %+v", era.version, len(clients), len(servers), p.spans)
				}
				c, s := clients[0], servers[0]
				if c.SpanContext.TraceID != s.SpanContext.TraceID {
					t.Errorf("%s: the client span is in trace %s, the server span in %s, want one trace", era.version, c.SpanContext.TraceID, s.SpanContext.TraceID)
				}
				if s.Parent.SpanID != c.SpanContext.SpanID || !s.Parent.Remote {
					t.Errorf("%s: the server span's parent is %s (remote %v), want the client span %s, remote", era.version, s.Parent.SpanID, s.Parent.Remote, c.SpanContext.SpanID)
				}
				for _, sp := range []span{c, s} {
					args, ok := sp.attr("gen_ai.tool.call.arguments")
					if ok != tt.wantArgs {
						t.Errorf("%s: span of kind %d has gen_ai.tool.call.arguments %v (%v), want it %v", era.version, sp.SpanKind, ok, args, tt.wantArgs)
					}
					if ok && args != `{"name":"Ada"}` {
						t.Errorf("%s: gen_ai.tool.call.arguments = %v, want {\"name\":\"Ada\"}", era.version, args)
					}
				}
			}
			for _, m := range []string{"mcp.client.operation.duration", "mcp.server.operation.duration", "mcp.client.session.duration", "mcp.server.session.duration"} {
				if !p.metrics[m] {
					t.Errorf("metric %s was not printed; printed: %v", m, p.metrics)
				}
			}
		})
	}
}

// TestServe runs serve on a port of 127.0.0.1 chosen at run time, and a
// client of its own with otelmcp and an in-memory recorder: the server's
// span of the call, which serve printed, is the child of the client's.
func TestServe(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var stdout lockedBuffer
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(sctx, []string{"serve", "--listen", "127.0.0.1:0"}, &stdout, pw)
		pw.Close()
	}()
	lines := bufio.NewReader(pr)
	first, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no line: %v (%v)", err, firstErr(done))
	}
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	url, ok := strings.CutPrefix(first, "serving MCP on ")
	if !ok {
		t.Fatalf("serve printed %q, want \"serving MCP on URL ...\"", first)
	}
	url, _, _ = strings.Cut(url, " ")

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	mp := sdkmetric.NewMeterProvider()
	defer func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}()
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(url, streamhttp.ClientOptions{}), &mcp.ClientOptions{
		Middleware: []mcp.Middleware{otelmcp.Middleware(otelmcp.Options{TracerProvider: tp, MeterProvider: mp})},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallToolArgs(ctx, "greet", map[string]any{"name": "Ada"}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("serve did not return when its context ended")
	}

	var client trace.SpanContext
	for _, s := range rec.Ended() {
		if s.Name() == "tools/call greet" && s.SpanKind() == trace.SpanKindClient {
			client = s.SpanContext()
		}
	}
	if !client.IsValid() {
		t.Fatal("the test's client recorded no span \"tools/call greet\"")
	}
	servers := readPrinted(t, stdout.Bytes()).find("tools/call greet", kindServer, "2026-07-28")
	if len(servers) != 1 {
		t.Fatalf("serve printed %d server spans \"tools/call greet\", want 1:\n%s", len(servers), stdout.Bytes())
	}
	if s := servers[0]; s.SpanContext.TraceID != client.TraceID().String() || s.Parent.SpanID != client.SpanID().String() {
		t.Errorf("the server span is in trace %s with parent %s, want the client's span %s of trace %s",
			s.SpanContext.TraceID, s.Parent.SpanID, client.SpanID(), client.TraceID())
	}
}

// firstErr returns what run returned, if it did already.
func firstErr(done <-chan error) error {
	select {
	case err := <-done:
		return err
	default:
		return errors.New("run is still running")
	}
}

// TestParse: the command line's flags and command, and the errors that say
// what was wrong.
func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     string // OTEL_EXPORTER_OTLP_ENDPOINT
		want    options
		wantErr string
	}{
		{name: "none", want: options{exporter: "stdout", listen: "127.0.0.1:8080"}},
		{name: "endpoint in the environment", env: "http://127.0.0.1:4318", want: options{exporter: "otlp", listen: "127.0.0.1:8080"}},
		{name: "--exporter stdout over the environment", args: []string{"--exporter", "stdout"}, env: "http://127.0.0.1:4318", want: options{exporter: "stdout", listen: "127.0.0.1:8080"}},
		{name: "--otlp", args: []string{"--otlp", "--tool-arguments", "--tool-results"}, want: options{exporter: "otlp", toolArguments: true, toolResults: true, listen: "127.0.0.1:8080"}},
		{name: "serve, flags after", args: []string{"serve", "--listen", "127.0.0.1:9000"}, want: options{exporter: "stdout", listen: "127.0.0.1:9000", serve: true}},
		{name: "serve, flags before", args: []string{"--otlp", "serve"}, want: options{exporter: "otlp", listen: "127.0.0.1:8080", serve: true}},
		{name: "unknown exporter", args: []string{"--exporter", "zipkin"}, wantErr: `--exporter "zipkin": want stdout or otlp`},
		{name: "unknown command", args: []string{"client"}, wantErr: `unknown command "client"`},
		{name: "extra argument", args: []string{"serve", "now"}, wantErr: `unexpected "now" after serve`},
		{name: "unknown flag", args: []string{"--verbose"}, wantErr: "flag provided but not defined: -verbose; see --help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tt.env)
			t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
			got, help, err := parse(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parse(%q) error %v, want one containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil || help {
				t.Fatalf("parse(%q): help %v, error %v", tt.args, help, err)
			}
			if got != tt.want {
				t.Errorf("parse(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

// TestHelp: --help prints the usage and every flag, and runs nothing.
func TestHelp(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"usage: telemetry", "telemetry serve", "-exporter", "-otlp", "-tool-arguments", "-tool-results", "-listen"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, out.String())
		}
	}
}
