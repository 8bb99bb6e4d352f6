package plan

import (
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/generator/model"
)

// override decides a group of union variants that the automatic rules cannot
// tell apart. Group is "object" or another JSON kind for the variants of that
// kind, or "tag=value" for the variants sharing a tag value. Present cases are
// tried in order; Else is what remains. Every variant of the group must be
// named exactly once, and an entry that applies to a revision but is not used
// is an error.
type override struct {
	Revs    []string // revisions it applies to; empty means all that have the union
	Union   string
	Group   string
	Present []presentRule
	Else    string
	Why     string
}

type presentRule struct {
	Path    []string
	Variant string
}

var overrides = []*override{
	{
		Union: "PrimitiveSchemaDefinition", Group: "type=string", Revs: []string{"2025-11-25"},
		Present: []presentRule{{[]string{"oneOf"}, "TitledSingleSelectEnumSchema"}, {[]string{"enumNames"}, "LegacyTitledEnumSchema"}, {[]string{"enum"}, "UntitledSingleSelectEnumSchema"}},
		Else:    "StringSchema",
		Why:     "untitled and legacy enum schemas both require enum; enumNames marks the legacy form; a string schema has no distinguishing member",
	},
	{
		Union: "PrimitiveSchemaDefinition", Group: "type=array", Revs: []string{"2025-11-25"},
		Present: []presentRule{{[]string{"items", "anyOf"}, "TitledMultiSelectEnumSchema"}},
		Else:    "UntitledMultiSelectEnumSchema",
		Why:     "both multi-select forms require items; titled items are an anyOf of const/title pairs, untitled items an enum",
	},
	{
		Union: "EnumSchema", Group: "type=string", Revs: []string{"2025-11-25"},
		Present: []presentRule{{[]string{"oneOf"}, "TitledSingleSelectEnumSchema"}, {[]string{"enumNames"}, "LegacyTitledEnumSchema"}},
		Else:    "UntitledSingleSelectEnumSchema",
		Why:     "untitled and legacy enum schemas both require enum; enumNames marks the legacy form",
	},
	{
		Union: "EnumSchema", Group: "type=array", Revs: []string{"2025-11-25"},
		Present: []presentRule{{[]string{"items", "anyOf"}, "TitledMultiSelectEnumSchema"}},
		Else:    "UntitledMultiSelectEnumSchema",
		Why:     "both multi-select forms require items; titled items are an anyOf of const/title pairs, untitled items an enum",
	},
	{
		Union: "MultiSelectEnumSchema", Group: "object", Revs: []string{"2025-11-25"},
		Present: []presentRule{{[]string{"items", "anyOf"}, "TitledMultiSelectEnumSchema"}},
		Else:    "UntitledMultiSelectEnumSchema",
		Why:     "both multi-select forms require items; titled items are an anyOf of const/title pairs, untitled items an enum",
	},
	{
		Union: "JSONRPCMessage", Group: "object", Revs: []string{"2025-03-26", "2025-06-18"},
		Present: []presentRule{{[]string{"result"}, "JSONRPCResponse"}, {[]string{"error"}, "JSONRPCError"}, {[]string{"id"}, "JSONRPCRequest"}},
		Else:    "JSONRPCNotification",
		Why:     "JSON-RPC 2.0: a result or an error makes a response; otherwise an id makes a request, and no id a notification",
	},
	{
		Union: "JSONRPCMessage", Group: "object", Revs: []string{"2025-11-25"},
		Present: []presentRule{{[]string{"result"}, "JSONRPCResultResponse"}, {[]string{"error"}, "JSONRPCErrorResponse"}, {[]string{"id"}, "JSONRPCRequest"}},
		Else:    "JSONRPCNotification",
		Why:     "JSON-RPC 2.0: a result or an error makes a response; otherwise an id makes a request, and no id a notification",
	},
	{
		Union: "JSONRPCMessage", Group: "array", Revs: []string{"2025-03-26"},
		Present: []presentRule{{[]string{"0", "method"}, "JSONRPCMessageArray"}},
		Else:    "JSONRPCMessageArray5",
		Why:     "the two inline batch arrays (positions 2 and 5 of the anyOf) hold requests and notifications, or responses; the first element has a method only in the first case",
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
}

func (o *override) applies(rev *model.Revision) bool {
	if len(o.Revs) > 0 && !slices.Contains(o.Revs, rev.Name) {
		return false
	}
	return rev.Lookup(o.Union) != nil
}

func findOverride(rev *model.Revision, union, group string) *override {
	for _, o := range overrides {
		if o.Union == union && o.Group == group && o.applies(rev) {
			return o
		}
	}
	return nil
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
