package wire

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Scalar is a Go type of a JSON scalar as generated code has them: string,
// int64 (an integer), float64 (a number) and bool.
type Scalar interface {
	string | int64 | float64 | bool
}

// MemberScalar returns the member name of the object v decoded as T, and
// whether it is present and of T's JSON kind (an integer for int64).
func MemberScalar[T Scalar](v jsontext.Value, name string) (T, bool) {
	var zero T
	raw, ok := Member(v, name)
	if !ok {
		return zero, false
	}
	out, err := readScalar[T](jsontext.NewDecoder(bytes.NewReader(raw)))
	if err != nil {
		return zero, false
	}
	return out, true
}

// readScalar reads the next value of d as a T.
func readScalar[T Scalar](d *jsontext.Decoder) (T, error) {
	var out T
	var err error
	switch p := any(&out).(type) {
	case *string:
		*p, err = ReadString(d)
	case *int64:
		*p, err = ReadInt(d)
	case *float64:
		*p, err = ReadFloat(d)
	case *bool:
		*p, err = ReadBool(d)
	}
	return out, err
}

// AppendScalar appends the JSON encoding of the scalar x; a NaN or infinite
// float64 is an error.
func AppendScalar[T Scalar](b []byte, x T) ([]byte, error) {
	switch v := any(x).(type) {
	case string:
		return jsontext.AppendQuote(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		e := NewEncoder(b)
		e.Float(v)
		return e.Bytes()
	case bool:
		return strconv.AppendBool(b, v), nil
	}
	return b, nil
}
