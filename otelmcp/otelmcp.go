package otelmcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/mcpgen/mcpgen/otelmcp"

// Version is the version of this instrumentation, reported with its
// scope.
const Version = "0.1.0"

// Options configures the Middleware. The zero value uses the global
// providers and records what the convention requires and recommends,
// nothing opt-in.
type Options struct {
	// TracerProvider makes the spans. Default: otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the duration histograms. Default:
	// otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator injects the trace context into the params._meta of what
	// a side sends, and extracts it from what it receives. Default: W3C
	// Trace Context and W3C Baggage (traceparent, tracestate, baggage), as
	// the convention's examples carry them, whatever the global propagator.
	Propagator propagation.TextMapPropagator

	// ToolArguments records the arguments of tools/call as
	// gen_ai.tool.call.arguments (a JSON string), on both sides. Off by
	// default: arguments may hold what users would not want in traces.
	ToolArguments bool
	// ToolResults records the result of a successful tools/call (one
	// without isError) as gen_ai.tool.call.result (a JSON string), on both
	// sides. Off by default, for the same reason.
	ToolResults bool
	// ResourceURIInSpanName names the spans of resource requests
	// "{mcp.method.name} {mcp.resource.uri}". Off by default: URIs make
	// span names of high cardinality.
	ResourceURIInSpanName bool
	// ResourceURIInMetrics adds mcp.resource.uri to the operation duration
	// histograms, an opt-in attribute there. Off by default.
	ResourceURIInMetrics bool
	// RawSessionID records the transport's session id itself as
	// mcp.session.id. By default the attribute holds a digest of it (the
	// first 16 bytes of its SHA-256, in hex), which names the session as
	// well, the same on both sides, without handing the id, which lets its
	// holder act in the session, to whoever reads the traces.
	RawSessionID bool
	// PublicEndpoint says that the peers are not trusted to place this
	// side's spans in their traces (a server open to the internet, say):
	// the context a message carries in params._meta is then linked, not
	// made the parent, and its baggage is not taken; the span's parent is
	// the context the message arrived with (the HTTP request's span, if
	// any). As otelhttp's WithPublicEndpoint does for HTTP.
	PublicEndpoint bool
	// Filter, when not nil, is asked about each message: false leaves it
	// unobserved (no span, no metric, nothing injected). Use it to leave
	// out, say, notifications/progress. It must not change r.
	Filter func(r *session.Request) bool
}

// instruments are what one Middleware records with, shared by its sessions.
type instruments struct {
	opts   Options
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	serverOp, clientOp           metric.Float64Histogram
	serverSession, clientSession metric.Float64Histogram

	// points holds the record option of each attribute set seen (by
	// pointKey), at most maxPoints of them, so that recording a duration
	// allocates nothing once its attributes were seen.
	pointsMu sync.RWMutex
	points   map[pointKey]metric.RecordOption
}

// maxPoints bounds the record options kept: attribute sets past it (names
// of tools that do not exist, sent by a hostile peer, say) are built for
// each record instead.
const maxPoints = 1024

// The span kinds, made once.
var (
	kindServer = trace.WithSpanKind(trace.SpanKindServer)
	kindClient = trace.WithSpanKind(trace.SpanKindClient)
)

// durationBuckets are the bucket boundaries the convention advises for
// every MCP duration histogram.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Middleware returns a session.Middleware that traces and measures every
// message of the sessions it is given to (see the package documentation).
// Give one to a server (every transport it serves uses it) and one to each
// client; one Middleware may serve several.
func Middleware(opts Options) session.Middleware {
	in := newInstruments(opts)
	return func(next session.HandlerFunc) session.HandlerFunc {
		return in.handler(next)
	}
}

func newInstruments(opts Options) *instruments {
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	mp := opts.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	prop := opts.Propagator
	if prop == nil {
		prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	in := &instruments{
		opts:   opts,
		tracer: tp.Tracer(ScopeName, trace.WithInstrumentationVersion(Version)),
		prop:   prop,
	}
	meter := mp.Meter(ScopeName, metric.WithInstrumentationVersion(Version))
	in.serverOp = histogram(meter, "mcp.server.operation.duration",
		"MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.")
	in.clientOp = histogram(meter, "mcp.client.operation.duration",
		"The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.")
	in.serverSession = histogram(meter, "mcp.server.session.duration", "The duration of the MCP session as observed on the MCP server.")
	in.clientSession = histogram(meter, "mcp.client.session.duration", "The duration of the MCP session as observed on the MCP client.")
	return in
}

// histogram makes a duration histogram in seconds with the convention's
// buckets; a meter that fails gives a histogram that records nothing, and
// the error goes to the global error handler.
func histogram(m metric.Meter, name, desc string) metric.Float64Histogram {
	h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		otel.Handle(err)
	}
	return h
}

// sessionState is what a Middleware keeps per session (or Stateless).
type sessionState struct {
	in      *instruments
	start   time.Time
	watched atomic.Bool // the end of the session is being waited for

	mu     sync.Mutex
	rawSID string // the id digest was made of
	sid    string // its digest
}

// handler is the HandlerFunc of one session: called when the session
// starts.
func (in *instruments) handler(next session.HandlerFunc) session.HandlerFunc {
	st := &sessionState{in: in, start: time.Now()}
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		if in.opts.Filter != nil && !in.opts.Filter(r) {
			return next(ctx, r)
		}
		if r.Session != nil && !st.watched.Load() && st.watched.CompareAndSwap(false, true) {
			s := r.Session
			s.AfterFunc(func() { st.ended(s) })
		}
		if r.Outgoing {
			return st.send(ctx, r, next)
		}
		return st.receive(ctx, r, next)
	}
}

// sessionID returns the value of mcp.session.id for the transport's
// session id raw: the id or its digest.
func (st *sessionState) sessionID(raw string) string {
	if raw == "" || st.in.opts.RawSessionID {
		return raw
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if raw != st.rawSID {
		sum := sha256.Sum256([]byte(raw))
		st.rawSID, st.sid = raw, hex.EncodeToString(sum[:16])
	}
	return st.sid
}

// receive observes a request or notification this side handles: a span of
// kind SERVER whose parent is the context the message carried in
// params._meta, or else the context it arrived with (the HTTP request's
// span, say), which is then linked when both are there.
func (st *sessionState) receive(ctx context.Context, r *session.Request, next session.HandlerFunc) (jsontext.Value, error) {
	in := st.in
	m := describe(ctx, r, st)
	start := time.Now()
	parent := ctx
	var links []trace.Link
	if meta, ok := metaOf(r.Params); ok {
		ambient := trace.SpanContextFromContext(ctx)
		carried := in.prop.Extract(ctx, metaCarrier{meta})
		got := trace.SpanContextFromContext(carried)
		switch {
		case !got.IsValid() || got.Equal(ambient):
			if !in.opts.PublicEndpoint {
				parent = carried // its baggage, if any
			}
		case in.opts.PublicEndpoint:
			links = append(links, trace.Link{SpanContext: got})
		default:
			parent = carried
			if ambient.IsValid() {
				links = append(links, trace.Link{SpanContext: ambient})
			}
		}
	}
	opts := []trace.SpanStartOption{kindServer, trace.WithAttributes(m.startAttrs()...)}
	if len(links) > 0 {
		opts = append(opts, trace.WithLinks(links...))
	}
	spanCtx, span := in.tracer.Start(parent, m.spanName(in.opts), opts...)
	m.started(span, in.opts)
	res, err := next(spanCtx, r)
	o := outcomeOf(ctx, r, res, err, false)
	m.finish(o, res)
	st.end(span, m, o, res, err)
	in.serverOp.Record(spanCtx, time.Since(start).Seconds(), in.metricOption(m, o))
	return res, err
}

// send observes a request or notification this side sends: a span of kind
// CLIENT, child of ctx's, whose context goes in params._meta.
func (st *sessionState) send(ctx context.Context, r *session.Request, next session.HandlerFunc) (jsontext.Value, error) {
	in := st.in
	m := describe(ctx, r, st)
	start := time.Now()
	spanCtx, span := in.tracer.Start(ctx, m.spanName(in.opts), kindClient, trace.WithAttributes(m.startAttrs()...))
	m.started(span, in.opts)
	sent := r
	if params, ok := inject(spanCtx, in.prop, r.Params); ok {
		c := *r
		c.Params = params
		sent = &c
	}
	res, err := next(spanCtx, sent)
	m.setID(sent.ID)
	if sent.ID.IsValid() {
		span.SetAttributes(attribute.String(attrRequestID, idString(sent.ID)))
	}
	if m.net.Protocol != "" && m.net.ProtocolVersion == "" && r.Session != nil {
		// An HTTP client learns the version from its first response.
		if v := transport.Describe(r.Session.Transport()).ProtocolVersion; v != "" {
			m.net.ProtocolVersion = v
			span.SetAttributes(attribute.String(attrNetVersion, v))
		}
	}
	o := outcomeOf(ctx, r, res, err, true)
	m.finish(o, res)
	st.end(span, m, o, res, err)
	in.clientOp.Record(spanCtx, time.Since(start).Seconds(), in.metricOption(m, o))
	return res, err
}

// started gives a recording span the rest of its attributes.
func (m *message) started(span trace.Span, opts Options) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(m.moreAttrs()...)
	if opts.ToolArguments {
		m.recordArguments(span)
	}
}

// end sets what the outcome says on span and ends it.
func (st *sessionState) end(span trace.Span, m *message, o outcome, res jsontext.Value, err error) {
	if !span.IsRecording() {
		span.End()
		return
	}
	if m.version != "" && !m.versionSet {
		span.SetAttributes(attribute.String(attrProtocolVersion, m.version))
	}
	if m.sessionID != "" && !m.sessionIDSet {
		span.SetAttributes(attribute.String(attrSessionID, m.sessionID))
	}
	if o.errorType != "" {
		span.SetAttributes(attribute.String(attrErrorType, o.errorType))
		if o.statusCode != "" {
			span.SetAttributes(attribute.String(attrStatusCode, o.statusCode))
		}
		span.SetStatus(codes.Error, o.message)
	} else if st.in.opts.ToolResults && m.method == "tools/call" && len(res) > 0 {
		span.SetAttributes(attribute.String(attrToolResult, string(res)))
	}
	span.End()
}
