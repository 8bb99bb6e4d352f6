// Package plan makes every decision the emitter needs, as data: Go names,
// how each field is represented, and for every union the decision tree that
// tells its variants apart on the wire. A plan prints itself (String), and
// the goldens pin that text, so how a union decodes can be read without
// reading emitter code.
package plan

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/model"
)

// Plan is the plan of one revision.
type Plan struct {
	Rev *model.Revision
	// Names are the Go type names of the declarations.
	Names map[*model.Decl]string
	// Unions are the discrimination plans, by union declaration.
	Unions map[*model.Decl]*Union
	// Defined reports alias declarations emitted as defined types (with
	// their own methods) rather than Go aliases.
	Defined map[*model.Decl]bool
	// Markers lists, per declaration, the unions it is a variant of.
	Markers map[*model.Decl][]*model.Decl
	// TableUse names the union override entries that decided a group of
	// this revision (see UnusedOverrides).
	TableUse map[string]bool
}

// Error is a planning error: where in the schema, and what is wrong.
type Error struct {
	// Path is the schema file.
	Path string
	// Pointer is the JSON pointer of the definition concerned.
	Pointer string
	// Decl is the schema name of the definition concerned.
	Decl string
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s: %s", e.Path, e.Pointer, e.Decl, e.Msg)
}

// errorf returns an *Error about the declaration d.
func (p *Plan) errorf(d *model.Decl, format string, args ...any) error {
	return &Error{Path: p.Rev.Source, Pointer: d.Pointer, Decl: d.Name, Msg: fmt.Sprintf(format, args...)}
}

// Union is how one union decodes.
type Union struct {
	Decl *model.Decl
	Root *Node
}

// UnknownVariant is the Go name of the variant every union with a Tag node
// has besides its own: a value whose tag names no variant the revision knows,
// kept verbatim when decoding keeps unknown variants.
const UnknownVariant = "UnknownVariant"

// Tagged reports whether a tag decides some of u's variants, which gives u
// the variant UnknownVariant.
func (u *Union) Tagged() bool { return tagged(u.Root) }

func tagged(n *Node) bool {
	if n == nil {
		return false
	}
	if n.Tag != "" && !n.Closed {
		return true
	}
	for _, k := range n.Kinds {
		if tagged(k.Node) {
			return true
		}
	}
	for _, c := range n.Present {
		if tagged(c.Node) {
			return true
		}
	}
	return tagged(n.Else)
}

// Node is a step of a union's decision tree. Exactly one of Variant, Kinds,
// Tag, Present, Try is set.
type Node struct {
	// Variant is a leaf: decode the value as this declaration.
	Variant *model.Decl

	// Kinds switches on the JSON kind of the value.
	Kinds []KindCase

	// Tag switches on the string value of the member Tag. A value no case
	// names is an error, or, when decoding keeps unknown variants
	// (wire.UnmarshalKeepUnknown), the union value kept verbatim as the
	// package's UnknownVariant.
	Tag   string
	Cases []TagCase
	// Absent is taken when the tag member is missing; nil means that is an
	// error.
	Absent *Node
	// Closed reports a Tag switch whose other values are always an error,
	// also when decoding keeps unknown variants: the tag is not a variant's
	// name but a value the specification closes (resultType).
	Closed bool

	// Present takes the first case whose path exists in the value, else Else.
	Present []PresentCase
	// Else is taken when no Present case matched; nil means that is an error.
	Else *Node

	// Try decodes the value as each variant in order and takes the first
	// that decodes; none is an error.
	Try []*Node

	// Why is set when a table entry decided this node.
	Why string
}

// KindCase is one JSON kind of a Kinds switch: "object", "array", "string",
// "number", "boolean" or "null".
type KindCase struct {
	Kind string
	Node *Node
}

// TagCase is one value of a Tag switch.
type TagCase struct {
	Value string
	Node  *Node
}

// PresentCase is one member path of a Present switch.
type PresentCase struct {
	Path []string
	Node *Node
}

// Build plans a revision.
func Build(rev *model.Revision) (*Plan, error) {
	p := &Plan{
		Rev:      rev,
		Names:    map[*model.Decl]string{},
		Unions:   map[*model.Decl]*Union{},
		Defined:  map[*model.Decl]bool{},
		Markers:  map[*model.Decl][]*model.Decl{},
		TableUse: map[string]bool{},
	}
	seen := map[string]*model.Decl{}
	for _, d := range rev.Decls {
		n := GoName(d.Name)
		if prev := seen[n]; prev != nil {
			return nil, p.errorf(d, "Go name %s is also the name of %s (%s)", n, prev.Name, prev.Pointer)
		}
		seen[n] = d
		p.Names[d] = n
	}
	for _, d := range rev.Decls {
		if d.Kind == model.Alias && d.Target.Kind != model.Ref && d.Target.Kind != model.ID {
			p.Defined[d] = true
		}
	}
	used := map[*override]bool{}
	for _, d := range rev.Decls {
		if d.Kind != model.Union {
			continue
		}
		u, err := p.planUnion(d, used)
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) && pe.Path == "" {
				pe.Path = rev.Source
			}
			return nil, err
		}
		p.Unions[d] = u
		for _, v := range d.Variants {
			vd := v.Decl.Resolve()
			if !slices.Contains(p.Markers[vd], d) {
				p.Markers[vd] = append(p.Markers[vd], d)
			}
		}
	}
	if err := p.checkIdents(); err != nil {
		return nil, err
	}
	for o := range used {
		p.TableUse[o.key()] = true
	}
	return p, nil
}

// kinds returns the JSON kinds a declaration's values can have.
func kinds(d *model.Decl) []string {
	d = d.Resolve()
	switch d.Kind {
	case model.Object:
		return []string{"object"}
	case model.Enum:
		return []string{"string"}
	case model.Union:
		var ks []string
		for _, v := range d.Variants {
			for _, k := range kinds(v.Decl) {
				if !slices.Contains(ks, k) {
					ks = append(ks, k)
				}
			}
		}
		return ks
	}
	var ks []string
	switch d.Target.Kind {
	case model.String:
		ks = []string{"string"}
	case model.Integer, model.Number:
		ks = []string{"number"}
	case model.Boolean:
		ks = []string{"boolean"}
	case model.Array:
		ks = []string{"array"}
	case model.Map, model.RawObject:
		ks = []string{"object"}
	case model.ID:
		ks = []string{"string", "number"}
	case model.RawValue:
		ks = []string{"object", "array", "string", "number", "boolean", "null"}
	}
	if d.Target.Nullable {
		ks = append(ks, "null")
	}
	return ks
}

var kindOrder = []string{"object", "array", "string", "number", "boolean", "null"}

func (p *Plan) planUnion(d *model.Decl, used map[*override]bool) (*Union, error) {
	byKind := map[string][]*model.Decl{}
	for _, v := range d.Variants {
		if v.Kind != model.Ref {
			return nil, p.errorf(d, "%s", "a union variant must be a named type")
		}
		if v.Decl.Resolve().Kind == model.Union {
			return nil, p.errorf(d, "variant %s is itself a union (%s), which is not supported; list its members instead", v.Decl.Name, v.Decl.Pointer)
		}
		for _, k := range kinds(v.Decl) {
			byKind[k] = append(byKind[k], v.Decl)
		}
	}
	root := &Node{}
	for _, k := range kindOrder {
		vs := byKind[k]
		if len(vs) == 0 {
			continue
		}
		var n *Node
		var err error
		if o := findOverride(d, k, vs); o != nil && !o.Note {
			used[o] = true
			n, err = o.node(d, vs)
		} else if len(vs) == 1 {
			n = &Node{Variant: vs[0]}
		} else if k == "object" {
			n, err = p.objectPlan(d, vs, used)
		} else {
			err = p.errorf(d, "%s", fmt.Sprintf("variants %s are all JSON %ss and nothing tells them apart; add an entry to the union override table", declNames(vs), k))
		}
		if err != nil {
			return nil, err
		}
		root.Kinds = append(root.Kinds, KindCase{Kind: k, Node: n})
	}
	return &Union{Decl: d, Root: root}, nil
}

func declNames(ds []*model.Decl) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Name)
	}
	return strings.Join(s, ", ")
}

// tagValues returns the values the member name can take in the object d: a
// constant, or the values of an enum-typed field. ok is false when d does not
// declare name that way; required reports whether the member must be present.
func tagValues(d *model.Decl, name string) (values []string, required, ok bool) {
	d = d.Resolve()
	if d.Kind != model.Object {
		return nil, false, false
	}
	if s, has := d.ConstString(name); has {
		for _, c := range d.Consts {
			if c.Name == name {
				return []string{s}, c.Required, true
			}
		}
	}
	if f := d.Field(name); f != nil && f.Type.Kind == model.Ref {
		if e := f.Type.Decl.Resolve(); e.Kind == model.Enum {
			return e.Values, f.Required, true
		}
	}
	return nil, false, false
}

// members returns every member name an object declares, and the required ones.
func members(d *model.Decl) (all, required []string) {
	d = d.Resolve()
	if d.Kind != model.Object {
		return nil, nil
	}
	for _, f := range d.Fields {
		all = append(all, f.Name)
		if f.Required {
			required = append(required, f.Name)
		}
	}
	for _, c := range d.Consts {
		all = append(all, c.Name)
		if c.Required {
			required = append(required, c.Name)
		}
	}
	return all, required
}

// objectPlan tells object variants apart: by a tag member when one exists,
// then by members only one variant requires.
func (p *Plan) objectPlan(u *model.Decl, vs []*model.Decl, used map[*override]bool) (*Node, error) {
	// Candidate tags: members every variant declares as a constant or enum
	// that take more than one value across the variants.
	var best string
	bestGroups := 0
	all, _ := members(vs[0])
	for _, name := range all {
		values := map[string]bool{}
		okAll := true
		absent := 0
		for _, v := range vs {
			vals, req, ok := tagValues(v, name)
			if !ok {
				okAll = false
				break
			}
			if !req {
				absent++
			}
			for _, x := range vals {
				values[x] = true
			}
		}
		if okAll && absent <= 1 && len(values) > 1 && len(values) > bestGroups {
			best, bestGroups = name, len(values)
		}
	}
	if best == "" {
		return p.presencePlan(u, "object", vs, used)
	}
	n := &Node{Tag: best}
	groups := map[string][]*model.Decl{}
	var order []string
	for _, v := range vs {
		vals, req, _ := tagValues(v, best)
		for _, x := range vals {
			if groups[x] == nil {
				order = append(order, x)
			}
			groups[x] = append(groups[x], v)
		}
		if !req {
			n.Absent = &Node{Variant: v}
		}
	}
	sort.Strings(order)
	for _, x := range order {
		g := groups[x]
		var sub *Node
		var err error
		if o := findOverride(u, best+"="+x, g); o != nil && !o.Note {
			used[o] = true
			sub, err = o.node(u, g)
		} else if len(g) == 1 {
			sub = &Node{Variant: g[0]}
		} else {
			sub, err = p.presencePlan(u, best+"="+x, g, used)
		}
		if err != nil {
			return nil, err
		}
		n.Cases = append(n.Cases, TagCase{Value: x, Node: sub})
	}
	return n, nil
}

// presencePlan tells variants apart by members only one of them requires.
// At most one variant may have no such member: it is what remains.
func (p *Plan) presencePlan(u *model.Decl, group string, vs []*model.Decl, used map[*override]bool) (*Node, error) {
	n := &Node{}
	if o := findOverride(u, group, vs); o != nil {
		used[o] = true
		if !o.Note {
			return o.node(u, vs)
		}
		n.Why = o.Why
	}
	for _, v := range vs {
		_, req := members(v)
		var unique string
		for _, r := range req {
			declaredElsewhere := false
			for _, w := range vs {
				if w == v {
					continue
				}
				all, _ := members(w)
				if slices.Contains(all, r) {
					declaredElsewhere = true
					break
				}
			}
			if !declaredElsewhere {
				unique = r
				break
			}
		}
		if unique != "" {
			n.Present = append(n.Present, PresentCase{Path: []string{unique}, Node: &Node{Variant: v}})
			continue
		}
		if n.Else != nil {
			return nil, p.errorf(u, "%s", fmt.Sprintf("%s: neither %s nor %s requires a member the other variants lack, so they cannot be told apart; add an entry to the union override table", group, n.Else.Variant.Name, v.Name))
		}
		n.Else = &Node{Variant: v}
	}
	return n, nil
}

// String prints the plan of every union, in declaration order.
func (p *Plan) String() string {
	var b strings.Builder
	for _, d := range p.Rev.Decls {
		u := p.Unions[d]
		if u == nil {
			continue
		}
		fmt.Fprintf(&b, "union %s (%s)\n", p.Names[d], d.Pointer)
		printNode(&b, p, u.Root, "  ")
	}
	return b.String()
}

func printNode(b *strings.Builder, p *Plan, n *Node, indent string) {
	why := ""
	if n.Why != "" {
		why = "  [table: " + n.Why + "]"
	}
	switch {
	case n.Variant != nil:
		fmt.Fprintf(b, "%s→ %s%s\n", indent, p.Names[n.Variant], why)
	case n.Kinds != nil:
		for _, k := range n.Kinds {
			if k.Node.Variant != nil {
				fmt.Fprintf(b, "%s%s → %s%s\n", indent, k.Kind, p.Names[k.Node.Variant], whyOf(k.Node))
				continue
			}
			fmt.Fprintf(b, "%s%s:\n", indent, k.Kind)
			printNode(b, p, k.Node, indent+"  ")
		}
	case n.Tag != "":
		fmt.Fprintf(b, "%sby %q:%s\n", indent, n.Tag, why)
		for _, c := range n.Cases {
			if c.Node.Variant != nil {
				fmt.Fprintf(b, "%s  %q → %s\n", indent, c.Value, p.Names[c.Node.Variant])
				continue
			}
			fmt.Fprintf(b, "%s  %q:\n", indent, c.Value)
			printNode(b, p, c.Node, indent+"    ")
		}
		if n.Absent != nil {
			fmt.Fprintf(b, "%s  absent → %s\n", indent, p.Names[n.Absent.Variant])
		}
		if n.Closed {
			fmt.Fprintf(b, "%s  other → error\n", indent)
		} else {
			fmt.Fprintf(b, "%s  other → error; %s when decoding keeps unknown variants\n", indent, UnknownVariant)
		}
	case n.Try != nil:
		var names []string
		for _, t := range n.Try {
			names = append(names, p.Names[t.Variant])
		}
		fmt.Fprintf(b, "%sthe first that decodes, in order: %s%s\n", indent, strings.Join(names, ", "), why)
	default:
		fmt.Fprintf(b, "%sby presence:%s\n", indent, why)
		for _, c := range n.Present {
			fmt.Fprintf(b, "%s  has %s → %s\n", indent, strings.Join(c.Path, "/"), p.Names[c.Node.Variant])
		}
		if n.Else != nil {
			fmt.Fprintf(b, "%s  else → %s\n", indent, p.Names[n.Else.Variant])
		}
	}
}

func whyOf(n *Node) string {
	if n.Why == "" {
		return ""
	}
	return "  [table: " + n.Why + "]"
}
