// Command telemetry shows the spans and metrics otelmcp reports, in one
// command: it serves an MCP server with one tool over Streamable HTTP on
// 127.0.0.1 (a free port), connects a client, calls the tool in both eras
// (a 2026-07-28 stateless request, then a 2025-11-25 session), and prints
// every span and the duration histograms as JSON on the standard output:
//
//	$ cd examples/telemetry
//	$ go run .
//	2026-07-28, stateless: tools/call greet answered "Hello, Ada" (trace 5b8aa5a2d2c872e8321cf37308d69df2)
//	2025-11-25, a session: tools/call greet answered "Hello, Ada" (trace 0af7651916cd43dd8448eb211c80319c)
//	{ "Name": "server/discover", "SpanKind": 3, ... }
//	...
//
// Server and client both carry otelmcp.Middleware: each call is a CLIENT
// span on the client and a SERVER span on the server, its child through
// the trace context the client put in params._meta. otelhttp wraps the
// server's HTTP handler too: each HTTP request is a span of its own (a
// root: the context travels in _meta, not in HTTP headers), which the MCP
// server span links.
//
// Flags:
//
//	--exporter stdout|otlp  where spans and metrics go (default: stdout, or
//	                        otlp when OTEL_EXPORTER_OTLP_ENDPOINT is set)
//	--otlp                  the same as --exporter otlp
//	--tool-arguments        record the arguments of tools/call
//	                        (gen_ai.tool.call.arguments, opt-in)
//	--tool-results          record the results of tools/call
//	                        (gen_ai.tool.call.result, opt-in)
//
// With otlp, spans and metrics go over OTLP/HTTP where the standard
// OTEL_EXPORTER_OTLP_* variables say (http://localhost:4318 by default),
// to a collector or to Jaeger, say:
//
//	$ docker run --rm -p 16686:16686 -p 4318:4318 jaegertracing/jaeger:latest
//	$ go run . --otlp
//
// serve runs the server alone, traced the same way, for a client of your
// own, until interrupted:
//
//	$ go run . serve --listen 127.0.0.1:8080
//	serving MCP on http://127.0.0.1:8080/mcp with tracing (stdout); Ctrl-C stops
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "telemetry: %v\n", err)
		os.Exit(1)
	}
}

// serviceName names this program in the telemetry (service.name), unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
const serviceName = "mcpgen-telemetry-example"

// options are the command line's.
type options struct {
	exporter      string // stdout or otlp
	toolArguments bool
	toolResults   bool
	listen        string // serve: the address to listen on
	serve         bool
}

// parse reads the command line: flags, and the command serve (before or
// after them).
func parse(args []string, out io.Writer) (options, bool, error) {
	var o options
	fs := flag.NewFlagSet("telemetry", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	def := "stdout"
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		def = "otlp"
	}
	fs.StringVar(&o.exporter, "exporter", def, "where spans and metrics go: `stdout` (JSON on the standard output) or otlp (OTLP/HTTP, where OTEL_EXPORTER_OTLP_* say); otlp by default when OTEL_EXPORTER_OTLP_ENDPOINT is set")
	otlp := fs.Bool("otlp", false, "the same as --exporter otlp")
	fs.BoolVar(&o.toolArguments, "tool-arguments", false, "record the arguments of tools/call as gen_ai.tool.call.arguments (opt-in: they may hold what users would not want in traces)")
	fs.BoolVar(&o.toolResults, "tool-results", false, "record the results of tools/call as gen_ai.tool.call.result (opt-in, for the same reason)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "serve: listen on `ADDR`")
	help := fs.Bool("help", false, "show this help")
	usage := func() {
		fmt.Fprintf(out, "usage: telemetry [--exporter stdout|otlp] [--tool-arguments] [--tool-results]\n       telemetry serve [--listen ADDR] [--exporter stdout|otlp] [--tool-arguments] [--tool-results]\n\n")
		fs.SetOutput(out)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, false, fmt.Errorf("%w; see --help", err)
	}
	if fs.NArg() > 0 {
		if fs.Arg(0) != "serve" {
			return o, false, fmt.Errorf("unknown command %q: the only one is serve (without it, the program runs a server and a client); see --help", fs.Arg(0))
		}
		o.serve = true
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return o, false, fmt.Errorf("%w; see --help", err)
		}
		if fs.NArg() > 0 {
			return o, false, fmt.Errorf("unexpected %q after serve; see --help", fs.Arg(0))
		}
	}
	if *help {
		usage()
		return o, true, nil
	}
	if *otlp {
		o.exporter = "otlp"
	}
	if o.exporter != "stdout" && o.exporter != "otlp" {
		return o, false, fmt.Errorf("--exporter %q: want stdout or otlp", o.exporter)
	}
	return o, false, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, done, err := parse(args, stdout)
	if err != nil || done {
		return err
	}
	tel, err := newTelemetry(ctx, o.exporter, stdout)
	if err != nil {
		return err
	}
	// Shutdown flushes what is left: the last spans, and the metrics,
	// which the stdout exporter prints once, here.
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if serr := tel.shutdown(sctx); serr != nil {
			fmt.Fprintf(stderr, "telemetry: flushing the telemetry: %v\n", serr)
		}
	}()
	mopts := otelmcp.Options{
		TracerProvider: tel.tp,
		MeterProvider:  tel.mp,
		ToolArguments:  o.toolArguments,
		ToolResults:    o.toolResults,
	}
	if o.serve {
		return serve(ctx, o.listen, o.exporter, mopts, stderr)
	}
	return demo(ctx, mopts, stderr)
}

// telemetry is the OpenTelemetry SDK of the program: its providers, and
// how to flush them.
type telemetry struct {
	tp *sdktrace.TracerProvider
	mp *sdkmetric.MeterProvider
}

// newTelemetry makes the providers with the exporters of kind (stdout,
// pretty-printed to out, or otlp).
func newTelemetry(ctx context.Context, kind string, out io.Writer) (*telemetry, error) {
	// The later detectors win: the environment over the default name.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", serviceName)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("describing the service: %w", err)
	}
	var (
		spanOpt sdktrace.TracerProviderOption
		reader  sdkmetric.Reader
	)
	switch kind {
	case "otlp":
		se, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP span exporter: %w", err)
		}
		me, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("the OTLP metric exporter: %w", err)
		}
		spanOpt = sdktrace.WithBatcher(se)
		reader = sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(10*time.Second))
	default:
		se, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
		if err != nil {
			return nil, fmt.Errorf("the stdout span exporter: %w", err)
		}
		me, err := stdoutmetric.New(stdoutmetric.WithWriter(out), stdoutmetric.WithPrettyPrint())
		if err != nil {
			return nil, fmt.Errorf("the stdout metric exporter: %w", err)
		}
		// Each span printed as it ends; the metrics once, at shutdown
		// (or every minute, when serving).
		spanOpt = sdktrace.WithSyncer(se)
		reader = sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(time.Minute))
	}
	return &telemetry{
		tp: sdktrace.NewTracerProvider(spanOpt, sdktrace.WithResource(res)),
		mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res)),
	}, nil
}

func (t *telemetry) shutdown(ctx context.Context) error {
	return errors.Join(t.tp.Shutdown(ctx), t.mp.Shutdown(ctx))
}

// newServer returns the server: one tool, greet, which says hello to the
// name it is given.
func newServer(mw mcp.Middleware) *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "telemetry-example", Version: "1.0.0"}, mcp.WithMiddleware(mw))
	greet := mcp.NewTool("greet", "Says hello to a name.")
	greet.InputSchema = []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	srv.MustAddTool(greet, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		var args struct {
			Name string `json:"name"`
		}
		if err := wire.DecodeValue(p.Arguments, &args); err != nil {
			return nil, err // reported to the client as a tool error
		}
		return mcp.TextResult("Hello, " + args.Name), nil
	})
	return srv
}

// startServer serves newServer over Streamable HTTP on ln, wrapped in
// otelhttp so that each HTTP request is a span of its own, and returns a
// function that stops it.
func startServer(ln net.Listener, opts otelmcp.Options) func(context.Context) error {
	h := newServer(otelmcp.Middleware(opts)).HTTPHandler(mcp.HTTPOptions{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", otelhttp.NewHandler(h, "mcp",
		otelhttp.WithTracerProvider(opts.TracerProvider), otelhttp.WithMeterProvider(opts.MeterProvider)))
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No deadline for a whole response, which would cut SSE streams:
		// the MCP handler bounds each write itself.
		WriteTimeout:   0,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
	}
	hs.RegisterOnShutdown(h.Close)
	go func() { _ = hs.Serve(ln) }()
	return hs.Shutdown
}

// serve runs the server alone on addr until ctx ends.
func serve(ctx context.Context, addr, exporter string, opts otelmcp.Options, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	stop := startServer(ln, opts)
	fmt.Fprintf(stderr, "serving MCP on http://%s/mcp with tracing (%s); Ctrl-C stops\n", ln.Addr(), exporter)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return stop(sctx)
}

// demoTimeout bounds the whole client run.
const demoTimeout = 30 * time.Second

// demo starts the server on a free port of 127.0.0.1 and calls its tool
// in both eras, each era under a span of its own, so that each is one
// trace of the client's spans and the server's.
func demo(ctx context.Context, opts otelmcp.Options, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, demoTimeout)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	stop := startServer(ln, opts)
	defer func() {
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer scancel()
		_ = stop(sctx)
	}()
	url := "http://" + ln.Addr().String() + "/mcp"
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	tracer := opts.TracerProvider.Tracer("github.com/mcpgen/mcpgen/examples/telemetry")
	for _, era := range []struct {
		name      string
		revisions []string // nil: the newest, stateless
	}{
		{"2026-07-28, stateless", nil},
		{"2025-11-25, a session", []string{"2025-11-25"}},
	} {
		if err := callGreet(ctx, tracer, era.name, url, hc, era.revisions, opts, stderr); err != nil {
			return err
		}
	}
	return nil
}

// callGreet connects a client speaking revisions to url, calls greet, and
// closes the client, all under one span named after the era.
func callGreet(ctx context.Context, tracer trace.Tracer, era, url string, hc *http.Client, revisions []string, opts otelmcp.Options, stderr io.Writer) error {
	ctx, span := tracer.Start(ctx, "example: "+era)
	defer span.End()
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(url, streamhttp.ClientOptions{HTTPClient: hc}), &mcp.ClientOptions{
		Info:       mcp.Implementation{Name: "telemetry-example-client", Version: "1.0.0"},
		Revisions:  revisions,
		Middleware: []mcp.Middleware{otelmcp.Middleware(opts)},
	})
	if err != nil {
		return fmt.Errorf("%s: connecting: %w", era, err)
	}
	defer cs.Close()
	res, err := cs.CallToolArgs(ctx, "greet", map[string]any{"name": "Ada"})
	if err != nil {
		return fmt.Errorf("%s: tools/call greet: %w", era, err)
	}
	text := ""
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].Value.(*mcp.TextContent); ok {
			text = t.Text
		}
	}
	fmt.Fprintf(stderr, "%s: tools/call greet answered %q (trace %s)\n", era, text, span.SpanContext().TraceID())
	return nil
}
