package jsonrpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Item is one message of a decoded payload. Exactly one of Msg and Err is
// set.
//
// An item with Err is a message that is JSON but not a valid JSON-RPC
// message for MCP. ID and Kind say as much as could be read of it, so that
// the receiver can react correctly:
//
//   - Kind Notification: do not answer (a notification never is);
//   - Kind Response or ErrorResponse: do not answer a response; if ID is
//     valid, fail the pending request with that ID instead;
//   - otherwise (Kind Request, or 0 when the kind cannot be told): answer
//     with an error response carrying ID (null when not valid) and Err.
type Item struct {
	// Msg is the decoded message.
	Msg *Message
	// Err is why the message is invalid: code InvalidRequest, or
	// InvalidParams for a request or notification whose envelope is valid but
	// whose params are not an object. Its message names the JSON pointer of
	// the offending value within the payload, such as
	// "/params: want object, got array" (or "/3/params: …" in a batch).
	Err *Error
	// ID is the message's id when one could be read, whether or not Msg is
	// set; it is not valid when the id was absent, null or malformed.
	ID wire.ID
	// Kind is the kind of message, also when Err is set if it could be told
	// from the members present; 0 otherwise.
	Kind Kind
}

// Decode decodes a JSON-RPC payload: one message, or, when batching is true
// (the 2025-03-26 revision), also a batch of messages.
//
// A payload that cannot be taken apart into messages at all is rejected as a
// whole with a *DecodeError, to be answered with one error response with id
// null:
//
//   - not JSON (syntax errors, invalid UTF-8, truncation, data after the
//     value) or nested deeper than wire.MaxDepth: ParseError. RFC 8259 lets
//     parsers limit nesting, so a value past the limit could not be parsed.
//     The limit counts the whole payload: in a batch, the array is one level.
//   - a member name that occurs twice in the same object, at any level
//     (envelope, params, result, error data): InvalidRequest, naming the
//     pointer of the duplicate. Such text is valid JSON syntax per RFC 8259,
//     hence not a parse error, but which value counts is ambiguous; parsers
//     that disagree about it are how messages are smuggled, so no part of the
//     payload, not even its id, is trusted. If the payload also has a syntax
//     error, that is reported instead, as ParseError.
//   - an array when batching is false, an empty array, or a value that is
//     neither object nor array: InvalidRequest.
//
// Otherwise each message (the object, or each array element) becomes an
// Item, and batch reports whether the payload was an array. Members are
// matched case-sensitively and unknown members are skipped. "jsonrpc" must be
// "2.0"; "id" a string or an integer in the int64 range, or null only in an
// error response (which may also omit it, as 2025-11-25 allows); "method" a
// non-empty string; "params" an object; "result" an object; "error" an object
// with an integer "code", a string "message" and any "data". The members
// present give the kind: method and id make a request, method without id a
// notification, result a response, error an error response; method with
// result or error, result with error, or none of method, result and error are
// invalid. A response has no params.
//
// Params, Result and Error.Data are copies: they do not alias data.
func Decode(data []byte, batching bool) (items []Item, batch bool, err error) {
	return decode(data, batching, true)
}

// DecodeOwned is Decode for a payload the caller hands over: Params, Result
// and Error.Data alias data instead of being copied, so data must not be
// modified while the items are in use. Sessions use it on the payloads their
// transport returns, which they own.
func DecodeOwned(data []byte, batching bool) (items []Item, batch bool, err error) {
	return decode(data, batching, false)
}

func decode(data []byte, batching, copyValues bool) (items []Item, batch bool, err error) {
	// Fast path: one pass over a payload that turns out valid. Reading the
	// messages validates every byte (syntax, duplicate names, depth,
	// trailing data), so a pass that ends without any error is exactly a
	// payload the careful path below accepts. Anything wrong is diagnosed by
	// the careful path, which decides what takes precedence.
	switch k := firstKind(data); {
	case k == '{' || k == '[' && batching:
		p := payload{batch: k == '[', copy: copyValues}
		if wire.Unmarshal(data, &p) == nil && p.valid() {
			return p.items, p.batch, nil
		}
	}
	return decodeCarefully(data, batching, copyValues)
}

// decodeCarefully is Decode in two passes, which tells every kind of
// invalid payload apart.
func decodeCarefully(data []byte, batching, copyValues bool) (items []Item, batch bool, err error) {
	// Pass 1: the whole payload must be JSON before any of it is trusted.
	if err := wire.Unmarshal(data, decodeFunc(func(d *jsontext.Decoder) error {
		_, err := wire.ReadUnionValue(d)
		return err
	})); err != nil {
		return nil, false, payloadError(data, err)
	}

	switch k := firstKind(data); k {
	case '{':
	case '[':
		if !batching {
			return nil, false, &DecodeError{Code: InvalidRequest, Msg: "batches are not part of this revision"}
		}
		batch = true
	default:
		want := "object"
		if batching {
			want = "object or array"
		}
		return nil, false, &DecodeError{Code: InvalidRequest, Msg: "want " + want + ", got " + scalarName(k)}
	}

	// Pass 2: take the messages apart.
	p := payload{batch: batch, copy: copyValues}
	if err := wire.Unmarshal(data, &p); err != nil {
		// Pass 1 accepted the JSON, so this cannot happen.
		return nil, false, &DecodeError{Code: ParseError, Msg: fmt.Sprintf("internal error: %v", err), Err: fmt.Errorf("jsonrpc: decoding a validated payload: %w", err)}
	}
	if batch && len(p.items) == 0 {
		return nil, false, &DecodeError{Code: InvalidRequest, Msg: "a batch must not be empty"}
	}
	return p.items, batch, nil
}

// payloadError classifies an error of pass 1 on data.
func payloadError(data []byte, err error) *DecodeError {
	code := int64(ParseError)
	if errors.Is(err, jsontext.ErrDuplicateName) {
		// The decoder stops at the first duplicate; what follows may not be
		// JSON at all, and that is the more basic fault.
		if se := syntaxError(data); se != nil {
			return se
		}
		code = InvalidRequest
	}
	de := &DecodeError{Code: code, Msg: err.Error(), Err: err}
	var we *wire.Error
	if errors.As(err, &we) {
		de.Pointer, de.Msg = we.Pointer, we.Msg
	}
	return de
}

// syntaxError returns the first syntax error in data, not counting
// duplicate member names, as a ParseError; nil when there is none.
func syntaxError(data []byte) *DecodeError {
	d := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	_, err := d.ReadValue()
	if err == nil {
		if _, err = d.ReadToken(); err == io.EOF {
			return nil
		}
		if err == nil {
			return &DecodeError{Code: ParseError, Msg: fmt.Sprintf("unexpected data after the JSON value (at byte offset %d)", d.InputOffset())}
		}
	}
	de := &DecodeError{Code: ParseError, Msg: err.Error(), Err: err}
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		de.Msg = "unexpected end of JSON input"
	case errors.As(err, &se):
		msg := "invalid JSON"
		if se.Err != nil {
			msg = se.Err.Error()
		}
		de.Pointer, de.Msg = string(se.JSONPointer), fmt.Sprintf("%s (at byte offset %d)", msg, se.ByteOffset)
	}
	return de
}

// decodeFunc adapts a function to wire.Unmarshaler.
type decodeFunc func(d *jsontext.Decoder) error

func (f decodeFunc) UnmarshalJSONFrom(d *jsontext.Decoder) error { return f(d) }

// firstKind returns the kind of the valid JSON value data.
func firstKind(data []byte) jsontext.Kind {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return jsontext.Value([]byte{c}).Kind()
	}
	return 0
}

// scalarName names the kind of a JSON scalar.
func scalarName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	}
	return k.String()
}

// payload reads a payload into items: pass 2 of Decode, or its one pass on
// the fast path.
type payload struct {
	batch bool
	copy  bool // copy Params, Result and Error.Data out of the input
	items []Item
	one   [1]Item // the items of a single message, and its message: saving
	msg   Message // two allocations
}

// valid reports whether the payload read holds messages only, none invalid:
// what the fast path of Decode accepts.
func (p *payload) valid() bool {
	if len(p.items) == 0 {
		return false
	}
	for i := range p.items {
		if p.items[i].Err != nil {
			return false
		}
	}
	return true
}

func (p *payload) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if !p.batch {
		p.items = p.one[:]
		return decodeItem(d, &p.items[0], &p.msg, p.copy)
	}
	if err := wire.BeginArray(d); err != nil {
		return err
	}
	for {
		more, err := wire.More(d)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		p.items = append(p.items, Item{})
		if err := decodeItem(d, &p.items[len(p.items)-1], new(Message), p.copy); err != nil {
			return err
		}
	}
}

// fatal reports whether err leaves d unusable: a syntax error or the end of
// the input. Pass 1 has ruled these out; everything else an item can have
// wrong is recorded in the item.
func fatal(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// decodeItem reads one message into it, with m as the storage of its
// message, copying raw values out of the input when copyValues is set. It
// returns an error only when d cannot go on.
func decodeItem(d *jsontext.Decoder, it *Item, m *Message, copyValues bool) error {
	if err := wire.BeginObject(d); err != nil {
		if fatal(err) {
			return err
		}
		it.Err = rpcError(InvalidRequest, err)
		return nil
	}
	var (
		reqErr, paramsErr                                                    error
		hasVersion, hasID, idNull, hasMethod, hasParams, hasResult, hasError bool
	)
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var merr error
		switch string(name) {
		case "jsonrpc":
			hasVersion = true
			merr = wire.ReadConst(d, `"2.0"`)
		case "id":
			hasID = true
			null, err := wire.ReadNull(d)
			switch {
			case err != nil:
				merr = err
			case null:
				idNull = true
			default:
				merr = m.ID.UnmarshalJSONFrom(d)
			}
		case "method":
			hasMethod = true
			m.Method, merr = readMethod(d)
			if merr == nil && m.Method == "" {
				merr = at(string(d.StackPointer()), "method is empty")
			}
		case "params":
			hasParams = true
			var perr error
			m.Params, perr = readObject(d, copyValues)
			if perr != nil {
				if fatal(perr) {
					return perr
				}
				if paramsErr == nil {
					paramsErr = perr
				}
			}
		case "result":
			hasResult = true
			m.Result, merr = readObject(d, copyValues)
		case "error":
			hasError = true
			m.Error, merr = decodeErrorObject(d, copyValues)
		default:
			merr = wire.Skip(d)
		}
		if merr != nil {
			if fatal(merr) {
				return merr
			}
			if reqErr == nil {
				reqErr = merr
			}
		}
	}
	if m.ID.IsValid() {
		it.ID = m.ID
	}

	// The closing '}' has been read: the pointer names the message. It is
	// only computed for an error.
	ptr := func(member string) string { return string(d.StackPointer()) + member }
	var classErr error
	switch {
	case hasMethod && hasResult:
		classErr = at(ptr("/result"), "a request or notification has no result")
	case hasMethod && hasError:
		classErr = at(ptr("/error"), "a request or notification has no error")
	case hasMethod && hasID:
		m.Kind = Request
		if idNull {
			classErr = at(ptr("/id"), "a request id must not be null")
		}
	case hasMethod:
		m.Kind = Notification
	case hasResult && hasError:
		classErr = at(ptr("/error"), "a response has a result or an error, not both")
	case hasResult:
		m.Kind = Response
		switch {
		case !hasID:
			classErr = wire.Missing(d, "id")
		case idNull:
			classErr = at(ptr("/id"), "a result response must have a non-null id")
		}
	case hasError:
		m.Kind = ErrorResponse
	default:
		classErr = at(ptr(""), "not a request, notification or response: no method, result or error member")
	}
	if classErr == nil && hasParams && (m.Kind == Response || m.Kind == ErrorResponse) {
		classErr = at(ptr("/params"), "a response has no params")
	}
	it.Kind = m.Kind

	switch {
	case reqErr != nil:
		it.Err = rpcError(InvalidRequest, reqErr)
	case !hasVersion:
		it.Err = rpcError(InvalidRequest, wire.Missing(d, "jsonrpc"))
	case classErr != nil:
		it.Err = rpcError(InvalidRequest, classErr)
	case paramsErr != nil:
		it.Err = rpcError(InvalidParams, paramsErr)
	default:
		it.Msg = m
	}
	return nil
}

// decodeErrorObject reads the error member of an error response. It reads
// the whole object even after a semantic error, which it returns with the
// object so far.
func decodeErrorObject(d *jsontext.Decoder, copyValues bool) (*Error, error) {
	if err := wire.BeginObject(d); err != nil {
		return nil, err
	}
	var (
		e               Error
		first           error
		hasCode, hasMsg bool
	)
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var merr error
		switch string(name) {
		case "code":
			hasCode = true
			e.Code, merr = wire.ReadInt(d)
		case "message":
			hasMsg = true
			e.Message, merr = wire.ReadString(d)
		case "data":
			e.Data, merr = readValue(d, copyValues)
		default:
			merr = wire.Skip(d)
		}
		if merr != nil {
			if fatal(merr) {
				return nil, merr
			}
			if first == nil {
				first = merr
			}
		}
	}
	switch {
	case first != nil:
	case !hasCode:
		first = wire.Missing(d, "code")
	case !hasMsg:
		first = wire.Missing(d, "message")
	}
	return &e, first
}

// readValue reads any value, copied out of the input when copyValues is set.
func readValue(d *jsontext.Decoder, copyValues bool) (jsontext.Value, error) {
	if copyValues {
		return wire.ReadValue(d)
	}
	v, err := wire.ReadUnionValue(d)
	if err != nil {
		return nil, err
	}
	// Cap the slice so that an append by its user cannot write into the
	// rest of the payload.
	return v[:len(v):len(v)], nil
}

// readObject is readValue for a value that must be an object.
func readObject(d *jsontext.Decoder, copyValues bool) (jsontext.Value, error) {
	if copyValues {
		return wire.ReadObjectValue(d)
	}
	if d.PeekKind() != '{' {
		return wire.ReadObjectValue(d) // the type error
	}
	return readValue(d, false)
}

// methods interns method names: the names registered with InternMethods
// decode without allocating a string.
var methods atomic.Pointer[map[string]string]

// InternMethods registers method names that decoding should not allocate a
// new string for. The revision registry calls it for every method of every
// registered revision. It is safe for concurrent use.
func InternMethods(names ...string) {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	next := map[string]string{}
	if old := methods.Load(); old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	for _, n := range names {
		next[n] = n
	}
	methods.Store(&next)
}

var methodsMu sync.Mutex

// readMethod reads the method member: a string, interned when known.
func readMethod(d *jsontext.Decoder) (string, error) {
	if d.PeekKind() == '"' {
		if known := methods.Load(); known != nil {
			v, err := d.ReadValue()
			if err != nil {
				return "", err
			}
			if bytes.IndexByte(v, '\\') < 0 {
				if s, ok := (*known)[string(v[1:len(v)-1])]; ok {
					return s, nil
				}
				return string(v[1 : len(v)-1]), nil
			}
			u, err := jsontext.AppendUnquote(nil, v)
			if err != nil {
				return "", err
			}
			return string(u), nil
		}
	}
	return wire.ReadString(d)
}
