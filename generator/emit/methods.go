package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
)

// methodConst is the Go name of a method's constant.
func methodConst(m *model.Method) string { return plan.MethodConst(m.Name) }

// ---- methods.go: method constants and the method table.

func (g *gen) methods(f *jen.File) error {
	var consts []jen.Code
	for _, m := range g.p.Rev.Methods {
		sender := map[model.Direction]string{model.ClientToServer: "the client", model.ServerToClient: "the server", model.Both: "either side"}[m.Direction]
		text := fmt.Sprintf("%s is the %s %s (%s), sent by %s.", methodConst(m), m.Kind, m.Name, g.name(m.Message), sender)
		if m.Kind == model.Embedded {
			text += " It is never a JSON-RPC message: it travels in a result's inputRequests, and its result in the retried request's inputResponses."
		}
		if m.Why != "" {
			text += " Results: " + m.Why + "."
		}
		consts = append(consts, doc(methodConst(m), text, ""))
		consts = append(consts, jen.Id(methodConst(m)).Op("=").Lit(m.Name))
	}
	f.Comment("The methods of this revision.")
	f.Const().Defs(consts...)

	dir := map[model.Direction]string{model.ClientToServer: "ClientToServer", model.ServerToClient: "ServerToClient", model.Both: "Both"}
	var rows []jen.Code
	var lookup []jen.Code
	for i, m := range g.p.Rev.Methods {
		fields := jen.Dict{
			jen.Id("Name"):      jen.Id(methodConst(m)),
			jen.Id("Direction"): wire(dir[m.Direction]),
			jen.Id("Message"):   jen.Lit(m.Message.Name),
		}
		switch m.Kind {
		case model.Notification:
			fields[jen.Id("Notification")] = jen.True()
		case model.Embedded:
			fields[jen.Id("Embedded")] = jen.True()
		}
		if m.Response != nil {
			fields[jen.Id("Response")] = jen.Lit(m.Response.Name)
		}
		if m.AnyResult != nil {
			fields[jen.Id("NewAnyResult")] = jen.Func().Params().Add(wire("Codec")).Block(jen.Return(jen.New(jen.Id(g.name(m.AnyResult)))))
		}
		if m.ParamsRequired {
			fields[jen.Id("ParamsRequired")] = jen.True()
		}
		if m.Params != nil {
			fields[jen.Id("NewParams")] = jen.Func().Params().Add(wire("Codec")).Block(jen.Return(jen.New(g.goType(m.Params))))
		}
		if len(m.Results) > 0 {
			var names, news []jen.Code
			for _, r := range m.Results {
				names = append(names, jen.Lit(r.Name))
				news = append(news, jen.Func().Params().Add(wire("Codec")).Block(jen.Return(jen.New(jen.Id(g.name(r))))))
			}
			fields[jen.Id("Results")] = jen.Index().String().Values(names...)
			fields[jen.Id("NewResult")] = jen.Index().Func().Params().Add(wire("Codec")).Values(news...)
		}
		if m.Gate != "" {
			fields[jen.Id("Gate")] = jen.Lit(m.Gate)
			fields[jen.Id("GateSide")] = jen.Lit(m.GateSide())
		}
		rows = append(rows, jen.Values(fields))
		lookup = append(lookup, jen.Case(jen.Id(methodConst(m))).Block(jen.Return(jen.Id("methodTable").Index(jen.Lit(i)), jen.True())))
	}
	f.Comment("methodTable is sorted by name.")
	f.Var().Id("methodTable").Op("=").Index().Add(wire("Method")).Values(rows...)
	f.Comment("Methods returns the method table of this revision, sorted by name.")
	f.Func().Id("Methods").Params().Index().Add(wire("Method")).Block(
		jen.Return(jen.Append(jen.Index().Add(wire("Method")).Values(), jen.Id("methodTable").Op("..."))),
	)
	f.Comment("LookupMethod returns the method called name, if this revision has it.")
	f.Func().Id("LookupMethod").Params(jen.Id("name").String()).Params(wire("Method"), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).Block(lookup...),
		jen.Return(wire("Method").Values(), jen.False()),
	)
	// New: a value of every named definition, for decoding by name.
	var defs []jen.Code
	for _, d := range g.p.Rev.Decls {
		if d.Anonymous {
			continue
		}
		var v jen.Code
		r := d.Resolve()
		switch {
		case r.Kind == model.Alias && r.Target.Kind == model.ID:
			v = jen.New(wire("ID"))
		case r.Kind == model.Alias && !g.p.Defined[r]:
			continue
		default:
			v = jen.New(jen.Id(g.name(r)))
		}
		defs = append(defs, jen.Case(jen.Lit(d.Name)).Block(jen.Return(v, jen.True())))
	}
	f.Comment("New returns a new, empty value of the schema definition called name (such as")
	f.Comment("\"CallToolResult\"), ready to decode into, and whether the revision has it.")
	f.Func().Id("New").Params(jen.Id("name").String()).Params(wire("Codec"), jen.Bool()).Block(
		jen.Switch(jen.Id("name")).Block(defs...),
		jen.Return(jen.Nil(), jen.False()),
	)
	g.errors(f)
	var batching jen.Code = jen.False()
	if g.p.Rev.Batching {
		batching = jen.True()
	}
	f.Comment("Batching reports whether this revision has JSON-RPC batches.")
	f.Const().Id("Batching").Op("=").Add(batching)
	return nil
}

// errors writes the code constant of every named error and the error table.
func (g *gen) errors(f *jen.File) {
	errs := g.p.Rev.Errors
	if len(errs) == 0 {
		return
	}
	var consts, rows []jen.Code
	for _, e := range errs {
		name := g.name(e.Decl) + "Code"
		consts = append(consts, doc(name, fmt.Sprintf("%s is the error code of %s.", name, g.name(e.Decl)), ""))
		consts = append(consts, jen.Id(name).Op("=").Lit(int(e.Code)))
		row := jen.Dict{jen.Id("Code"): jen.Id(name), jen.Id("Name"): jen.Lit(e.Decl.Name)}
		if e.Data != nil && e.Data.Kind == model.Ref {
			row[jen.Id("NewData")] = jen.Func().Params().Add(wire("Codec")).Block(jen.Return(jen.New(g.goType(e.Data))))
		}
		rows = append(rows, jen.Values(row))
	}
	f.Comment("The codes of the named errors of this revision.")
	f.Const().Defs(consts...)
	f.Comment("errorTable is sorted by code.")
	f.Var().Id("errorTable").Op("=").Index().Add(wire("ErrorType")).Values(rows...)
	f.Comment("Errors returns the named errors of this revision, sorted by code.")
	f.Func().Id("Errors").Params().Index().Add(wire("ErrorType")).Block(
		jen.Return(jen.Append(jen.Index().Add(wire("ErrorType")).Values(), jen.Id("errorTable").Op("..."))),
	)
	f.Comment("LookupError returns the named error with the code, if this revision has one")
	f.Comment("(the first by name when several share it).")
	f.Func().Id("LookupError").Params(jen.Id("code").Int64()).Params(wire("ErrorType"), jen.Bool()).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("e")).Op(":=").Range().Id("errorTable")).Block(
			jen.If(jen.Id("e").Dot("Code").Op("==").Id("code")).Block(jen.Return(jen.Id("e"), jen.True())),
		),
		jen.Return(wire("ErrorType").Values(), jen.False()),
	)
}
