package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
)

const (
	sessionPkg   = "github.com/mcpgen/mcpgen/runtime/session"
	jsonrpcPkg   = "github.com/mcpgen/mcpgen/runtime/jsonrpc"
	revisionPkg  = "github.com/mcpgen/mcpgen/runtime/revision"
	transportPkg = "github.com/mcpgen/mcpgen/runtime/transport"
)

// engineMethods are answered or consumed by the session engine itself, so
// they are not part of the typed handler interfaces.
var engineMethods = map[string]bool{
	"ping":                    true,
	"logging/setLevel":        true,
	"notifications/cancelled": true,
	"notifications/progress":  true,
}

// goMethod is the Go method name of a method: its message definition's name
// without "Request" or "Notification" ("CallToolRequest" → "CallTool").
func (g *gen) goMethod(m *model.Method) string {
	n := g.name(m.Message)
	if m.Kind.Answered() {
		return strings.TrimSuffix(n, "Request")
	}
	return strings.TrimSuffix(n, "Notification")
}

// paramsType is the Go type a handler or stub takes for m's params: a
// pointer to the params type, or raw JSON.
func (g *gen) paramsType(m *model.Method) *jen.Statement {
	if m.Params == nil {
		return jen.Qual(jsontextPkg, "Value")
	}
	if m.Params.Kind == model.Ref {
		return jen.Op("*").Add(g.goType(m.Params))
	}
	return g.goType(m.Params)
}

func (g *gen) paramsIsPointer(m *model.Method) bool {
	return m.Params != nil && m.Params.Kind == model.Ref
}

func (g *gen) resultType(m *model.Method) *jen.Statement {
	return jen.Op("*").Id(g.name(m.Results[0].Resolve()))
}

func ctxParam() jen.Code { return jen.Id("ctx").Qual("context", "Context") }

// handled lists the methods side (a direction bit) receives and handles
// through its typed interface. Embedded requests (2026-07-28's input
// requests) are among them: they are not JSON-RPC messages, but the session
// engine hands each one a result carries to the receiving side's handler,
// and a client that fell back to a revision where they are real requests
// gets them as such; either way the same handler method answers them.
func (g *gen) handled(dir model.Direction) []*model.Method {
	var out []*model.Method
	for _, m := range g.p.Rev.Methods {
		if m.Direction&dir != 0 && !engineMethods[m.Name] {
			out = append(out, m)
		}
	}
	return out
}

// interfaceMethod is the signature of m in a handler interface.
func (g *gen) interfaceMethod(m *model.Method) jen.Code {
	if m.Kind.Answered() {
		return jen.Id(g.goMethod(m)).Params(ctxParam(), jen.Id("params").Add(g.paramsType(m))).Params(g.resultType(m), jen.Error())
	}
	return jen.Id(g.goMethod(m)).Params(ctxParam(), jen.Id("params").Add(g.paramsType(m)))
}

// ---- server.go and client.go: the typed bindings.

func (g *gen) serverFile(f *jen.File) error {
	return g.side(f, "Server", "server", model.ClientToServer, "client")
}

func (g *gen) clientFile(f *jen.File) error {
	if err := g.side(f, "Client", "client", model.ServerToClient, "server"); err != nil {
		return err
	}
	return g.connectClient(f)
}

// side emits the handler interface of one side (what it receives), its
// Unimplemented base, the session handler that dispatches to it, and the
// typed session through which it calls the peer.
func (g *gen) side(f *jen.File, iface, role string, receives model.Direction, peer string) error {
	methods := g.handled(receives)
	var sigs []jen.Code
	for _, m := range methods {
		if g.optionalIface(m, receives) != "" {
			continue
		}
		sigs = append(sigs, doc(g.goMethod(m), g.methodDoc(m, "handles"), ""))
		sigs = append(sigs, g.interfaceMethod(m))
	}
	var taskSigs []jen.Code
	for _, m := range methods {
		if g.taskResult(m) != nil {
			taskSigs = append(taskSigs, doc(g.goMethod(m)+"AsTask", g.goMethod(m)+"AsTask handles a task-augmented "+m.Name+" (params.task is set): it starts the work and answers at once with the task.", ""))
			taskSigs = append(taskSigs, jen.Id(g.goMethod(m)+"AsTask").Params(ctxParam(), jen.Id("params").Add(g.paramsType(m))).Params(jen.Op("*").Id(g.name(g.taskResult(m))), jen.Error()))
		}
	}
	if len(taskSigs) > 0 {
		f.Add(doc("Task"+iface, "Task"+iface+" is implemented by a "+iface+" that accepts task-augmented requests (a request whose params carry \"task\"). Without it, such requests are answered with error -32601 (method not found).", ""))
		f.Type().Id("Task" + iface).Interface(taskSigs...)
	}
	optional := g.optionalIfaces(methods, receives)
	ifaceDoc := iface + " is the " + role + " side of revision " + g.p.Rev.Name + ": one method per request and notification a " + peer + " sends it. ping, logging/setLevel, cancellation and progress are handled by the session itself. Embed Unimplemented" + iface + " to serve only some methods."
	if len(optional) > 0 {
		ifaceDoc = iface + " is the " + role + " side of revision " + g.p.Rev.Name + ": one method per notification a " + peer + " sends it, and per request it sends that needs no capability of the " + role + "'s. The requests that need one are answered by the optional interfaces " + strings.Join(optional, ", ") + ": a " + iface + " that implements one declares the capability. ping, logging/setLevel, cancellation and progress are handled by the session itself. Embed Unimplemented" + iface + " to serve only some methods."
	}
	f.Add(doc(iface, ifaceDoc, ""))
	f.Type().Id(iface).Interface(sigs...)
	for _, m := range methods {
		if name := g.optionalIface(m, receives); name != "" {
			g.optionalIfaceDecl(f, m, name, iface)
		}
	}

	unimpl := "Unimplemented" + iface
	unimplDoc := unimpl + " answers every request with error -32601 (method not found) and ignores every notification. Embed it in a " + iface + " implementation to serve only some methods."
	if len(optional) > 0 {
		unimplDoc = unimpl + " answers every request of the " + iface + " interface with error -32601 (method not found) and ignores every notification. Embed it in a " + iface + " implementation to serve only some methods; it implements none of the optional interfaces (" + strings.Join(optional, ", ") + "), whose requests are answered the same way."
	}
	f.Add(doc(unimpl, unimplDoc, ""))
	f.Type().Id(unimpl).Struct()
	for _, m := range methods {
		if g.optionalIface(m, receives) != "" {
			continue
		}
		if m.Kind.Answered() {
			f.Func().Params(jen.Id(unimpl)).Add(g.interfaceMethod(m)).Block(
				jen.Return(jen.Nil(), jen.Op("&").Qual(jsonrpcPkg, "Error").Values(jen.Dict{
					jen.Id("Code"):    jen.Qual(jsonrpcPkg, "MethodNotFound"),
					jen.Id("Message"): jen.Lit("method " + m.Name + " is not implemented"),
				})),
			)
		} else {
			f.Func().Params(jen.Id(unimpl)).Add(g.interfaceMethod(m)).Block()
		}
	}

	// The session handler.
	h := strings.ToLower(iface[:1]) + iface[1:] + "Handler"
	f.Type().Id(h).Struct(jen.Id("impl").Id(iface))
	newH := "New" + iface + "Handler"
	f.Add(doc(newH, newH+" returns the session handler that decodes the "+peer+"'s messages with this revision's types and calls impl.", ""))
	f.Func().Id(newH).Params(jen.Id("impl").Id(iface)).Qual(sessionPkg, "Handler").Block(jen.Return(jen.Id(h).Values(jen.Id("impl"))))
	f.Func().Params(jen.Id(h)).Id("Revision").Params().Op("*").Qual(revisionPkg, "Revision").Block(jen.Return(jen.Id("Protocol")))
	f.Comment("StrictParams marks the handler as decoding params strictly itself (session.StrictHandler).")
	f.Func().Params(jen.Id(h)).Id("StrictParams").Params().Block()
	if iface == "Server" {
		// The options set once on a server (a StandardServer's), which every
		// transport then serves it with (session.OptionsHandler).
		optsIface := jen.Interface(jen.Id("SessionOptions").Params().Qual(sessionPkg, "Options"))
		f.Add(doc("SessionOptions", "SessionOptions returns the session options of impl when it has a method SessionOptions (a StandardServer does), else none: a transport merges them with its own (session.OptionsHandler, session.MergeOptions).", ""))
		f.Func().Params(jen.Id("h").Id(h)).Id("SessionOptions").Params().Qual(sessionPkg, "Options").Block(
			jen.If(jen.List(jen.Id("o"), jen.Id("ok")).Op(":=").Id("h").Dot("impl").Assert(optsIface), jen.Id("ok")).Block(
				jen.Return(jen.Id("o").Dot("SessionOptions").Call()),
			),
			jen.Return(jen.Qual(sessionPkg, "Options").Values()),
		)
	}

	var reqCases, noteCases []jen.Code
	for _, m := range methods {
		decode := g.decodeParams(m)
		if m.Kind.Answered() {
			if tr := g.taskResult(m); tr != nil {
				decode = append(decode, jen.If(jen.Id("p").Dot("Task").Op("!=").Nil()).Block(
					jen.List(jen.Id("t"), jen.Id("ok")).Op(":=").Id("h").Dot("impl").Assert(jen.Id("Task"+iface)),
					jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Op("&").Qual(jsonrpcPkg, "Error").Values(jen.Dict{
						jen.Id("Code"):    jen.Qual(jsonrpcPkg, "MethodNotFound"),
						jen.Id("Message"): jen.Lit(m.Name + " as a task is not supported by this side"),
					}))),
					jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("t").Dot(g.goMethod(m)+"AsTask").Call(jen.Id("ctx"), jen.Id("p")),
					jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
					jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Name+": the task handler returned neither a result nor an error")))),
					jen.Return(jen.Id("r"), jen.Nil()),
				))
			}
			impl := jen.Id("h").Dot("impl")
			if name := g.optionalIface(m, receives); name != "" {
				check := []jen.Code{
					jen.List(jen.Id("impl"), jen.Id("ok")).Op(":=").Id("h").Dot("impl").Assert(jen.Id(name)),
					jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.Op("&").Qual(jsonrpcPkg, "Error").Values(jen.Dict{
						jen.Id("Code"):    jen.Qual(jsonrpcPkg, "MethodNotFound"),
						jen.Id("Message"): jen.Lit("method " + m.Name + " is not implemented"),
					}))),
				}
				if g.taskResult(m) != nil {
					// After the task-augmented form, which a TaskClient answers.
					decode = append(decode, check...)
				} else {
					// Refused before its params are read.
					decode = append(check, decode...)
				}
				impl = jen.Id("impl")
			}
			body := append(decode,
				jen.List(jen.Id("r"), jen.Err()).Op(":=").Add(impl).Dot(g.goMethod(m)).Call(jen.Id("ctx"), jen.Id("p")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Name+": the handler returned neither a result nor an error")))),
				jen.Return(jen.Id("r"), jen.Nil()),
			)
			reqCases = append(reqCases, jen.Case(jen.Id(methodConst(m))).Block(body...))
		} else {
			body := append(decode, jen.Id("h").Dot("impl").Dot(g.goMethod(m)).Call(jen.Id("ctx"), jen.Id("p")))
			noteCases = append(noteCases, jen.Case(jen.Id(methodConst(m))).Block(body...))
		}
	}
	f.Func().Params(jen.Id("h").Id(h)).Id("HandleRequest").Params(ctxParam(), jen.Id("s").Op("*").Qual(sessionPkg, "Session"), jen.Id("method").String(), jen.Id("params").Qual(jsontextPkg, "Value")).Params(wire("Appender"), jen.Error()).Block(
		jen.Switch(jen.Id("method")).Block(reqCases...),
		jen.Return(jen.Nil(), jen.Op("&").Qual(jsonrpcPkg, "Error").Values(jen.Dict{
			jen.Id("Code"):    jen.Qual(jsonrpcPkg, "MethodNotFound"),
			jen.Id("Message"): jen.Lit("method ").Op("+").Id("method").Op("+").Lit(" not found"),
		})),
	)
	f.Func().Params(jen.Id("h").Id(h)).Id("HandleNotification").Params(ctxParam(), jen.Id("s").Op("*").Qual(sessionPkg, "Session"), jen.Id("method").String(), jen.Id("params").Qual(jsontextPkg, "Value")).Block(
		jen.Switch(jen.Id("method")).Block(noteCases...),
	)

	// The typed session: what this side sends to the peer.
	sess := iface + "Session"
	f.Add(doc(sess, sess+" is a session seen from the "+role+" side: typed calls of the "+peer+"'s methods, and the session engine's own (Close, Wait, PeerCapabilities…).", ""))
	f.Type().Id(sess).Struct(jen.Op("*").Qual(sessionPkg, "Session"))
	from := sess + "From"
	f.Add(doc(from, from+" returns the session a handler's ctx belongs to, to call the "+peer+" back (for example to sample or to elicit) or to notify it; progress is reported with session.ReportProgress(ctx, …).", ""))
	f.Func().Id(from).Params(ctxParam()).Params(jen.Op("*").Id(sess), jen.Bool()).Block(
		jen.List(jen.Id("s"), jen.Id("ok")).Op(":=").Qual(sessionPkg, "FromContext").Call(jen.Id("ctx")),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), jen.False())),
		jen.Return(jen.Op("&").Id(sess).Values(jen.Id("s")), jen.True()),
	)
	sendDir := model.ServerToClient
	if receives == model.ServerToClient {
		sendDir = model.ClientToServer
	}
	for _, m := range g.p.Rev.Methods {
		if m.Direction&sendDir == 0 || m.Kind == model.Embedded || m.Name == "initialize" || m.Name == "notifications/cancelled" || m.Name == "notifications/progress" || m.Name == "notifications/initialized" {
			continue
		}
		g.stub(f, sess, m)
		if items := g.listItems(m); items != nil {
			g.iterator(f, sess, m, items)
		}
		if tr := g.taskResult(m); tr != nil {
			g.taskStub(f, sess, m, tr)
		}
	}
	return nil
}

// taskStub emits <Method>AsTask, which sends a task-augmented request and
// returns the created task.
func (g *gen) taskStub(f *jen.File, sess string, m *model.Method, tr *model.Decl) {
	name := g.goMethod(m) + "AsTask"
	taskType := g.goType(m.Params.Decl.Resolve().Field("task").Type)
	f.Add(doc(name, name+" sends "+m.Name+" as a task (with params.task set, empty if nil) and returns the task the receiver created; fetch the outcome with tasks/result.", ""))
	f.Func().Params(jen.Id("s").Op("*").Id(sess)).Id(name).Params(ctxParam(), jen.Id("params").Add(g.paramsType(m)), jen.Id("opts").Op("...").Qual(sessionPkg, "CallOption")).Params(jen.Op("*").Id(g.name(tr)), jen.Error()).Block(
		jen.If(jen.Id("params").Op("==").Nil()).Block(jen.Id("params").Op("=").New(g.goType(m.Params))),
		jen.If(jen.Id("params").Dot("Task").Op("==").Nil()).Block(jen.Id("params").Dot("Task").Op("=").New(taskType)),
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("s").Dot("Session").Dot("Call").Call(jen.Id("ctx"), jen.Id(methodConst(m)), jen.Id("params"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("r").Op(":=").New(jen.Id(g.name(tr))),
		jen.If(jen.Err().Op(":=").Id("s").Dot("Session").Dot("UnmarshalReceived").Call(jen.Id("raw"), jen.Id("r")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Name+" task result: %w"), jen.Err())),
		),
		jen.Return(jen.Id("r"), jen.Nil()),
	)
}

// taskResult returns the task result of a task-augmentable request whose
// params are an object with a "task" member, or nil.
func (g *gen) taskResult(m *model.Method) *model.Decl {
	if m.Kind != model.Request || len(m.Results) < 2 || !g.paramsIsPointer(m) {
		return nil
	}
	pd := m.Params.Decl.Resolve()
	if pd.Kind != model.Object || pd.Field("task") == nil {
		return nil
	}
	return m.Results[1].Resolve()
}

// listItems returns the items field of a paginated list result and the
// params' cursor field, or nil when m is not a paginated list.
func (g *gen) listItems(m *model.Method) *model.Field {
	if m.Kind != model.Request || len(m.Results) == 0 || !g.paramsIsPointer(m) {
		return nil
	}
	pd := m.Params.Decl.Resolve()
	res := m.Results[0].Resolve()
	if pd.Kind != model.Object || res.Kind != model.Object || pd.Field("cursor") == nil || res.Field("nextCursor") == nil {
		return nil
	}
	var items *model.Field
	for _, f := range res.Fields {
		if f.Type.Kind == model.Array && f.Required {
			if items != nil {
				return nil
			}
			items = f
		}
	}
	if items == nil || pd.Field("cursor").Type.Kind != model.String || res.Field("nextCursor").Type.Kind != model.String {
		return nil
	}
	return items
}

// iterator emits All<Items>, which walks every page of a list method.
func (g *gen) iterator(f *jen.File, sess string, m *model.Method, items *model.Field) {
	name := "All" + plan.FieldName(items.Name)
	elem := g.goType(items.Type.Elem)
	pd := g.name(m.Params.Decl.Resolve())
	f.Add(doc(name, name+" calls "+m.Name+" page by page, following nextCursor, and yields every item; it stops at the first error, which it yields.", ""))
	f.Func().Params(jen.Id("s").Op("*").Id(sess)).Id(name).Params(ctxParam(), jen.Id("opts").Op("...").Qual(sessionPkg, "CallOption")).Qual("iter", "Seq2").Types(elem.Clone(), jen.Error()).Block(
		jen.Return(jen.Func().Params(jen.Id("yield").Func().Params(elem.Clone(), jen.Error()).Bool()).Block(
			jen.Id("params").Op(":=").Op("&").Id(pd).Values(),
			jen.For().Block(
				jen.List(jen.Id("page"), jen.Err()).Op(":=").Id("s").Dot(g.goMethod(m)).Call(jen.Id("ctx"), jen.Id("params"), jen.Id("opts").Op("...")),
				jen.If(jen.Err().Op("!=").Nil()).Block(
					jen.Var().Id("zero").Add(elem.Clone()),
					jen.Id("yield").Call(jen.Id("zero"), jen.Err()),
					jen.Return(),
				),
				jen.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Id("page").Dot(plan.FieldName(items.Name))).Block(
					jen.If(jen.Op("!").Id("yield").Call(jen.Id("x"), jen.Nil())).Block(jen.Return()),
				),
				jen.If(jen.Id("page").Dot("NextCursor").Op("==").Nil()).Block(jen.Return()),
				jen.Id("params").Dot("Cursor").Op("=").Id("page").Dot("NextCursor"),
			),
		)),
	)
}

// decodeParams declares p, the params of m decoded from params.
func (g *gen) decodeParams(m *model.Method) []jen.Code {
	if !g.paramsIsPointer(m) {
		return []jen.Code{jen.Id("p").Op(":=").Id("params")}
	}
	return []jen.Code{
		jen.Id("p").Op(":=").New(g.goType(m.Params)),
		jen.If(jen.Id("params").Op("!=").Nil()).Block(
			jen.If(jen.Err().Op(":=").Id("s").Dot("UnmarshalReceived").Call(jen.Id("params"), jen.Id("p")), jen.Err().Op("!=").Nil()).Block(
				g.paramsError(m)...,
			),
		),
	}
}

func (g *gen) paramsError(m *model.Method) []jen.Code {
	if m.Kind == model.Notification {
		return []jen.Code{jen.Return()}
	}
	return []jen.Code{jen.Return(jen.Nil(), jen.Op("&").Qual(jsonrpcPkg, "Error").Values(jen.Dict{
		jen.Id("Code"):    jen.Qual(jsonrpcPkg, "InvalidParams"),
		jen.Id("Message"): jen.Lit(m.Name + " params: ").Op("+").Err().Dot("Error").Call(),
	}))}
}

func (g *gen) methodDoc(m *model.Method, verb string) string {
	s := g.goMethod(m) + " " + verb + " " + m.Name + " (" + g.name(m.Message) + ")."
	if m.Gate != "" {
		s += " It needs the capability " + m.GateSide() + ":" + m.Gate + "."
	}
	return s
}

// stub emits the typed call of m on the session type sess.
func (g *gen) stub(f *jen.File, sess string, m *model.Method) {
	name := g.goMethod(m)
	var arg jen.Code = jen.Id("params")
	if g.paramsIsPointer(m) {
		// A nil pointer sends no params.
		arg = jen.Id("in")
	}
	pre := []jen.Code{}
	if g.paramsIsPointer(m) {
		pre = append(pre,
			jen.Var().Id("in").Add(wire("Appender")),
			jen.If(jen.Id("params").Op("!=").Nil()).Block(jen.Id("in").Op("=").Id("params")),
		)
	} else {
		arg = jen.Qual(sessionPkg, "Raw").Call(jen.Id("params"))
	}
	if m.Kind == model.Notification {
		f.Add(doc("Notify"+name, "Notify"+name+" sends "+m.Name+"; nil params sends none.", ""))
		f.Func().Params(jen.Id("s").Op("*").Id(sess)).Id("Notify"+name).Params(ctxParam(), jen.Id("params").Add(g.paramsType(m))).Error().Block(
			append(pre, jen.Return(jen.Id("s").Dot("Session").Dot("Notify").Call(jen.Id("ctx"), jen.Id(methodConst(m)), arg)))...,
		)
		return
	}
	res := m.Results[0].Resolve()
	f.Add(doc(name, name+" sends "+m.Name+" and returns its result; nil params sends none.", ""))
	f.Func().Params(jen.Id("s").Op("*").Id(sess)).Id(name).Params(ctxParam(), jen.Id("params").Add(g.paramsType(m)), jen.Id("opts").Op("...").Qual(sessionPkg, "CallOption")).Params(g.resultType(m), jen.Error()).Block(
		append(pre,
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("s").Dot("Session").Dot("Call").Call(jen.Id("ctx"), jen.Id(methodConst(m)), arg, jen.Id("opts").Op("...")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("r").Op(":=").New(jen.Id(g.name(res))),
			jen.If(jen.Err().Op(":=").Id("s").Dot("Session").Dot("UnmarshalReceived").Call(jen.Id("raw"), jen.Id("r")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(m.Name+" result: %w"), jen.Err())),
			),
			jen.Return(jen.Id("r"), jen.Nil()),
		)...,
	)
}

// connectFile emits Protocol, its registration and Serve (Connect is in
// client.go, see connectClient).
func (g *gen) connectFile(f *jen.File) error {
	f.Add(doc("Protocol", "Protocol describes this revision to the session engine. Importing the package registers it, so that sessions in this binary can negotiate it.", ""))
	f.Var().Id("Protocol").Op("=").Op("&").Qual(revisionPkg, "Revision").Values(jen.Dict{
		jen.Id("Name"):     jen.Id("Revision"),
		jen.Id("Batching"): jen.Id("Batching"),
		jen.Id("Methods"):  jen.Id("methodTable"),
		jen.Id("New"):      jen.Id("New"),
	})
	f.Func().Id("init").Params().Block(jen.Qual(revisionPkg, "Register").Call(jen.Id("Protocol")))

	g.serveFunc(f)
	return nil
}

// hasHandshake reports whether the revision has the initialize request with
// the members Connect fills in.
func (g *gen) hasHandshake() bool {
	m := g.p.Rev.Method("initialize")
	if m == nil || m.Params == nil || m.Params.Kind != model.Ref || g.p.Rev.Lookup("Implementation") == nil || g.p.Rev.Lookup("ClientCapabilities") == nil {
		return false
	}
	d := m.Params.Decl.Resolve()
	if d.Kind != model.Object || g.name(d) != "InitializeRequestParams" {
		return false
	}
	for _, f := range []string{"protocolVersion", "capabilities", "clientInfo"} {
		if d.Field(f) == nil {
			return false
		}
	}
	return true
}

func (g *gen) serveFunc(f *jen.File) {
	f.Add(doc("Serve", "Serve runs srv as the server side of a session on t until the client closes the connection or ctx ends, and returns why (nil for a normal end). A srv with a Handler method (such as the StandardServer of a stateless revision) is served by the handler it returns, with what that adds; any other by NewServerHandler(srv). The session runs with opts merged with the options srv carries (session.MergeOptions; a StandardServer's SessionOptions); revisions they name that are not linked into the binary are refused at once (session.CheckRevisions).", ""))
	f.Func().Id("Serve").Params(ctxParam(), jen.Id("t").Qual(transportPkg, "Transport"), jen.Id("srv").Id("Server"), jen.Id("opts").Qual(sessionPkg, "Options")).Error().Block(
		jen.Id("h").Op(":=").Id("NewServerHandler").Call(jen.Id("srv")),
		jen.If(jen.List(jen.Id("hs"), jen.Id("ok")).Op(":=").Id("srv").Assert(jen.Interface(jen.Id("Handler").Params().Qual(sessionPkg, "Handler"))), jen.Id("ok")).Block(
			jen.Id("h").Op("=").Id("hs").Dot("Handler").Call(),
		),
		jen.If(jen.Err().Op(":=").Qual(sessionPkg, "CheckRevisions").Call(jen.Qual(sessionPkg, "MergeOptions").Call(jen.Id("h"), jen.Id("opts")).Dot("Revisions")), jen.Err().Op("!=").Nil()).Block(
			jen.Id("t").Dot("Close").Call(),
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("Serve: %w"), jen.Err())),
		),
		jen.Id("s").Op(":=").Qual(sessionPkg, "New").Call(jen.Qual(sessionPkg, "Server"), jen.Id("t"), jen.Id("h"), jen.Id("opts")),
		jen.Select().Block(
			jen.Case(jen.Op("<-").Id("ctx").Dot("Done").Call()).Block(jen.Return(jen.Id("s").Dot("Close").Call())),
			jen.Case(jen.Op("<-").Id("s").Dot("Done").Call()).Block(jen.Return(jen.Id("s").Dot("Wait").Call())),
		),
	)
}
