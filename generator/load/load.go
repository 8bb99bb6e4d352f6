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
	"slices"
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

// Schema is one schema object. Every keyword has a decided treatment
// (Keywords): the structural ones shape it, assertions are kept in Checks,
// annotations in the fields below, and the unsupported ones fail loading.
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
	// AnyOf holds the members of "anyOf", or of "oneOf" (OneOf is then set):
	// both become a sealed union whose decoding picks exactly one variant.
	AnyOf []*Schema
	OneOf bool
	AllOf []*Schema
	Const jsontext.Value // nil when absent
	Enum  []jsontext.Value

	// Checks are the assertions on values.
	Checks Checks

	// Annotations.
	Title      string
	Default    jsontext.Value // nil when absent
	Deprecated bool
	ReadOnly   bool
	WriteOnly  bool
	// Extensions are the "x-…" keywords, in file order.
	Extensions []*Extension
	// Shape is the compact JSON of the schema without its own "$schema",
	// "description", "title" and "$comment": two schemas of the same Shape
	// accept the same values, as when Zod inlines a copy of a definition.
	Shape string
}

// Checks are the assertion keywords of a schema (nil or zero when absent).
type Checks struct {
	Format           string
	MinLength        *int64
	MaxLength        *int64
	Pattern          string
	Minimum          *float64
	Maximum          *float64
	ExclusiveMinimum *float64
	ExclusiveMaximum *float64
	MultipleOf       *float64
	MinItems         *int64
	MaxItems         *int64
	UniqueItems      bool
	MinProperties    *int64
	MaxProperties    *int64
	// DependentRequired maps a member to the members it requires, sorted by
	// member.
	DependentRequired []*Dependency
}

// IsZero reports whether c asserts nothing.
func (c *Checks) IsZero() bool {
	return c.Format == "" && c.MinLength == nil && c.MaxLength == nil && c.Pattern == "" &&
		c.Minimum == nil && c.Maximum == nil && c.ExclusiveMinimum == nil && c.ExclusiveMaximum == nil &&
		c.MultipleOf == nil && c.MinItems == nil && c.MaxItems == nil && !c.UniqueItems &&
		c.MinProperties == nil && c.MaxProperties == nil && len(c.DependentRequired) == 0
}

// Dependency is one entry of "dependentRequired".
type Dependency struct {
	Member   string
	Requires []string
}

// Extension is one "x-…" keyword and its value.
type Extension struct {
	Name  string
	Value jsontext.Value
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
		s.Const == nil && len(s.Enum) == 0 && s.Checks.IsZero()
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
		kp := "#/" + escape(m.name)
		switch m.name {
		case "$schema":
		case doc.DefsKeyword:
			defs = m.value
		case "$id", "$comment", "title", "description":
			if _, ok := m.value.str(); !ok {
				return nil, l.errorf(kp, "keyword %q: want a string", m.name)
			}
		default:
			if k, ok := LookupKeyword(m.name); ok && k.Name == m.name && strings.HasPrefix(m.name, "x-") {
				continue
			}
			return nil, l.errorf(kp, "keyword %q is not supported at the top level (a schema file holds %q and %q, and annotations)", m.name, "$schema", doc.DefsKeyword)
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
		ptr := "#/" + doc.DefsKeyword + "/" + escape(m.name)
		n, err := l.ownDialect(m.value, ptr, doc.Dialect)
		if err != nil {
			return nil, err
		}
		s, err := l.schema(n, ptr)
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

// ownDialect returns the definition n without its "$schema" when that names
// the file's dialect, as Zod's toJSONSchema writes on every definition. A
// definition of another dialect is an error: its keywords would mean
// something else.
func (l *loader) ownDialect(n *node, ptr string, dialect Dialect) (*node, error) {
	if n.kind != '{' {
		return n, nil
	}
	i := slices.IndexFunc(n.members, func(m member) bool { return m.name == "$schema" })
	if i < 0 {
		return n, nil
	}
	d, ok := n.members[i].value.str()
	if !ok {
		return nil, l.errorf(ptr+"/$schema", `keyword "$schema": want a string`)
	}
	if Dialect(d) != dialect {
		return nil, l.errorf(ptr+"/$schema", `keyword "$schema": dialect %q differs from the file's %q; a definition of another dialect is not supported`, d, dialect)
	}
	cp := *n
	cp.members = slices.Delete(slices.Clone(n.members), i, i+1)
	return &cp, nil
}

// isNotAnything reports whether n is {"not": {}} (or {"not": true}), the
// schema Zod writes for false: it accepts nothing.
func isNotAnything(n *node) bool {
	if n.kind != '{' || len(n.members) != 1 || n.members[0].name != "not" {
		return false
	}
	v := n.members[0].value
	return v.kind == 't' || v.kind == '{' && len(v.members) == 0
}

// isStringNames reports whether the "propertyNames" schema n asserts nothing
// more than that member names are strings, which they always are: {}, true,
// or {"type": "string"}.
func isStringNames(n *node) bool {
	switch {
	case n.kind == 't':
		return true
	case n.kind != '{':
		return false
	case len(n.members) == 0:
		return true
	}
	t, ok := n.members[0].value.str()
	return len(n.members) == 1 && n.members[0].name == "type" && ok && t == "string"
}

func (l *loader) schema(n *node, ptr string) (*Schema, error) {
	s := &Schema{Pointer: ptr}
	if isNotAnything(n) {
		f := false
		s.Bool = &f
		return s, nil
	}
	switch n.kind {
	case 't', 'f':
		b := n.kind == 't'
		s.Bool = &b
		return s, nil
	case '{':
	default:
		return nil, l.errorf(ptr, "a schema must be an object or a boolean, got %s", n.kindName())
	}
	var shape []byte
	for _, m := range n.members {
		kp := ptr + "/" + escape(m.name)
		if err := l.keyword(s, m.name, m.value, kp); err != nil {
			return nil, err
		}
		switch m.name {
		case "$schema", "description", "title", "$comment":
		default:
			if len(shape) > 0 {
				shape = append(shape, ',')
			}
			shape, _ = jsontext.AppendQuote(shape, m.name)
			shape = append(shape, ':')
			v := m.value.raw.Clone()
			if err := v.Compact(); err != nil {
				return nil, l.errorf(kp, "%v", err)
			}
			shape = append(shape, v...)
		}
	}
	s.Shape = "{" + string(shape) + "}"
	if err := l.distribute(s); err != nil {
		return nil, err
	}
	constsAsEnum(s)
	if s.Ref != "" {
		for _, m := range n.members {
			if k, _ := LookupKeyword(m.name); m.name != "$ref" && k.Treatment != Annotation {
				return nil, l.errorf(ptr+"/"+escape(m.name), "keyword %q next to \"$ref\" is not supported (only annotations may be)", m.name)
			}
		}
	}
	return s, nil
}

// distribute rewrites allOf [A, {anyOf [B, C]}] as anyOf [allOf [A, B],
// allOf [A, C]], the union of objects that share A's members, as Zod writes
// a TypeScript intersection of a type and a union. Each variant keeps the
// JSON pointer of its anyOf member. Only one part may be a union: the
// product of two unions has no declared variant names.
func (l *loader) distribute(s *Schema) error {
	i := slices.IndexFunc(s.AllOf, func(p *Schema) bool { return len(p.AnyOf) > 0 })
	if i < 0 {
		return nil
	}
	u := s.AllOf[i]
	if j := slices.IndexFunc(s.AllOf[i+1:], func(p *Schema) bool { return len(p.AnyOf) > 0 }); j >= 0 {
		return l.errorf(s.AllOf[i+1+j].Pointer, `keyword "allOf": more than one part is a union ("anyOf" or "oneOf"), which is not supported`)
	}
	if len(s.AnyOf) > 0 {
		return l.errorf(u.Pointer, `keyword "allOf": a part that is a union next to "anyOf" or "oneOf" is not supported`)
	}
	if !u.onlyUnion() {
		return l.errorf(u.Pointer, `keyword "allOf": a part that is a union ("anyOf" or "oneOf") with other keywords is not supported`)
	}
	for _, v := range u.AnyOf {
		parts := slices.Clone(s.AllOf)
		parts[i] = v
		s.AnyOf = append(s.AnyOf, &Schema{Pointer: v.Pointer, AllOf: parts})
	}
	s.OneOf = u.OneOf
	s.AllOf = nil
	return nil
}

// constsAsEnum rewrites anyOf [{"type": T, "const": a}, {"type": T, "const":
// b}] as {"type": T, "enum": [a, b]}, as Zod writes a TypeScript union of
// literals. A member with anything else (a description of its own) keeps the
// union.
func constsAsEnum(s *Schema) {
	if len(s.AnyOf) == 0 || len(s.Types) > 0 || len(s.Enum) > 0 || s.Const != nil {
		return
	}
	var types []string
	var values []jsontext.Value
	for i, m := range s.AnyOf {
		cp := *m
		cp.Const, cp.Types, cp.Pointer, cp.Shape = nil, nil, "", ""
		if m.Const == nil || !cp.IsEmpty() || cp.Description != "" || cp.Title != "" || cp.Default != nil || len(cp.Extensions) > 0 || cp.Deprecated {
			return
		}
		if i > 0 && !slices.Equal(m.Types, types) {
			return
		}
		types = m.Types
		values = append(values, m.Const)
	}
	s.Types, s.Enum, s.AnyOf, s.OneOf = types, values, nil, false
}

// onlyUnion reports whether s is a union and annotations.
func (s *Schema) onlyUnion() bool {
	cp := *s
	cp.AnyOf, cp.OneOf, cp.Description, cp.Title, cp.Pointer = nil, false, "", "", ""
	return cp.IsEmpty() && cp.Bool == nil
}

// keyword loads one keyword of the schema s.
func (l *loader) keyword(s *Schema, name string, v *node, kp string) error {
	k, ok := LookupKeyword(name)
	switch {
	case name == "propertyNames" && isStringNames(v):
		// Every member name is a string: Zod writes this on every record.
		return nil
	case !ok:
		return l.errorf(kp, "keyword %q is not a keyword of JSON Schema draft-07 or 2020-12 (extension keywords start with \"x-\")", name)
	case k.Treatment == Unsupported:
		return l.errorf(kp, "keyword %q is not supported: %s", name, k.Why)
	case k.Where == "top":
		return l.errorf(kp, "keyword %q is only supported at the root of the schema file", name)
	}
	if strings.HasPrefix(name, "x-") {
		s.Extensions = append(s.Extensions, &Extension{Name: name, Value: v.raw})
		return nil
	}
	str := func() (string, error) {
		t, ok := v.str()
		if !ok {
			return "", l.errorf(kp, "keyword %q: want a string", name)
		}
		return t, nil
	}
	boolean := func() (bool, error) {
		if v.kind != 't' && v.kind != 'f' {
			return false, l.errorf(kp, "keyword %q: want a boolean", name)
		}
		return v.kind == 't', nil
	}
	number := func() (*float64, error) {
		if v.kind != '0' {
			return nil, l.errorf(kp, "keyword %q: want a number", name)
		}
		f, err := strconv.ParseFloat(string(v.raw), 64)
		if err != nil {
			return nil, l.errorf(kp, "keyword %q: %v", name, err)
		}
		return &f, nil
	}
	count := func() (*int64, error) {
		f, err := number()
		if err != nil {
			return nil, err
		}
		if *f < 0 || *f != float64(int64(*f)) {
			return nil, l.errorf(kp, "keyword %q: want a non-negative integer, got %s", name, v.raw)
		}
		n := int64(*f)
		return &n, nil
	}
	var err error
	switch name {
	case "$ref":
		r, ok := v.str()
		if !ok {
			return l.errorf(kp, `keyword "$ref": want a string`)
		}
		if !strings.HasPrefix(r, l.refPrefix) {
			return l.errorf(kp, `keyword "$ref": reference %q is not of the form %q`, r, l.refPrefix+"Name")
		}
		ref := strings.TrimPrefix(r, l.refPrefix)
		if !l.names[ref] {
			return l.errorf(kp, `keyword "$ref": definition %q does not exist`, ref)
		}
		s.Ref = ref
	case "type":
		switch v.kind {
		case '"':
			t, _ := v.str()
			s.Types = []string{t}
		case '[':
			for _, e := range v.elems {
				t, ok := e.str()
				if !ok {
					return l.errorf(kp, `keyword "type": want strings in the array`)
				}
				s.Types = append(s.Types, t)
			}
		default:
			return l.errorf(kp, `keyword "type": want a string or an array of strings`)
		}
		for _, t := range s.Types {
			if !knownTypes[t] {
				return l.errorf(kp, `keyword "type": type %q is not supported`, t)
			}
		}
	case "description":
		s.Description, err = str()
	case "title":
		s.Title, err = str()
	case "$comment":
		_, err = str()
	case "default":
		s.Default = v.raw.Clone()
		err = s.Default.Compact()
	case "examples":
		if v.kind != '[' {
			return l.errorf(kp, `keyword "examples": want an array`)
		}
	case "deprecated":
		s.Deprecated, err = boolean()
	case "readOnly":
		s.ReadOnly, err = boolean()
	case "writeOnly":
		s.WriteOnly, err = boolean()
	case "contentEncoding", "contentMediaType":
		_, err = str()
	case "contentSchema":
	case "properties":
		if v.kind != '{' {
			return l.errorf(kp, `keyword "properties": want an object`)
		}
		for _, pm := range v.members {
			ps, err := l.schema(pm.value, kp+"/"+escape(pm.name))
			if err != nil {
				return err
			}
			s.Properties = append(s.Properties, &Property{Name: pm.name, Schema: ps})
		}
	case "required":
		s.Required, err = l.strings(v, kp, name)
	case "additionalProperties", "items":
		if name == "items" && v.kind == '[' {
			return l.errorf(kp, `keyword "items": tuple form is not supported`)
		}
		sub, err := l.schema(v, kp)
		if err != nil {
			return err
		}
		if name == "items" {
			s.Items = sub
		} else {
			s.AdditionalProperties = sub
		}
	case "anyOf", "oneOf", "allOf":
		if v.kind != '[' || len(v.elems) == 0 {
			return l.errorf(kp, "keyword %q: want a non-empty array of schemas", name)
		}
		var list []*Schema
		for i, e := range v.elems {
			sub, err := l.schema(e, kp+"/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			list = append(list, sub)
		}
		switch {
		case name == "allOf":
			s.AllOf = list
		case s.AnyOf != nil:
			return l.errorf(kp, `keywords "anyOf" and "oneOf" together are not supported`)
		default:
			s.AnyOf = list
			s.OneOf = name == "oneOf"
		}
	case "const":
		c := v.raw.Clone()
		if err := c.Compact(); err != nil {
			return l.errorf(kp, `keyword "const": %v`, err)
		}
		s.Const = c
	case "enum":
		if v.kind != '[' || len(v.elems) == 0 {
			return l.errorf(kp, `keyword "enum": want a non-empty array`)
		}
		for _, e := range v.elems {
			s.Enum = append(s.Enum, e.raw)
		}
	case "format":
		s.Checks.Format, err = str()
	case "pattern":
		s.Checks.Pattern, err = str()
	case "minimum":
		s.Checks.Minimum, err = number()
	case "maximum":
		s.Checks.Maximum, err = number()
	case "exclusiveMinimum":
		s.Checks.ExclusiveMinimum, err = number()
	case "exclusiveMaximum":
		s.Checks.ExclusiveMaximum, err = number()
	case "multipleOf":
		s.Checks.MultipleOf, err = number()
		if err == nil && *s.Checks.MultipleOf <= 0 {
			return l.errorf(kp, `keyword "multipleOf": want a number greater than 0`)
		}
	case "minLength":
		s.Checks.MinLength, err = count()
	case "maxLength":
		s.Checks.MaxLength, err = count()
	case "minItems":
		s.Checks.MinItems, err = count()
	case "maxItems":
		s.Checks.MaxItems, err = count()
	case "minProperties":
		s.Checks.MinProperties, err = count()
	case "maxProperties":
		s.Checks.MaxProperties, err = count()
	case "uniqueItems":
		s.Checks.UniqueItems, err = boolean()
	case "dependentRequired":
		if v.kind != '{' {
			return l.errorf(kp, `keyword "dependentRequired": want an object`)
		}
		for _, dm := range v.members {
			req, err := l.strings(dm.value, kp+"/"+escape(dm.name), name)
			if err != nil {
				return err
			}
			s.Checks.DependentRequired = append(s.Checks.DependentRequired, &Dependency{Member: dm.name, Requires: req})
		}
		slices.SortFunc(s.Checks.DependentRequired, func(a, b *Dependency) int { return strings.Compare(a.Member, b.Member) })
	default:
		// A keyword of the table that this switch does not load is a bug.
		return l.errorf(kp, "keyword %q (%s) is not loaded; this is a bug in mcpgen", name, k.Treatment)
	}
	return err
}

// strings reads an array of strings.
func (l *loader) strings(v *node, kp, name string) ([]string, error) {
	if v.kind != '[' {
		return nil, l.errorf(kp, "keyword %q: want an array of strings", name)
	}
	out := []string{}
	for _, e := range v.elems {
		r, ok := e.str()
		if !ok {
			return nil, l.errorf(kp, "keyword %q: want an array of strings", name)
		}
		out = append(out, r)
	}
	return out, nil
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
