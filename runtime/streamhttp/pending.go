package streamhttp

import "github.com/mcpgen/mcpgen/runtime/wire"

// pendingSet is the set of requests a stream owes a response to. A POST
// usually carries one request: that one is kept without a map, which is
// made only for a batch of several.
type pendingSet struct {
	one    wire.ID
	hasOne bool
	many   map[wire.ID]bool // when not nil, the whole set (one is unused)
}

func (p *pendingSet) add(id wire.ID) {
	switch {
	case p.many != nil:
		p.many[id] = true
	case !p.hasOne:
		p.one, p.hasOne = id, true
	case p.one != id:
		p.many = map[wire.ID]bool{p.one: true, id: true}
		p.one, p.hasOne = wire.ID{}, false
	}
}

func (p *pendingSet) remove(id wire.ID) {
	if p.many != nil {
		delete(p.many, id)
	} else if p.hasOne && p.one == id {
		p.one, p.hasOne = wire.ID{}, false
	}
}

func (p *pendingSet) len() int {
	if p.many != nil {
		return len(p.many)
	}
	if p.hasOne {
		return 1
	}
	return 0
}

// each calls f with every request of the set.
func (p *pendingSet) each(f func(wire.ID)) {
	if p.many != nil {
		for id := range p.many {
			f(id)
		}
	} else if p.hasOne {
		f(p.one)
	}
}

func (p *pendingSet) clear() { *p = pendingSet{} }
