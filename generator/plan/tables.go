package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generator/model"
)

// override decides a group of union variants that the automatic rules cannot
// tell apart. Group is "object" or another JSON kind for the variants of that
// kind, or "tag=value" for the variants sharing a tag value. An entry applies
// to a union where the names it states exist: the union (Union, or any union
// when Union is ""), and, in the group, exactly the variants it names. It
// decides in one of four ways:
//   - Present cases, tried in order, and Else for what remains;
//   - Else alone: a result union, decoded through the method table, read as
//     Else when alone;
//   - Tag: the string value of a member the schema leaves unconstrained
//     (resultType), with the values the specification's text gives, and a
//     case of its own for each other variant that declares the member a
//     constant; Default is the value an absent member means, and names the
//     one variant no case names;
//   - Note alone: the automatic plan stands, and Why says how it is used;
//   - Try: the variants in order, the first that decodes (a result union
//     without an open variant: the method table decodes responses).
//
// An entry that no known revision uses is an error (UnusedOverrides).
type override struct {
	Union   string
	Group   string
	Present []presentRule
	Else    string
	Tag     string
	Cases   []tagRule
	Default string
	Note    bool
	Try     bool
	Why     string
}

type presentRule struct {
	Path    []string
	Variant string
}

type tagRule struct {
	Value   string
	Variant string
}

var overrides = []*override{
	{
		Union: "PrimitiveSchemaDefinition", Group: "type=string",
		Present: []presentRule{{[]string{"oneOf"}, "TitledSingleSelectEnumSchema"}, {[]string{"enumNames"}, "LegacyTitledEnumSchema"}, {[]string{"enum"}, "UntitledSingleSelectEnumSchema"}},
		Else:    "StringSchema",
		Why:     "untitled and legacy enum schemas both require enum; enumNames marks the legacy form; a string schema has no distinguishing member",
	},
	{
		Union: "PrimitiveSchemaDefinition", Group: "type=array",
		Present: []presentRule{{[]string{"items", "anyOf"}, "TitledMultiSelectEnumSchema"}},
		Else:    "UntitledMultiSelectEnumSchema",
		Why:     "both multi-select forms require items; titled items are an anyOf of const/title pairs, untitled items an enum",
	},
	{
		Union: "EnumSchema", Group: "type=string",
		Present: []presentRule{{[]string{"oneOf"}, "TitledSingleSelectEnumSchema"}, {[]string{"enumNames"}, "LegacyTitledEnumSchema"}},
		Else:    "UntitledSingleSelectEnumSchema",
		Why:     "untitled and legacy enum schemas both require enum; enumNames marks the legacy form",
	},
	{
		Union: "EnumSchema", Group: "type=array",
		Present: []presentRule{{[]string{"items", "anyOf"}, "TitledMultiSelectEnumSchema"}},
		Else:    "UntitledMultiSelectEnumSchema",
		Why:     "both multi-select forms require items; titled items are an anyOf of const/title pairs, untitled items an enum",
	},
	{
		Union: "MultiSelectEnumSchema", Group: "object",
		Present: []presentRule{{[]string{"items", "anyOf"}, "TitledMultiSelectEnumSchema"}},
		Else:    "UntitledMultiSelectEnumSchema",
		Why:     "both multi-select forms require items; titled items are an anyOf of const/title pairs, untitled items an enum",
	},
	{
		Union: "JSONRPCMessage", Group: "object",
		Present: []presentRule{{[]string{"result"}, "JSONRPCResponse"}, {[]string{"error"}, "JSONRPCError"}, {[]string{"id"}, "JSONRPCRequest"}},
		Else:    "JSONRPCNotification",
		Why:     "JSON-RPC 2.0: a result or an error makes a response; otherwise an id makes a request, and no id a notification",
	},
	{
		Union: "JSONRPCMessage", Group: "object",
		Present: []presentRule{{[]string{"result"}, "JSONRPCResultResponse"}, {[]string{"error"}, "JSONRPCErrorResponse"}, {[]string{"id"}, "JSONRPCRequest"}},
		Else:    "JSONRPCNotification",
		Why:     "JSON-RPC 2.0: a result or an error makes a response; otherwise an id makes a request, and no id a notification",
	},
	{
		Union: "JSONRPCMessage", Group: "array",
		Present: []presentRule{{[]string{"0", "method"}, "JSONRPCMessageArray"}},
		Else:    "JSONRPCMessageArray5",
		Why:     "the two inline batch arrays (positions 2 and 5 of the anyOf) hold requests and notifications, or responses; the first element has a method only in the first case",
	},
	{
		Group: "object", Tag: "resultType",
		Cases:   []tagRule{{"input_required", "InputRequiredResult"}},
		Default: "complete",
		Why:     "resultType is a plain string in the schema; its values come from the ResultType text: \"input_required\" is an InputRequiredResult, \"complete\" or absent the method's own result, anything else an error",
	},
	{
		Union: "InputResponse", Group: "object", Note: true,
		Why: "input responses carry no tag: each answers the input request of the same key in inputResponses, and is decoded as that request's result (method table); alone, by the members only one result requires",
	},
	{
		Union: "ServerResult", Group: "object",
		Else: "Result",
		Why:  "results carry no tag: a response is decoded by the method table, which knows the request; alone, a result reads as the open Result, which keeps every member",
	},
	{
		Union: "ClientResult", Group: "object",
		Else: "Result",
		Why:  "results carry no tag: a response is decoded by the method table, which knows the request; alone, a result reads as the open Result, which keeps every member",
	},
	{
		Union: "ServerResult", Group: "object", Try: true,
		Why: "results carry no tag: a response is decoded by the method table, which knows the request; alone, without an open Result among them, the first variant that decodes",
	},
	{
		Union: "ClientResult", Group: "object", Try: true,
		Why: "results carry no tag: a response is decoded by the method table, which knows the request; alone, without an open Result among them, the first variant that decodes",
	},
}

// constCases returns a case for each variant of vs that the entry does not
// name and that declares its tag as a constant of a value no case names
// (an extension's CreateTaskResult, resultType "task"), sorted by value.
func (o *override) constCases(vs []*model.Decl) []tagRule {
	var out []tagRule
	for _, v := range vs {
		val, ok := v.Resolve().ConstString(o.Tag)
		if !ok || val == o.Default || slices.ContainsFunc(o.Cases, func(c tagRule) bool { return c.Variant == v.Name || c.Value == val }) {
			continue
		}
		out = append(out, tagRule{val, v.Name})
	}
	slices.SortFunc(out, func(a, b tagRule) int { return strings.Compare(a.Value, b.Value) })
	return out
}

// names returns the variants the entry names.
func (o *override) names() []string {
	var ns []string
	for _, r := range o.Present {
		ns = append(ns, r.Variant)
	}
	if o.Else != "" {
		ns = append(ns, o.Else)
	}
	for _, c := range o.Cases {
		ns = append(ns, c.Variant)
	}
	return ns
}

// key names the entry in error messages and in Plan.TableUse.
func (o *override) key() string {
	u := o.Union
	if u == "" {
		u = "any union"
	}
	k := u + " " + o.Group
	if o.Tag != "" {
		k += " by " + o.Tag
	}
	if o.Try {
		k += " in order"
	}
	return k
}

// applies reports whether the entry decides the group of the union u whose
// variants are vs.
func (o *override) applies(u *model.Decl, group string, vs []*model.Decl) bool {
	if o.Union != "" && o.Union != u.Name || o.Group != group {
		return false
	}
	has := func(name string) bool {
		return slices.ContainsFunc(vs, func(v *model.Decl) bool { return v.Name == name })
	}
	for _, n := range o.names() {
		if !has(n) {
			return false
		}
	}
	switch {
	case o.Note, o.Try:
		return true
	case o.Tag != "":
		for _, v := range vs {
			if all, _ := members(v); !slices.Contains(all, o.Tag) {
				return false
			}
		}
		return len(vs) == len(o.Cases)+len(o.constCases(vs))+1
	case len(o.Present) == 0:
		return true // a result union: Else is one of its variants
	}
	return len(o.names()) == len(vs)
}

func findOverride(u *model.Decl, group string, vs []*model.Decl) *override {
	for _, o := range overrides {
		if o.applies(u, group, vs) {
			return o
		}
	}
	return nil
}

// UnusedOverrides returns the union override entries that none of plans
// used, sorted. The Try entries are left out: they are fallbacks for a
// revision whose result union lacks the open Result, which no official one
// does; the mutation corpus exercises them.
func UnusedOverrides(plans ...*Plan) []string {
	var unused []string
	for _, o := range overrides {
		if o.Try {
			continue
		}
		used := false
		for _, p := range plans {
			used = used || p.TableUse[o.key()]
		}
		if !used {
			unused = append(unused, o.key())
		}
	}
	slices.Sort(unused)
	return unused
}

// node turns the entry into a plan node after checking it against the
// variants of the group. For result unions (Else only, no Present) the
// group's other variants are decoded through the method table instead.
func (o *override) node(u *model.Decl, vs []*model.Decl) (*Node, error) {
	find := func(name string) (*model.Decl, error) {
		for _, v := range vs {
			if v.Name == name {
				return v, nil
			}
		}
		return nil, &Error{Pointer: u.Pointer, Decl: u.Name, Msg: fmt.Sprintf("override for %s names %s, which is not a variant of that group (%s)", o.Group, name, declNames(vs))}
	}
	n := &Node{Why: o.Why}
	if o.Try {
		for _, v := range vs {
			n.Try = append(n.Try, &Node{Variant: v})
		}
		return n, nil
	}
	if o.Tag != "" {
		n.Tag, n.Closed = o.Tag, true
		var rest *model.Decl
		consts := o.constCases(vs)
		for _, v := range vs {
			named := func(c tagRule) bool { return c.Variant == v.Name }
			if !slices.ContainsFunc(o.Cases, named) && !slices.ContainsFunc(consts, named) {
				rest = v
			}
		}
		cases := append([]tagRule{{o.Default, rest.Name}}, o.Cases...)
		cases = append(cases, o.constCases(vs)...)
		slices.SortFunc(cases, func(a, b tagRule) int { return strings.Compare(a.Value, b.Value) })
		for _, c := range cases {
			v, _ := find(c.Variant)
			n.Cases = append(n.Cases, TagCase{Value: c.Value, Node: &Node{Variant: v}})
		}
		n.Absent = &Node{Variant: rest}
		return n, nil
	}
	named := map[*model.Decl]bool{}
	for _, r := range o.Present {
		v, err := find(r.Variant)
		if err != nil {
			return nil, err
		}
		if len(r.Path) == 0 {
			return nil, &Error{Pointer: u.Pointer, Decl: u.Name, Msg: "override has an empty path"}
		}
		if all, _ := members(v); v.Resolve().Kind == model.Object && !slices.Contains(all, r.Path[0]) {
			return nil, &Error{Pointer: u.Pointer, Decl: u.Name, Msg: fmt.Sprintf("override tests member %q, which %s does not declare", r.Path[0], v.Name)}
		}
		named[v] = true
		n.Present = append(n.Present, PresentCase{Path: r.Path, Node: &Node{Variant: v}})
	}
	if o.Else != "" {
		v, err := find(o.Else)
		if err != nil {
			return nil, err
		}
		named[v] = true
		if len(n.Present) == 0 {
			return &Node{Variant: v, Why: o.Why}, nil
		}
		n.Else = &Node{Variant: v}
	}
	for _, v := range vs {
		if !named[v] {
			return nil, &Error{Pointer: u.Pointer, Decl: u.Name, Msg: fmt.Sprintf("override for %s does not say when to choose %s", o.Group, v.Name)}
		}
	}
	return n, nil
}
