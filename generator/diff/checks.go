package diff

import (
	"math"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/model"
)

// The assertions of a member (model.Type.Checks: maxItems, minimum,
// pattern…) compared between revisions. A bound that accepts less than
// before is tightened: an old sender may send what a new receiver's strict
// decoder (or validation) rejects. One that accepts more is loosened: a new
// sender may send what an old receiver rejects. One that accepts some values
// it did not and rejects others it took (another pattern, a multipleOf that
// is not a multiple of the old one) is changed, and breaks both ways. The
// format has a rule of its own (field-format-changed); dependentRequired and
// the assertions on objects that are structs do not reach the model's types.

// checkChanges lists the changes of the assertions of a member whose type
// was o and is n, by verdict, in words ("maxItems 100 → 50").
type checkChanges struct {
	tightened, loosened, changed []string
}

// compareChecks compares the assertions of o and n, and those of their
// items and values, when both are the same kind of value.
func compareChecks(o, n *model.Type) checkChanges {
	var cc checkChanges
	cc.compare(o, n, "")
	return cc
}

func (cc *checkChanges) compare(o, n *model.Type, what string) {
	o, n = resolve(o), resolve(n)
	if o == nil || n == nil || o.Kind != n.Kind || o.Kind == model.Ref {
		return
	}
	oc, nc := checksOf(o), checksOf(n)
	switch o.Kind {
	case model.String:
		cc.count(what+"minLength", oc.MinLength, nc.MinLength, true)
		cc.count(what+"maxLength", oc.MaxLength, nc.MaxLength, false)
		cc.pattern(what, oc.Pattern, nc.Pattern)
	case model.Integer, model.Number:
		cc.bound(what, lower(oc), lower(nc), true)
		cc.bound(what, upper(oc), upper(nc), false)
		cc.multipleOf(what, oc.MultipleOf, nc.MultipleOf)
	case model.ID:
		cc.count(what+"minLength", oc.MinLength, nc.MinLength, true)
		cc.count(what+"maxLength", oc.MaxLength, nc.MaxLength, false)
		cc.pattern(what, oc.Pattern, nc.Pattern)
		cc.bound(what, lower(oc), lower(nc), true)
		cc.bound(what, upper(oc), upper(nc), false)
		cc.multipleOf(what, oc.MultipleOf, nc.MultipleOf)
	case model.Array:
		cc.count(what+"minItems", oc.MinItems, nc.MinItems, true)
		cc.count(what+"maxItems", oc.MaxItems, nc.MaxItems, false)
		switch {
		case !oc.UniqueItems && nc.UniqueItems:
			cc.tightened = append(cc.tightened, what+"uniqueItems added")
		case oc.UniqueItems && !nc.UniqueItems:
			cc.loosened = append(cc.loosened, what+"uniqueItems removed")
		}
		cc.compare(o.Elem, n.Elem, what+"items ")
	case model.Map, model.RawObject:
		cc.count(what+"minProperties", oc.MinProperties, nc.MinProperties, true)
		cc.count(what+"maxProperties", oc.MaxProperties, nc.MaxProperties, false)
		if o.Kind == model.Map {
			cc.compare(o.Elem, n.Elem, what+"values ")
		}
	}
}

func checksOf(t *model.Type) *model.Checks {
	if t.Checks == nil {
		return &model.Checks{}
	}
	return t.Checks
}

// count compares a minimum (min) or maximum count: an absent minimum is 0,
// an absent maximum none.
func (cc *checkChanges) count(keyword string, o, n *int64, min bool) {
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		if min && *n == 0 {
			return
		}
		cc.tightened = append(cc.tightened, keyword+" added ("+strconv.FormatInt(*n, 10)+")")
	case n == nil:
		if min && *o == 0 {
			return
		}
		cc.loosened = append(cc.loosened, keyword+" removed (was "+strconv.FormatInt(*o, 10)+")")
	case *o != *n:
		detail := keyword + " " + strconv.FormatInt(*o, 10) + " → " + strconv.FormatInt(*n, 10)
		if (*n > *o) == min {
			cc.tightened = append(cc.tightened, detail)
		} else {
			cc.loosened = append(cc.loosened, detail)
		}
	}
}

// limit is a numeric bound: minimum or exclusiveMinimum, maximum or
// exclusiveMaximum.
type limit struct {
	keyword   string
	value     float64
	exclusive bool
}

func (l *limit) String() string { return l.keyword + " " + number(l.value) }

func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// lower returns the lower bound of c, the stricter of minimum and
// exclusiveMinimum; nil for none.
func lower(c *model.Checks) *limit {
	var l *limit
	if c.Minimum != nil {
		l = &limit{"minimum", *c.Minimum, false}
	}
	if c.ExclusiveMinimum != nil && (l == nil || *c.ExclusiveMinimum >= l.value) {
		l = &limit{"exclusiveMinimum", *c.ExclusiveMinimum, true}
	}
	return l
}

// upper returns the upper bound of c, the stricter of maximum and
// exclusiveMaximum; nil for none.
func upper(c *model.Checks) *limit {
	var l *limit
	if c.Maximum != nil {
		l = &limit{"maximum", *c.Maximum, false}
	}
	if c.ExclusiveMaximum != nil && (l == nil || *c.ExclusiveMaximum <= l.value) {
		l = &limit{"exclusiveMaximum", *c.ExclusiveMaximum, true}
	}
	return l
}

// bound compares a lower (low) or upper bound.
func (cc *checkChanges) bound(what string, o, n *limit, low bool) {
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		cc.tightened = append(cc.tightened, what+n.keyword+" added ("+number(n.value)+")")
		return
	case n == nil:
		cc.loosened = append(cc.loosened, what+o.keyword+" removed (was "+number(o.value)+")")
		return
	case *o == *n:
		return
	}
	detail := what + o.String() + " → " + number(n.value)
	if o.keyword != n.keyword {
		detail = what + o.String() + " → " + n.String()
	}
	// How much stricter the new bound is: the values between the two
	// are newly refused (tighter) or newly accepted (looser); at the same
	// value, the exclusive bound is the stricter.
	stricter := n.value > o.value || n.value == o.value && n.exclusive && !o.exclusive
	if !low {
		stricter = n.value < o.value || n.value == o.value && n.exclusive && !o.exclusive
	}
	if stricter {
		cc.tightened = append(cc.tightened, detail)
	} else {
		cc.loosened = append(cc.loosened, detail)
	}
}

// multipleOf compares divisors: a multiple of the old divisor accepts less,
// a divisor of it more, anything else some of each.
func (cc *checkChanges) multipleOf(what string, o, n *float64) {
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		cc.tightened = append(cc.tightened, what+"multipleOf added ("+number(*n)+")")
		return
	case n == nil:
		cc.loosened = append(cc.loosened, what+"multipleOf removed (was "+number(*o)+")")
		return
	case *o == *n:
		return
	}
	detail := what + "multipleOf " + number(*o) + " → " + number(*n)
	switch {
	case integral(*n / *o):
		cc.tightened = append(cc.tightened, detail)
	case integral(*o / *n):
		cc.loosened = append(cc.loosened, detail)
	default:
		cc.changed = append(cc.changed, detail)
	}
}

func integral(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

// pattern compares regular expressions: a new one accepts less, a removed
// one more, and another one is not compared.
func (cc *checkChanges) pattern(what, o, n string) {
	switch {
	case o == n:
	case o == "":
		cc.tightened = append(cc.tightened, what+"pattern added ("+strconv.Quote(n)+")")
	case n == "":
		cc.loosened = append(cc.loosened, what+"pattern removed (was "+strconv.Quote(o)+")")
	default:
		cc.changed = append(cc.changed, what+"pattern "+strconv.Quote(o)+" → "+strconv.Quote(n))
	}
}

// checks reports the changes of the assertions of one member.
func (d *differ) checks(subject, name string, o, n *model.Type, path string, flow model.Direction) {
	cc := compareChecks(o, n)
	for _, r := range []struct {
		id      string
		details []string
	}{
		{"field-check-tightened", cc.tightened},
		{"field-check-loosened", cc.loosened},
		{"field-check-changed", cc.changed},
	} {
		if len(r.details) > 0 {
			d.add(r.id, subject, name, strings.Join(r.details, ", "), path, flow)
		}
	}
}
