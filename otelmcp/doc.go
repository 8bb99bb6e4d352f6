// Package otelmcp reports what an mcpgen server or client does as
// OpenTelemetry traces and metrics, by the semantic conventions for the
// Model Context Protocol
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/).
//
// It is one session.Middleware: put it on a server with the generated
// package's WithMiddleware, or in a client's ClientOptions.Middleware, and
// every transport (stdio, Streamable HTTP, HTTP+SSE, the stateless requests
// of 2026-07-28) and both directions (the server's own requests to the
// client too) are observed:
//
//	srv := mcp.NewServer(impl, mcp.WithMiddleware(otelmcp.Middleware(otelmcp.Options{})))
//	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{
//		Middleware: []mcp.Middleware{otelmcp.Middleware(otelmcp.Options{})},
//	})
//
// Each request or notification a side sends is a span of kind CLIENT named
// "{mcp.method.name} {target}" (the tool or prompt name, when there is one),
// and each it handles a span of kind SERVER; both record the operation
// duration histograms, and a legacy session records its duration when it
// ends. The trace context travels in params._meta (traceparent, tracestate,
// baggage): a server span's parent is the context its request carried, and
// the span of the HTTP request that carried it, when there is one, is
// linked. docs/observability.md lists every attribute, per method and era.
//
// The package observes the session layer: it changes nothing a peer sees
// but the _meta members it adds to outgoing messages.
package otelmcp
