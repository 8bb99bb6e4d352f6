package toolschema

import (
	"bytes"
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// For returns the JSON Schema (2020-12, without "$schema") of the JSON
// encoding of T, inferred from its Go type and struct tags:
//
//   - bool is "boolean"; integers are "integer" (unsigned ones with
//     "minimum": 0); floats are "number"; string is "string"; []byte is a
//     base64 "string"; time.Time is a "date-time" string; a type that
//     implements encoding.TextMarshaler is a "string";
//   - a struct is an "object" with "additionalProperties": false, whose
//     members are its exported fields, named as github.com/go-json-experiment/json
//     names them (the `json` tag, else the Go name; "-" skips a field; an
//     embedded struct without a name is inlined);
//   - a slice or array is an "array" of its element; a map with string
//     keys is an "object" whose "additionalProperties" is its element;
//   - a pointer is its element or null;
//   - an interface and jsontext.Value are any JSON value ({}).
//
// A field is required unless it is a pointer, its `json` tag has omitempty
// or omitzero, or it has a default. These struct tags add keywords to the
// field's schema (to the elements' schema for enum, format, minimum and
// maximum when the field is a slice or array):
//
//	description:"…"   "description"
//	enum:"a,b,c"      "enum": comma-separated values, strings for a string field, JSON values otherwise
//	minimum:"1"       "minimum" (a JSON number)
//	maximum:"7"       "maximum" (a JSON number)
//	default:"3"       "default": the text itself for a string field, a JSON value otherwise
//	format:"email"    "format"
//	pattern:"^[0-9]+$" "pattern": a regular expression a string must match (it must compile with Go's regexp)
//	minLength:"1"     "minLength" (a non-negative integer)
//	maxLength:"64"    "maxLength" (a non-negative integer)
//
// Recursive types, channels, functions and complex numbers have no schema:
// For returns an error naming the type and the field.
func For[T any]() (jsontext.Value, error) {
	return Infer(reflect.TypeFor[T]())
}

// OutputFor is For for a type whose values are encoded rather than
// decoded, a tool's output: a field with a default is required like any
// other, since its value is always written.
func OutputFor[T any]() (jsontext.Value, error) {
	return infer(reflect.TypeFor[T](), true)
}

// Infer is For with the type as a value.
func Infer(t reflect.Type) (jsontext.Value, error) {
	return infer(t, false)
}

func infer(t reflect.Type, output bool) (jsontext.Value, error) {
	if t == nil {
		return jsontext.Value(`{}`), nil
	}
	in := inferrer{seen: map[reflect.Type]bool{}, output: output}
	s, err := in.schema(t, "")
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(s, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("toolschema: %s: %w", t, err)
	}
	return b, nil
}

type node = map[string]any

var (
	timeType      = reflect.TypeFor[time.Time]()
	valueType     = reflect.TypeFor[jsontext.Value]()
	bytesType     = reflect.TypeFor[[]byte]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

type inferrer struct {
	seen   map[reflect.Type]bool // the struct types being described, to refuse recursion
	output bool                  // describing what is encoded (OutputFor): a default does not make a field optional
}

// schema describes t; where names the field, for errors.
func (in *inferrer) schema(t reflect.Type, where string) (node, error) {
	switch {
	case t == timeType:
		return node{"type": "string", "format": "date-time"}, nil
	case t == valueType:
		return node{}, nil
	case t == bytesType:
		return node{"type": "string", "contentEncoding": "base64"}, nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t.Implements(textMarshaler):
		return node{"type": "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return node{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return node{"type": "integer"}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return node{"type": "integer", "minimum": 0}, nil
	case reflect.Float32, reflect.Float64:
		return node{"type": "number"}, nil
	case reflect.String:
		return node{"type": "string"}, nil
	case reflect.Interface:
		return node{}, nil
	case reflect.Pointer:
		s, err := in.schema(t.Elem(), where)
		if err != nil {
			return nil, err
		}
		return nullable(s), nil
	case reflect.Slice, reflect.Array:
		items, err := in.schema(t.Elem(), where)
		if err != nil {
			return nil, err
		}
		s := node{"type": "array", "items": items}
		if t.Kind() == reflect.Array {
			s["minItems"], s["maxItems"] = t.Len(), t.Len()
		}
		// A nil slice encodes as [] (go-json-experiment/json), never null.
		return s, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("toolschema: %s%s: a map key must be a string", t, at(where))
		}
		vals, err := in.schema(t.Elem(), where)
		if err != nil {
			return nil, err
		}
		return node{"type": "object", "additionalProperties": vals}, nil
	case reflect.Struct:
		return in.object(t)
	}
	return nil, fmt.Errorf("toolschema: %s%s: a %s has no JSON Schema", t, at(where), t.Kind())
}

func at(where string) string {
	if where == "" {
		return ""
	}
	return " (field " + where + ")"
}

// nullable lets s also be null.
func nullable(s node) node {
	switch typ := s["type"].(type) {
	case string:
		s["type"] = []any{typ, "null"}
	case nil:
		return s // any value already
	}
	if enum, ok := s["enum"].([]any); ok {
		s["enum"] = append(enum, nil)
	}
	return s
}

// object describes a struct.
func (in *inferrer) object(t reflect.Type) (node, error) {
	if in.seen[t] {
		return nil, fmt.Errorf("toolschema: %s: recursive types are not supported", t)
	}
	in.seen[t] = true
	defer delete(in.seen, t)
	props := node{}
	var required []any
	if err := in.fields(t, props, &required); err != nil {
		return nil, err
	}
	s := node{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s, nil
}

// fields adds the members of struct t to props and required.
func (in *inferrer) fields(t reflect.Type, props node, required *[]any) error {
	return structFields(t, in.seen, func(owner reflect.Type, f reflect.StructField, name, opts string) error {
		where := owner.String() + "." + f.Name
		s, err := in.schema(f.Type, where)
		if err != nil {
			return err
		}
		optional := f.Type.Kind() == reflect.Pointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
		if err := applyTags(s, f, where); err != nil {
			return err
		}
		if _, ok := s["default"]; ok && !in.output {
			optional = true // the decoder fills it in
		}
		props[name] = s
		if !optional {
			*required = append(*required, name)
		}
		return nil
	})
}

// structFields calls fn for each field of struct t that encoding/json
// encodes, in order, with the struct that has it (t or an embedded one),
// its JSON name and the options of its json tag:
// exported fields not tagged "-", and the fields of embedded structs
// without a name, flattened. seen holds the structs being walked, to
// refuse recursion.
func structFields(t reflect.Type, seen map[reflect.Type]bool, fn func(owner reflect.Type, f reflect.StructField, name, opts string) error) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if seen[et] {
					return fmt.Errorf("toolschema: %s: recursive types are not supported", et)
				}
				seen[et] = true
				err := structFields(et, seen, fn)
				delete(seen, et)
				if err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if err := fn(t, f, name, opts); err != nil {
			return err
		}
	}
	return nil
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// applyTags adds the keywords of f's struct tags to s.
func applyTags(s node, f reflect.StructField, where string) error {
	if d, ok := f.Tag.Lookup("description"); ok {
		s["description"] = d
	}
	// enum, format and the bounds constrain the values: the elements of a
	// list.
	elem, et := s, f.Type
	null := et.Kind() == reflect.Pointer
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	if (et.Kind() == reflect.Slice || et.Kind() == reflect.Array) && et != bytesType {
		elem, _ = s["items"].(node)
		et = et.Elem()
		null = et.Kind() == reflect.Pointer
		for et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
	}
	stringy := et.Kind() == reflect.String
	if v, ok := f.Tag.Lookup("enum"); ok {
		var enum []any
		for item := range strings.SplitSeq(v, ",") {
			if stringy {
				enum = append(enum, item)
				continue
			}
			j, err := jsonValue(strings.TrimSpace(item))
			if err != nil {
				return fmt.Errorf("toolschema: %s: enum %q: %w", where, item, err)
			}
			enum = append(enum, j)
		}
		if null {
			enum = append(enum, nil) // a nil pointer
		}
		elem["enum"] = enum
	}
	if v, ok := f.Tag.Lookup("format"); ok {
		elem["format"] = v
	}
	if v, ok := f.Tag.Lookup("pattern"); ok {
		if _, err := regexp.Compile(v); err != nil {
			return fmt.Errorf("toolschema: %s: pattern %q: %w", where, v, err)
		}
		elem["pattern"] = v
	}
	for _, kw := range []string{"minLength", "maxLength"} {
		v, ok := f.Tag.Lookup(kw)
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(v, 10, 31); err != nil || strconv.FormatUint(n, 10) != v {
			return fmt.Errorf("toolschema: %s: %s %q is not a non-negative integer", where, kw, v)
		}
		elem[kw] = jsontext.Value(v)
	}
	for _, kw := range []string{"minimum", "maximum"} {
		v, ok := f.Tag.Lookup(kw)
		if !ok {
			continue
		}
		if _, err := strconv.ParseFloat(v, 64); err != nil || !jsontext.Value(v).IsValid() {
			return fmt.Errorf("toolschema: %s: %s %q is not a JSON number", where, kw, v)
		}
		elem[kw] = jsontext.Value(v)
	}
	if v, ok := f.Tag.Lookup("default"); ok {
		var d jsontext.Value
		if f.Type.Kind() == reflect.String {
			d, _ = jsontext.AppendQuote(nil, v)
		} else {
			j, err := jsonValue(v)
			if err != nil {
				return fmt.Errorf("toolschema: %s: default %q: %w", where, v, err)
			}
			d = j
		}
		// The default must be a value of the field's type.
		if err := json.Unmarshal(d, reflect.New(f.Type).Interface(), json.RejectUnknownMembers(true)); err != nil {
			return fmt.Errorf("toolschema: %s: default %s is not a %s: %w", where, d, f.Type, err)
		}
		s["default"] = d
	}
	return nil
}

// jsonValue checks that text is one JSON value.
func jsonValue(text string) (jsontext.Value, error) {
	v := jsontext.Value(bytes.TrimSpace([]byte(text)))
	if !v.IsValid() {
		return nil, fmt.Errorf("not a JSON value")
	}
	return v, nil
}
