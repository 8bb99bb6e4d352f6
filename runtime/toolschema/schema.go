// Package toolschema gives MCP tools typed arguments and results: it infers
// the JSON Schema of a Go type from its struct tags (For), compiles a tool's
// schema once, checking its dialect (Compile), and decodes a tool call's
// arguments into a Go value, with defaults applied and every rule of the
// schema checked (Input.Decode), or encodes a result that must match its
// schema (Output.Encode).
//
// # Dialects
//
// A schema without "$schema" is JSON Schema 2020-12, as MCP requires from
// 2025-11-25. A schema may declare 2020-12
// ("https://json-schema.org/draft/2020-12/schema") or draft-07
// ("http://json-schema.org/draft-07/schema#"); any other "$schema" is
// refused with an error naming it. A schema must be valid in its dialect
// (it is checked against the dialect's meta-schema), and "format" is
// asserted in both dialects.
//
// # Limits
//
// Nothing is ever fetched: a "$ref" to anything outside the schema (a
// network URI, a file) is a compile error. A schema is at most
// MaxSchemaBytes long and MaxDepth deep; a document checked against it at
// most MaxInstanceBytes and MaxDepth deep. Regular expressions are Go's
// (linear in their input), so the cost of a check is bounded by those
// sizes.
//
// Schemas are compiled with github.com/santhosh-tekuri/jsonschema/v5, the
// validator of package runtime/validate.
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The limits on schemas and the documents they check.
const (
	MaxSchemaBytes   = 1 << 20 // 1 MiB
	MaxInstanceBytes = 4 << 20 // 4 MiB
	MaxDepth         = 64      // nesting of arrays and objects
)

// The dialects a Schema may be written in.
const (
	Draft2020 = "https://json-schema.org/draft/2020-12/schema"
	Draft07   = "http://json-schema.org/draft-07/schema#"
)

// Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	raw      jsontext.Value
	doc      map[string]any
	dialect  string
	compiled *jsonschema.Schema
}

// schemaURL is the URL a schema is compiled under; relative "$ref"s
// resolve against it, to nothing outside the schema.
const schemaURL = "mcpgen:///toolschema/schema.json"

// Compile checks and compiles a schema document: strict JSON (no
// duplicate member names), a JSON object, of a supported dialect (see the
// package documentation), valid in that dialect, and with no "$ref" that
// leaves the document. The error says what is wrong and where (a JSON
// pointer into the schema).
func Compile(schema []byte) (*Schema, error) {
	if len(schema) == 0 {
		return nil, errors.New("toolschema: the schema is empty")
	}
	if len(schema) > MaxSchemaBytes {
		return nil, fmt.Errorf("toolschema: the schema is %d bytes long, more than %d", len(schema), MaxSchemaBytes)
	}
	v, err := parse(schema)
	if err != nil {
		return nil, fmt.Errorf("toolschema: the schema is not strict JSON: %w", err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("toolschema: the schema is not a JSON object")
	}
	s := &Schema{raw: jsontext.Value(bytes.Clone(schema)), doc: doc, dialect: Draft2020}
	draft := jsonschema.Draft2020
	if d, has := doc["$schema"]; has {
		name, _ := d.(string)
		switch dialectOf(name) {
		case Draft2020:
		case Draft07:
			s.dialect, draft = Draft07, jsonschema.Draft7
		default:
			b, _ := json.Marshal(d)
			return nil, fmt.Errorf("toolschema: /$schema: unsupported dialect %s (supported: %s, %s)", b, Draft2020, Draft07)
		}
	}
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%s is outside the schema, and schemas are never fetched", u)
	}
	if err := c.AddResource(schemaURL, bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("toolschema: %w", compileError(err))
	}
	compiled, err := compile(c)
	if err != nil {
		return nil, fmt.Errorf("toolschema: %w", err)
	}
	s.compiled = compiled
	return s, nil
}

// compile compiles the schema, turning a panic of the compiler into an
// error.
func compile(c *jsonschema.Compiler) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the schema compiler failed: %v", r)
		}
	}()
	s, err = c.Compile(schemaURL)
	if err != nil {
		return nil, compileError(err)
	}
	return s, nil
}

// compileError rewrites an error of the compiler to one line naming the
// pointer into the schema that is at fault.
func compileError(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return errors.New(oneLine(strings.TrimPrefix(err.Error(), "jsonschema: ")))
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	return fmt.Errorf("%s: not valid in its dialect: %s", pointer(leaf.InstanceLocation), oneLine(leaf.Message))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func pointer(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// dialectOf returns the dialect constant a "$schema" value names, or "".
func dialectOf(u string) string {
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "json-schema.org/draft/2020-12/schema":
		return Draft2020
	case "json-schema.org/draft-07/schema":
		return Draft07
	}
	return ""
}

// JSON returns the schema document as given.
func (s *Schema) JSON() jsontext.Value { return s.raw }

// Dialect returns the dialect the schema is written in: Draft2020 or
// Draft07.
func (s *Schema) Dialect() string { return s.dialect }

// Type returns the schema's top-level "type" when it is one string (such
// as "object"), else "".
func (s *Schema) Type() string {
	t, _ := s.doc["type"].(string)
	return t
}

// CheckObject reports an error unless the schema's top-level type is
// "object", as MCP requires of a tool's inputSchema and outputSchema.
func (s *Schema) CheckObject() error {
	if t := s.Type(); t != "object" {
		if t == "" {
			return errors.New(`the schema has no top-level "type"; an MCP tool schema must have "type": "object"`)
		}
		return fmt.Errorf("the top-level type is %q; an MCP tool schema must have \"type\": \"object\" (for a Go type, use a struct)", t)
	}
	return nil
}

// Problem is one rule a document breaks.
type Problem struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value in the
	// document; for a missing or unknown member, of that member.
	Pointer string
	// Keyword is the schema keyword that failed, such as "maximum",
	// "required" or "additionalProperties".
	Keyword string
	// Message says what the rule is, such as "must be <= 7" or "required".
	Message string
}

func (p Problem) String() string { return pointer(p.Pointer) + ": " + p.Message }

// ValidationError is a document that breaks its schema's rules. Its
// message lists every problem, such as "/city: required; /days: must be
// <= 7".
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Validate checks a JSON document against s. It returns a
// *ValidationError listing what breaks the schema's rules, or an error for
// a document that is not strict JSON or is too large or deep.
func (s *Schema) Validate(doc []byte) error {
	if len(doc) > MaxInstanceBytes {
		return fmt.Errorf("the document is %d bytes long, more than %d", len(doc), MaxInstanceBytes)
	}
	v, err := parse(doc)
	if err != nil {
		return fmt.Errorf("not strict JSON: %w", err)
	}
	return s.validate(v)
}

func (s *Schema) validate(v any) error {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validation failed: %w", err)
	}
	return &ValidationError{Problems: problems(ve)}
}

// problems flattens a validation error into its leaves.
func problems(ve *jsonschema.ValidationError) []Problem {
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		kw := e.KeywordLocation[strings.LastIndexByte(e.KeywordLocation, '/')+1:]
		switch kw {
		case "required":
			for _, name := range quoted(strings.TrimPrefix(e.Message, "missing properties: ")) {
				out = append(out, Problem{Pointer: e.InstanceLocation + "/" + escapeToken(name), Keyword: kw, Message: "required"})
			}
			return
		case "additionalProperties", "unevaluatedProperties":
			if strings.HasSuffix(e.Message, " not allowed") {
				list := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(e.Message, "additionalProperties "), "unevaluatedProperties "), " not allowed")
				for _, name := range quoted(list) {
					out = append(out, Problem{Pointer: e.InstanceLocation + "/" + escapeToken(name), Keyword: kw, Message: "unknown member"})
				}
				return
			}
		}
		msg := e.Message
		for _, cut := range []string{" but found ", ", but got "} {
			if i := strings.Index(msg, cut); i >= 0 && kw != "type" {
				msg = msg[:i]
			}
		}
		out = append(out, Problem{Pointer: e.InstanceLocation, Keyword: kw, Message: oneLine(msg)})
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return slices.Compact(out)
}

// quoted splits a list of names as jsonschema/v5 quotes them ('a', 'b\'c').
func quoted(list string) []string {
	var names []string
	for len(list) > 0 && list[0] == '\'' {
		i := 1
		for i < len(list) && list[i] != '\'' {
			if list[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(list) {
			break
		}
		body := strings.ReplaceAll(strings.ReplaceAll(list[1:i], `\'`, `'`), `"`, `\"`)
		if name, err := strconv.Unquote(`"` + body + `"`); err == nil {
			names = append(names, name)
		}
		list = strings.TrimPrefix(list[i+1:], ", ")
	}
	return names
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// parse decodes strict JSON (no duplicate member names, valid UTF-8, one
// value) into the values jsonschema/v5 validates: map[string]any, []any,
// string, json.Number, bool and nil, at most MaxDepth deep.
func parse(data []byte) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func parseValue(dec *jsontext.Decoder) (any, error) {
	if dec.StackDepth() >= MaxDepth {
		return nil, fmt.Errorf("%s: nested more than %d deep", pointer(string(dec.StackPointer())), MaxDepth)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case '{':
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := k.String()
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		a := []any{}
		for dec.PeekKind() != ']' {
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}
