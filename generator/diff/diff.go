// Package diff compares the models of two protocol revisions and classifies
// every change by the direction its value travels.
//
// The comparison is of wire shapes, not of names. It starts at every method
// present in both revisions: the params travel from the method's sender to
// its receiver (client→server for a client request, both ways for a method
// either side sends), the result the other way. From there it walks both type
// graphs together, member by member (aliases resolved, allOf already
// flattened by the model), and pairs the declarations it reaches at the same
// place. Union variants, nested unions flattened, are paired by a
// discriminating constant ("type": "text"), then by referenced name, then by
// identical shape, then by a required member only that variant has (error,
// result); never by position. An object that became a union (or the reverse)
// is compared as a union of one variant. So a type that was declared inline
// and is named now (CallToolRequest.params → CallToolRequestParams), or
// renamed (ResourceReference → ResourceTemplateReference), is invisible to the
// wire rules and shows up once, as definition-renamed. The JSON-RPC envelope
// is walked from JSONRPCMessage, both ways; named definitions reached from
// neither are paired by name and walked both ways. Definitions are reported
// added or removed only when their shape is under no other name.
//
// A finding on a declaration reached from several places is reported once,
// with the union of the directions it travels, which decides its verdicts.
// Every rule has two fixed verdicts: for an old sender talking to a new
// receiver, and for a new sender talking to an old receiver. For a value the
// client sends, the first is the verdict for an old client talking to a new
// server and the second for an old server talking to a new client; for a
// value the server sends it is the other way round; for a value that travels
// both ways a pairing is broken when either applies. Receivers are taken to
// ignore members they do not know (unless the object is closed) and
// notifications they do not know, and to reject enum values, union variants
// and methods they do not know.
//
//	rule                        old sender → new receiver   new sender → old receiver
//	batching-added              compatible                  breaking
//	batching-removed            breaking                    compatible
//	method-added                compatible                  breaking (method not found)
//	method-added-gated          compatible                  compatible (the old receiver lacks the gate)
//	method-removed              breaking (method not found) compatible
//	notification-added          compatible                  compatible
//	notification-removed        compatible                  compatible
//	method-kind-changed         breaking                    breaking
//	result-alternative-added    compatible                  compatible (only when asked for)
//	result-alternative-unasked  compatible                  breaking (the old requester cannot decode it)
//	result-alternative-removed  compatible                  compatible
//	capability-added            compatible                  compatible
//	capability-removed          compatible                  compatible
//	field-added-optional        compatible                  compatible
//	field-added-required        breaking (not sent)         compatible
//	field-removed-optional      compatible                  compatible
//	field-removed-required      compatible                  breaking (missing)
//	field-became-required       breaking                    compatible
//	field-became-optional       compatible                  breaking
//	field-retyped               breaking                    breaking
//	field-type-widened          compatible                  breaking
//	field-type-narrowed         breaking                    compatible
//	field-format-changed        breaking                    breaking
//	field-check-tightened       breaking                    compatible
//	field-check-loosened        compatible                  breaking
//	field-check-changed         breaking                    breaking
//	field-deprecated            compatible                  compatible (informational)
//	field-undeprecated          compatible                  compatible (informational)
//	enum-value-added            compatible                  breaking
//	enum-value-removed          breaking                    compatible
//	variant-added               compatible                  breaking
//	variant-removed             breaking                    compatible
//	object-closed               breaking                    compatible
//	object-opened               compatible                  breaking
//	definition-added            compatible                  compatible (informational)
//	definition-removed          compatible                  compatible (informational)
//	definition-renamed          compatible                  compatible (informational)
//	definition-deprecated       compatible                  compatible (informational)
//	definition-undeprecated     compatible                  compatible (informational)
//
// Examples: a variant added to a result union breaks old clients (the server
// sends it); a required member added to request params breaks old clients
// (they do not send it); a required member removed from a result breaks old
// clients (the server leaves it out). A change inside ClientCapabilities or
// ServerCapabilities is a capability change: capability-added or -removed
// instead of field-added-* or field-removed-*.
//
// A member's assertions (maxItems, minimum, pattern…) are compared too: a
// bound that accepts less than before is tightened and breaks the side that
// sends the value (an old sender may send what a new receiver refuses), one
// that accepts more is loosened and breaks the side that receives it, and one
// that does some of each (another pattern) is changed and breaks both. A
// member or definition that is deprecated now still works: that is
// informational.
package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/model"
)

// Change is one finding.
type Change struct {
	// Rule is the rule's ID, such as "field-added-required".
	Rule string
	// Group is the rule's group.
	Group string
	// Subject is what changed: a method ("tools/call"), a declaration
	// ("Tool"), a capability side ("client"), or "JSONRPCMessage".
	Subject string
	// Member is the member of Subject, if any ("execution", "params",
	// "elicitation.form"), or the enum value or variant.
	Member string
	// Detail says what the change is, such as "optional, ToolExecution".
	Detail string
	// Path is the first place on the wire where it shows, such as
	// "tools/list result.tools[]"; "" for definitions.
	Path string
	// Flow is the directions the value travels.
	Flow model.Direction
	// OldClient and OldServer report whether the change breaks an old client
	// talking to a new server, and an old server talking to a new client.
	OldClient, OldServer bool
}

// Breaking reports whether c breaks either pairing.
func (c *Change) Breaking() bool { return c.OldClient || c.OldServer }

// Report is the comparison of two revisions.
type Report struct {
	Old, New string
	Changes  []*Change
}

// Breaking reports whether any change breaks either pairing.
func (r *Report) Breaking() bool {
	return slices.ContainsFunc(r.Changes, (*Change).Breaking)
}

// Compare compares the revision old with the revision new.
func Compare(old, new *model.Revision) *Report {
	d := &differ{
		old: old, new: new,
		pairs:   map[pair]*pairInfo{},
		oldSeen: map[*model.Decl][]*model.Decl{},
		newSeen: map[*model.Decl][]*model.Decl{},
		byKey:   map[string]*Change{},
		stands:  map[*model.Decl]*model.Decl{},
		isStand: map[*model.Decl]bool{},
	}
	d.envelope()
	d.methods()
	d.named()
	for _, p := range d.order {
		d.shallow(p)
	}
	d.definitions()
	r := &Report{Old: old.Name, New: new.Name, Changes: d.changes}
	for _, c := range r.Changes {
		c.OldClient, c.OldServer = verdicts(rule(c.Rule), c.Flow)
	}
	groupRank := map[string]int{}
	ruleRank := map[string]int{}
	for i, ru := range rules {
		if _, ok := groupRank[ru.Group]; !ok {
			groupRank[ru.Group] = i
		}
		ruleRank[ru.ID] = i
	}
	slices.SortStableFunc(r.Changes, func(a, b *Change) int {
		return cmp.Or(
			cmp.Compare(groupRank[a.Group], groupRank[b.Group]),
			cmp.Compare(ruleRank[a.Rule], ruleRank[b.Rule]),
			cmp.Compare(a.Subject, b.Subject),
			cmp.Compare(a.Member, b.Member),
		)
	})
	return r
}

type pair struct{ o, n *model.Decl }

type pairInfo struct {
	pair
	flow model.Direction
	path string
	// capSide is "client" or "server" inside ClientCapabilities or
	// ServerCapabilities, capPath the path below it.
	capSide, capPath string
}

type differ struct {
	old, new *model.Revision
	pairs    map[pair]*pairInfo
	order    []*pairInfo
	// oldSeen maps an old declaration to the new ones it was paired with,
	// newSeen the other way.
	oldSeen, newSeen map[*model.Decl][]*model.Decl
	changes          []*Change
	byKey            map[string]*Change
	stands           map[*model.Decl]*model.Decl
	isStand          map[*model.Decl]bool
}

// add records a change; the same rule on the same subject and member is
// recorded once, with the union of the directions.
func (d *differ) add(ruleID, subject, member, detail, path string, flow model.Direction) {
	key := ruleID + "\x00" + subject + "\x00" + member
	if c, ok := d.byKey[key]; ok {
		c.Flow |= flow
		return
	}
	c := &Change{Rule: ruleID, Group: rule(ruleID).Group, Subject: subject, Member: member, Detail: detail, Path: path, Flow: flow}
	d.byKey[key] = c
	d.changes = append(d.changes, c)
}

// envelope compares batching and walks JSONRPCMessage.
func (d *differ) envelope() {
	switch {
	case d.old.Batching && !d.new.Batching:
		d.add("batching-removed", "JSONRPCMessage", "", "batches of requests and of responses", "message", model.Both)
	case !d.old.Batching && d.new.Batching:
		d.add("batching-added", "JSONRPCMessage", "", "batches of requests and of responses", "message", model.Both)
	}
	o, n := d.old.Lookup("JSONRPCMessage"), d.new.Lookup("JSONRPCMessage")
	if o != nil && n != nil {
		d.visit(ref(o), ref(n), "message", model.Both, "", "")
	}
}

func ref(d *model.Decl) *model.Type { return &model.Type{Kind: model.Ref, Decl: d} }

func opposite(dir model.Direction) model.Direction {
	var out model.Direction
	if dir&model.ClientToServer != 0 {
		out |= model.ServerToClient
	}
	if dir&model.ServerToClient != 0 {
		out |= model.ClientToServer
	}
	return out
}

func (d *differ) methods() {
	var names []string
	for _, m := range d.old.Methods {
		names = append(names, m.Name)
	}
	for _, m := range d.new.Methods {
		if d.old.Method(m.Name) == nil {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		om, nm := d.old.Method(name), d.new.Method(name)
		switch {
		case om == nil:
			d.methodAdded(nm, nm.Direction, "")
			continue
		case nm == nil:
			d.methodRemoved(om, om.Direction, "")
			continue
		case om.Kind != nm.Kind:
			d.add("method-kind-changed", name, "", fmt.Sprintf("%s → %s", om.Kind, nm.Kind), "", om.Direction|nm.Direction)
			continue
		}
		if added := nm.Direction &^ om.Direction; added != 0 {
			d.methodAdded(nm, added, fmt.Sprintf("; it was %s only", om.Direction))
		}
		if removed := om.Direction &^ nm.Direction; removed != 0 {
			d.methodRemoved(om, removed, fmt.Sprintf("; it is %s only now", nm.Direction))
		}
		flow := om.Direction & nm.Direction
		if flow == 0 {
			continue
		}
		d.member(name, "params", om.Params, nm.Params, om.ParamsRequired, nm.ParamsRequired, name+" params", flow, "", "")
		d.visit(om.Params, nm.Params, name+" params", flow, "", "")
		if nm.Kind != model.Request || len(om.Results) == 0 || len(nm.Results) == 0 {
			continue
		}
		back := opposite(flow)
		d.member(name, "result", ref(om.Results[0]), ref(nm.Results[0]), true, true, name+" result", back, "", "")
		d.visit(ref(om.Results[0]), ref(nm.Results[0]), name+" result", back, "", "")
		alt := func(rs []*model.Decl) []string {
			var out []string
			for _, r := range rs[1:] {
				out = append(out, r.Name)
			}
			return out
		}
		oa, na := alt(om.Results), alt(nm.Results)
		for _, r := range na {
			switch {
			case slices.Contains(oa, r):
			case inResponse(nm, r):
				d.add("result-alternative-unasked", name, r, "the method's response definition allows it", name+" result", back)
			default:
				d.add("result-alternative-added", name, r, nm.Why, name+" result", back)
			}
		}
		for _, r := range oa {
			if !slices.Contains(na, r) {
				d.add("result-alternative-removed", name, r, om.Why, name+" result", back)
			}
		}
	}
}

// inResponse reports whether the result named r is one the method's own
// response definition may carry (2026-07-28's CallToolResultResponse is
// InputRequiredResult or CallToolResult): the responder may send it
// whether or not the requester asked for it.
func inResponse(m *model.Method, r string) bool {
	if m.Response == nil || m.AnyResult == nil {
		return false
	}
	return slices.ContainsFunc(variantsOf(ref(m.AnyResult)), func(v *model.Type) bool {
		return v.Kind == model.Ref && v.Decl.Name == r
	})
}

func (d *differ) methodAdded(m *model.Method, dir model.Direction, also string) {
	detail := fmt.Sprintf("%s, %s%s", m.Kind, dir, also)
	if m.Gate != "" {
		detail += fmt.Sprintf(", gated by %s %s", m.GateSide(), m.Gate)
	}
	id := "method-added"
	switch {
	case m.Kind == model.Notification:
		id = "notification-added"
	case m.Gate != "" && !d.oldHasGate(m, dir):
		id = "method-added-gated"
	}
	d.add(id, m.Name, "", detail, "", dir)
}

func (d *differ) methodRemoved(m *model.Method, dir model.Direction, also string) {
	id := "method-removed"
	if m.Kind == model.Notification {
		id = "notification-removed"
	}
	d.add(id, m.Name, "", fmt.Sprintf("%s, %s%s", m.Kind, dir, also), "", dir)
}

// oldHasGate reports whether the old revision declares the capability that
// gates m on a receiver of a value sent in the directions dir.
func (d *differ) oldHasGate(m *model.Method, dir model.Direction) bool {
	var sides []string
	switch m.GateSide() {
	case "receiver":
		if dir&model.ClientToServer != 0 {
			sides = append(sides, "Server")
		}
		if dir&model.ServerToClient != 0 {
			sides = append(sides, "Client")
		}
	case "server":
		sides = []string{"Server"}
	case "client":
		sides = []string{"Client"}
	}
	for _, s := range sides {
		if hasPath(d.old.Lookup(s+"Capabilities"), strings.Split(m.Gate, ".")) {
			return true
		}
	}
	return false
}

func hasPath(d *model.Decl, path []string) bool {
	if d == nil {
		return false
	}
	d = d.Resolve()
	if d.Kind != model.Object {
		return false
	}
	f := d.Field(path[0])
	switch {
	case f == nil:
		return false
	case len(path) == 1:
		return true
	case f.Type.Kind != model.Ref:
		return false
	}
	return hasPath(f.Type.Decl, path[1:])
}

// skipNamed are the definitions the named pass leaves alone: the method
// unions are compared method by method, the envelope from JSONRPCMessage.
var skipNamed = map[string]bool{
	"ClientRequest": true, "ServerRequest": true,
	"ClientNotification": true, "ServerNotification": true,
	"ClientResult": true, "ServerResult": true,
	"JSONRPCMessage": true,
}

// named pairs, by name, the named definitions that no method and no
// envelope reached, and walks them both ways.
func (d *differ) named() {
	for _, od := range d.old.Decls {
		if od.Anonymous || od.Message || skipNamed[od.Name] || d.oldSeen[od] != nil || od.Field("method") != nil {
			continue
		}
		nd := d.new.Lookup(od.Name)
		if nd == nil || nd.Anonymous || nd.Message || d.newSeen[nd] != nil {
			continue
		}
		d.visit(ref(od), ref(nd), od.Name, model.Both, "", "")
	}
}

// resolve follows aliases of declared types.
func resolve(t *model.Type) *model.Type {
	for t != nil && t.Kind == model.Ref && t.Decl.Kind == model.Alias {
		nt := *t.Decl.Target
		nt.Nullable = nt.Nullable || t.Nullable
		t = &nt
	}
	return t
}

func structured(d *model.Decl) bool { return d.Kind == model.Object || d.Kind == model.Union }

// visit walks the types o and n found at the wire path path, travelling in
// the directions flow, and pairs the declarations it reaches.
func (d *differ) visit(o, n *model.Type, path string, flow model.Direction, capSide, capPath string) {
	o, n = resolve(o), resolve(n)
	if o == nil || n == nil {
		return
	}
	if o.Kind == model.RawObject && emptyObject(n) {
		o = d.stand(n.Decl)
	}
	if n.Kind == model.RawObject && emptyObject(o) {
		n = d.stand(o.Decl)
	}
	switch {
	case o.Kind == model.Ref && n.Kind == model.Ref:
		od, nd := o.Decl, n.Decl
		if !(structured(od) && structured(nd) || od.Kind == model.Enum && nd.Kind == model.Enum) {
			return
		}
		if capSide == "" {
			switch nd.Name {
			case "ClientCapabilities":
				capSide, capPath = "client", ""
			case "ServerCapabilities":
				capSide, capPath = "server", ""
			}
		}
		key := pair{od, nd}
		p := d.pairs[key]
		if p == nil {
			p = &pairInfo{pair: key, path: path, capSide: capSide, capPath: capPath}
			d.pairs[key] = p
			d.order = append(d.order, p)
			d.oldSeen[od] = append(d.oldSeen[od], nd)
			d.newSeen[nd] = append(d.newSeen[nd], od)
		}
		if p.flow|flow == p.flow {
			return
		}
		p.flow |= flow
		switch {
		case od.Kind == model.Object && nd.Kind == model.Object:
			for _, nf := range nd.Fields {
				if of := od.Field(nf.Name); of != nil {
					cp := ""
					if capSide != "" {
						cp = join(capPath, nf.Name)
					}
					d.visit(of.Type, nf.Type, path+"."+nf.Name, flow, capSide, cp)
				}
			}
		case od.Kind == model.Union || nd.Kind == model.Union:
			for _, m := range matchVariants(variantsOf(o), variantsOf(n)) {
				d.visit(m[0], m[1], path, flow, capSide, capPath)
			}
		}
	case o.Kind == model.Array && n.Kind == model.Array:
		d.visit(o.Elem, n.Elem, path+"[]", flow, capSide, capPath)
	case o.Kind == model.Map && n.Kind == model.Map:
		d.visit(o.Elem, n.Elem, path+"{}", flow, capSide, capPath)
	}
}

// emptyObject reports a declared object that takes any JSON object: it
// rejects no member and requires none. A raw JSON object and it accept the
// same JSON.
func emptyObject(t *model.Type) bool {
	if t.Kind != model.Ref || t.Decl.Kind != model.Object || t.Decl.Closed || len(t.Decl.Fields) == 0 {
		return false
	}
	for _, f := range t.Decl.Fields {
		if f.Required {
			return false
		}
	}
	return !slices.ContainsFunc(t.Decl.Consts, func(c *model.Const) bool { return c.Required })
}

// stand returns the stand-in for a raw JSON object paired with the declared
// object d: an object without members, so that d's members compare as added
// or removed.
func (d *differ) stand(decl *model.Decl) *model.Type {
	s := d.stands[decl]
	if s == nil {
		s = &model.Decl{Name: decl.Name, Pointer: decl.Pointer, Anonymous: true, Kind: model.Object}
		d.stands[decl] = s
		d.isStand[s] = true
	}
	return ref(s)
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// member compares one member (or a method's params or result) and walks it.
func (d *differ) member(subject, name string, o, n *model.Type, oreq, nreq bool, path string, flow model.Direction, capSide, capPath string) {
	if capSide != "" {
		subject, name = capSide, join(capPath, name)
	}
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		id := "field-added-optional"
		if nreq {
			id = "field-added-required"
		}
		detail := describe(n)
		if !nreq {
			detail = "optional " + detail
		}
		if capSide != "" {
			id = "capability-added"
		}
		d.add(id, subject, name, detail, path, flow)
		return
	case n == nil:
		id := "field-removed-optional"
		if oreq {
			id = "field-removed-required"
		}
		if capSide != "" {
			id = "capability-removed"
		}
		d.add(id, subject, name, describe(o), path, flow)
		return
	}
	if oreq && !nreq {
		d.add("field-became-optional", subject, name, describe(n), path, flow)
	}
	if !oreq && nreq {
		d.add("field-became-required", subject, name, describe(n), path, flow)
	}
	if id, detail := compareTypes(o, n); id != "" {
		d.add(id, subject, name, detail, path, flow)
	}
	d.checks(subject, name, o, n, path, flow)
}

// metaKeys compares the keys the schema declares in a _meta member nf (of
// nil when the member is new), each as a member named _meta["key"]:
// 2026-07-28's RequestMetaObject requires the protocol version and the
// client's capabilities in every request, which the member's type, raw
// JSON, does not show.
func (d *differ) metaKeys(subject string, of, nf *model.Field, p *pairInfo) {
	if !nf.Meta {
		return
	}
	var oks []*model.Field
	if of != nil && of.Meta {
		oks = of.MetaKeys
	}
	find := func(ks []*model.Field, name string) *model.Field {
		for _, k := range ks {
			if k.Name == name {
				return k
			}
		}
		return nil
	}
	name := func(k string) string { return nf.Name + "[" + strconv.Quote(k) + "]" }
	for _, nk := range nf.MetaKeys {
		if ok := find(oks, nk.Name); ok != nil {
			d.member(subject, name(nk.Name), ok.Type, nk.Type, ok.Required, nk.Required, p.path, p.flow, p.capSide, p.capPath)
		} else {
			d.member(subject, name(nk.Name), nil, nk.Type, false, nk.Required, p.path, p.flow, p.capSide, p.capPath)
		}
	}
	for _, ok := range oks {
		if find(nf.MetaKeys, ok.Name) == nil {
			d.member(subject, name(ok.Name), ok.Type, nil, ok.Required, false, p.path, p.flow, p.capSide, p.capPath)
		}
	}
}

// shallow reports the changes of one pair of declarations itself: its
// members, values or variants. Changes below them are other pairs'.
func (d *differ) shallow(p *pairInfo) {
	od, nd := p.o, p.n
	subject := nd.Name
	switch {
	case od.Kind == model.Object && nd.Kind == model.Object:
		for _, nf := range nd.Fields {
			of := od.Field(nf.Name)
			if of == nil {
				if oc := constOf(od, nf.Name); oc != nil {
					d.add("field-retyped", subject, nf.Name, fmt.Sprintf("const %s → %s", oc.Value, describe(nf.Type)), p.path, p.flow)
					continue
				}
				d.member(subject, nf.Name, nil, nf.Type, false, nf.Required, p.path, p.flow, p.capSide, p.capPath)
				d.metaKeys(subject, nil, nf, p)
				continue
			}
			d.member(subject, nf.Name, of.Type, nf.Type, of.Required, nf.Required, p.path, p.flow, p.capSide, p.capPath)
			d.metaKeys(subject, of, nf, p)
			switch {
			case !of.Deprecated && nf.Deprecated:
				d.add("field-deprecated", subject, nf.Name, describe(nf.Type), p.path, p.flow)
			case of.Deprecated && !nf.Deprecated:
				d.add("field-undeprecated", subject, nf.Name, describe(nf.Type), p.path, p.flow)
			}
		}
		for _, of := range od.Fields {
			if nd.Field(of.Name) == nil && constOf(nd, of.Name) == nil {
				d.member(subject, of.Name, of.Type, nil, of.Required, false, p.path, p.flow, p.capSide, p.capPath)
			}
		}
		for _, nc := range nd.Consts {
			oc := constOf(od, nc.Name)
			switch {
			case oc == nil && od.Field(nc.Name) != nil:
				d.add("field-retyped", subject, nc.Name, fmt.Sprintf("%s → const %s", describe(od.Field(nc.Name).Type), nc.Value), p.path, p.flow)
			case oc == nil:
				id, detail := "field-added-optional", "optional const "+string(nc.Value)
				if nc.Required {
					id, detail = "field-added-required", "const "+string(nc.Value)
				}
				d.add(id, subject, nc.Name, detail, p.path, p.flow)
			default:
				if string(oc.Value) != string(nc.Value) {
					d.add("field-retyped", subject, nc.Name, fmt.Sprintf("const %s → %s", oc.Value, nc.Value), p.path, p.flow)
				}
				if oc.Required && !nc.Required {
					d.add("field-became-optional", subject, nc.Name, "const "+string(nc.Value), p.path, p.flow)
				}
				if !oc.Required && nc.Required {
					d.add("field-became-required", subject, nc.Name, "const "+string(nc.Value), p.path, p.flow)
				}
			}
		}
		for _, oc := range od.Consts {
			if constOf(nd, oc.Name) == nil && nd.Field(oc.Name) == nil {
				id := "field-removed-optional"
				if oc.Required {
					id = "field-removed-required"
				}
				d.add(id, subject, oc.Name, "const "+string(oc.Value), p.path, p.flow)
			}
		}
		if !od.Closed && nd.Closed {
			d.add("object-closed", subject, "", "unknown members are rejected now", p.path, p.flow)
		}
		if od.Closed && !nd.Closed {
			d.add("object-opened", subject, "", "unknown members are allowed now", p.path, p.flow)
		}
	case od.Kind == model.Union || nd.Kind == model.Union:
		ov, nv := variantsOf(ref(od)), variantsOf(ref(nd))
		matched := matchVariants(ov, nv)
		isOld := func(t *model.Type) bool {
			return slices.ContainsFunc(matched, func(m [2]*model.Type) bool { return m[0] == t })
		}
		isNew := func(t *model.Type) bool {
			return slices.ContainsFunc(matched, func(m [2]*model.Type) bool { return m[1] == t })
		}
		if len(matched) == 0 && od.Kind != nd.Kind {
			d.add("field-retyped", subject, "", fmt.Sprintf("%s %s → %s %s", od.Kind, od.Name, nd.Kind, nd.Name), p.path, p.flow)
			return
		}
		for _, t := range nv {
			if !isNew(t) {
				d.add("variant-added", subject, variantName(t), "", p.path, p.flow)
			}
		}
		for _, t := range ov {
			if !isOld(t) {
				d.add("variant-removed", subject, variantName(t), "", p.path, p.flow)
			}
		}
	case od.Kind == model.Enum && nd.Kind == model.Enum:
		for _, v := range nd.Values {
			if !slices.Contains(od.Values, v) {
				d.add("enum-value-added", subject, v, "", p.path, p.flow)
			}
		}
		for _, v := range od.Values {
			if !slices.Contains(nd.Values, v) {
				d.add("enum-value-removed", subject, v, "", p.path, p.flow)
			}
		}
	}
}

func constOf(d *model.Decl, name string) *model.Const {
	for _, c := range d.Consts {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// variantName names a union variant: its discriminating constant if it has
// one, else its declaration's name or its JSON kind.
func variantName(t *model.Type) string {
	if t.Kind == model.Ref {
		return t.Decl.Name
	}
	return describe(t)
}

// describe names a type expression.
func describe(t *model.Type) string {
	var s string
	switch t.Kind {
	case model.Ref:
		s = t.Decl.Name
		if d := t.Decl; d.Anonymous && d.Kind == model.Enum {
			// An inline enum's name is its place (ListToolsResultCacheScope):
			// its values say more, and are the same wherever it is spelled.
			q := make([]string, len(d.Values))
			for i, v := range d.Values {
				q[i] = strconv.Quote(v)
			}
			s = strings.Join(q, "|")
		}
	case model.String:
		s = "string"
		if t.Format != "" {
			s += " (" + t.Format + ")"
		}
	case model.Integer:
		s = "integer"
	case model.Number:
		s = "number"
	case model.Boolean:
		s = "boolean"
	case model.Array:
		s = "[]" + describe(t.Elem)
	case model.Map:
		s = "map[string]" + describe(t.Elem)
	case model.RawValue:
		s = "any"
	case model.RawObject:
		s = "object"
	case model.ID:
		s = "string|integer"
	default:
		s = "?"
	}
	if t.Nullable {
		s += "|null"
	}
	return s
}

// compareTypes compares the types of one member. It returns "" when they are
// the same or when the difference belongs to the declarations they name
// (which are paired and compared on their own).
func compareTypes(o, n *model.Type) (id, detail string) {
	o, n = resolve(o), resolve(n)
	change := func(id string) (string, string) { return id, describe(o) + " → " + describe(n) }
	if o.Kind == model.RawObject && len(o.ObjectConsts) == 0 && emptyObject(n) ||
		n.Kind == model.RawObject && len(n.ObjectConsts) == 0 && emptyObject(o) {
		return "", ""
	}
	if !o.Nullable && n.Nullable {
		return change("field-type-widened")
	}
	if o.Nullable && !n.Nullable {
		return change("field-type-narrowed")
	}
	switch {
	case o.Kind == model.Ref && n.Kind == model.Ref:
		od, nd := o.Decl, n.Decl
		if structured(od) && structured(nd) || od.Kind == model.Enum && nd.Kind == model.Enum {
			return "", ""
		}
	case o.Kind == n.Kind:
		switch o.Kind {
		case model.Array, model.Map:
			if id, _ := compareTypes(o.Elem, n.Elem); id != "" {
				return change(id)
			}
			if o.Elem.Kind == model.Ref && n.Elem.Kind == model.Ref {
				return "", ""
			}
			return "", ""
		case model.String:
			if o.Format != n.Format {
				return change("field-format-changed")
			}
			return "", ""
		case model.RawObject:
			return "", ""
		default:
			return "", ""
		}
	}
	switch {
	case n.Kind == model.RawValue:
		return change("field-type-widened")
	case o.Kind == model.RawValue:
		return change("field-type-narrowed")
	case n.Kind == model.RawObject && isObjectish(o):
		return change("field-type-widened")
	case o.Kind == model.RawObject && isObjectish(n):
		return change("field-type-narrowed")
	case n.Kind == model.ID && (o.Kind == model.String || o.Kind == model.Integer),
		n.Kind == model.Number && o.Kind == model.Integer:
		return change("field-type-widened")
	case o.Kind == model.ID && (n.Kind == model.String || n.Kind == model.Integer),
		o.Kind == model.Number && n.Kind == model.Integer:
		return change("field-type-narrowed")
	case isUnion(n) && len(matchVariants(variantsOf(o), variantsOf(n))) > 0:
		return change("field-type-widened")
	case isUnion(o) && len(matchVariants(variantsOf(o), variantsOf(n))) > 0:
		return change("field-type-narrowed")
	}
	return change("field-retyped")
}

func isUnion(t *model.Type) bool { return t.Kind == model.Ref && t.Decl.Kind == model.Union }

func isObjectish(t *model.Type) bool {
	return t.Kind == model.Map || t.Kind == model.Ref && structured(t.Decl)
}

// variantsOf returns the variants of a union type, nested unions flattened,
// or the type itself as the one variant of a non-union. The envelope's batch
// arrays are left out: batching has rules of its own.
func variantsOf(t *model.Type) []*model.Type {
	t = resolve(t)
	if t.Kind != model.Ref || t.Decl.Kind != model.Union {
		return []*model.Type{t}
	}
	var out []*model.Type
	for _, v := range t.Decl.Variants {
		if t.Decl.Name == "JSONRPCMessage" && resolve(v).Kind == model.Array {
			continue
		}
		out = append(out, variantsOf(v)...)
	}
	return out
}

// matchVariants pairs old and new variants: by a discriminating constant, by
// name, by identical shape, by a required member only they have; in that
// order, never by position.
func matchVariants(ov, nv []*model.Type) [][2]*model.Type {
	var out [][2]*model.Type
	usedO, usedN := make([]bool, len(ov)), make([]bool, len(nv))
	oc, nc := uniqueConsts(ov), uniqueConsts(nv)
	of, nf := uniqueRequired(ov), uniqueRequired(nv)
	passes := []func(i, j int) bool{
		func(i, j int) bool { return intersects(oc[i], nc[j]) },
		func(i, j int) bool { return variantKey(ov[i]) == variantKey(nv[j]) },
		func(i, j int) bool { return sameShape(ov[i], nv[j], map[pair]bool{}) },
		func(i, j int) bool { return intersects(of[i], nf[j]) },
	}
	// Last, the closest object: the one that shares the most members, when
	// only one does.
	closest := func(i, j int) bool {
		best, n := 0, 0
		for k := range nv {
			if usedN[k] {
				continue
			}
			switch s := similarity(ov[i], nv[k]); {
			case s > best:
				best, n = s, 1
			case s == best:
				n++
			}
		}
		return best > 0 && n == 1 && similarity(ov[i], nv[j]) == best
	}
	passes = append(passes, closest)
	for _, match := range passes {
		for i := range ov {
			if usedO[i] {
				continue
			}
			for j := range nv {
				if !usedN[j] && match(i, j) {
					usedO[i], usedN[j] = true, true
					out = append(out, [2]*model.Type{ov[i], nv[j]})
					break
				}
			}
		}
	}
	return out
}

// similarity counts the members two object variants share, 0 when one
// requires a member the other does not have.
func similarity(a, b *model.Type) int {
	if a.Kind != model.Ref || b.Kind != model.Ref || a.Decl.Kind != model.Object || b.Decl.Kind != model.Object {
		return 0
	}
	members := func(d *model.Decl) (all, req []string) {
		for _, f := range d.Fields {
			all = append(all, f.Name)
			if f.Required {
				req = append(req, f.Name)
			}
		}
		for _, c := range d.Consts {
			all = append(all, c.Name)
			if c.Required {
				req = append(req, c.Name)
			}
		}
		return all, req
	}
	aa, ar := members(a.Decl)
	ba, br := members(b.Decl)
	for _, r := range ar {
		if !slices.Contains(ba, r) {
			return 0
		}
	}
	for _, r := range br {
		if !slices.Contains(aa, r) {
			return 0
		}
	}
	n := 0
	for _, m := range aa {
		if slices.Contains(ba, m) {
			n++
		}
	}
	return n
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func variantKey(t *model.Type) string {
	if t.Kind == model.Ref {
		return "ref " + t.Decl.Name
	}
	return fmt.Sprint("kind ", int(t.Kind))
}

// uniqueConsts returns, for each variant, its required constants
// ("type=\"text\"") that no other variant has.
func uniqueConsts(vs []*model.Type) [][]string {
	return unique(vs, func(d *model.Decl) []string {
		var out []string
		for _, c := range d.Consts {
			if c.Required {
				out = append(out, c.Name+"="+string(c.Value))
			}
		}
		return out
	})
}

// uniqueRequired returns, for each variant, its required members that no
// other variant has.
func uniqueRequired(vs []*model.Type) [][]string {
	return unique(vs, func(d *model.Decl) []string {
		var out []string
		for _, f := range d.Fields {
			if f.Required {
				out = append(out, f.Name)
			}
		}
		return out
	})
}

func unique(vs []*model.Type, keys func(*model.Decl) []string) [][]string {
	all := make([][]string, len(vs))
	count := map[string]int{}
	for i, v := range vs {
		if v.Kind == model.Ref && v.Decl.Kind == model.Object {
			all[i] = keys(v.Decl)
			for _, k := range all[i] {
				count[k]++
			}
		}
	}
	for i := range all {
		all[i] = slices.DeleteFunc(all[i], func(k string) bool { return count[k] > 1 })
	}
	return all
}

// sameShape reports whether two types accept the same JSON, names aside.
func sameShape(a, b *model.Type, seen map[pair]bool) bool {
	a, b = resolve(a), resolve(b)
	if a.Kind != b.Kind || a.Nullable != b.Nullable || a.Format != b.Format {
		return false
	}
	switch a.Kind {
	case model.Array, model.Map:
		return sameShape(a.Elem, b.Elem, seen)
	case model.RawObject:
		return slices.EqualFunc(a.ObjectConsts, b.ObjectConsts, sameConst)
	case model.Ref:
	default:
		return true
	}
	ad, bd := a.Decl, b.Decl
	if ad.Kind != bd.Kind {
		return false
	}
	key := pair{ad, bd}
	if seen[key] {
		return true
	}
	seen[key] = true
	switch ad.Kind {
	case model.Enum:
		return slices.Equal(sorted(ad.Values), sorted(bd.Values))
	case model.Union:
		av, bv := variantsOf(a), variantsOf(b)
		if len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !sameShape(av[i], bv[i], seen) {
				return false
			}
		}
		return true
	case model.Object:
		if len(ad.Fields) != len(bd.Fields) || ad.Closed != bd.Closed ||
			!slices.EqualFunc(sortedConsts(ad.Consts), sortedConsts(bd.Consts), sameConst) {
			return false
		}
		for _, af := range ad.Fields {
			bf := bd.Field(af.Name)
			if bf == nil || bf.Required != af.Required || !sameShape(af.Type, bf.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}

func sameConst(a, b *model.Const) bool {
	return a.Name == b.Name && a.Required == b.Required && string(a.Value) == string(b.Value)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func sortedConsts(cs []*model.Const) []*model.Const {
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b *model.Const) int { return strings.Compare(a.Name, b.Name) })
	return cs
}

// definitions reports named definitions added, removed and renamed, and
// those of the same name that are deprecated now or no longer.
func (d *differ) definitions() {
	for _, nd := range d.new.Decls {
		od := d.old.Lookup(nd.Name)
		switch {
		case nd.Anonymous || od == nil || od.Anonymous:
		case !od.Deprecated && nd.Deprecated:
			d.add("definition-deprecated", nd.Name, "", kindOf(nd), "", 0)
		case od.Deprecated && !nd.Deprecated:
			d.add("definition-undeprecated", nd.Name, "", kindOf(nd), "", 0)
		}
	}
	oldNamed := map[string]bool{}
	for _, od := range d.old.Decls {
		if !od.Anonymous {
			oldNamed[od.Name] = true
		}
	}
	newNamed := map[string]bool{}
	for _, nd := range d.new.Decls {
		if !nd.Anonymous {
			newNamed[nd.Name] = true
		}
	}
	renamed := map[*model.Decl]bool{} // old declarations reported as renamed
	var added []*model.Decl
	for _, nd := range d.new.Decls {
		if nd.Anonymous || nd.Message || oldNamed[nd.Name] {
			continue
		}
		var was []string
		for _, od := range d.newSeen[nd] {
			if d.isStand[od] || od.Name == nd.Name && !od.Anonymous {
				continue
			}
			renamed[od] = true
			was = append(was, displayName(od))
		}
		if len(was) == 0 {
			added = append(added, nd)
			continue
		}
		d.add("definition-renamed", nd.Name, "", "was "+strings.Join(was, ", "), "", 0)
	}
	var removed []*model.Decl
	for _, od := range d.old.Decls {
		if od.Anonymous || od.Message || newNamed[od.Name] || renamed[od] {
			continue
		}
		var now []string
		for _, nd := range d.oldSeen[od] {
			if !d.isStand[nd] {
				now = append(now, nd.Name)
			}
		}
		if len(now) > 0 {
			d.add("definition-renamed", strings.Join(now, ", "), "", "was "+od.Name, "", 0)
			continue
		}
		removed = append(removed, od)
	}
	// Unpaired: the same shape under another name is a rename too.
	for _, od := range removed {
		i := slices.IndexFunc(added, func(nd *model.Decl) bool { return sameShape(ref(od), ref(nd), map[pair]bool{}) })
		if i >= 0 {
			d.add("definition-renamed", added[i].Name, "", "was "+od.Name, "", 0)
			added = slices.Delete(added, i, i+1)
			continue
		}
		d.add("definition-removed", od.Name, "", string(kindOf(od)), "", 0)
	}
	for _, nd := range added {
		d.add("definition-added", nd.Name, "", string(kindOf(nd)), "", 0)
	}
}

func kindOf(d *model.Decl) string { return d.Kind.String() }

// displayName names a declaration for a reader: an anonymous one by where it
// is declared ("inline CallToolRequest.params").
func displayName(d *model.Decl) string {
	if !d.Anonymous {
		return d.Name
	}
	p := strings.TrimPrefix(d.Pointer, "#/definitions/")
	p = strings.TrimPrefix(p, "#/$defs/")
	p = strings.ReplaceAll(p, "/properties/", ".")
	p = strings.ReplaceAll(p, "/items", "[]")
	return "inline " + p
}
