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
