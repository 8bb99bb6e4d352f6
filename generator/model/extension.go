package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generator/load"
)

// Extension is what the model of an extension (BuildExtension) adds to a
// Revision.
type Extension struct {
	// ID is the extension's identifier, such as
	// "io.modelcontextprotocol/tasks".
	ID string
	// Core is the core revision the extension is bound to, such as
	// "2026-07-28".
	Core string
	// External reports the declarations of the core revision: the core
	// package declares them, the extension's package refers to them.
	External map[*Decl]bool
	// Redefined are the definitions the extension's schema repeats from the
	// core revision, in the extension schema's order. Each is the core's
	// declaration: the shapes are the same (BuildExtension checks it).
	Redefined []*Decl
	// Augmented are core methods whose results the extension widens (such
	// as tools/call, answered with CreateTaskResult when task-augmented):
	// copies of the core method with the extension's result added to
	// Results, and AnyResult a union of all of them declared by the
	// extension. Sorted by name.
	Augmented []*Method
}

// RedefinitionError is a definition of an extension that the core revision
// also defines, with another shape.
type RedefinitionError struct {
	// Path is the extension's schema file.
	Path string
	// Name is the definition.
	Name string
	// Core is the core revision.
	Core string
	// Diff is where the two first differ, from the definition's root.
	Diff *load.Difference
}

func (e *RedefinitionError) Error() string {
	where := e.Diff.Path
	if where == "" {
		where = "its root"
	}
	return fmt.Sprintf("%s #/$defs/%s: the extension redefines the core %s definition %s with another shape (an extension may repeat a core definition only unchanged, descriptions aside); first difference at %s: extension %s, core %s",
		e.Path, e.Name, e.Core, e.Name, where, e.Diff.A, e.Diff.B)
}

// BuildExtension builds the model of an extension whose schema is ext, bound
// to the core revision core whose schema is coreDoc, with the identifier id.
//
// A definition the core schema also defines (Zod's output repeats every core
// type the extension uses) must have the same lowered shape there
// (load.Compare: descriptions, titles and $schema aside); it is then the
// core's declaration, and a difference is a *RedefinitionError naming the
// definition, the JSON path of the first difference and both shapes. The
// other definitions are the extension's own: anonymous copies of a
// definition in them are that definition (by shape), the messages among
// them are its methods (a message with an "id" is a request, sent by the
// client; one without, a notification, sent by the server, as the
// extension schema lists no ClientRequest or ServerNotification), paired
// with results by name as core requests are (XRequest → XResult). The
// returned Revision holds the core declarations too, reported by
// Extension.External.
func BuildExtension(core string, coreDoc, ext *load.Document, id string) (*Revision, error) {
	merged := &load.Document{Path: ext.Path, SHA256: ext.SHA256, Raw: ext.Raw, Dialect: coreDoc.Dialect, DefsKeyword: coreDoc.DefsKeyword}
	merged.Definitions = slices.Clone(coreDoc.Definitions)
	var redefined []string
	for _, def := range ext.Definitions {
		c, ok := coreDoc.Lookup(def.Name)
		if !ok {
			merged.Definitions = append(merged.Definitions, def)
			continue
		}
		if d := load.Compare(def.Schema, c.Schema); d != nil {
			return nil, &RedefinitionError{Path: ext.Path, Name: def.Name, Core: core, Diff: d}
		}
		redefined = append(redefined, def.Name)
	}
	x := &Extension{ID: id, Core: core, External: map[*Decl]bool{}}
	b := &builder{doc: merged, rev: core, byName: map[string]*Decl{}, used: map[any]bool{}, ext: x}
	if err := b.fillAll(len(coreDoc.Definitions)); err != nil {
		return nil, err
	}
	// The core's declarations: its definitions and what was hoisted out of
	// them, all filled before the extension's first definition.
	first := b.byName[merged.Definitions[len(coreDoc.Definitions)].Name]
	if len(merged.Definitions) == len(coreDoc.Definitions) {
		return nil, &Error{Path: ext.Path, Pointer: "#", Msg: "the extension defines nothing the core revision " + core + " does not"}
	}
	for _, d := range b.out {
		if d == first {
			break
		}
		x.External[d] = true
	}
	for _, n := range redefined {
		x.Redefined = append(x.Redefined, b.byName[n])
	}
	r, err := b.finish(core, merged)
	if err != nil {
		return nil, err
	}
	r.Extension = x
	r.Name = core
	if err := b.extMethods(r); err != nil {
		return nil, err
	}
	r.Decls = b.out // with the unions of Augmented
	r.TableUse = b.tableUse()
	return r, nil
}

// extraResult adds a result of the extension to a core method.
type extraResult struct {
	Method string // the core method
	Result string // the extension's definition
	Why    string
}

var extraResults = []*extraResult{
	{"tools/call", "CreateTaskResult", "the Tasks extension: a task-augmented tools/call is answered with CreateTaskResult (resultType \"task\") instead of the tool's result"},
}

// extMethods replaces r.Methods (the core's, as finish derived them) by
// the extension's own messages, and derives Augmented.
func (b *builder) extMethods(r *Revision) error {
	x := r.Extension
	core := r.Methods
	r.Methods = nil
	r.Errors = slices.DeleteFunc(r.Errors, func(e *ErrorType) bool { return x.External[e.Decl] })
	for _, d := range r.Decls {
		if x.External[d] || !d.Message || d.Kind != Object {
			continue
		}
		name := d.constString("method")
		if name == "" {
			continue
		}
		if slices.ContainsFunc(core, func(m *Method) bool { return m.Name == name }) {
			return b.errorf(d.Pointer, "message %s: the extension's method %q is a method of the core revision %s", d.Name, name, x.Core)
		}
		kind, dir := Notification, ServerToClient
		if d.hasID {
			kind, dir = Request, ClientToServer
		}
		m := b.newMethod(name, kind, d)
		m.Direction = dir
		if kind == Request {
			if err := b.pairResults(m); err != nil {
				return err
			}
		}
		r.Methods = append(r.Methods, m)
	}
	if len(r.Methods) == 0 {
		return b.errorf("#", "the extension defines no message (a definition with a constant \"method\")")
	}
	slices.SortFunc(r.Methods, func(a, b *Method) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range extraResults {
		res := b.byName[e.Result]
		i := slices.IndexFunc(core, func(m *Method) bool { return m.Name == e.Method })
		if res == nil || x.External[res] || i < 0 {
			continue
		}
		b.used[e] = true
		m := *core[i]
		m.Results = append(slices.Clone(m.Results), res)
		m.Why = joinWhy(m.Why, e.Why)
		first := m.Results[0]
		u := &Decl{
			Name:    first.Name + "s",
			Pointer: res.Pointer,
			Doc:     fmt.Sprintf("%ss is any answer to %s when the extension is in use: %s.", first.Name, m.Name, e.Why),
			Kind:    Union,
		}
		if prev := b.byName[u.Name]; prev != nil {
			return b.errorf(res.Pointer, "the union of the results of %s would be named %s, which %s already uses", m.Name, u.Name, prev.Pointer)
		}
		for _, d := range m.Results {
			u.Variants = append(u.Variants, &Type{Kind: Ref, Decl: d})
		}
		b.byName[u.Name] = u
		b.out = append(b.out, u)
		m.AnyResult = u
		m.Response = nil
		x.Augmented = append(x.Augmented, &m)
	}
	return nil
}

// pairResults pairs the request m, a revision's or an extension's, with its
// results: by the result table, else by name (XRequest → XResult).
func (b *builder) pairResults(m *Method) error {
	var names []string
	for _, r := range resultRules {
		if r.Request == m.Message.Name && b.allExist(r.Results) {
			b.used[r] = true
			names = append(names, r.Results...)
			m.Why = r.Why
		}
	}
	if names == nil {
		names = []string{strings.TrimSuffix(m.Message.Name, "Request") + "Result"}
	}
	for _, n := range names {
		d := b.byName[n]
		if d == nil {
			return b.errorf(m.Message.Pointer, "method %q: result %s does not exist (a request XRequest is answered by XResult unless the model's result table says otherwise)", m.Name, n)
		}
		m.Results = append(m.Results, d)
	}
	return nil
}
