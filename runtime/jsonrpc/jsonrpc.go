// Package jsonrpc is the JSON-RPC 2.0 envelope MCP messages travel in:
// requests, notifications, results and errors, their IDs, the standard error
// codes, and batches for the revisions that have them. Decoding is strict in
// the same way as generated codecs: member names match case-sensitively,
// duplicate names are errors, nesting is limited.
package jsonrpc

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The standard JSON-RPC error codes.
const (
	ParseError     = -32700 // invalid JSON
	InvalidRequest = -32600 // JSON that is not a valid request
	MethodNotFound = -32601
	InvalidParams  = -32602
	InternalError  = -32603
)

// Kind says what a message is.
type Kind uint8

// The message kinds.
const (
	Request Kind = iota + 1
	Notification
	Response // a result
	ErrorResponse
)

// Message is one JSON-RPC message.
type Message struct {
	Kind Kind
	// ID is the request ID of a request or response. An error response to a
	// request whose ID could not be read has no ID (ID.IsValid() is false) and
	// is encoded with "id": null.
	ID wire.ID
	// Method is the method of a request or notification.
	Method string
	// Params is the raw params object of a request or notification; nil when
	// absent.
	Params jsontext.Value
	// Result is the raw result of a response.
	Result jsontext.Value
	// Error is the error of an error response.
	Error *Error
}

// Error is a JSON-RPC error object. It is also a Go error, so handlers can
// return one to choose the code.
type Error struct {
	Code    int64
	Message string
	// Data is optional raw JSON.
	Data jsontext.Value
}
