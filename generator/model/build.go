package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/generator/load"
)

// Error is a model error: a place in the schema and what is wrong there.
type Error struct {
	Path    string
	Pointer string
	Msg     string
}

func (e *Error) Error() string { return fmt.Sprintf("%s %s: %s", e.Path, e.Pointer, e.Msg) }

type builder struct {
	doc    *load.Document
	rev    string
	byName map[string]*Decl
	out    []*Decl
	used   map[any]bool // table entries that applied
	// byShape maps the shape (load.Schema.Shape) of a definition that no
	// other definition shares to its name, while filling the definitions of
	// an extension: an anonymous copy of a definition is that definition
	// (see typeOf). nil otherwise.
	byShape map[string]string
	// ext is set while building the model of an extension.
	ext *Extension
}

// Build turns a loaded schema into the model of revision rev.
func Build(rev string, doc *load.Document) (*Revision, error) {
	b := &builder{doc: doc, rev: rev, byName: map[string]*Decl{}, used: map[any]bool{}}
	if err := b.fillAll(len(doc.Definitions)); err != nil {
		return nil, err
	}
	return b.finish(rev, doc)
}

// fillAll fills every definition of b.doc, in file order; the anonymous
// copies in those from index shapes on are read as the definitions of the
// same shape (see typeOf).
func (b *builder) fillAll(shapes int) error {
	for _, def := range b.doc.Definitions {
		b.byName[def.Name] = &Decl{Name: def.Name, Pointer: def.Schema.Pointer, Doc: def.Schema.Description, Annotations: annotations(def.Schema)}
	}
	for i, def := range b.doc.Definitions {
		if i == shapes {
			b.byShape = uniqueShapes(b.doc.Definitions)
		}
		d := b.byName[def.Name]
		b.out = append(b.out, d)
		if err := b.fill(d, def.Schema); err != nil {
			return err
		}
	}
	b.byShape = nil
	return nil
}

// uniqueShapes maps the shape of each definition that no other one shares
// to its name.
func uniqueShapes(defs []*load.Definition) map[string]string {
	count := map[string]int{}
	for _, def := range defs {
		count[def.Schema.Shape]++
	}
	m := map[string]string{}
	for _, def := range defs {
		if s := def.Schema.Shape; s != "" && count[s] == 1 {
			m[s] = def.Name
		}
	}
	return m
}

// finish checks the filled declarations and derives the method table.
func (b *builder) finish(rev string, doc *load.Document) (*Revision, error) {
	for _, d := range b.out {
		seen := map[*Decl]bool{}
		for x := d; x.Kind == Alias && x.Target.Kind == Ref; x = x.Target.Decl {
			if seen[x] {
				return nil, b.errorf(d.Pointer, "definition %s is an alias of itself", d.Name)
			}
			seen[x] = true
		}
	}
	if err := b.flattenUnions(); err != nil {
		return nil, err
	}
	b.inheritMeta()
	r := &Revision{Name: rev, SHA256: doc.SHA256, Source: doc.Path, Schema: doc.Raw, Decls: b.out}
	if err := b.methods(r); err != nil {
		return nil, err
	}
	r.TableUse = b.tableUse()
	return r, nil
}

func (b *builder) errorf(ptr, format string, args ...any) error {
	return &Error{Path: b.doc.Path, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// hoist declares an anonymous type.
func (b *builder) hoist(name string, s *load.Schema) (*Decl, error) {
	if prev, ok := b.byName[name]; ok {
		return nil, b.errorf(s.Pointer, "the anonymous type here would be named %s, which %s already uses", name, prev.Pointer)
	}
	d := &Decl{Name: name, Pointer: s.Pointer, Doc: s.Description, Anonymous: true, Annotations: annotations(s)}
	b.byName[name] = d
	b.out = append(b.out, d)
	return d, b.fill(d, s)
}

// pascal turns a member name into a name part: "listChanged" → "ListChanged",
// "_meta" → "Meta", "$schema" → "Schema".
func pascal(s string) string {
	var out []rune
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		out = append(out, r)
	}
	return string(out)
}

// nonNull returns the types of s other than "null", and whether null is allowed.
func nonNull(s *load.Schema) ([]string, bool) {
	var ts []string
	null := false
	for _, t := range s.Types {
		if t == "null" {
			null = true
		} else {
			ts = append(ts, t)
		}
	}
	return ts, null
}

func isObject(s *load.Schema) bool {
	ts, _ := nonNull(s)
	return len(s.Properties) > 0 || (len(ts) == 1 && ts[0] == "object")
}

func (b *builder) fill(d *Decl, s *load.Schema) error {
	if err := b.fillKind(d, s); err != nil {
		return err
	}
	if d.Kind != Alias && !s.Checks.IsZero() {
		c := s.Checks
		d.Checks = &c
	}
	return nil
}

func (b *builder) fillKind(d *Decl, s *load.Schema) error {
	ts, null := nonNull(s)
	switch {
	case s.Bool != nil:
		d.Kind = Alias
		d.Target = &Type{Kind: RawValue}
	case len(s.AnyOf) > 0:
		d.Kind = Union
		return b.variants(d, s.AnyOf, s)
	case len(s.AllOf) > 0:
		d.Kind = Object
		return b.allOf(d, s)
	case len(s.Enum) > 0:
		return b.enum(d, s)
	case s.Const != nil && len(s.Properties) == 0:
		return b.enum(d, constAsEnum(s))
	case s.Ref != "":
		d.Kind = Alias
		d.Target = &Type{Kind: Ref, Decl: b.byName[s.Ref]}
	case len(ts) > 1 && !isIDTypes(ts):
		if null {
			return b.errorf(s.Pointer, `keyword "type": a nullable union %v is not supported`, s.Types)
		}
		d.Kind = Union
		return b.scalarVariants(d, s, ts)
	case isObject(s) && len(s.Properties) > 0:
		d.Kind = Object
		return b.object(d, s, s.Properties, s.Required, s.AdditionalProperties)
	case b.ext != nil && isObject(s) && s.AdditionalProperties != nil && s.AdditionalProperties.Bool != nil && !*s.AdditionalProperties.Bool:
		// An extension's object with no members (its capability, {}): a
		// closed object, every member an error.
		d.Kind = Object
		return b.object(d, s, nil, s.Required, s.AdditionalProperties)
	default:
		t, err := b.typeOf(s, d.Name)
		if err != nil {
			return err
		}
		if t.Nullable {
			return b.errorf(s.Pointer, `keyword "type": a nullable named type %v is not supported (only object members may be nullable)`, s.Types)
		}
		d.Kind = Alias
		d.Target = t
	}
	return nil
}

func isIDTypes(ts []string) bool {
	return len(ts) == 2 && slices.Contains(ts, "string") && slices.Contains(ts, "integer")
}

func (b *builder) enum(d *Decl, s *load.Schema) error {
	ts, null := nonNull(s)
	strs := !null && (len(ts) == 0 || len(ts) == 1 && ts[0] == "string")
	for _, v := range s.Enum {
		strs = strs && v.Kind() == '"'
	}
	if !strs {
		// Not a string enum: a scalar (or any JSON value) whose values the
		// codecs check against the set.
		t, err := b.valueSet(s)
		if err != nil {
			return err
		}
		d.Kind = Alias
		d.Target = t
		return nil
	}
	d.Kind = Enum
	for _, v := range s.Enum {
		u, _ := jsontext.AppendUnquote(nil, v)
		d.Values = append(d.Values, string(u))
	}
	return nil
}

// valueSet returns the type of an enum that is not a string enum: integers,
// numbers or booleans when every value is one and the schema's type agrees,
// else any JSON value (a mix of kinds, or null among them); Values holds the
// allowed values either way.
func (b *builder) valueSet(s *load.Schema) (*Type, error) {
	ts, null := nonNull(s)
	kinds := map[TypeKind]bool{}
	for _, v := range s.Enum {
		switch v.Kind() {
		case '0':
			if strings.ContainsAny(string(v), ".eE") {
				kinds[Number] = true
			} else {
				kinds[Integer] = true
			}
		case 't', 'f':
			kinds[Boolean] = true
		case '"':
			kinds[String] = true
		case 'n':
			null = true
		default:
			kinds[RawValue] = true
		}
	}
	if kinds[Integer] && kinds[Number] {
		delete(kinds, Integer) // 1 and 1.5: numbers
	}
	kind := RawValue
	if len(kinds) == 1 && !null {
		for k := range kinds {
			kind = k
		}
	}
	want := map[TypeKind]string{Integer: "integer", Number: "number", Boolean: "boolean", String: "string"}
	switch {
	case len(ts) > 1:
		kind = RawValue
	case len(ts) == 1 && kind != RawValue && want[kind] != ts[0] && !(kind == Integer && ts[0] == "number"):
		return nil, b.errorf(s.Pointer, `keyword "enum": values of type %s do not fit "type": %q`, want[kind], ts[0])
	case len(ts) == 1 && kind == Integer && ts[0] == "number":
		kind = Number
	}
	t := &Type{Kind: kind}
	for _, v := range s.Enum {
		c := v.Clone()
		if err := c.Compact(); err != nil {
			return nil, b.errorf(s.Pointer, `keyword "enum": %v`, err)
		}
		t.Values = append(t.Values, c)
	}
	if !s.Checks.IsZero() {
		c := s.Checks
		t.Checks = &c
	}
	return t, nil
}

// variants fills a union from anyOf members. A member that is itself an
// anonymous union (an anyOf, or a type list) is flattened into this one.
func (b *builder) variants(d *Decl, members []*load.Schema, s *load.Schema) error {
	for i, m := range members {
		ts, null := nonNull(m)
		switch {
		case m.Ref != "":
			d.Variants = append(d.Variants, &Type{Kind: Ref, Decl: b.byName[m.Ref]})
		case len(m.AnyOf) > 0:
			if err := b.variants(d, m.AnyOf, m); err != nil {
				return err
			}
		case len(ts) > 1 && !isIDTypes(ts) && len(m.Enum) == 0:
			if null {
				return b.errorf(m.Pointer, `keyword "type": a nullable union %v is not supported`, m.Types)
			}
			if err := b.scalarVariants(d, m, ts); err != nil {
				return err
			}
		default:
			// Named by kind, and by position too when the kind repeats;
			// an intersection with a copy of a definition by that
			// definition (GetTaskResult's allOf [Result, WorkingTask's
			// copy, ...] is GetTaskResultWorkingTask).
			name := d.Name + variantSuffix(m)
			if part := b.copiedPart(m); part != "" {
				name = d.Name + part
			}
			if _, taken := b.byName[name]; taken {
				name += strconv.Itoa(i)
			}
			t, err := b.typeOf(m, name)
			if err != nil {
				return err
			}
			if t.Kind != Ref {
				// Every variant is a named type, so that it can carry the
				// union's marker method.
				vd, err := b.hoistType(name, m, t)
				if err != nil {
					return err
				}
				t = &Type{Kind: Ref, Decl: vd}
			}
			d.Variants = append(d.Variants, t)
		}
	}
	return nil
}

// copiedPart returns the definition that exactly one part of the allOf m
// copies (by shape, see typeOf), "" when none or several do or b reads no
// copies.
func (b *builder) copiedPart(m *load.Schema) string {
	found := ""
	for _, p := range m.AllOf {
		if name, ok := b.byShape[p.Shape]; ok && p.Ref == "" {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

// flattenUnions replaces a union variant that is itself a union (a $ref to
// one) by that union's variants: a value of the inner union is a value of
// one of its variants, and each variant then belongs to both unions. A union
// that contains itself is an error.
func (b *builder) flattenUnions() error {
	var flat func(d *Decl, path []*Decl) ([]*Type, error)
	flat = func(d *Decl, path []*Decl) ([]*Type, error) {
		if slices.Contains(path, d) {
			return nil, b.errorf(d.Pointer, "union %s contains itself (through %s)", d.Name, path[len(path)-1].Name)
		}
		var out []*Type
		for _, v := range d.Variants {
			if v.Kind == Ref && v.Decl.Resolve().Kind == Union {
				inner, err := flat(v.Decl.Resolve(), append(path, d))
				if err != nil {
					return nil, err
				}
				for _, iv := range inner {
					if !slices.ContainsFunc(out, func(t *Type) bool { return t.Kind == Ref && t.Decl.Resolve() == iv.Decl.Resolve() }) {
						out = append(out, iv)
					}
				}
				continue
			}
			if v.Kind == Ref && slices.ContainsFunc(out, func(t *Type) bool { return t.Kind == Ref && t.Decl.Resolve() == v.Decl.Resolve() }) {
				continue
			}
			out = append(out, v)
		}
		return out, nil
	}
	for _, d := range b.out {
		if d.Kind != Union {
			continue
		}
		vs, err := flat(d, nil)
		if err != nil {
			return err
		}
		d.Variants = vs
	}
	return nil
}

// hoistType declares an alias for a type expression.
func (b *builder) hoistType(name string, s *load.Schema, t *Type) (*Decl, error) {
	if prev, ok := b.byName[name]; ok {
		return nil, b.errorf(s.Pointer, "the anonymous type here would be named %s, which %s already uses", name, prev.Pointer)
	}
	d := &Decl{Name: name, Pointer: s.Pointer, Doc: s.Description, Anonymous: true, Kind: Alias, Target: t}
	b.byName[name] = d
	b.out = append(b.out, d)
	return d, nil
}

func variantSuffix(m *load.Schema) string {
	ts, _ := nonNull(m)
	if len(ts) == 1 {
		return pascal(ts[0])
	}
	if len(m.Properties) > 0 {
		return "Object"
	}
	return "Variant"
}

func (b *builder) scalarVariants(d *Decl, s *load.Schema, ts []string) error {
	for _, t := range ts {
		one := &load.Schema{Pointer: s.Pointer, Types: []string{t}, Checks: s.Checks}
		if t == "object" || t == "array" {
			return b.errorf(s.Pointer, `keyword "type": %q inside a type list is not supported`, t)
		}
		st, err := b.typeOf(one, "")
		if err != nil {
			return err
		}
		vd, err := b.hoistType(d.Name+pascal(t), &load.Schema{Pointer: s.Pointer}, st)
		if err != nil {
			return err
		}
		d.Variants = append(d.Variants, &Type{Kind: Ref, Decl: vd})
	}
	return nil
}

// allOf flattens the parts into one object. A member declared again in a
// later part replaces the earlier declaration (it narrows it, as the error
// code constant of URLElicitationRequiredError does).
func (b *builder) allOf(d *Decl, s *load.Schema) error {
	var props []*load.Property
	var required []string
	var extra *load.Schema
	var collect func(p *load.Schema) error
	visiting := map[string]bool{}
	collect = func(p *load.Schema) error {
		if p.Ref != "" {
			if visiting[p.Ref] {
				return b.errorf(p.Pointer, `keyword "allOf": definition %s includes itself`, p.Ref)
			}
			visiting[p.Ref] = true
			defer delete(visiting, p.Ref)
			def, _ := b.doc.Lookup(p.Ref)
			return collect(def.Schema)
		}
		if len(p.AllOf) > 0 {
			for _, q := range p.AllOf {
				if err := collect(q); err != nil {
					return err
				}
			}
			return nil
		}
		// A part may also only narrow: list required members, close the
		// object, or annotate ({"required": ["x"]} next to a $ref).
		narrows := len(p.Types) == 0 && len(p.AnyOf) == 0 && p.Const == nil && len(p.Enum) == 0 && p.Items == nil
		if !isObject(p) && !narrows {
			return b.errorf(p.Pointer, `keyword "allOf": every part must be an object schema`)
		}
		for _, prop := range p.Properties {
			i := slices.IndexFunc(props, func(q *load.Property) bool { return q.Name == prop.Name })
			if i >= 0 {
				if prop.Schema.Description == "" && props[i].Schema.Description != "" {
					narrowed := *prop.Schema
					narrowed.Description = props[i].Schema.Description
					prop = &load.Property{Name: prop.Name, Schema: &narrowed}
				}
				props[i] = prop
			} else {
				props = append(props, prop)
			}
		}
		for _, r := range p.Required {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
		if p.AdditionalProperties != nil {
			extra = p.AdditionalProperties
		}
		return nil
	}
	for _, p := range s.AllOf {
		if err := collect(p); err != nil {
			return err
		}
	}
	return b.object(d, s, props, required, extra)
}

// constOf returns the constant value of a member's schema: its "const", or
// the "const" of the definition it refers to (a $ref to {"const": "2.0"});
// nil when it has none.
func (b *builder) constOf(s *load.Schema) jsontext.Value {
	for i := 0; i < 32 && s != nil; i++ {
		if s.Const != nil {
			return s.Const
		}
		if s.Ref == "" {
			return nil
		}
		def, ok := b.doc.Lookup(s.Ref)
		if !ok {
			return nil
		}
		s = def.Schema
	}
	return nil
}

// constAsEnum returns s with its "const" as an enum of one value: a
// constant that is not an object member is a type with one value.
func constAsEnum(s *load.Schema) *load.Schema {
	cp := *s
	cp.Enum = []jsontext.Value{s.Const}
	cp.Const = nil
	return &cp
}

func (b *builder) object(d *Decl, s *load.Schema, props []*load.Property, required []string, extra *load.Schema) error {
	req := func(n string) bool { return slices.Contains(required, n) }
	for _, p := range props {
		if p.Name == "method" && b.constOf(p.Schema) != nil && req("method") {
			d.Message = true
		}
	}
	d.Open = extra != nil && !(extra.Bool != nil && !*extra.Bool)
	d.Closed = extra != nil && extra.Bool != nil && !*extra.Bool
	if d.Open && !extra.IsEmpty() {
		t, err := b.typeOf(extra, d.Name+"Extra")
		if err != nil {
			return err
		}
		d.ExtraType = t
	}
	for _, p := range props {
		ps := p.Schema
		if d.Message && (p.Name == "jsonrpc" || p.Name == "id") {
			d.hasID = d.hasID || p.Name == "id"
			continue
		}
		if c := b.constOf(ps); c != nil {
			d.Consts = append(d.Consts, &Const{Name: p.Name, Doc: ps.Description, Value: c, Required: req(p.Name)})
			continue
		}
		f := &Field{Name: p.Name, Doc: ps.Description, Required: req(p.Name), Annotations: annotations(ps)}
		if p.Name == "_meta" {
			f.Meta = true
			f.Type = &Type{Kind: RawObject}
			ms := ps
			if ps.Ref != "" {
				// 2026-07-28 names its _meta objects (RequestMetaObject):
				// their keys are the member's keys.
				def, _ := b.doc.Lookup(ps.Ref)
				ms = def.Schema
				f.MetaDecl = ps.Ref
			}
			for _, mp := range ms.Properties {
				mt, err := b.typeOf(mp.Schema, d.Name+"Meta"+pascal(mp.Name))
				if err != nil {
					return err
				}
				f.MetaKeys = append(f.MetaKeys, &Field{Name: mp.Name, Doc: mp.Schema.Description, Type: mt, Required: ms.IsRequired(mp.Name), Annotations: annotations(mp.Schema)})
			}
		} else if raw, ok := b.rawOverride(d.Name, p.Name); ok {
			t := &Type{Kind: RawObject}
			if !isObject(ps) {
				return b.errorf(ps.Pointer, "table %q lists this member, but it is not an object schema", raw.Why)
			}
			for _, cp := range ps.Properties {
				if c := b.constOf(cp.Schema); c != nil && slices.Contains(ps.Required, cp.Name) {
					t.ObjectConsts = append(t.ObjectConsts, &Const{Name: cp.Name, Value: c, Required: true})
				}
			}
			f.Type = t
		} else {
			t, err := b.typeOf(ps, d.Name+pascal(p.Name))
			if err != nil {
				return err
			}
			f.Type = t
		}
		d.Fields = append(d.Fields, f)
	}
	for _, r := range required {
		if !slices.ContainsFunc(props, func(p *load.Property) bool { return p.Name == r }) {
			return b.errorf(s.Pointer, `keyword "required": %q is not a declared property`, r)
		}
	}
	return nil
}

// withoutNull returns the members of an anyOf other than {"type": "null"}
// (annotations aside).
func withoutNull(members []*load.Schema) []*load.Schema {
	var out []*load.Schema
	for _, m := range members {
		if len(m.Types) == 1 && m.Types[0] == "null" && m.Ref == "" && len(m.Properties) == 0 && len(m.AnyOf) == 0 && len(m.AllOf) == 0 && m.Const == nil && len(m.Enum) == 0 {
			continue
		}
		out = append(out, m)
	}
	return out
}

// typeOf returns the type of the schema s, hoisting anonymous object, union
// and enum types under the name path.
func (b *builder) typeOf(s *load.Schema, path string) (*Type, error) {
	if rest := withoutNull(s.AnyOf); len(rest) > 0 && len(rest) < len(s.AnyOf) {
		// anyOf [X, {"type": "null"}], TypeScript's "X | null": X, nullable.
		inner := rest[0]
		if len(rest) > 1 {
			cp := *s
			cp.AnyOf = rest
			inner = &cp
		}
		t, err := b.typeOf(inner, path)
		if err != nil {
			return nil, err
		}
		if t.Nullable {
			return nil, b.errorf(s.Pointer, `keyword "anyOf": null is allowed twice`)
		}
		t.Nullable = true
		return t, nil
	}
	ts, null := nonNull(s)
	var t *Type
	switch {
	case s.IsEmpty():
		return &Type{Kind: RawValue}, nil
	case s.Bool != nil:
		return nil, b.errorf(s.Pointer, "the schema false is not supported here")
	case s.Ref != "":
		t = &Type{Kind: Ref, Decl: b.byName[s.Ref]}
	case s.Const != nil && (len(s.AnyOf) > 0 || len(s.AllOf) > 0 || len(s.Enum) > 0 || len(s.Properties) > 0):
		return nil, b.errorf(s.Pointer, `keyword "const" next to "anyOf", "allOf", "enum" or "properties" is not supported`)
	case len(s.AnyOf) > 0 || len(s.AllOf) > 0 || len(s.Enum) > 0 || isObject(s) && len(s.Properties) > 0 || len(ts) > 1 && !isIDTypes(ts):
		if name, ok := b.byShape[s.Shape]; ok && !null {
			// An inlined copy of a definition (Zod writes one for every
			// use): that definition, found by shape.
			t = &Type{Kind: Ref, Decl: b.byName[name]}
			break
		}
		d, err := b.hoist(path, s)
		if err != nil {
			return nil, err
		}
		t = &Type{Kind: Ref, Decl: d}
	case s.Const != nil:
		// A constant that is not an object member: a type of one value.
		d, err := b.hoist(path, constAsEnum(s))
		if err != nil {
			return nil, err
		}
		t = &Type{Kind: Ref, Decl: d}
	case isIDTypes(ts):
		t = &Type{Kind: ID}
	case len(ts) == 0 && null:
		return nil, b.errorf(s.Pointer, `keyword "type": a value that is always null is not supported`)
	case len(ts) == 0 && len(s.Properties) == 0 && s.Items == nil && s.AdditionalProperties == nil:
		return nil, b.errorf(s.Pointer, `keyword "type" is missing and nothing else says what the value is`)
	case isObject(s) || len(ts) == 0 && s.AdditionalProperties != nil:
		ap := s.AdditionalProperties
		if ap == nil || ap.IsEmpty() || ap.Bool != nil {
			t = &Type{Kind: RawObject}
		} else {
			et, err := b.typeOf(ap, path+"Value")
			if err != nil {
				return nil, err
			}
			t = &Type{Kind: Map, Elem: et}
		}
	case ts[0] == "array":
		if s.Items == nil {
			t = &Type{Kind: Array, Elem: &Type{Kind: RawValue}}
		} else {
			et, err := b.typeOf(s.Items, path+"Item")
			if err != nil {
				return nil, err
			}
			t = &Type{Kind: Array, Elem: et}
		}
	case ts[0] == "string":
		t = &Type{Kind: String, Format: s.Checks.Format}
	case ts[0] == "integer":
		t = &Type{Kind: Integer}
	case ts[0] == "number":
		t = &Type{Kind: Number}
	case ts[0] == "boolean":
		t = &Type{Kind: Boolean}
	default:
		return nil, b.errorf(s.Pointer, `keyword "type": %v is not supported here`, s.Types)
	}
	if null {
		t.Nullable = true
	}
	if t.Kind != Ref && !s.Checks.IsZero() {
		c := s.Checks
		t.Checks = &c
	}
	return t, nil
}

// messageSources are the definitions the method table is derived from, each
// listing the JSON-RPC messages of one kind and direction. A revision may
// lack some (2026-07-28 has no ServerRequest) and may declare one as a
// single message rather than a union (its ClientNotification).
var messageSources = []struct {
	name string
	kind MethodKind
	dir  Direction
}{
	{"ClientRequest", Request, ClientToServer},
	{"ServerRequest", Request, ServerToClient},
	{"ClientNotification", Notification, ClientToServer},
	{"ServerNotification", Notification, ServerToClient},
}

// sentBy are the definitions whose values each side sends: what a message
// definition is reachable from says who sends it.
var sentBy = map[Direction][]string{
	ClientToServer: {"ClientRequest", "ClientNotification", "ClientResult"},
	ServerToClient: {"ServerRequest", "ServerNotification", "ServerResult"},
}

// sourceMessages returns the message definitions a source lists.
func (b *builder) sourceMessages(name string) ([]*Decl, error) {
	u := b.byName[name]
	if u == nil {
		return nil, nil
	}
	r := u.Resolve()
	if r.Kind == Object && r.Message {
		return []*Decl{r}, nil
	}
	if r.Kind != Union {
		return nil, b.errorf(u.Pointer, "%s must be an anyOf of message definitions, or one message definition (an object with a constant \"method\")", name)
	}
	var out []*Decl
	for _, v := range r.Variants {
		if v.Kind != Ref || !v.Decl.Resolve().Message {
			return nil, b.errorf(u.Pointer, "%s: every member must be a message definition with a constant \"method\"", name)
		}
		out = append(out, v.Decl.Resolve())
	}
	return out, nil
}

// reach returns every declaration reachable from the named roots.
func (b *builder) reach(roots []string) map[*Decl]bool {
	seen := map[*Decl]bool{}
	var visitType func(t *Type)
	var visit func(d *Decl)
	visitType = func(t *Type) {
		for ; t != nil; t = t.Elem {
			if t.Kind == Ref {
				visit(t.Decl)
			}
		}
	}
	visit = func(d *Decl) {
		if d == nil || seen[d] {
			return
		}
		seen[d] = true
		for _, f := range d.Fields {
			visitType(f.Type)
		}
		for _, v := range d.Variants {
			visitType(v)
		}
		if d.Target != nil {
			visitType(d.Target)
		}
	}
	for _, r := range roots {
		visit(b.byName[r])
	}
	return seen
}

// methods builds the method table from the message sources, and from the
// message definitions that travel inside other messages (embedded requests).
func (b *builder) methods(r *Revision) error {
	byName := map[string]*Method{}
	found := false
	for _, src := range messageSources {
		msgs, err := b.sourceMessages(src.name)
		if err != nil {
			return err
		}
		if b.byName[src.name] != nil {
			found = true
		}
		for _, msg := range msgs {
			name := msg.constString("method")
			m := byName[name]
			if m == nil {
				m = b.newMethod(name, src.kind, msg)
				byName[name] = m
			} else if m.Kind != src.kind || m.Message != msg && !sameShape(m.Message, msg) {
				return b.errorf(b.byName[src.name].Pointer, "method %q is declared by both %s and %s", name, m.Message.Name, msg.Name)
			} else if m.Message != msg && isSource(m.Message.Name) {
				// 2026-07-28's ClientNotification repeats CancelledNotification
				// instead of referring to it: the method is the named message's.
				m.Message = msg
			}
			m.Direction |= src.dir
		}
	}
	if !found {
		return b.errorf("#", "none of ClientRequest, ServerRequest, ClientNotification, ServerNotification is defined: the method table is derived from them")
	}
	// Embedded requests: message definitions outside the sources that a
	// side's messages carry (2026-07-28's inputRequests).
	reached := map[Direction]map[*Decl]bool{}
	for _, dir := range []Direction{ClientToServer, ServerToClient} {
		reached[dir] = b.reach(sentBy[dir])
	}
	for _, d := range b.out {
		if !d.Message || d.Kind != Object || byName[d.constString("method")] != nil {
			continue
		}
		var dir Direction
		for _, side := range []Direction{ClientToServer, ServerToClient} {
			if reached[side][d] {
				dir |= side
			}
		}
		if dir == 0 {
			continue // defined but sent by nobody
		}
		m := b.newMethod(d.constString("method"), Embedded, d)
		m.Direction = dir
		byName[m.Name] = m
	}
	for _, m := range byName {
		r.Methods = append(r.Methods, m)
	}
	slices.SortFunc(r.Methods, func(a, b *Method) int { return strings.Compare(a.Name, b.Name) })
	for _, m := range r.Methods {
		if err := b.results(m, reached); err != nil {
			return err
		}
		if err := b.gate(m); err != nil {
			return err
		}
	}
	for _, d := range r.Decls {
		if d.Name == "JSONRPCMessage" && d.Kind == Union {
			for _, v := range d.Variants {
				if v.Kind == Ref && v.Decl.Kind == Alias && v.Decl.Target.Kind == Array {
					r.Batching = true
				}
				if v.Kind == Ref && v.Decl.Kind == Alias && v.Decl.Target.Kind == Ref && v.Decl.Target.Decl.Kind == Alias && v.Decl.Target.Decl.Target.Kind == Array {
					r.Batching = true
				}
			}
		}
	}
	r.Errors = b.errorTypes()
	return nil
}

func isSource(name string) bool {
	for _, src := range messageSources {
		if src.name == name {
			return true
		}
	}
	return false
}

// sameShape reports whether two object declarations have the same members:
// constants of the same values, fields of the same types.
func sameShape(a, b *Decl) bool {
	if a.Kind != Object || b.Kind != Object || len(a.Fields) != len(b.Fields) || len(a.Consts) != len(b.Consts) || a.Open != b.Open || a.Closed != b.Closed {
		return false
	}
	for i, c := range a.Consts {
		o := b.Consts[i]
		if c.Name != o.Name || c.Required != o.Required || string(c.Value) != string(o.Value) {
			return false
		}
	}
	for i, f := range a.Fields {
		o := b.Fields[i]
		if f.Name != o.Name || f.Required != o.Required || !sameType(f.Type, o.Type) {
			return false
		}
	}
	return true
}

func sameType(a, b *Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Nullable != b.Nullable || a.Format != b.Format {
		return false
	}
	if a.Kind == Ref && a.Decl.Resolve() != b.Decl.Resolve() {
		return false
	}
	return sameType(a.Elem, b.Elem)
}

func (b *builder) newMethod(name string, kind MethodKind, msg *Decl) *Method {
	m := &Method{Name: name, Kind: kind, Message: msg}
	for _, f := range msg.Fields {
		if f.Name == "params" {
			m.Params = f.Type
			m.ParamsRequired = f.Required
		}
	}
	return m
}

// errorTypes finds the named JSON-RPC errors: definitions with a constant
// integer "code", or whose "error" member has one.
func (b *builder) errorTypes() []*ErrorType {
	var out []*ErrorType
	for _, d := range b.out {
		if d.Anonymous || d.Kind != Object {
			continue
		}
		obj := d
		if f := d.Field("error"); f != nil && f.Type.Kind == Ref {
			obj = f.Type.Decl.Resolve()
		}
		code, ok := obj.constInt("code")
		if !ok {
			continue
		}
		e := &ErrorType{Decl: d, Code: code, Object: obj}
		if f := obj.Field("data"); f != nil && f.Type.Kind != RawValue {
			e.Data = f.Type
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b *ErrorType) int {
		if a.Code != b.Code {
			if a.Code < b.Code {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Decl.Name, b.Decl.Name)
	})
	return out
}

// constInt returns the value of the integer constant member name.
func (d *Decl) constInt(name string) (int64, bool) {
	for _, c := range d.Consts {
		if c.Name == name && c.Value.Kind() == '0' {
			n, err := strconv.ParseInt(string(c.Value), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// constString returns the string value of the constant member name.
func (d *Decl) constString(name string) string {
	for _, c := range d.Consts {
		if c.Name == name {
			u, _ := jsontext.AppendUnquote(nil, c.Value)
			return string(u)
		}
	}
	return ""
}

// ConstString returns the value of the string constant member name, and
// whether the declaration has one.
func (d *Decl) ConstString(name string) (string, bool) {
	for _, c := range d.Consts {
		if c.Name == name && c.Value.Kind() == '"' {
			return d.constString(name), true
		}
	}
	return "", false
}

// Field returns the field called name.
func (d *Decl) Field(name string) *Field {
	for _, f := range d.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Resolve follows aliases of references to the declaration they name.
func (d *Decl) Resolve() *Decl {
	for d.Kind == Alias && d.Target.Kind == Ref {
		d = d.Target.Decl
	}
	return d
}

// inheritMeta gives the params of every request and notification the
// "_meta" member that the generic Request and Notification definitions
// declare on their params. The TypeScript source declares it once, by
// inheritance, and the draft-07 schemas (2025-03-26, 2025-06-18) lose that
// inheritance: without this rule a strict decoder would drop
// _meta.progressToken from a tools/call request.
func (b *builder) inheritMeta() {
	base := map[bool]*Field{} // by "is a request"
	for _, name := range []string{"Request", "Notification"} {
		d := b.byName[name]
		if d == nil || d.Kind != Object {
			continue
		}
		if p := d.Field("params"); p != nil && p.Type.Kind == Ref {
			if m := p.Type.Decl.Resolve().Field("_meta"); m != nil {
				base[name == "Request"] = m
			}
		}
	}
	for _, d := range b.out {
		if !d.Message {
			continue
		}
		p := d.Field("params")
		if p == nil || p.Type.Kind != Ref || !p.Type.Decl.Anonymous || p.Type.Decl.Kind != Object {
			continue
		}
		pd := p.Type.Decl
		meta := base[d.constString("method") != "" && b.isRequest(d)]
		if meta == nil || pd.Field("_meta") != nil {
			continue
		}
		inherited := *meta
		pd.Fields = append([]*Field{&inherited}, pd.Fields...)
	}
}

// isRequest reports whether the message d is a member of a request union,
// or a request of an extension (a message with an id).
func (b *builder) isRequest(d *Decl) bool {
	if b.ext != nil && d.hasID {
		return true
	}
	for _, u := range []string{"ClientRequest", "ServerRequest"} {
		if ud := b.byName[u]; ud != nil && ud.Kind == Union {
			for _, v := range ud.Variants {
				if v.Kind == Ref && v.Decl == d {
					return true
				}
			}
		}
	}
	return false
}
