package model

import (
	"fmt"
	"slices"
	"strings"
)

// The hand decisions of the model, each with its reason. An entry that
// applies to a revision but is never used fails the build of that revision's
// model, so the tables cannot rot.

// rawMember makes an object member raw JSON (a checked JSON object) instead of
// a generated type.
type rawMember struct {
	Decl, Member string
	Why          string
}

var rawMembers = []*rawMember{
	{"Tool", "inputSchema", "an embedded JSON Schema may use any keyword of its dialect; a struct of the few the MCP schema names would drop the rest"},
	{"Tool", "outputSchema", "an embedded JSON Schema may use any keyword of its dialect; a struct of the few the MCP schema names would drop the rest"},
}

func (b *builder) rawOverride(decl, member string) (*rawMember, bool) {
	for _, e := range rawMembers {
		if e.Decl == decl && e.Member == member {
			b.used[e] = true
			return e, true
		}
	}
	return nil, false
}

// resultRule pairs a request with results other than its name suggests.
type resultRule struct {
	Request string   // request definition name
	Results []string // result definition names, in order
	Why     string
}

var resultRules = []*resultRule{
	{"PingRequest", []string{"EmptyResult"}, "a ping is answered with an empty result"},
	{"SubscribeRequest", []string{"EmptyResult"}, "subscribing is answered with an empty result"},
	{"UnsubscribeRequest", []string{"EmptyResult"}, "unsubscribing is answered with an empty result"},
	{"SetLevelRequest", []string{"EmptyResult"}, "setting the log level is answered with an empty result"},
}

// results finds what answers the request m: a hand rule where one applies
// (its names exist in the revision), else the definition named after it
// (XRequest → XResult); then the other results its response definition
// allows (XResultResponse, whose "result" may be a union, such as
// InputRequiredResult in 2026-07-28) and CreateTaskResult when its params
// carry "task".
func (b *builder) results(m *Method, reached map[Direction]map[*Decl]bool) error {
	if !m.Kind.Answered() {
		return nil
	}
	if err := b.pairResults(m); err != nil {
		return err
	}
	// The response definition, named after the result.
	if w := b.byName[m.Results[0].Name+"Response"]; w != nil && w.Resolve().Kind == Object && w.Resolve().Field("result") != nil {
		w = w.Resolve()
		m.Response = w
		rt := w.Field("result").Type
		if rt.Kind != Ref {
			return b.errorf(w.Pointer, "method %q: the result of %s is not a definition", m.Name, w.Name)
		}
		switch rd := rt.Decl.Resolve(); {
		case rd.Kind == Union:
			m.AnyResult = rd
			if !inUnion(rd, m.Results[0]) {
				return b.errorf(w.Pointer, "method %q: %s does not allow %s", m.Name, w.Name, m.Results[0].Name)
			}
			for _, v := range rd.Variants {
				vd := v.Decl.Resolve()
				if !slices.ContainsFunc(m.Results, func(x *Decl) bool { return x.Resolve() == vd }) {
					m.Results = append(m.Results, vd)
				}
			}
		case rd != m.Results[0].Resolve():
			return b.errorf(w.Pointer, "method %q: %s carries %s, not %s", m.Name, w.Name, rd.Name, m.Results[0].Name)
		}
	}
	// The answering side must be able to send each result.
	for _, d := range m.Results {
		if m.Kind == Embedded {
			answerer := Both &^ m.Direction
			if answerer == 0 || !reached[answerer][d] {
				return b.errorf(m.Message.Pointer, "method %q: result %s is not part of any message the answering side sends", m.Name, d.Name)
			}
			continue
		}
		if m.Direction&ClientToServer != 0 {
			if err := b.inResultUnion(m, "ServerResult", d); err != nil {
				return err
			}
		}
		if m.Direction&ServerToClient != 0 {
			if err := b.inResultUnion(m, "ClientResult", d); err != nil {
				return err
			}
		}
	}
	// Task augmentation, derived from a "task" member of the params. The
	// schema leaves CreateTaskResult out of the result unions.
	if ct := b.byName["CreateTaskResult"]; ct != nil && m.Params != nil && m.Params.Kind == Ref && hasMember(m.Params.Decl, "task") {
		m.Results = append(m.Results, ct)
		m.Why = joinWhy(m.Why, "task-augmented "+m.Name+" is answered with CreateTaskResult")
	}
	return nil
}

// inResultUnion checks that the result union un, where the revision has one,
// lists d.
func (b *builder) inResultUnion(m *Method, un string, d *Decl) error {
	u := b.byName[un]
	if u == nil || u.Resolve().Kind != Union {
		return nil
	}
	if !inUnion(u.Resolve(), d) {
		return b.errorf(m.Message.Pointer, "method %q: result %s is not a member of %s", m.Name, d.Name, un)
	}
	return nil
}

func (b *builder) allExist(names []string) bool {
	for _, n := range names {
		if b.byName[n] == nil {
			return false
		}
	}
	return true
}

// hasMember reports whether an object, or every variant of a union, has the
// field name.
func hasMember(d *Decl, name string) bool {
	d = d.Resolve()
	switch d.Kind {
	case Object:
		return d.Field(name) != nil
	case Union:
		for _, v := range d.Variants {
			if v.Kind != Ref || !hasMember(v.Decl, name) {
				return false
			}
		}
		return len(d.Variants) > 0
	}
	return false
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func inUnion(u, d *Decl) bool {
	d = d.Resolve()
	for _, v := range u.Variants {
		if v.Kind == Ref && v.Decl.Resolve() == d {
			return true
		}
	}
	return false
}

// gateRule names the capability that gates a method. Side is whose
// capabilities object holds it: "server" for server features, "client" for
// client features.
type gateRule struct {
	Method string
	Side   string
	Path   string
	Why    string
}

var gateRules = []*gateRule{
	{"completion/complete", "server", "completions", "servers that offer completion declare completions"},
	{"logging/setLevel", "server", "logging", "servers that emit logs declare logging"},
	{"notifications/message", "server", "logging", "servers that emit logs declare logging"},
	{"prompts/get", "server", "prompts", "servers with prompts declare prompts"},
	{"prompts/list", "server", "prompts", "servers with prompts declare prompts"},
	{"notifications/prompts/list_changed", "server", "prompts.listChanged", "only servers that declared listChanged notify"},
	{"resources/list", "server", "resources", "servers with resources declare resources"},
	{"resources/read", "server", "resources", "servers with resources declare resources"},
	{"resources/templates/list", "server", "resources", "servers with resources declare resources"},
	{"resources/subscribe", "server", "resources.subscribe", "subscriptions need resources.subscribe"},
	{"resources/unsubscribe", "server", "resources.subscribe", "subscriptions need resources.subscribe"},
	{"notifications/resources/updated", "server", "resources.subscribe", "updates go to subscribers only"},
	{"notifications/resources/list_changed", "server", "resources.listChanged", "only servers that declared listChanged notify"},
	{"tools/call", "server", "tools", "servers with tools declare tools"},
	{"tools/list", "server", "tools", "servers with tools declare tools"},
	{"notifications/tools/list_changed", "server", "tools.listChanged", "only servers that declared listChanged notify"},
	{"roots/list", "client", "roots", "clients that expose roots declare roots"},
	{"notifications/roots/list_changed", "client", "roots.listChanged", "only clients that declared listChanged notify"},
	{"sampling/createMessage", "client", "sampling", "clients that sample declare sampling"},
	{"elicitation/create", "client", "elicitation", "clients that elicit declare elicitation"},
	{"notifications/elicitation/complete", "client", "elicitation.url", "only for URL elicitations, which need elicitation.url"},
	{"tasks/list", "receiver", "tasks.list", "the receiver declares tasks.list"},
	{"tasks/get", "receiver", "tasks", "only for tasks the receiver created, which it can only do having declared tasks"},
	{"tasks/result", "receiver", "tasks", "only for tasks the receiver created, which it can only do having declared tasks"},
	{"tasks/cancel", "receiver", "tasks.cancel", "the receiver declares tasks.cancel"},
}

// GateSide says whose capabilities object gates a method: "server",
// "client", or "receiver" (the side that receives it, for methods that go
// both ways).
func (m *Method) GateSide() string { return m.gateSide }

func (b *builder) gate(m *Method) error {
	for _, g := range gateRules {
		if g.Method != m.Name {
			continue
		}
		applies := true
		for _, side := range b.gateSides(m, g.Side) {
			if !hasPath(b.capabilities(side), strings.Split(g.Path, ".")) {
				applies = false
			}
		}
		if !applies {
			break // the revision lacks the capability: infer
		}
		b.used[g] = true
		m.Gate = g.Path
		m.gateSide = g.Side
		return nil
	}
	b.inferGate(m)
	return nil
}

// gateSides returns whose capabilities a gate of side names: "server",
// "client", or for "receiver" the side(s) that receive m.
func (b *builder) gateSides(m *Method, side string) []string {
	if side != "receiver" {
		return []string{side}
	}
	var sides []string
	if m.Direction&ClientToServer != 0 {
		sides = append(sides, "server")
	}
	if m.Direction&ServerToClient != 0 {
		sides = append(sides, "client")
	}
	return sides
}

// capabilities returns the capabilities definition of side ("server" or
// "client"), or nil.
func (b *builder) capabilities(side string) *Decl {
	return b.byName[strings.ToUpper(side[:1])+side[1:]+"Capabilities"]
}

// inferGate gates a method the gate table does not decide by the capability
// its name names: "widgets/list" by widgets, "notifications/widgets/
// list_changed" by widgets.listChanged, when the capabilities object of the
// side that offers the feature declares them (the plural "completions" is
// tried too). A request's receiver offers the feature; a notification's
// sender does.
func (b *builder) inferGate(m *Method) {
	segs := strings.Split(strings.TrimPrefix(m.Name, "notifications/"), "/")
	if len(segs) < 2 {
		return // "ping", "initialize", "notifications/cancelled": no feature
	}
	side := "server"
	switch {
	case m.Direction == Both && m.Kind == Notification:
		return // the sender offers the feature, and either side sends it: no side to name
	case m.Direction == Both:
		side = "receiver"
	case (m.Direction == ClientToServer) == (m.Kind == Notification):
		side = "client"
	}
	all := b.gateSides(m, side)
	declares := func(path ...string) bool {
		for _, s := range all {
			if !hasPath(b.capabilities(s), path) {
				return false
			}
		}
		return true
	}
	path := ""
	for _, name := range []string{segs[0], segs[0] + "s"} {
		if declares(name) {
			path = name
			break
		}
	}
	if path == "" {
		return
	}
	if sub := lowerCamel(segs[len(segs)-1]); declares(path, sub) {
		path += "." + sub
	}
	m.Gate = path
	m.gateSide = side
	m.GateInferred = true
}

// lowerCamel turns "list_changed" into "listChanged".
func lowerCamel(s string) string {
	p := pascal(s)
	if p == "" {
		return p
	}
	return strings.ToLower(p[:1]) + p[1:]
}

func hasPath(d *Decl, path []string) bool {
	if d == nil {
		return false
	}
	d = d.Resolve()
	if d.Kind != Object {
		return false
	}
	f := d.Field(path[0])
	if f == nil {
		return false
	}
	if len(path) == 1 {
		return true
	}
	if f.Type.Kind != Ref {
		return false
	}
	return hasPath(f.Type.Decl, path[1:])
}

// tableUse names the hand-table entries that applied to this revision.
func (b *builder) tableUse() map[string]bool {
	use := map[string]bool{}
	for e := range b.used {
		use[entryName(e)] = true
	}
	return use
}

func entryName(e any) string {
	switch e := e.(type) {
	case *rawMember:
		return "raw member " + e.Decl + "." + e.Member
	case *resultRule:
		return "result rule for " + e.Request
	case *gateRule:
		return "gate rule for " + e.Method
	case *extraResult:
		return "extra result " + e.Result + " of " + e.Method
	}
	panic(fmt.Sprintf("model: unknown table entry %T", e))
}

// TableEntries names every entry of the model's hand tables.
func TableEntries() []string {
	var out []string
	for _, e := range rawMembers {
		out = append(out, entryName(e))
	}
	for _, e := range resultRules {
		out = append(out, entryName(e))
	}
	for _, e := range gateRules {
		out = append(out, entryName(e))
	}
	for _, e := range extraResults {
		out = append(out, entryName(e))
	}
	return out
}

// UnusedTableEntries returns the hand-table entries that applied to none of
// revs, sorted. An entry applies to a revision only where the names it
// states exist there, so an entry unused in every known revision is dead.
func UnusedTableEntries(revs ...*Revision) []string {
	var unused []string
	for _, e := range TableEntries() {
		used := false
		for _, r := range revs {
			used = used || r.TableUse[e]
		}
		if !used {
			unused = append(unused, e)
		}
	}
	slices.Sort(unused)
	return unused
}
