package wire

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DecodeValue decodes a raw JSON member (tool arguments, structuredContent,
// _meta, an embedded JSON Schema) into out, a pointer to any Go value, with
// the strict rules of the generated codecs: member names match
// case-sensitively and duplicate names are errors.
func DecodeValue(v jsontext.Value, out any) error {
	if len(v) == 0 {
		return Errorf("", "no value to decode")
	}
	if err := json.Unmarshal(v, out); err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) {
			return &Error{Pointer: string(se.JSONPointer), Msg: err.Error(), Err: err}
		}
		var sy *jsontext.SyntacticError
		if errors.As(err, &sy) {
			return &Error{Pointer: string(sy.JSONPointer), Msg: err.Error(), Err: err}
		}
		return &Error{Msg: err.Error(), Err: err}
	}
	return nil
}

// EncodeValue encodes any Go value as a raw JSON member, for building tool
// arguments, structuredContent or an embedded JSON Schema.
func EncodeValue(in any) (jsontext.Value, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode value: %w", err)
	}
	return b, nil
}
