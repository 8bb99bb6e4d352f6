package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/generator/model"
)

// optionalIfaceNames names the optional interface of each request a server
// sends that needs a capability of the client's (see optionalIface): the
// -er noun a Go reader expects of a one-method interface. A request not
// listed gets <Method>Handler, such as CreateMessageHandler.
var optionalIfaceNames = map[string]string{
	"elicitation/create":     "Elicitor",    // Elicit
	"sampling/createMessage": "Sampler",     // CreateMessage: sampling is the capability's name
	"roots/list":             "RootsLister", // ListRoots
}

// optionalIface returns the name of the optional interface that answers
// m on the side that receives it, or "" when m belongs to that side's
// handler interface. A request the server sends whose capability gate is
// the client's own (elicitation, sampling, roots) is optional: a client
// answers it only if it implements the interface, and Connect declares
// the capability for it then, so that a client that implements Elicit
// declares elicitation without saying so twice. Notifications, and
// requests gated by the sender's capabilities or by none, stay in the
// Client interface, where UnimplementedClient gives every one a default.
func (g *gen) optionalIface(m *model.Method, receives model.Direction) string {
	if receives != model.ServerToClient || !m.Kind.Answered() || m.Gate == "" || m.GateSide() != "client" {
		return ""
	}
	if name, ok := optionalIfaceNames[m.Name]; ok {
		return name
	}
	return g.goMethod(m) + "Handler"
}

// optionalIfaces returns the names of the optional interfaces of methods.
func (g *gen) optionalIfaces(methods []*model.Method, receives model.Direction) []string {
	var out []string
	for _, m := range methods {
		if name := g.optionalIface(m, receives); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// optionalIfaceDecl emits the optional interface name that answers m.
func (g *gen) optionalIfaceDecl(f *jen.File, m *model.Method, name, iface string) {
	declares := "Connect declares the capability " + m.Gate + " for it (the empty object), unless ClientOptions.Capabilities sets it."
	if g.emptyCapability(m) == nil {
		declares = "Declare the capability " + m.Gate + " in ClientOptions.Capabilities for the server to send it."
	}
	f.Add(doc(name, name+" is implemented by a "+iface+" that answers "+m.Name+" ("+g.name(m.Message)+"). "+declares+" A "+iface+" that does not implement it answers the request with error -32601 (method not found).", ""))
	f.Type().Id(name).Interface(
		doc(g.goMethod(m), g.methodDoc(m, "handles"), ""),
		g.interfaceMethod(m),
	)
}

// capabilityField returns the member of ClientCapabilities that m's gate
// names (its first element: "elicitation" for "elicitation.url"), or nil.
func (g *gen) capabilityField(m *model.Method) *model.Field {
	caps := g.p.Rev.Lookup("ClientCapabilities")
	if caps == nil || caps.Resolve().Kind != model.Object {
		return nil
	}
	root, _, _ := strings.Cut(m.Gate, ".")
	return caps.Resolve().Field(root)
}

// emptyCapability returns the value that declares m's capability as the
// empty object, for a ClientCapabilities member that is a pointer to a
// struct or raw JSON; nil for a member of another shape, which Connect
// then leaves to the caller.
func (g *gen) emptyCapability(m *model.Method) *jen.Statement {
	fl := g.capabilityField(m)
	if fl == nil || fl.Required || fl.Type.Nullable || strings.Contains(m.Gate, ".") {
		return nil
	}
	t := resolveType(fl.Type)
	switch {
	case t.Kind == model.RawValue || t.Kind == model.RawObject:
		return jen.Qual(jsontextPkg, "Value").Call(jen.Lit("{}"))
	case t.Kind == model.Ref && t.Decl.Kind == model.Object:
		return jen.Op("&").Id(g.name(t.Decl)).Values()
	}
	return nil
}

// canConnect reports whether the revision has what Connect needs: the
// initialize handshake, or server/discover for a revision of the stateless
// era, and the Implementation and ClientCapabilities it sends.
func (g *gen) canConnect() bool {
	if g.p.Rev.Lookup("Implementation") == nil || g.p.Rev.Lookup("ClientCapabilities") == nil {
		return false
	}
	return g.hasHandshake() || g.p.Rev.Method("server/discover") != nil
}

// clientNames are the names connectClient declares, which a revision's
// own definitions must leave free.
// (and the names client.go.tmpl declares beside them).
var clientNames = []string{"ClientOptions", "ClientExtension", "Connect", "Elicitor", "Sampler", "RootsLister", "Pipe", "RPCError", "ConnectTimeoutError", "IsResourceNotFound", "Command", "HTTP", "HTTPClientOptions", "Transport", "ToolError", "CallTypedTool", "Accept", "Decline", "Cancel"}

// connectClient emits ClientOptions, Connect and the capabilities Connect
// infers from the optional interfaces the handler implements.
func (g *gen) connectClient(f *jen.File) error {
	if !g.canConnect() {
		return nil
	}
	for _, d := range g.p.Rev.Decls {
		for _, n := range clientNames {
			if g.name(d) == n {
				return fmt.Errorf("emit client.go: the definition %s is named %s, which the client's bindings declare too; rename it in the plan's name table", d.Name, n)
			}
		}
	}
	var optional []*model.Method
	for _, m := range g.handled(model.ServerToClient) {
		if g.optionalIface(m, model.ServerToClient) != "" {
			optional = append(optional, m)
		}
	}

	capsDoc := "Capabilities are the client's capabilities, sent as they are."
	if len(optional) > 0 {
		var inferred []string
		for _, m := range optional {
			if g.emptyCapability(m) != nil {
				inferred = append(inferred, m.Gate+" for "+g.optionalIface(m, model.ServerToClient))
			}
		}
		if len(inferred) > 0 {
			capsDoc = "Capabilities are the client's capabilities. Connect adds the capability of each optional interface the Handler implements, as the empty object: " + strings.Join(inferred, ", ") + ". One set here is sent as it is and wins: set it to declare more (a mode, a sub-capability) than the empty object."
		}
	}
	modern := !g.hasHandshake()
	exts := modern && g.hasClientExtensions()
	handlerDoc := "Handler answers the server's requests and receives its notifications; nil means UnimplementedClient."
	if modern {
		handlerDoc = "Handler answers the server's requests for input, in either era (the inputRequests of a multi round-trip result, or real requests on a legacy session), and receives its notifications; nil means UnimplementedClient."
	}
	f.Add(doc("ClientOptions", "ClientOptions configure Connect. Every field is optional: the zero value, or a nil *ClientOptions, connects with the defaults.", ""))
	f.Type().Id("ClientOptions").Struct(
		doc("Info", "Info names the client to the server (clientInfo). An empty Name or Version is filled in from the running program's build information (session.ProgramInfo): the last element of its main package's path, such as \"weather\", and its module's version, or \"(devel)\".", ""),
		jen.Id("Info").Id("Implementation"),
		doc("Capabilities", capsDoc, ""),
		jen.Id("Capabilities").Id("ClientCapabilities"),
		doc("Handler", handlerDoc, ""),
		jen.Id("Handler").Id("Client"),
		doc("ConnectTimeout", "ConnectTimeout bounds the handshake: a server that has not completed it in time fails Connect with a *ConnectTimeoutError, at that time, that names it and says what to check (quoting what it wrote that is not JSON-RPC, such as a log line on its stdout). 0 means session.DefaultConnectTimeout (30 s); negative, no bound but ctx's.", ""),
		jen.Id("ConnectTimeout").Qual("time", "Duration"),
		doc("Revisions", "Revisions are the protocol revisions the client may speak, such as []string{\"2025-11-25\"} to pin one; Connect refuses a name not linked into the binary. nil leaves Session.Revisions (nil: every revision linked); set, they replace Session.Revisions: a shortcut for it.", ""),
		jen.Id("Revisions").Index().String(),
		doc("Middleware", "Middleware wraps the handling of what the client sends and receives, whatever the transport (see session.Middleware for what passes through it): the first is the outermost. It runs outside Session.Middleware.", ""),
		jen.Id("Middleware").Index().Qual(sessionPkg, "Middleware"),
		extensionsDoc(exts),
		extensionsField(exts),
		doc("Session", "Session configures the session, whatever the transport: the revisions it may speak (Revisions, each checked by name), more middleware, its logger, call timeout and limits.", ""),
		jen.Id("Session").Qual(sessionPkg, "Options"),
	)
	if exts {
		f.Add(doc("ClientExtension", "ClientExtension is an MCP extension a client uses, negotiated under capabilities.extensions (such as the client side of the Tasks extension, protocol/ext/tasks): see session.ClientExtension.", ""))
		f.Type().Id("ClientExtension").Op("=").Qual(sessionPkg, "ClientExtension")
	}

	// capabilities
	var body []jen.Code
	body = append(body, jen.Id("caps").Op(":=").Id("o").Dot("Capabilities"))
	for _, m := range optional {
		name := g.optionalIface(m, model.ServerToClient)
		want := fmt.Sprintf("func(context.Context, %#v) (%#v, error)", g.paramsType(m), g.resultType(m))
		check := jen.Err().Op(":=").Qual(sessionPkg, "CheckHandler").Call(jen.Id("o").Dot("Handler"), jen.Lit(g.goMethod(m)), jen.Lit(name), jen.Lit(want))
		fail := jen.Return(jen.Id("caps"), jen.Qual("fmt", "Errorf").Call(jen.Lit("ClientOptions.Handler: %w"), jen.Err()))
		empty := g.emptyCapability(m)
		if empty == nil {
			body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("o").Dot("Handler").Assert(jen.Id(name)), jen.Op("!").Id("ok")).Block(
				jen.If(check, jen.Err().Op("!=").Nil()).Block(fail),
			))
			continue
		}
		field := fieldName(g.capabilityField(m))
		body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("o").Dot("Handler").Assert(jen.Id(name)), jen.Id("ok")).Block(
			jen.If(jen.Id("caps").Dot(field).Op("==").Nil()).Block(jen.Id("caps").Dot(field).Op("=").Add(empty)),
		).Else().If(check, jen.Err().Op("!=").Nil()).Block(fail))
	}
	body = append(body, jen.Return(jen.Id("caps"), jen.Nil()))
	f.Comment("capabilities returns o.Capabilities with those of the optional interfaces")
	f.Comment("o.Handler implements added (see ClientOptions.Capabilities), or an error")
	f.Comment("for a Handler with a method of such an interface's name but not its")
	f.Comment("signature (session.CheckHandler).")
	f.Func().Params(jen.Id("o").Op("*").Id("ClientOptions")).Id("capabilities").Params().Params(jen.Id("ClientCapabilities"), jen.Error()).Block(body...)

	connectDoc := "Connect starts a client session on t and returns it ready: it starts t if t is a transport.Starter (a server command, see stdio.NewCommand), sends initialize with the client's info and capabilities, offering the newest revision linked into the binary that opts.Session.Revisions allows, checks the answer and sends notifications/initialized."
	if modern {
		connectDoc = "Connect starts a client session on t, finds out which era the server speaks, and returns the session ready. It starts t if t is a transport.Starter (a server command, see stdio.NewCommand), then probes with server/discover: when the server answers, every later request is sent statelessly, with the client's info, capabilities and the revision in _meta; when it does not, Connect falls back to initialize with the newest revision with the handshake linked into the binary that opts.Session.Revisions allows. The ClientSession's Revision and Era tell which. See session.Session.Connect."
	}
	f.Add(doc("Connect", connectDoc, "",
		"A nil opts is the zero ClientOptions. Before anything is sent, Connect refuses revisions (opts.Revisions, or else opts.Session.Revisions) that are empty or names a revision not linked into the binary (session.CheckRevisions), and a Handler with a method of an optional interface's name but not its signature (session.CheckHandler). A server that has not completed the handshake within opts.ConnectTimeout (30 s by default) fails it with a *ConnectTimeoutError, at that time, and one whose process exits with the exit status and the end of its stderr. When Connect fails, t is closed: before it returns, or, when it ran out of time (opts.ConnectTimeout or ctx), in the background, since a server process that ignores the end of its stdin and SIGTERM takes up to twice stdio.DefaultGrace to stop."))
	f.Func().Id("Connect").Params(ctxParam(), jen.Id("t").Qual(transportPkg, "Transport"), jen.Id("opts").Op("*").Id("ClientOptions")).Params(jen.Op("*").Id("ClientSession"), jen.Error()).Block(
		jen.If(jen.Id("t").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("connect: no transport: give Command(...), HTTP(url, nil) or another transport.Transport")))),
		jen.Var().Id("o").Id("ClientOptions"),
		jen.If(jen.Id("opts").Op("!=").Nil()).Block(jen.Id("o").Op("=").Op("*").Id("opts")),
		jen.If(jen.Id("o").Dot("Handler").Op("==").Nil()).Block(jen.Id("o").Dot("Handler").Op("=").Id("UnimplementedClient").Values()),
		jen.If(jen.Id("o").Dot("Revisions").Op("!=").Nil()).Block(jen.Id("o").Dot("Session").Dot("Revisions").Op("=").Id("o").Dot("Revisions")),
		jen.List(jen.Id("caps"), jen.Err()).Op(":=").Id("o").Dot("capabilities").Call(),
		jen.If(jen.Err().Op("==").Nil()).Block(jen.Err().Op("=").Qual(sessionPkg, "CheckRevisions").Call(jen.Id("o").Dot("Session").Dot("Revisions"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Id("_").Op("=").Id("t").Dot("Close").Call(),
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("connect: %w"), jen.Err())),
		),
		jen.Id("info").Op(":=").Id("o").Dot("Info"),
		jen.If(jen.Id("info").Dot("Name").Op("==").Lit("").Op("||").Id("info").Dot("Version").Op("==").Lit("")).Block(
			jen.List(jen.Id("name"), jen.Id("version")).Op(":=").Qual(sessionPkg, "ProgramInfo").Call(),
			jen.If(jen.Id("info").Dot("Name").Op("==").Lit("")).Block(jen.Id("info").Dot("Name").Op("=").Id("name")),
			jen.If(jen.Id("info").Dot("Version").Op("==").Lit("")).Block(jen.Id("info").Dot("Version").Op("=").Id("version")),
		),
		jen.If(jen.List(jen.Id("st"), jen.Id("ok")).Op(":=").Id("t").Assert(jen.Qual(transportPkg, "Starter")), jen.Id("ok")).Block(
			jen.If(jen.Err().Op(":=").Id("st").Dot("Start").Call(jen.Id("ctx")), jen.Err().Op("!=").Nil()).Block(
				jen.Id("_").Op("=").Id("t").Dot("Close").Call(),
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("connect: %w"), jen.Err())),
			),
		),
		jen.If(jen.Len(jen.Id("o").Dot("Middleware")).Op(">").Lit(0)).Block(
			jen.Id("o").Dot("Session").Dot("Middleware").Op("=").Append(jen.Append(jen.Index().Qual(sessionPkg, "Middleware").Values(), jen.Id("o").Dot("Middleware").Op("...")), jen.Id("o").Dot("Session").Dot("Middleware").Op("...")),
		),
		extensionsMerge(exts),
		jen.Id("s").Op(":=").Qual(sessionPkg, "New").Call(jen.Qual(sessionPkg, "Client"), jen.Id("t"), jen.Id("NewClientHandler").Call(jen.Id("o").Dot("Handler")), jen.Id("o").Dot("Session")),
		jen.If(jen.Err().Op(":=").Id("s").Dot("ConnectWithin").Call(jen.Id("ctx"), jen.Op("&").Id("info"), jen.Op("&").Id("caps"), jen.Id("o").Dot("ConnectTimeout")), jen.Err().Op("!=").Nil()).Block(
			jen.Var().Id("late").Op("*").Qual(sessionPkg, "ConnectTimeoutError"),
			jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("late")).Op("||").Id("ctx").Dot("Err").Call().Op("!=").Nil()).Block(
				jen.Comment("Out of time: the error is due now, and a server process may"),
				jen.Comment("take its grace periods to stop (see stdio.Process.Close)."),
				jen.Go().Id("s").Dot("Close").Call(),
				jen.Return(jen.Nil(), jen.Err()),
			),
			jen.Id("_").Op("=").Id("s").Dot("Close").Call(),
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Op("&").Id("ClientSession").Values(jen.Id("s")), jen.Nil()),
	)
	return nil
}

// hasClientExtensions reports whether the revision's ClientCapabilities
// has the member extensions (2026-07-28 on): its clients may use
// extensions (ClientOptions.Extensions).
func (g *gen) hasClientExtensions() bool {
	d := g.p.Rev.Lookup("ClientCapabilities")
	return d != nil && d.Resolve().Kind == model.Object && d.Resolve().Field("extensions") != nil
}

// extensionsDoc and extensionsField are ClientOptions.Extensions, for a
// revision whose clients may use extensions (exts); nothing otherwise.
func extensionsDoc(exts bool) jen.Code {
	if !exts {
		return jen.Null()
	}
	return doc("Extensions", "Extensions are the extensions the client uses, such as the Tasks extension's (protocol/ext/tasks): each is declared in the client's capabilities (capabilities.extensions), its requests may be called, and the results it follows (a task) are followed to their end by the calls that get them. They come before Session.Extensions. See session.ClientExtension.", "")
}

func extensionsField(exts bool) jen.Code {
	if !exts {
		return jen.Null()
	}
	return jen.Id("Extensions").Index().Id("ClientExtension")
}

// extensionsMerge puts ClientOptions.Extensions before
// Session.Extensions, for a revision whose clients may use extensions.
func extensionsMerge(exts bool) jen.Code {
	if !exts {
		return jen.Null()
	}
	return jen.If(jen.Len(jen.Id("o").Dot("Extensions")).Op(">").Lit(0)).Block(
		jen.Id("o").Dot("Session").Dot("Extensions").Op("=").Append(jen.Append(jen.Index().Qual(sessionPkg, "ClientExtension").Values(), jen.Id("o").Dot("Extensions").Op("...")), jen.Id("o").Dot("Session").Dot("Extensions").Op("...")),
	)
}

// clientData is the data of client.go.tmpl, the client's helpers (see the
// template for what each key holds); ok is false when the revision lacks
// what they need: Connect, and the tools/call types with text content.
func (g *gen) clientData() (data map[string]any, ok bool) {
	if !g.canConnect() {
		return nil, false
	}
	for _, decl := range clientTemplateDecls {
		d := g.p.Rev.Lookup(decl.name)
		if d == nil || d.Resolve().Kind != model.Object {
			return nil, false
		}
		for _, f := range decl.fields {
			if d.Resolve().Field(f) == nil {
				return nil, false
			}
		}
	}
	res := g.p.Rev.Lookup("CallToolResult").Resolve()
	content := res.Field("content")
	if content.Type.Kind != model.Array || content.Type.Elem.Kind != model.Ref {
		return nil, false
	}
	text := textVariant(content.Type.Elem.Decl)
	if text == nil {
		return nil, false
	}
	data = map[string]any{
		"Package":     g.opt.Package,
		"Revision":    g.p.Rev.Name,
		"ToolContent": g.name(content.Type.Elem.Decl.Resolve()),
		"TextContent": g.name(text),
	}
	g.toolsData(data, res)
	g.elicitData(data)
	return data, true
}

// clientTemplateDecls are the definitions client.go.tmpl names, with the
// members it sets or reads.
var clientTemplateDecls = []struct {
	name   string
	fields []string
}{
	{"CallToolRequestParams", []string{"name", "arguments"}},
	{"CallToolResult", []string{"content", "isError"}},
	{"GetPromptResult", []string{"messages"}},
	{"ReadResourceResult", []string{"contents"}},
	{"Tool", []string{"name"}},
}

// elicitData adds to data the Go types of an elicitation's answer: the
// content value union (ElicitValue, "" when the revision has no
// elicitation) and its variants by JSON kind (ElicitString, ElicitInteger,
// ElicitNumber, ElicitBoolean, ElicitArray for an array of strings; ""
// for a kind the revision lacks).
func (g *gen) elicitData(data map[string]any) {
	for _, k := range []string{"ElicitValue", "ElicitString", "ElicitInteger", "ElicitNumber", "ElicitBoolean", "ElicitArray"} {
		data[k] = ""
	}
	er := g.p.Rev.Lookup("ElicitResult")
	if er == nil || er.Resolve().Kind != model.Object || er.Resolve().Field("action") == nil {
		return
	}
	c := er.Resolve().Field("content")
	if c == nil || c.Type.Kind != model.Map || c.Type.Elem.Kind != model.Ref || c.Type.Elem.Decl.Resolve().Kind != model.Union {
		return
	}
	u := c.Type.Elem.Decl.Resolve()
	kinds := map[string]string{}
	for _, v := range u.Variants {
		if v.Kind != model.Ref {
			return
		}
		vd := v.Decl.Resolve()
		if vd.Kind != model.Alias {
			return // an object variant: the helpers do not know how to fill it
		}
		t := vd.Target
		switch {
		case t.Kind == model.String:
			kinds["ElicitString"] = g.name(vd)
		case t.Kind == model.Integer:
			kinds["ElicitInteger"] = g.name(vd)
		case t.Kind == model.Number:
			kinds["ElicitNumber"] = g.name(vd)
		case t.Kind == model.Boolean:
			kinds["ElicitBoolean"] = g.name(vd)
		case t.Kind == model.Array && t.Elem.Kind == model.String:
			kinds["ElicitArray"] = g.name(vd)
		default:
			return
		}
	}
	for k, v := range kinds {
		data[k] = v
	}
	data["ElicitValue"] = g.name(u)
}
