package wire

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// ID is a JSON-RPC request ID or an MCP progress token: a string or an
// integer, never null. It is a comparable value, usable as a map key. The
// zero ID is not valid and does not encode.
type ID struct {
	s    string
	n    int64
	kind uint8 // 0 invalid, 1 string, 2 integer
}

// StringID returns the ID that is the string s.
func StringID(s string) ID { return ID{s: s, kind: 1} }

// IntID returns the ID that is the integer n.
func IntID(n int64) ID { return ID{n: n, kind: 2} }

// IsValid reports whether id was set.
func (id ID) IsValid() bool { return id.kind != 0 }

// IsString reports whether id is a string.
func (id ID) IsString() bool { return id.kind == 1 }

// Str returns the string of a string ID.
func (id ID) Str() (string, bool) { return id.s, id.kind == 1 }

// Int returns the integer of an integer ID.
func (id ID) Int() (int64, bool) { return id.n, id.kind == 2 }

// String formats id for people: strings quoted, integers plain.
func (id ID) String() string {
	switch id.kind {
	case 1:
		return strconv.Quote(id.s)
	case 2:
		return strconv.FormatInt(id.n, 10)
	}
	return "<invalid ID>"
}

// ValidJSON marks AppendJSON as appending only valid JSON (ValidJSON).
func (ID) ValidJSON() {}

// AppendJSON appends the ID as a JSON string or number; an ID that is not
// valid is an error.
func (id ID) AppendJSON(b []byte) ([]byte, error) {
	switch id.kind {
	case 1:
		q, err := jsontext.AppendQuote(b, id.s)
		if err != nil {
			return b, Errorf("", "encode: ID %q is not valid UTF-8", id.s)
		}
		return q, nil
	case 2:
		return strconv.AppendInt(b, id.n, 10), nil
	}
	return b, Errorf("", "encode: ID is not set")
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil) }

// UnmarshalJSON implements json.Unmarshaler, strictly.
func (id *ID) UnmarshalJSON(b []byte) error { return Unmarshal(b, id) }

// UnmarshalJSONFrom decodes a string or an integer.
func (id *ID) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		s, err := ReadString(d)
		if err != nil {
			return err
		}
		*id = StringID(s)
		return nil
	case '0':
		n, err := ReadInt(d)
		if err != nil {
			return err
		}
		*id = IntID(n)
		return nil
	}
	return typeError(d, "string or integer")
}

// ID writes id.
func (e *Encoder) ID(id ID) {
	e.comma()
	b, err := id.AppendJSON(e.buf)
	if err != nil {
		if e.err == nil {
			e.err = Prefix(e.pointer(), err)
		}
		return
	}
	e.buf = b
	e.more = true
}
