// Package wire is the strict JSON codec support that mcpgen's generated
// packages call. It is not meant to be used directly by applications, but its
// types (ID, Error) appear in generated APIs.
//
// Decoding is strict: object member names are matched case-sensitively,
// duplicate names are rejected, strings must be valid UTF-8, nesting is
// limited to MaxDepth, and every error carries the JSON Pointer (RFC 6901) of
// the offending value. Decoding is built on the token API of
// github.com/go-json-experiment/json/jsontext; encoding appends bytes directly.
package wire

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Version is the version of the codec contract between generated code and
// this package. Generated packages refer to the constant SupportsVersion1 so that
// code generated for a newer runtime fails to compile against an older one.
const Version = 1

// SupportsVersion1 exists so that generated code can assert at compile time that
// the runtime it is built with speaks codec contract version 1.
const SupportsVersion1 = true

// MaxDepth is the deepest nesting of objects and arrays a decoder accepts.
const MaxDepth = 100

// Error is a decoding or encoding error at a place in a JSON document.
type Error struct {
	// Pointer is the JSON Pointer of the value the error is about; "" is the
	// whole document.
	Pointer string
	// Msg says what was wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error returns "pointer: msg", or msg alone at the top level.
func (e *Error) Error() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Pointer + ": " + e.Msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at pointer.
func Errorf(pointer string, format string, args ...any) error {
	return &Error{Pointer: pointer, Msg: fmt.Sprintf(format, args...)}
}

// Prefix puts pointer in front of the pointer of err, for errors produced while
// decoding a value that sits at pointer in a larger document. Errors that are
// not *Error are wrapped into one.
func Prefix(pointer string, err error) error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		if pointer == "" {
			return err
		}
		return &Error{Pointer: pointer + we.Pointer, Msg: we.Msg, Err: we.Err}
	}
	return &Error{Pointer: pointer, Msg: err.Error(), Err: err}
}

// convert turns an error from jsontext into an *Error with the pointer of the
// place it happened.
func convert(d *jsontext.Decoder, err error) error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Pointer: string(d.StackPointer()), Msg: "unexpected end of JSON input", Err: io.ErrUnexpectedEOF}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := "invalid JSON"
		if se.Err != nil {
			msg = se.Err.Error()
		}
		if errors.Is(se.Err, jsontext.ErrDuplicateName) {
			msg = "duplicate object member name"
		}
		return &Error{Pointer: string(se.JSONPointer), Msg: fmt.Sprintf("%s (at byte offset %d)", msg, se.ByteOffset), Err: err}
	}
	return &Error{Pointer: string(d.StackPointer()), Msg: err.Error(), Err: err}
}

// KindName names the kind of a JSON value for an error message: "null",
// "boolean", "string", "number", "object", "array", or "invalid JSON" for
// any other kind, as in "want string, got number".
func KindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "invalid JSON"
}

// KindPhrase is KindName with its article, for prose such as "got a
// string": "null", "a boolean", "a string", "a number", "an object", "an
// array", or "invalid JSON".
func KindPhrase(k jsontext.Kind) string {
	switch n := KindName(k); n {
	case "null", "invalid JSON":
		return n
	case "object", "array":
		return "an " + n
	default:
		return "a " + n
	}
}
