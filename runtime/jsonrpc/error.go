package jsonrpc

import (
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
