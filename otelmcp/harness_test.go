package otelmcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is an SDK that keeps what it records: every ended span, and
// the metrics a manual reader collects.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

// middleware is an otelmcp Middleware recording into tel.
func (tel *telemetry) middleware(o otelmcp.Options) session.Middleware {
	o.TracerProvider, o.MeterProvider = tel.tp, tel.mp
	return otelmcp.Middleware(o)
}

// ended returns the ended spans named name of kind k.
func (tel *telemetry) ended(name string, k trace.SpanKind) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name && s.SpanKind() == k {
			out = append(out, s)
		}
	}
	return out
}

// one returns the only ended span named name of kind k, waiting a little
// for it: a server span ends just after its answer is written.
func (tel *telemetry) one(t *testing.T, name string, k trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := tel.ended(name, k)
		if len(got) == 1 {
			return got[0]
		}
		if len(got) > 1 || time.Now().After(deadline) {
			var names []string
			for _, s := range tel.spans.Ended() {
				names = append(names, fmt.Sprintf("%s (%s)", s.Name(), s.SpanKind()))
			}
			t.Fatalf("%d ended spans %q of kind %s, want 1; all: %v", len(got), name, k, names)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// histogram returns the data points of the histogram name.
func (tel *telemetry) histogram(t *testing.T, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a histogram of float64", name, m.Data)
			}
			if m.Unit != "s" {
				t.Errorf("%s unit %q, want s", name, m.Unit)
			}
			return h.DataPoints
		}
	}
	return nil
}

// testServer is a server with one tool of each outcome and a prompt.
func testServer(mw ...session.Middleware) *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "srv", Version: "1"}, mcp.WithMiddleware(mw...))
	srv.MustAddTool(mcp.NewTool("echo", "echoes"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("ok"), nil
	})
	srv.MustAddTool(mcp.NewTool("broken", "fails as a tool"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.ErrorResult("no luck"), nil
	})
	srv.MustAddPrompt(mcp.NewPrompt("greet", "greets"), func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{}}, nil
	})
	return srv
}

// pipePair serves srv on one end of a pipe and connects a client with
// opts on the other.
func pipePair(t testing.TB, srv *mcp.StandardServer, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	a, b := transport.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ctx, a, session.Options{})
	}()
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	cs, err := mcp.Connect(cctx, b, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}
