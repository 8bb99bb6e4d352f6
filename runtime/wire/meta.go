package wire

import (
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
// is present, and reports whether it was. It allocates nothing for a valid
// member.
func MetaScalar[T Scalar](d *jsontext.Decoder, meta jsontext.Value, name string) (bool, error) {
	return metaCheck(d, meta, name, checkScalar[T])
}

// MetaID checks that the member name of the _meta object meta, just read
// from d, is a string or an integer (an [ID]: a request ID or a progress
// token) when it is present, and reports whether it was. It is MetaMember
// with a new(ID), without the allocations.
func MetaID(d *jsontext.Decoder, meta jsontext.Value, name string) (bool, error) {
	return metaCheck(d, meta, name, checkID)
}

// MetaCheck checks the member name of the _meta object meta, just read
// from d, with check when it is present, and reports whether it was. Check
// reads the member's value from a decoder of its own, strictly, as
// Unmarshal does; errors carry the member's JSON pointer. Generated code
// passes a function that decodes into a variable of its own, which,
// unlike a value passed to MetaMember, need not be on the heap.
func MetaCheck(d *jsontext.Decoder, meta jsontext.Value, name string, check func(*jsontext.Decoder) error) (bool, error) {
	return metaCheck(d, meta, name, check)
}

// metaCheck runs check on the member name of meta, if present, with a
// pooled decoder; errors carry the member's JSON pointer within d's document.
func metaCheck(d *jsontext.Decoder, meta jsontext.Value, name string, check func(*jsontext.Decoder) error) (bool, error) {
	raw, ok := Member(meta, name)
	if !ok {
		return false, nil
	}
	p := getDecoder(raw)
	err := convert(&p.dec, check(&p.dec))
	putDecoder(p)
	if err != nil {
		return true, Prefix(string(d.StackPointer())+"/"+escapeToken(name), err)
	}
	return true, nil
}

// checkScalar reads a T from d, as readScalar, without keeping it: a string
// is not copied out of d's buffer.
func checkScalar[T Scalar](d *jsontext.Decoder) error {
	var zero T
	if _, ok := any(zero).(string); ok {
		if d.PeekKind() != '"' {
			return typeError(d, "string")
		}
		_, err := d.ReadToken()
		return err
	}
	_, err := readScalar[T](d)
	return err
}

// checkID reads an ID from d, as ID.UnmarshalJSONFrom, without keeping it.
func checkID(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		_, err := d.ReadToken()
		return err
	case '0':
		_, err := ReadInt(d)
		return err
	}
	return typeError(d, "string or integer")
}

// MissingMeta reports that the _meta object just read from d lacks the
// member name, which the schema requires.
func MissingMeta(d *jsontext.Decoder, name string) error {
	return &Error{Pointer: string(d.StackPointer()), Msg: "missing required field " + strconv.Quote(name)}
}
