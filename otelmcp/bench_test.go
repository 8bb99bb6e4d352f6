package otelmcp_test

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// dropSpans is a span processor that keeps nothing: the benchmarks
// measure the instrumentation, not an exporter.
type dropSpans struct{}

func (dropSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (dropSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (dropSpans) Shutdown(context.Context) error                  { return nil }
func (dropSpans) ForceFlush(context.Context) error                { return nil }

// BenchmarkToolCall is a tools/call round trip over an in-memory pipe, in
// both eras, without the middleware, with it and a sampler that records
// nothing, and with it recording every span.
func BenchmarkToolCall(b *testing.B) {
	for _, era := range []struct {
		name string
		revs []string
	}{{"legacy", []string{"2025-11-25"}}, {"stateless", nil}} {
		for _, mode := range []string{"off", "never", "on"} {
			b.Run(era.name+"/"+mode, func(b *testing.B) {
				var mw []session.Middleware
				if mode != "off" {
					sampler := sdktrace.AlwaysSample()
					if mode == "never" {
						sampler = sdktrace.NeverSample()
					}
					tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSpanProcessor(dropSpans{}))
					mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
					b.Cleanup(func() {
						_ = tp.Shutdown(context.Background())
						_ = mp.Shutdown(context.Background())
					})
					mw = append(mw, otelmcp.Middleware(otelmcp.Options{TracerProvider: tp, MeterProvider: mp}))
				}
				srv := testServer(mw...)
				cs := pipePair(b, srv, &mcp.ClientOptions{Revisions: era.revs, Middleware: mw})
				ctx := context.Background()
				params := &mcp.CallToolRequestParams{Name: "echo"}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := cs.CallTool(ctx, params); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
