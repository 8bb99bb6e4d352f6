package toolschema

import (
	stdjson "encoding/json"
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Input decodes a tool's arguments into In. It is safe for concurrent use.
type Input[In any] struct {
	schema *Schema
}

// NewInput returns the Input of In with schema, or with the schema
// inferred from In (For) when schema is empty. The schema must describe
// an object ("type": "object" at the top), as a tool's inputSchema must.
func NewInput[In any](schema jsontext.Value) (*Input[In], error) {
	s, err := compileOrInfer[In](schema, false)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if err := s.CheckObject(); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &Input[In]{schema: s}, nil
}

// compileOrInfer compiles schema, or the schema inferred from T when it is
// empty (for an output when output is set, see OutputFor).
func compileOrInfer[T any](schema jsontext.Value, output bool) (*Schema, error) {
	if len(schema) == 0 {
		var err error
		if schema, err = infer(reflect.TypeFor[T](), output); err != nil {
			return nil, err
		}
	}
	return Compile(schema)
}

// Schema returns the input schema.
func (in *Input[In]) Schema() *Schema { return in.schema }

// Decode decodes a tool call's arguments: absent or null arguments are
// the empty object; the schema's defaults are filled in for the members
// that are absent (the "default" of each of "properties", at any depth
// where the enclosing object is present); the result is checked against
// the schema (a *ValidationError lists what breaks it, such as "/days:
// must be <= 7" or "/city: required") and decoded into In, case-sensitively,
// refusing members In does not have.
func (in *Input[In]) Decode(args []byte) (In, error) {
	var zero In
	if len(args) == 0 {
		args = []byte("{}")
	}
	if len(args) > MaxInstanceBytes {
		return zero, fmt.Errorf("arguments are %d bytes long, more than %d", len(args), MaxInstanceBytes)
	}
	v, err := parse(args)
	if err != nil {
		return zero, fmt.Errorf("arguments are not strict JSON: %w", err)
	}
	if v == nil {
		v = map[string]any{}
	}
	v = withDefaults(in.schema.doc, v, 0)
	if err := in.schema.validate(v); err != nil {
		return zero, err
	}
	// encoding/json writes json.Number as the number it holds.
	b, err := stdjson.Marshal(v)
	if err != nil {
		return zero, fmt.Errorf("arguments: %w", err)
	}
	var out In
	if err := json.Unmarshal(b, &out, json.RejectUnknownMembers(true)); err != nil {
		return zero, fmt.Errorf("arguments: %w", err)
	}
	return out, nil
}

// withDefaults returns v with the defaults of schema's properties filled
// in where v is an object that lacks them, at any depth.
func withDefaults(schema map[string]any, v any, depth int) any {
	obj, ok := v.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if !ok || props == nil || depth > MaxDepth {
		return v
	}
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if ps == nil {
			continue
		}
		if cur, has := obj[name]; has {
			obj[name] = withDefaults(ps, cur, depth+1)
		} else if d, has := ps["default"]; has {
			obj[name] = clone(d)
		}
	}
	return obj
}

// clone copies a parsed JSON value, so that a filled-in default never
// shares the schema's maps.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = clone(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = clone(x)
		}
		return a
	}
	return v
}

// Output encodes a tool's results of type Out. It is safe for concurrent
// use.
type Output[Out any] struct {
	schema *Schema
}

// NewOutput returns the Output of Out with schema, or with the schema
// inferred from Out (For) when schema is empty.
func NewOutput[Out any](schema jsontext.Value) (*Output[Out], error) {
	s, err := compileOrInfer[Out](schema, true)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return &Output[Out]{schema: s}, nil
}

// Schema returns the output schema.
func (o *Output[Out]) Schema() *Schema { return o.schema }

// Encode returns the JSON of out (github.com/go-json-experiment/json),
// checked against the output schema: a result that breaks it is an error
// (a *ValidationError, wrapped), since the schema promises clients what
// they get.
func (o *Output[Out]) Encode(out Out) (jsontext.Value, error) {
	b, err := json.Marshal(out, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("output of type %s: %w", reflect.TypeFor[Out](), err)
	}
	if err := o.schema.Validate(b); err != nil {
		return nil, fmt.Errorf("output does not match the output schema: %w", err)
	}
	return b, nil
}
