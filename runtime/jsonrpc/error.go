package jsonrpc

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// String returns "request", "notification", "response" or "error response".
func (k Kind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	case Response:
		return "response"
	case ErrorResponse:
		return "error response"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error returns "jsonrpc error <code>: <message>", such as
// "jsonrpc error -32602: /params: want object, got array".
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.FormatInt(e.Code, 10) + ": " + e.Message
}

// Errorf returns an *Error with code and a message formatted as by
// fmt.Sprintf. The message travels to the peer, so it should not carry
// secrets. It has no Data.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// DecodeError is why Decode rejected a whole payload: it is not valid JSON
// (Code ParseError), or it is JSON that cannot be a message or a batch at all
// (Code InvalidRequest). JSON-RPC answers such a payload with one error
// response whose id is null; RPCError returns its error object.
type DecodeError struct {
	// Code is ParseError or InvalidRequest.
	Code int64
	// Pointer is the JSON Pointer (RFC 6901) of the offending value within
	// the payload; "" is the whole payload.
	Pointer string
	// Msg says what was wrong.
	Msg string
	// Err is the underlying error, usually a *wire.Error; nil when there is
	// none.
	Err error
}

// Error returns "jsonrpc: parse error (-32700): /pointer: msg", or the same
// without the pointer when it is "".
func (e *DecodeError) Error() string {
	return "jsonrpc: " + codeName(e.Code) + " (" + strconv.FormatInt(e.Code, 10) + "): " + e.detail()
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// RPCError returns the error object to answer the payload with (in an error
// response with "id": null). Its message names the pointer.
func (e *DecodeError) RPCError() *Error {
	return &Error{Code: e.Code, Message: clip(e.detail())}
}

func (e *DecodeError) detail() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Pointer + ": " + e.Msg
}

// codeName names the standard error codes.
func codeName(code int64) string {
	switch code {
	case ParseError:
		return "parse error"
	case InvalidRequest:
		return "invalid request"
	case MethodNotFound:
		return "method not found"
	case InvalidParams:
		return "invalid params"
	case InternalError:
		return "internal error"
	}
	return "error"
}

// maxMessage bounds the error messages Decode builds: they may quote the
// offending input, which must not be echoed back in bulk.
const maxMessage = 512

// clip shortens s to at most maxMessage bytes, on a rune boundary, marking
// the cut with "…".
func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	n := maxMessage - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// rpcError turns a decoding error (a *wire.Error naming its pointer) into the
// error object of an invalid item.
func rpcError(code int64, err error) *Error {
	return &Error{Code: code, Message: clip(err.Error())}
}

// at returns a *wire.Error at pointer.
func at(pointer, msg string) error {
	return &wire.Error{Pointer: pointer, Msg: msg}
}

// RequestIDs returns the ids of the requests among items that an error
// answering all of them goes to: those of the valid requests, and of the
// invalid ones whose id could be read. The ids of responses and
// notifications are not among them: those are never answered.
func RequestIDs(items []Item) []wire.ID {
	var ids []wire.ID
	for _, it := range items {
		switch {
		case it.Err == nil && it.Msg.Kind == Request:
			ids = append(ids, it.Msg.ID)
		case it.Err != nil && it.ID.IsValid() && (it.Kind == Request || it.Kind == 0):
			ids = append(ids, it.ID) // an invalid request, answered with its id
		}
	}
	return ids
}

// AppendErrorResponses appends error responses with e for the requests
// whose ids are given: one object, or an array when batch. Without ids it
// appends one error response without an id: with "id": null when nullID
// (JSON-RPC 2.0, and the MCP revisions before 2025-11-25, whose schemas
// require an id), else with the id member left out, as 2025-11-25 allows
// for an error whose request id could not be read.
func AppendErrorResponses(b []byte, ids []wire.ID, batch, nullID bool, e *Error) ([]byte, error) {
	if len(ids) == 0 {
		start := len(b)
		b, err := (&Message{Kind: ErrorResponse, Error: e}).AppendJSON(b)
		if err != nil || nullID {
			return b, err
		}
		// The encoder writes an invalid id as null; this form leaves it out.
		const withNull, without = `{"jsonrpc":"2.0","id":null,`, `{"jsonrpc":"2.0",`
		if !bytes.HasPrefix(b[start:], []byte(withNull)) {
			return b, nil
		}
		return append(b[:start+len(without)], b[start+len(withNull):]...), nil
	}
	if batch {
		b = append(b, '[')
	}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = (&Message{Kind: ErrorResponse, ID: id, Error: e}).AppendJSON(b); err != nil {
			return b, err
		}
	}
	if batch {
		b = append(b, ']')
	}
	return b, nil
}
