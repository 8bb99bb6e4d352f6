// Package transport defines how a session exchanges messages with its peer,
// and provides an in-memory transport.
package transport

import "context"

// Transport carries whole JSON-RPC payloads: each Read returns one JSON text
// (a message, or a batch where the revision has them) and each Write sends
// one. Write may be called from several goroutines at once; Read is called
// from one. Read returns io.EOF when the peer has closed the connection.
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
