package mcpheader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Param is one x-mcp-header annotation of a tool's inputSchema: the
// argument at Path is mirrored into the header Mcp-Param-{Name}.
type Param struct {
	// Name is the annotation's value, such as "Region"; the header is
	// [HeaderParamPrefix] + Name.
	Name string
	// Path is the chain of property names from the schema root to the
	// annotated property: ["region"] for inputSchema.properties.region,
	// ["db", "region"] for inputSchema.properties.db.properties.region.
	// The argument is read at the same path inside the call's arguments.
	Path []string
	// Type is the annotated property's JSON Schema type: "string",
	// "integer" or "boolean".
	Type string
}

// Header returns the name of the header that mirrors the parameter, such as
// "Mcp-Param-Region".
func (p Param) Header() string { return HeaderParamPrefix + p.Name }

// Params are the x-mcp-header annotations of one tool, in the order they
// appear in its inputSchema. A nil Params is a tool without annotations.
type Params []Param

// AnnotationError reports an x-mcp-header annotation that breaks a rule of
// the specification. A client on Streamable HTTP drops the tool whose
// inputSchema has one from its tools/list view, and should log the tool's
// name with the error.
type AnnotationError struct {
	// Pointer is the JSON Pointer (RFC 6901), inside the inputSchema, of the
	// x-mcp-header member, such as "/properties/score/x-mcp-header".
	Pointer string
	// Problem says which rule the annotation breaks.
	Problem string
}

// Error returns "x-mcp-header at POINTER: PROBLEM".
func (e *AnnotationError) Error() string {
	return "x-mcp-header at " + e.Pointer + ": " + e.Problem
}

// The keywords whose value maps names to subschemas. A name in them is not a
// keyword, and only "properties" keeps its subschemas statically reachable.
var nameMaps = map[string]bool{
	"properties":        true,
	"patternProperties": true,
	"$defs":             true,
	"definitions":       true,
	"dependentSchemas":  true,
	"dependencies":      true,
}

// The keywords whose value is an instance, not a schema: an object inside
// them is data, and an "x-mcp-header" member there is no annotation.
var dataKeywords = map[string]bool{
	"const":    true,
	"default":  true,
	"enum":     true,
	"examples": true,
}

// ParseTool finds the x-mcp-header annotations of a tool's inputSchema and
// checks them against the rules of MCP 2026-07-28. An annotation
//   - is a non-empty string of HTTP token characters (RFC 9110 §5.6.2): no
//     space, colon, control or non-ASCII character;
//   - sits on a property reached from the schema root through a chain of
//     "properties" keywords alone (not the root itself, and not through
//     items, $defs, allOf/anyOf/oneOf/not, if/then/else, $ref targets or
//     any other keyword);
//   - sits on a property whose "type" is "string", "integer" or "boolean",
//     or an array of one of these and "null" (a null argument sends no
//     header); "number", "object", "array", "null" and a missing type are
//     refused;
//   - differs from every other annotation of the schema when compared
//     case-insensitively.
//
// The first annotation found to break a rule is reported as an
// *AnnotationError. An "x-mcp-header" member is an annotation wherever it
// is a keyword of a schema object, including the subschemas of keywords this
// package does not know; inside const, default, enum and examples it is
// data and is ignored. An inputSchema that is not valid JSON (with unique
// member names and valid UTF-8) is an error too; one that is empty has no
// annotations.
func ParseTool(inputSchema jsontext.Value) (Params, error) {
	if len(inputSchema) == 0 {
		return nil, nil
	}
	w := walker{d: jsontext.NewDecoder(bytes.NewReader(inputSchema)), names: map[string]string{}}
	if err := w.schema("", nil, true); err != nil {
		return nil, w.wrap(err)
	}
	if _, err := w.d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return nil, w.wrap(err)
	}
	return w.found, nil
}

// walker reads a schema once, in order, and collects its annotations.
type walker struct {
	d     *jsontext.Decoder
	found Params
	// names maps each annotation name, lower-cased, to its pointer.
	names map[string]string
}

// wrap says that a JSON error is about the inputSchema; an
// *AnnotationError passes through.
func (w *walker) wrap(err error) error {
	var ae *AnnotationError
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("inputSchema is not valid JSON: %w", err)
}

// schema reads the next value as a schema at ptr. reachable reports whether
// a chain of "properties" alone leads to it from the root, and path is that
// chain of property names.
func (w *walker) schema(ptr string, path []string, reachable bool) error {
	if w.d.PeekKind() != '{' {
		return w.d.SkipValue()
	}
	if _, err := w.d.ReadToken(); err != nil {
		return err
	}
	var ann, typ jsontext.Value
	for w.d.PeekKind() != '}' {
		tok, err := w.d.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		at := ptr + "/" + escape(name)
		switch {
		case name == "x-mcp-header":
			ann, err = w.d.ReadValue()
			ann = bytes.Clone(ann)
		case name == "type":
			typ, err = w.d.ReadValue()
			typ = bytes.Clone(typ)
		case nameMaps[name]:
			err = w.members(at, path, reachable && name == "properties")
		case dataKeywords[name]:
			err = w.d.SkipValue()
		default:
			err = w.subschemas(at)
		}
		if err != nil {
			return err
		}
	}
	if _, err := w.d.ReadToken(); err != nil {
		return err
	}
	if ann != nil {
		return w.annotation(ptr, path, reachable, ann, typ)
	}
	return nil
}

// members reads the next value as an object whose members are subschemas
// named by property names (or other names that are not keywords).
func (w *walker) members(ptr string, path []string, reachable bool) error {
	if w.d.PeekKind() != '{' {
		return w.subschemas(ptr)
	}
	if _, err := w.d.ReadToken(); err != nil {
		return err
	}
	for w.d.PeekKind() != '}' {
		tok, err := w.d.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		var sub []string
		if reachable {
			sub = append(path[:len(path):len(path)], name)
		}
		if err := w.schema(ptr+"/"+escape(name), sub, reachable); err != nil {
			return err
		}
	}
	_, err := w.d.ReadToken()
	return err
}

// subschemas reads the next value as a subschema that is not statically
// reachable, or an array of them (nested arrays included); scalars are
// skipped.
func (w *walker) subschemas(ptr string) error {
	switch w.d.PeekKind() {
	case '{':
		return w.schema(ptr, nil, false)
	case '[':
		if _, err := w.d.ReadToken(); err != nil {
			return err
		}
		for i := 0; w.d.PeekKind() != ']'; i++ {
			if err := w.subschemas(ptr + "/" + strconv.Itoa(i)); err != nil {
				return err
			}
		}
		_, err := w.d.ReadToken()
		return err
	default:
		return w.d.SkipValue()
	}
}

// annotation checks the annotation ann of the schema at ptr, whose "type"
// is typ (nil when it has none), and records it.
func (w *walker) annotation(ptr string, path []string, reachable bool, ann, typ jsontext.Value) error {
	at := ptr + "/x-mcp-header"
	fail := func(format string, args ...any) error {
		return &AnnotationError{Pointer: at, Problem: fmt.Sprintf(format, args...)}
	}
	if ann.Kind() != '"' {
		return fail("the value is %s, not a string", ann)
	}
	var name string
	if err := json.Unmarshal(ann, &name); err != nil {
		return fail("the value %s: %v", ann, err)
	}
	if name == "" {
		return fail("the header name is empty")
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c < 0x20 || c == 0x7f:
			return fail("the header name %q has the control character %#02x", name, c)
		case c >= 0x80:
			return fail("the header name %q has a non-ASCII character", name)
		case !isTchar(c):
			return fail("the header name %q has %q, which is not an HTTP token character", name, c)
		}
	}
	if ptr == "" {
		return fail("it is on the schema root, not on a property")
	}
	if !reachable {
		return fail("its property is not reached from the schema root through \"properties\" alone")
	}
	kind, problem := headerType(typ)
	if problem != "" {
		return fail("%s; x-mcp-header needs type string, integer or boolean", problem)
	}
	key := strings.ToLower(name)
	if first, dup := w.names[key]; dup {
		return fail("the header name %q is already used at %s (names compare case-insensitively)", name, first)
	}
	w.names[key] = at
	w.found = append(w.found, Param{Name: name, Path: path, Type: kind})
	return nil
}

// headerType returns the primitive type that the "type" keyword typ allows,
// or says why typ does not allow exactly one of string, integer or boolean.
func headerType(typ jsontext.Value) (kind, problem string) {
	if typ == nil {
		return "", "the property has no type"
	}
	var types []string
	switch typ.Kind() {
	case '"':
		var t string
		if err := json.Unmarshal(typ, &t); err != nil {
			return "", fmt.Sprintf("the property's type %s: %v", typ, err)
		}
		types = []string{t}
	case '[':
		if err := json.Unmarshal(typ, &types); err != nil {
			return "", fmt.Sprintf("the property's type %s is not an array of strings", typ)
		}
	default:
		return "", fmt.Sprintf("the property's type is %s", typ)
	}
	single := typ.Kind() == '"'
	for _, t := range types {
		switch t {
		case "string", "integer", "boolean":
			if kind != "" {
				return "", fmt.Sprintf("the property's type %s allows both %q and %q", typ, kind, t)
			}
			kind = t
		case "null":
		default:
			if single {
				return "", fmt.Sprintf("the property's type is %s", typ)
			}
			return "", fmt.Sprintf("the property's type %s allows %q", typ, t)
		}
	}
	if kind == "" {
		if single {
			return "", fmt.Sprintf("the property's type is %s", typ)
		}
		return "", fmt.Sprintf("the property's type %s allows none of them", typ)
	}
	return kind, ""
}

// isTchar reports whether c may appear in an HTTP token (RFC 9110 §5.6.2).
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// escape returns name as a JSON Pointer reference token.
func escape(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// pointer returns the JSON Pointer of path.
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(escape(p))
	}
	return b.String()
}

// Headers returns the Mcp-Param headers a client sends with a tools/call
// whose arguments are arguments (the object params.arguments; nil when the
// call has none). For each annotation, the argument at its path is
//   - absent or null: no header;
//   - a string: [Encode]d, so that a value that is not header-safe travels
//     in the Base64 sentinel form;
//   - an integer: its decimal digits, such as "42" or "-7" (42.0 and 4.2e1
//     are the integer 42); it must lie within ±(2^53-1);
//   - true or false: "true" or "false".
//
// Any other argument (a fraction, an object, an array) is an error, as are
// arguments that are not valid JSON. The header names are in canonical
// form (Mcp-Param-Region); the result is never nil.
func (ps Params) Headers(arguments jsontext.Value) (http.Header, error) {
	h := make(http.Header, len(ps))
	if len(ps) == 0 {
		return h, nil
	}
	if len(arguments) > 0 && !arguments.IsValid() {
		return nil, errors.New("mcpheader: the arguments are not valid JSON (with unique member names and valid UTF-8)")
	}
	for _, p := range ps {
		v, ok := lookup(arguments, p.Path)
		if !ok || v.Kind() == 'n' {
			continue
		}
		s, err := argumentValue(v)
		if err != nil {
			return nil, fmt.Errorf("mcpheader: %s from arguments%s: %w", p.Header(), pointer(p.Path), err)
		}
		h.Set(p.Header(), s)
	}
	return h, nil
}

// argumentValue returns the header value of the argument v.
func argumentValue(v jsontext.Value) (string, error) {
	switch v.Kind() {
	case '"':
		s, err := jsontext.AppendUnquote(nil, v)
		if err != nil {
			return "", err
		}
		return Encode(string(s)), nil
	case 't':
		return "true", nil
	case 'f':
		return "false", nil
	case '0':
		d, err := parseDecimal(string(v))
		if err != nil {
			return "", fmt.Errorf("the number %s: %w", v, err)
		}
		n, ok := d.integer()
		if !ok {
			return "", fmt.Errorf("the number %s is not an integer within ±(2^53-1)", v)
		}
		return strconv.FormatInt(n, 10), nil
	default:
		return "", fmt.Errorf("the argument is %s; a header carries only a string, an integer or a boolean", wire.KindPhrase(v.Kind()))
	}
}

// lookup returns the value at path inside v, following object members.
func lookup(v jsontext.Value, path []string) (jsontext.Value, bool) {
	if len(v) == 0 {
		return nil, false
	}
	for _, name := range path {
		var ok bool
		if v, ok = wire.Member(v, name); !ok {
			return nil, false
		}
	}
	return v, true
}
