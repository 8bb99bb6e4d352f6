package wire

import (
	"bytes"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Unknown union variants. A union discriminated by a tag member (a content
// block by "type") fails to decode when the tag names no variant the
// revision knows: that is the strict rule, and what Unmarshal does. A client
// that talks to a server of another revision may prefer to keep the rest of
// the message: UnmarshalKeepUnknown decodes such a value as the generated
// package's UnknownVariant, which holds the value's JSON verbatim and encodes
// it unchanged.
//
// The mode travels in the jsontext.Decoder's options, so that the fresh
// decoders UnmarshalAt starts for union variants inherit it. It is set only
// on a second pass, after a strict decode failed: decoding a valid message
// costs what Unmarshal costs.

// keepUnknownMarker is a type no value ever has; the Unmarshalers that name it
// mark a decoder as keeping unknown variants and change nothing else.
type keepUnknownMarker struct{}

var keepUnknownUnmarshalers = json.UnmarshalFunc(func([]byte, *keepUnknownMarker) error { return nil })

// keepUnknown is the decoder option that marks the mode.
var keepUnknown = json.WithUnmarshalers(keepUnknownUnmarshalers)

// UnmarshalKeepUnknown is Unmarshal, except that a union value whose tag
// member names no variant the type knows is kept as an unknown variant (see
// KeepUnknown) instead of being an error. Everything else is as strict as
// Unmarshal: a missing tag, a known variant that does not decode, a wrong
// JSON kind are still errors. On error, u may be partly filled.
func UnmarshalKeepUnknown(data []byte, u Unmarshaler) error {
	if err := Unmarshal(data, u); err == nil {
		return nil
	}
	return unmarshal(data, u, keepUnknown)
}

// KeepsUnknown reports whether d decodes in the mode of UnmarshalKeepUnknown.
func KeepsUnknown(d *jsontext.Decoder) bool {
	u, ok := json.GetOption(d.Options(), json.WithUnmarshalers)
	return ok && u == keepUnknownUnmarshalers
}

// KeepUnknown is called by generated union decoders when the tag member of
// raw, the union value just read from d, names no variant: when d keeps
// unknown variants and the tag is a JSON string (a tag of another kind is no
// variant of any revision, only invalid), it returns a copy of raw to keep
// as the unknown variant; otherwise ok is false and the tag is an error.
func KeepUnknown(d *jsontext.Decoder, raw jsontext.Value, tag string) (kept jsontext.Value, ok bool) {
	if !KeepsUnknown(d) {
		return nil, false
	}
	if v, _ := Member(raw, tag); len(v) == 0 || v[0] != '"' {
		return nil, false
	}
	return bytes.Clone(raw), true
}
