// Package load reads an MCP revision's JSON Schema file into a Document: an
// ordered, typed tree of the keywords MCP uses. Anything outside that
// vocabulary is an error naming the keyword and its JSON pointer, so that a new
// revision that needs new generator support is never mis-generated silently.
//
// Both dialects MCP has used are read: draft-07 with "definitions" and
// "#/definitions/" references, and 2020-12 with "$defs" and "#/$defs/".
package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Dialect is the JSON Schema dialect of a schema file.
type Dialect string

// The dialects MCP schema files use.
const (
	Draft07     Dialect = "http://json-schema.org/draft-07/schema#"
	Draft202012 Dialect = "https://json-schema.org/draft/2020-12/schema"
)

// Document is a loaded schema file.
type Document struct {
	// Path is the file name used in error messages.
	Path string
	// SHA256 is the hex sha256 of the file's bytes.
	SHA256 string
	// Raw is the file's bytes.
	Raw []byte
	// Dialect is the value of "$schema".
	Dialect Dialect
	// DefsKeyword is "definitions" (draft-07) or "$defs" (2020-12).
	DefsKeyword string
	// Definitions are the named schemas, in file order.
	Definitions []*Definition
}

// Definition is one named schema.
type Definition struct {
	Name   string
	Schema *Schema
}

// Lookup returns the definition called name.
func (d *Document) Lookup(name string) (*Definition, bool) {
	for _, def := range d.Definitions {
		if def.Name == name {
			return def, true
		}
	}
	return nil, false
}

// Schema is one schema object, restricted to the keywords MCP uses.
type Schema struct {
	// Pointer is the JSON pointer of this schema in the file, such as
	// "#/definitions/Tool/properties/name".
	Pointer string
	// Bool is set for the boolean schemas true and false; then nothing else is.
	Bool *bool

	Ref         string   // definition name of "$ref", already resolved to a name
	Types       []string // "type", as a list even when written as a string
	Description string
	Properties  []*Property // "properties", in file order
	Required    []string
	// AdditionalProperties is the "additionalProperties" schema, or nil when
	// the keyword is absent. true and false are boolean schemas.
	AdditionalProperties *Schema
	Items                *Schema
	AnyOf                []*Schema
	AllOf                []*Schema
	Const                jsontext.Value // nil when absent
	Enum                 []jsontext.Value
	Format               string
	Minimum              *float64
	Maximum              *float64
}

// Property is one entry of "properties".
type Property struct {
	Name   string
	Schema *Schema
}

// IsRequired reports whether name is listed in "required".
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// Property returns the property called name.
func (s *Schema) Property(name string) (*Schema, bool) {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema, true
		}
	}
	return nil, false
}

// IsEmpty reports whether s accepts anything: true, or {} (description aside).
func (s *Schema) IsEmpty() bool {
	if s.Bool != nil {
		return *s.Bool
	}
	return s.Ref == "" && len(s.Types) == 0 && len(s.Properties) == 0 && len(s.Required) == 0 &&
		s.AdditionalProperties == nil && s.Items == nil && len(s.AnyOf) == 0 && len(s.AllOf) == 0 &&
		s.Const == nil && len(s.Enum) == 0 && s.Format == "" && s.Minimum == nil && s.Maximum == nil
}

// Error is a load error: a place in the file and what is wrong there.
type Error struct {
	Path    string // file name
	Pointer string // JSON pointer, "#/..."
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Path, e.Pointer, e.Msg)
}

// File reads and loads the schema file at path.
func File(path string) (*Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	return Bytes(path, b)
}

// knownTypes are the values "type" may take.
var knownTypes = map[string]bool{"object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true, "null": true}

// knownFormats are the values "format" may take in MCP schemas.
var knownFormats = map[string]bool{"uri": true, "uri-template": true, "byte": true, "date": true, "date-time": true, "email": true}

// Bytes loads a schema from data; path names it in errors.
func Bytes(path string, data []byte) (*Document, error) {
	sum := sha256.Sum256(data)
	root, err := parse(data)
	if err != nil {
		return nil, &Error{Path: path, Pointer: "#", Msg: err.Error()}
	}
	l := &loader{path: path}
	doc := &Document{Path: path, SHA256: hex.EncodeToString(sum[:]), Raw: data}
	if root.kind != '{' {
		return nil, l.errorf("#", "schema file must be a JSON object")
	}
	// The dialect decides the definitions keyword and the reference prefix.
	for _, m := range root.members {
		if m.name == "$schema" {
			s, ok := m.value.str()
			if !ok {
				return nil, l.errorf("#/$schema", "want a string")
			}
			doc.Dialect = Dialect(s)
		}
	}
	switch doc.Dialect {
	case Draft07:
		doc.DefsKeyword = "definitions"
	case Draft202012:
		doc.DefsKeyword = "$defs"
	case "":
		return nil, l.errorf("#", `missing "$schema": the dialect must be named`)
	default:
		return nil, l.errorf("#/$schema", "dialect %q is not supported (want %q or %q)", doc.Dialect, Draft07, Draft202012)
	}
	l.refPrefix = "#/" + doc.DefsKeyword + "/"
	var defs *node
	for _, m := range root.members {
		switch m.name {
		case "$schema":
		case doc.DefsKeyword:
			defs = m.value
		default:
			return nil, l.errorf("#/"+escape(m.name), "keyword %q is not supported at the top level", m.name)
		}
	}
	if defs == nil || defs.kind != '{' {
		return nil, l.errorf("#", "missing %q object", doc.DefsKeyword)
	}
	l.names = map[string]bool{}
	for _, m := range defs.members {
		l.names[m.name] = true
	}
	for _, m := range defs.members {
		s, err := l.schema(m.value, "#/"+doc.DefsKeyword+"/"+escape(m.name))
		if err != nil {
			return nil, err
		}
		doc.Definitions = append(doc.Definitions, &Definition{Name: m.name, Schema: s})
	}
	return doc, nil
}

type loader struct {
	path      string
	refPrefix string
	names     map[string]bool
}

func (l *loader) errorf(ptr, format string, args ...any) error {
	return &Error{Path: l.path, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

func escape(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

func (l *loader) schema(n *node, ptr string) (*Schema, error) {
	s := &Schema{Pointer: ptr}
	switch n.kind {
	case 't', 'f':
		b := n.kind == 't'
		s.Bool = &b
		return s, nil
	case '{':
	default:
		return nil, l.errorf(ptr, "a schema must be an object or a boolean, got %s", n.kindName())
	}
	for _, m := range n.members {
		kp := ptr + "/" + escape(m.name)
		v := m.value
		switch m.name {
		case "$ref":
			r, ok := v.str()
			if !ok {
				return nil, l.errorf(kp, `keyword "$ref": want a string`)
			}
			if !strings.HasPrefix(r, l.refPrefix) {
				return nil, l.errorf(kp, `keyword "$ref": reference %q is not of the form %q`, r, l.refPrefix+"Name")
			}
			name := strings.TrimPrefix(r, l.refPrefix)
			if !l.names[name] {
				return nil, l.errorf(kp, `keyword "$ref": definition %q does not exist`, name)
			}
			s.Ref = name
		case "type":
			switch v.kind {
			case '"':
				t, _ := v.str()
				s.Types = []string{t}
			case '[':
				for _, e := range v.elems {
					t, ok := e.str()
					if !ok {
						return nil, l.errorf(kp, `keyword "type": want strings in the array`)
					}
					s.Types = append(s.Types, t)
				}
			default:
				return nil, l.errorf(kp, `keyword "type": want a string or an array of strings`)
			}
			for _, t := range s.Types {
				if !knownTypes[t] {
					return nil, l.errorf(kp, `keyword "type": type %q is not supported`, t)
				}
			}
		case "description":
			d, ok := v.str()
			if !ok {
				return nil, l.errorf(kp, `keyword "description": want a string`)
			}
			s.Description = d
		case "properties":
			if v.kind != '{' {
				return nil, l.errorf(kp, `keyword "properties": want an object`)
			}
			for _, pm := range v.members {
				ps, err := l.schema(pm.value, kp+"/"+escape(pm.name))
				if err != nil {
					return nil, err
				}
				s.Properties = append(s.Properties, &Property{Name: pm.name, Schema: ps})
			}
		case "required":
			if v.kind != '[' {
				return nil, l.errorf(kp, `keyword "required": want an array of strings`)
			}
			for _, e := range v.elems {
				r, ok := e.str()
				if !ok {
					return nil, l.errorf(kp, `keyword "required": want an array of strings`)
				}
				s.Required = append(s.Required, r)
			}
		case "additionalProperties", "items":
			sub, err := l.schema(v, kp)
			if err != nil {
				return nil, err
			}
			if m.name == "items" {
				if v.kind == '[' {
					return nil, l.errorf(kp, `keyword "items": tuple form is not supported`)
				}
				s.Items = sub
			} else {
				s.AdditionalProperties = sub
			}
		case "anyOf", "allOf":
			if v.kind != '[' || len(v.elems) == 0 {
				return nil, l.errorf(kp, "keyword %q: want a non-empty array of schemas", m.name)
			}
			var list []*Schema
			for i, e := range v.elems {
				sub, err := l.schema(e, kp+"/"+strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				list = append(list, sub)
			}
			if m.name == "anyOf" {
				s.AnyOf = list
			} else {
				s.AllOf = list
			}
		case "const":
			c := v.raw.Clone()
			if err := c.Compact(); err != nil {
				return nil, l.errorf(kp, `keyword "const": %v`, err)
			}
			s.Const = c
		case "enum":
			if v.kind != '[' || len(v.elems) == 0 {
				return nil, l.errorf(kp, `keyword "enum": want a non-empty array`)
			}
			for _, e := range v.elems {
				s.Enum = append(s.Enum, e.raw)
			}
		case "format":
			f, ok := v.str()
			if !ok {
				return nil, l.errorf(kp, `keyword "format": want a string`)
			}
			if !knownFormats[f] {
				return nil, l.errorf(kp, `keyword "format": format %q is not supported`, f)
			}
			s.Format = f
		case "minimum", "maximum":
			if v.kind != '0' {
				return nil, l.errorf(kp, "keyword %q: want a number", m.name)
			}
			f, err := strconv.ParseFloat(string(v.raw), 64)
			if err != nil {
				return nil, l.errorf(kp, "keyword %q: %v", m.name, err)
			}
			if m.name == "minimum" {
				s.Minimum = &f
			} else {
				s.Maximum = &f
			}
		default:
			return nil, l.errorf(kp, "keyword %q is not supported", m.name)
		}
	}
	if s.Ref != "" && len(n.members) > 1 {
		for _, m := range n.members {
			if m.name != "$ref" && m.name != "description" {
				return nil, l.errorf(ptr+"/"+escape(m.name), "keyword %q next to \"$ref\" is not supported", m.name)
			}
		}
	}
	return s, nil
}

// node is a parsed JSON value that keeps object member order.
type node struct {
	kind    jsontext.Kind
	raw     jsontext.Value
	members []member
	elems   []*node
}

type member struct {
	name  string
	value *node
}

func (n *node) str() (string, bool) {
	if n.kind != '"' {
		return "", false
	}
	u, err := jsontext.AppendUnquote(nil, n.raw)
	return string(u), err == nil
}

func (n *node) kindName() string {
	switch n.kind {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 'n':
		return "null"
	}
	return "boolean"
}

func parse(data []byte) (*node, error) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	v = v.Clone()
	if _, err := d.ReadToken(); err == nil {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return build(v)
}

func build(v jsontext.Value) (*node, error) {
	n := &node{kind: v.Kind(), raw: v}
	d := jsontext.NewDecoder(bytes.NewReader(v))
	switch n.kind {
	case '{':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		for d.PeekKind() != '}' {
			t, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			name := t.String()
			raw, err := d.ReadValue()
			if err != nil {
				return nil, err
			}
			child, err := build(raw.Clone())
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{name: name, value: child})
		}
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		for d.PeekKind() != ']' {
			raw, err := d.ReadValue()
			if err != nil {
				return nil, err
			}
			child, err := build(raw.Clone())
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, child)
		}
	}
	return n, nil
}
