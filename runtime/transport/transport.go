// Package transport defines how a session exchanges messages with its peer,
// and provides an in-memory transport.
package transport

import (
	"context"
	"errors"
)

// ErrSkipped is wrapped by errors Read returns for a payload the transport
// could not read whole and skipped (a stdio line over the size limit, say).
// The connection stays usable: a session answers such a payload with an
// error response and reads on.
var ErrSkipped = errors.New("payload skipped")

// Transport carries whole JSON-RPC payloads: each Read returns one JSON text
// (a message, or a batch where the revision has them) and each Write sends
// one. Write may be called from several goroutines at once; Read is called
// from one. Read returns io.EOF when the peer has closed the connection,
// or an error wrapping io.EOF that says how (test it with errors.Is).
//
// Each payload Read returns belongs to the caller: the transport neither
// keeps nor changes it, so a session may decode messages that alias it.
// Write does not change data, and the caller may reuse data once Write
// returns only if the transport documents that it does not keep it.
type Transport interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, data []byte) error
	// Close releases the transport; a blocked Read returns.
	Close() error
}

// Pusher is implemented by transports that can hand a payload to the
// session on the goroutine that received it (an HTTP handler, say) instead
// of returning it from Read, which saves a hand-off between goroutines per
// message.
//
// A session calls SetPush once, before its first Read. From then on the
// transport may pass any payload to push rather than queue it for Read;
// Read still reports the end of the connection. push returns once the
// payload has been dealt with: messages checked, responses matched to their
// calls, notifications queued, and requests started, or, when inline is
// true and the payload is a single request, handled on the calling
// goroutine with the answer written before push returns. A transport sets
// inline when the pushing goroutine would wait for that answer anyway. push
// is safe for concurrent use; it takes over data as Read's caller does.
type Pusher interface {
	SetPush(push func(data []byte, inline bool))
}

// Starter is implemented by client transports that have something to start
// before their first message, such as the server process of
// stdio.CommandTransport. A client's Connect calls Start before anything
// else, so that a failure to start is its error, said plainly; ctx bounds
// the start, not the life of what was started, which lasts until Close.
type Starter interface {
	Start(ctx context.Context) error
}

// Info describes the connection a transport runs over, for telemetry: the
// network attributes OpenTelemetry's semantic conventions give a message
// (see https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/#recording-mcp-transport).
// Every field is optional; the zero Info says nothing.
type Info struct {
	// Network is the protocol underneath, as network.transport names it:
	// "pipe" for stdio, "tcp" for HTTP; "" when unknown, or for an
	// in-process transport such as Pipe.
	Network string
	// Protocol is the application protocol the messages travel in, lower
	// case: "http" for Streamable HTTP and HTTP+SSE, "" for none (stdio).
	Protocol string
	// ProtocolVersion is Protocol's version, such as "1.1" or "2", when
	// known: on a client, the one of the latest response.
	ProtocolVersion string
	// Address and Port are the peer's. On a client, the server's host and
	// port as the endpoint's URL names them (the port the scheme implies
	// when it names none). On a server, the client's address as the
	// connection reports it (behind a proxy, the proxy's): for HTTP, that
	// of the request that opened the session; each request's own is in
	// session.HTTPRequestOf. Empty and 0 when there is none (stdio).
	Address string
	Port    int
	// SessionID is the transport's session: the Mcp-Session-Id of a legacy
	// Streamable HTTP session, the sessionId of an HTTP+SSE stream; "" for
	// none (stdio, stateless requests) or before the server assigned one.
	// It lets whoever holds it act in the session: keep it out of logs and
	// telemetry, or send a digest of it instead.
	SessionID string
}

// Describer is implemented by transports that can tell what they run over
// (see Info). Describe is safe for concurrent use and cheap: telemetry may
// call it for every message.
type Describer interface {
	Describe() Info
}

// Describe returns what t tells of its connection, the zero Info when it is
// no Describer.
func Describe(t Transport) Info {
	if d, ok := t.(Describer); ok {
		return d.Describe()
	}
	return Info{}
}
