package wire

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// MetaMember decodes the member name of the _meta object meta, just read
// from d, into u when it is present, and reports whether it was. Errors carry
// the member's JSON pointer.
func MetaMember(d *jsontext.Decoder, meta jsontext.Value, name string, u Unmarshaler) (bool, error) {
	raw, ok := Member(meta, name)
	if !ok {
		return false, nil
	}
	if err := Unmarshal(raw, u); err != nil {
		return true, Prefix(string(d.StackPointer())+"/"+escapeToken(name), err)
	}
	return true, nil
}

// MetaScalar checks that the member name of the _meta object meta, just
// read from d, is a T (a string, an integer, a number or a boolean) when it
// is present, and reports whether it was.
func MetaScalar[T Scalar](d *jsontext.Decoder, meta jsontext.Value, name string) (bool, error) {
	raw, ok := Member(meta, name)
	if !ok {
		return false, nil
	}
	sd := jsontext.NewDecoder(bytes.NewReader(raw))
	_, err := readScalar[T](sd)
	if err != nil {
		return true, Prefix(string(d.StackPointer())+"/"+escapeToken(name), convert(sd, err))
	}
	return true, nil
}

// MissingMeta reports that the _meta object just read from d lacks the
// member name, which the schema requires.
func MissingMeta(d *jsontext.Decoder, name string) error {
	return &Error{Pointer: string(d.StackPointer()), Msg: "missing required field " + strconv.Quote(name)}
}
