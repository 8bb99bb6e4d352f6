package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The cost of tracing: BenchmarkTracing/<era>/<transport>/seq/<mode>, the
// mcpgen echo round trip with otelmcp on both sides or not:
//
//   - off: no middleware, the very body of the RoundTrip (legacy) row;
//   - on: otelmcp on the server and the client, an SDK TracerProvider that
//     samples every span (AlwaysSample) and hands it to a processor that
//     only counts it (no exporter: the rows measure the instrumentation and
//     the SDK's span recording, not an export), and an SDK MeterProvider
//     with a ManualReader that is never read;
//   - never: the same with NeverSample: no span is recorded, the trace
//     context is still made and carried in params._meta, and the duration
//     histograms still recorded.
//
// legacy/<mem|stdio|http> is the 2025-06-18 session of RoundTrip;
// stateless/http is a 2026-07-28 stateless tools/call over Streamable HTTP
// from mcpgen's own 2026-07-28 client (the Modern rows use a raw client,
// which cannot carry a middleware).
func BenchmarkTracing(b *testing.B) {
	type setupWith func(b *testing.B, mw ...session.Middleware) (caller, func())
	for _, tr := range []struct {
		name string
		s    setupWith
	}{
		{"legacy/mem", mcpgenMemWith},
		{"legacy/stdio", mcpgenStdioWith},
		{"legacy/http", mcpgenHTTPWith},
		{"stateless/http", mcpgenStatelessHTTPWith},
	} {
		for _, mode := range []string{"off", "on", "never"} {
			b.Run(tr.name+"/seq/"+mode, func(b *testing.B) {
				var (
					tel *benchTelemetry
					mw  []session.Middleware
				)
				if mode != "off" {
					tel = newBenchTelemetry(b, mode == "on")
					mw = []session.Middleware{tel.middleware()}
				}
				call, cleanup := tr.s(b, mw...)
				defer cleanup()
				if tel != nil {
					tel.check(b, call)
				}
				benchCalls(b, 1, call)
				b.StopTimer()
			})
		}
	}
}

// mcpgenStatelessHTTPWith serves the 2026-07-28 StandardServer over
// Streamable HTTP and connects mcpgen's 2026-07-28 client, which finds with
// server/discover that the server is stateless and sends every later
// request on its own, its revision in _meta; mw goes to both sides.
func mcpgenStatelessHTTPWith(b *testing.B, mw ...session.Middleware) (caller, func()) {
	srv := newMcpgenModernServer(mw...)
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{JSONResponse: true})
	url, stop := listen(b, h)
	ctx, cancel := context.WithCancel(context.Background())
	cs, err := m26.Connect(ctx, streamhttp.NewClient(url, streamhttp.ClientOptions{HTTPClient: httpClient()}),
		&m26.ClientOptions{Info: m26.Implementation{Name: "bench-client", Version: "1.0.0"}, Middleware: mw})
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	if r := cs.Revision(); r == nil || r.Name != modernVersion {
		b.Fatalf("the 2026-07-28 client speaks %v, want %s", r, modernVersion)
	}
	args := []byte(`{"text":"hello, world"}`)
	call := func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "echo", Arguments: args})
		if err != nil {
			return err
		}
		t, ok := res.Content[0].Value.(*m26.TextContent)
		if !ok {
			return fmt.Errorf("echo answered %T", res.Content[0].Value)
		}
		return checkText(t.Text)
	}
	return call, func() {
		cs.Close()
		cancel()
		h.Close()
		stop()
	}
}

// benchTelemetry is the SDK of the on and never rows.
type benchTelemetry struct {
	tp        *sdktrace.TracerProvider
	mp        *sdkmetric.MeterProvider
	spans     *countSpans
	recording bool
}

func newBenchTelemetry(b *testing.B, recording bool) *benchTelemetry {
	sampler := sdktrace.NeverSample()
	if recording {
		sampler = sdktrace.AlwaysSample()
	}
	tel := &benchTelemetry{spans: &countSpans{}, recording: recording}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(tel.spans))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

func (tel *benchTelemetry) middleware() session.Middleware {
	return otelmcp.Middleware(otelmcp.Options{TracerProvider: tel.tp, MeterProvider: tel.mp})
}

// check makes one call before timing and checks that the row measures what
// it says: with a recording sampler, a CLIENT span and a SERVER span of the
// echo call, the server's parent come from the peer (params._meta); with
// NeverSample, no span.
func (tel *benchTelemetry) check(b *testing.B, call caller) {
	b.Helper()
	before := tel.spans.snapshot()
	if err := call(context.Background()); err != nil {
		b.Fatal(err)
	}
	// The server span ends just after the answer is written: wait a
	// little for it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := tel.spans.snapshot()
		got.client -= before.client
		got.server -= before.server
		got.remoteParent -= before.remoteParent
		switch {
		case !tel.recording && got == (spanCounts{}):
			return
		case !tel.recording:
			b.Fatalf("NeverSample recorded spans: %+v", got)
		case got.client == 1 && got.server == 1 && got.remoteParent == 1:
			return
		case got.client > 1 || got.server > 1 || time.Now().After(deadline):
			b.Fatalf("one call ended %+v, want one client span and one server span whose parent came in params._meta", got)
		}
		time.Sleep(time.Millisecond)
	}
}

// echoSpan is the name of the spans of the echo call.
const echoSpan = "tools/call echo"

// countSpans is a span processor that drops every span, counting the ended
// spans of the echo call by kind: the cheapest processor there is, so that
// the on rows measure making and recording the spans rather than exporting
// them.
type countSpans struct {
	client, server, remoteParent atomic.Int64
}

// spanCounts is what countSpans counted.
type spanCounts struct{ client, server, remoteParent int64 }

func (p *countSpans) snapshot() spanCounts {
	return spanCounts{p.client.Load(), p.server.Load(), p.remoteParent.Load()}
}

func (p *countSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (p *countSpans) OnEnd(s sdktrace.ReadOnlySpan) {
	if s.Name() != echoSpan {
		return
	}
	switch s.SpanKind() {
	case trace.SpanKindClient:
		p.client.Add(1)
	case trace.SpanKindServer:
		p.server.Add(1)
		if s.Parent().IsRemote() {
			p.remoteParent.Add(1)
		}
	}
}

func (p *countSpans) Shutdown(context.Context) error   { return nil }
func (p *countSpans) ForceFlush(context.Context) error { return nil }
