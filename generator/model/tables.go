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

// taskAugmented lists the requests whose params carry "task": the receiver
// may answer them with CreateTaskResult, which the schema leaves out of the
// ServerResult and ClientResult unions.
var taskAugmented = []*resultRule{
	{"CallToolRequest", []string{"CreateTaskResult"}, "task-augmented tools/call is answered with CreateTaskResult"},
	{"CreateMessageRequest", []string{"CreateTaskResult"}, "task-augmented sampling/createMessage is answered with CreateTaskResult"},
	{"ElicitRequest", []string{"CreateTaskResult"}, "task-augmented elicitation/create is answered with CreateTaskResult"},
}

func (b *builder) results(m *Method) error {
	if m.Kind != Request {
		return nil
	}
	var names []string
	for _, r := range resultRules {
		if r.Request == m.Message.Name {
			b.used[r] = true
			names = append(names, r.Results...)
			m.Why = r.Why
		}
	}
	if names == nil {
		names = []string{strings.TrimSuffix(m.Message.Name, "Request") + "Result"}
	}
	// Which side answers, and so which result union the result must be in.
	var unions []string
	if m.Direction&ClientToServer != 0 {
		unions = append(unions, "ServerResult")
	}
	if m.Direction&ServerToClient != 0 {
		unions = append(unions, "ClientResult")
	}
	for _, n := range names {
		d := b.byName[n]
		if d == nil {
			return b.errorf(m.Message.Pointer, "method %q: result %s does not exist (pair requests and results in the model's result table)", m.Name, n)
		}
		for _, un := range unions {
			if u := b.byName[un]; u != nil && !inUnion(u, d) {
				return b.errorf(m.Message.Pointer, "method %q: result %s is not a member of %s", m.Name, n, un)
			}
		}
		m.Results = append(m.Results, d)
	}
	// Task augmentation, derived from a "task" member of the params and
	// checked against the table both ways.
	var task bool
	if m.Params != nil && m.Params.Kind == Ref {
		task = hasMember(m.Params.Decl, "task")
	}
	for _, r := range taskAugmented {
		if r.Request != m.Message.Name {
			continue
		}
		if !task {
			if b.byName["CreateTaskResult"] == nil {
				continue // the revision has no tasks
			}
			return b.errorf(m.Message.Pointer, "method %q: the task table lists it, but its params have no \"task\" member", m.Name)
		}
		b.used[r] = true
		for _, n := range r.Results {
			d := b.byName[n]
			if d == nil {
				return b.errorf(m.Message.Pointer, "method %q: result %s does not exist", m.Name, n)
			}
			m.Results = append(m.Results, d)
		}
		m.Why = joinWhy(m.Why, r.Why)
		task = false
	}
	if task {
		return b.errorf(m.Message.Pointer, "method %q: its params have a \"task\" member, but the task table does not list it", m.Name)
	}
	return nil
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
	{"tasks/get", "receiver", "tasks", "only for tasks the receiver created, which it can only do having declared tasks (U-T1)"},
	{"tasks/result", "receiver", "tasks", "only for tasks the receiver created, which it can only do having declared tasks (U-T1)"},
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
		b.used[g] = true
		sides := []string{g.Side}
		if g.Side == "receiver" {
			sides = nil
			if m.Direction&ClientToServer != 0 {
				sides = append(sides, "server")
			}
			if m.Direction&ServerToClient != 0 {
				sides = append(sides, "client")
			}
		}
		for _, side := range sides {
			caps := b.byName[strings.ToUpper(side[:1])+side[1:]+"Capabilities"]
			if caps == nil || !hasPath(caps, strings.Split(g.Path, ".")) {
				return b.errorf(m.Message.Pointer, "method %q: the gate table names capability %s.%s, which %sCapabilities does not declare", m.Name, side, g.Path, strings.ToUpper(side[:1])+side[1:])
			}
		}
		m.Gate = g.Path
		m.gateSide = g.Side
		return nil
	}
	return nil
}

func hasPath(d *Decl, path []string) bool {
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

// checkTables fails on entries that apply to this revision but were not used.
// An entry applies when the definitions it names exist.
func (b *builder) checkTables() error {
	var unused []string
	for _, e := range rawMembers {
		if def, ok := b.doc.Lookup(e.Decl); ok && !b.used[e] {
			if _, has := def.Schema.Property(e.Member); !has {
				continue
			}
			unused = append(unused, fmt.Sprintf("raw member %s.%s", e.Decl, e.Member))
		}
	}
	for _, r := range resultRules {
		if b.byName[r.Request] != nil && !b.used[r] {
			unused = append(unused, "result rule for "+r.Request)
		}
	}
	for _, r := range taskAugmented {
		if b.byName[r.Request] != nil && b.byName["CreateTaskResult"] != nil && !b.used[r] {
			unused = append(unused, "task rule for "+r.Request)
		}
	}
	for _, g := range gateRules {
		if !b.used[g] && b.methodExists(g.Method) {
			unused = append(unused, "gate rule for "+g.Method)
		}
	}
	if len(unused) > 0 {
		slices.Sort(unused)
		return b.errorf("#", "table entries that apply but were never used: %s", strings.Join(unused, ", "))
	}
	return nil
}

func (b *builder) methodExists(name string) bool {
	for _, d := range b.out {
		if d.Message && d.constString("method") == name {
			return true
		}
	}
	return false
}
