package jsonrpc

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// AppendJSON appends the JSON encoding of m to b: {"jsonrpc":"2.0", …} with
// exactly the members of m.Kind, in this order:
//
//   - Request: id, method, params (when Params is not nil)
//   - Notification: method, params (when Params is not nil)
//   - Response: id, result
//   - ErrorResponse: id (null when m.ID is not valid), error
//
// Fields that do not belong to the kind are ignored, except that a
// notification with a valid ID is an error (it would never be answered).
// Requests and responses need a valid ID, requests and notifications a
// non-empty method, responses a result ({} is the empty result) and error
// responses an Error. Params and Result must be JSON objects, Error.Data any
// JSON value; all are checked to be valid JSON. Raw values that contain line
// breaks are written compacted, so the encoding is always a single line as
// the stdio transport requires.
//
// Errors are *wire.Error values naming the member, such as "/params"; on
// error b is returned unchanged.
func (m *Message) AppendJSON(b []byte) ([]byte, error) {
	if m == nil {
		return b, wire.Errorf("", "encode: nil message")
	}
	e := wire.NewEncoder(b)
	e.BeginObject()
	e.Name(`"jsonrpc":`)
	e.Literal(`"2.0"`)
	switch m.Kind {
	case Request:
		writeID(&e, m.ID)
		writeMethod(&e, m)
	case Notification:
		if m.ID.IsValid() {
			e.Enter("id")
			e.Fail("a notification has no id (ID is " + m.ID.String() + ")")
			e.Leave()
		}
		writeMethod(&e, m)
	case Response:
		writeID(&e, m.ID)
		e.Name(`"result":`)
		e.Enter("result")
		if len(m.Result) == 0 {
			e.Fail("a response needs a result ({} is the empty result)")
		} else {
			e.RawObject(oneLine(m.Result))
		}
		e.Leave()
	case ErrorResponse:
		e.Name(`"id":`)
		if m.ID.IsValid() {
			e.Enter("id")
			e.ID(m.ID)
			e.Leave()
		} else {
			e.Null()
		}
		e.Name(`"error":`)
		e.Enter("error")
		if m.Error == nil {
			e.Fail("an error response needs an Error")
		} else {
			e.Value(m.Error)
		}
		e.Leave()
	default:
		e.Fail("message kind " + strconv.Itoa(int(m.Kind)) + " is not valid")
	}
	e.EndObject()
	out, err := e.Bytes()
	if err != nil {
		return b, err
	}
	return out, nil
}

func writeID(e *wire.Encoder, id wire.ID) {
	e.Name(`"id":`)
	e.Enter("id")
	e.ID(id)
	e.Leave()
}

func writeMethod(e *wire.Encoder, m *Message) {
	e.Name(`"method":`)
	e.Enter("method")
	if m.Method == "" {
		e.Fail("method is empty")
	}
	e.String(m.Method)
	e.Leave()
	if m.Params != nil {
		e.Name(`"params":`)
		e.Enter("params")
		e.RawObject(oneLine(m.Params))
		e.Leave()
	}
}

// AppendJSON appends the JSON encoding of the error object e to b:
// {"code":…,"message":…} and "data" when Data is not nil. Data must be valid
// JSON. Errors are *wire.Error values.
func (e *Error) AppendJSON(b []byte) ([]byte, error) {
	if e == nil {
		return b, wire.Errorf("", "encode: nil error object")
	}
	enc := wire.NewEncoder(b)
	enc.BeginObject()
	enc.Name(`"code":`)
	enc.Int(e.Code)
	enc.Name(`"message":`)
	enc.Enter("message")
	enc.String(e.Message)
	enc.Leave()
	if e.Data != nil {
		enc.Name(`"data":`)
		enc.Enter("data")
		enc.Raw(oneLine(e.Data))
		enc.Leave()
	}
	enc.EndObject()
	out, err := enc.Bytes()
	if err != nil {
		return b, err
	}
	return out, nil
}

// oneLine returns v compacted if it contains a line break (which, in valid
// JSON, can only be white space), and v itself otherwise. Invalid JSON is
// returned as is, for the encoder to report.
func oneLine(v jsontext.Value) jsontext.Value {
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return v
	}
	c := jsontext.Value(bytes.Clone(v))
	if err := c.Compact(); err != nil {
		return v
	}
	return c
}

// AppendResponse appends the response to request id whose result is what
// result appends, encoded in place: the same bytes as a Message of kind
// Response with Result set to result's encoding, without encoding the result
// into a buffer of its own first. The result must be a JSON object; it is
// checked to be valid JSON (unless it is a wire.ValidJSON, valid by
// construction) and written compacted if it has line breaks. On
// error b is returned unchanged; errors are *wire.Error values naming
// "/result" or "/id".
func AppendResponse(b []byte, id wire.ID, result wire.Appender) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	e.Name(`"jsonrpc":`)
	e.Literal(`"2.0"`)
	writeID(&e, id)
	e.Name(`"result":`)
	out, err := e.Bytes()
	if err != nil {
		return b, err
	}
	n := len(out)
	out, err = appendObject(out, "result", result)
	if err != nil {
		return b, err
	}
	if len(out) == n {
		return b, wire.Errorf("/result", "encode: a response needs a result ({} is the empty result)")
	}
	return append(out, '}'), nil
}

// AppendCall appends a request with id and method, or a notification when
// id is not valid, whose params are what params appends, encoded in place:
// the same bytes as the Message of that kind with Params set to params'
// encoding. When params is nil or appends nothing, the message has no params
// and withParams is false. Params must be a JSON object; it is checked to be
// valid JSON (unless it is a wire.ValidJSON) and written compacted if it has
// line breaks. On error b is
// returned unchanged; errors are *wire.Error values naming the member.
func AppendCall(b []byte, id wire.ID, method string, params wire.Appender) (out []byte, withParams bool, err error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	e.Name(`"jsonrpc":`)
	e.Literal(`"2.0"`)
	if id.IsValid() {
		writeID(&e, id)
	}
	writeMethod(&e, &Message{Method: method})
	out, err = e.Bytes()
	if err != nil {
		return b, false, err
	}
	if params != nil {
		before := len(out)
		out = append(out, `,"params":`...)
		n := len(out)
		if out, err = appendObject(out, "params", params); err != nil {
			return b, false, err
		}
		if len(out) == n {
			out = out[:before] // nothing appended: no params
		} else {
			withParams = true
		}
	}
	return append(out, '}'), withParams, nil
}

// trusted reports whether a appends valid JSON by construction.
func trusted(a wire.Appender) bool {
	_, ok := a.(wire.ValidJSON)
	return ok
}

// appendObject appends what a appends, the value of member, checking that
// it is a valid JSON object and compacting it if it has line breaks. It
// appends nothing when a appends nothing.
func appendObject(b []byte, member string, a wire.Appender) ([]byte, error) {
	start := len(b)
	out, err := a.AppendJSON(b)
	if err != nil {
		return b, wire.Prefix("/"+member, err)
	}
	v := jsontext.Value(out[start:])
	switch {
	case len(v) == 0:
		return out, nil
	case v.Kind() != '{':
		return b, wire.Errorf("/"+member, "encode: want object, got %s", kindWord(v.Kind()))
	case !trusted(a) && !v.IsValid():
		return b, wire.Errorf("/"+member, "encode: value is not valid JSON: %q", clip(string(v)))
	}
	if c := oneLine(v); &c[0] != &v[0] {
		out = append(out[:start], c...)
	}
	return out, nil
}

// kindWord names the kind of a JSON value in encoding errors.
func kindWord(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return scalarName(k)
}

// Encode returns the JSON encoding of m; see Message.AppendJSON.
func Encode(m *Message) ([]byte, error) {
	return m.AppendJSON(nil)
}

// AppendBatch appends a JSON-RPC batch, the JSON array of msgs, to b. Only
// the 2025-03-26 revision has batches; a batch must not be empty. Errors are
// *wire.Error values whose pointer starts with the index of the message, such
// as "/2/params"; on error b is returned unchanged.
func AppendBatch(b []byte, msgs []*Message) ([]byte, error) {
	if len(msgs) == 0 {
		return b, wire.Errorf("", "encode: a batch must not be empty")
	}
	e := wire.NewEncoder(b)
	e.BeginArray()
	for i, m := range msgs {
		e.Enter(strconv.Itoa(i))
		e.Value(m)
		e.Leave()
		if e.Failed() {
			break
		}
	}
	e.EndArray()
	out, err := e.Bytes()
	if err != nil {
		return b, err
	}
	return out, nil
}
