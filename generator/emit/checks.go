package emit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/generator/model"
)

// ---- The schema's assertions in the codecs and in the doc comments.
//
// The codecs check the assertions that load.Keywords marks as checked by the
// decoders (Decoder: true), each with one call of a runtime/wire check per
// keyword or pair of keywords. The decoder checks a value right after reading
// it, so the error carries its JSON pointer; the encoder checks it before
// writing it, so that a Go program cannot send what the peer's strict decoder
// would refuse. The other assertions (pattern, format, uniqueItems…) are
// mentioned in the doc comments and left to validation.

// checks returns the problem expressions (calls of the wire checks, each
// giving "" when the value passes) for the value v of type t, a value of the
// Go type of t without its nullable pointer. Only t's own assertions are
// checked: those of array items and map values are checked as each is read
// or written.
func checks(t *model.Type, v *jen.Statement) []jen.Code {
	var out []jen.Code
	if len(t.Values) > 0 {
		out = append(out, valuesCheck(t, v))
	}
	c := t.Checks
	if c == nil {
		return out
	}
	count := func(fn string, n jen.Code, min, max *int64) {
		if min == nil && max == nil {
			return
		}
		lo, hi := int64(0), int64(-1)
		if min != nil {
			lo = *min
		}
		if max != nil {
			hi = *max
		}
		out = append(out, wire(fn).Call(n, jen.Lit(int(lo)), jen.Lit(int(hi))))
	}
	switch t.Kind {
	case model.String:
		count("Length", v.Clone(), c.MinLength, c.MaxLength)
	case model.Integer, model.Number:
		for _, b := range []struct {
			fn    string
			bound *float64
		}{
			{"Minimum", c.Minimum},
			{"Maximum", c.Maximum},
			{"ExclusiveMinimum", c.ExclusiveMinimum},
			{"ExclusiveMaximum", c.ExclusiveMaximum},
		} {
			if b.bound != nil {
				out = append(out, wire(b.fn).Call(v.Clone(), jen.Op(number(*b.bound))))
			}
		}
		if m, ok := intDivisor(t); ok {
			out = append(out, wire("MultipleOf").Call(v.Clone(), jen.Lit(int(m))))
		}
	case model.Array:
		count("Items", jen.Len(v.Clone()), c.MinItems, c.MaxItems)
	case model.Map:
		count("Properties", jen.Len(v.Clone()), c.MinProperties, c.MaxProperties)
	}
	return out
}

// valuesCheck is the check of an enum that is not a string enum: the value
// must be one of t.Values.
func valuesCheck(t *model.Type, v *jen.Statement) jen.Code {
	args := []jen.Code{v.Clone()}
	fn := "OneOf"
	for _, x := range t.Values {
		switch t.Kind {
		case model.Integer, model.Number, model.Boolean, model.String:
			args = append(args, jen.Op(string(x)))
		default:
			fn = "OneOfJSON"
			args = append(args, jen.Lit(string(x)))
		}
	}
	return wire(fn).Call(args...)
}

// intDivisor returns the divisor of multipleOf on an integer type when the
// codecs check it: an integral divisor in the int64 range. A number, or a
// fractional divisor, needs exact decimal arithmetic and is left to
// validation.
func intDivisor(t *model.Type) (int64, bool) {
	if t.Kind != model.Integer || t.Checks == nil || t.Checks.MultipleOf == nil {
		return 0, false
	}
	m := *t.Checks.MultipleOf
	if m != math.Trunc(m) || m < 1 || m >= 1<<63 {
		return 0, false
	}
	return int64(m), true
}

// number writes a schema bound as a Go constant: 0, 1, 0.5, 1e+21.
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// hasChecks reports whether the codecs check something in a value of type t:
// its own assertions or those of its items or values (not those inside the
// declarations it refers to, which their own codecs check).
func hasChecks(t *model.Type) bool {
	if t == nil || t.Kind == model.Ref {
		return false
	}
	if len(checks(t, jen.Id("v"))) > 0 {
		return true
	}
	return (t.Kind == model.Array || t.Kind == model.Map) && hasChecks(t.Elem)
}

// decodeChecks returns the statements that check v, just read from d.
func decodeChecks(t *model.Type, v *jen.Statement) []jen.Code {
	var out []jen.Code
	for _, p := range checks(t, v) {
		out = append(out, jen.If(jen.Err().Op(":=").Add(wire("Check")).Call(jen.Id("d"), p), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	}
	return out
}

// encodeChecks returns the statements that refuse to encode v when it
// breaks an assertion; what names it in the error.
func encodeChecks(t *model.Type, v *jen.Statement, what string) []jen.Code {
	var out []jen.Code
	for _, p := range checks(t, v) {
		out = append(out, jen.Id("e").Dot("Check").Call(jen.Lit(what), p))
	}
	return out
}

// ---- Doc comments.

// assertionDoc describes the assertions on a value of type t in sentences,
// those of its items and values included: "At most 100 items. Each item: at
// least 1 character."
func assertionDoc(t *model.Type) string {
	return assertionDocOf(t, "")
}

// assertionDocOf is assertionDoc for a value that is what ("Each item of
// each item"), "" for the value itself.
func assertionDocOf(t *model.Type, what string) string {
	if t == nil || t.Kind == model.Ref {
		return ""
	}
	var s []string
	if len(t.Values) > 0 {
		var vs []string
		for _, x := range t.Values {
			vs = append(vs, string(x))
		}
		s = append(s, "One of "+strings.Join(vs, ", ")+".")
	}
	if c := t.Checks; c != nil {
		str := t.Kind == model.String || t.Kind == model.ID
		num := t.Kind == model.Integer || t.Kind == model.Number || t.Kind == model.ID
		obj := t.Kind == model.Map || t.Kind == model.RawObject
		if str {
			if c.Format != "" {
				s = append(s, "Format: "+c.Format+".")
			}
			s = append(s, between(c.MinLength, c.MaxLength, "character"))
			if c.Pattern != "" {
				s = append(s, "Matches the pattern "+strconv.Quote(c.Pattern)+".")
			}
		}
		if num {
			var parts []string
			for _, b := range []struct {
				what  string
				bound *float64
			}{
				{"at least", c.Minimum}, {"more than", c.ExclusiveMinimum},
				{"at most", c.Maximum}, {"less than", c.ExclusiveMaximum},
			} {
				if b.bound != nil {
					parts = append(parts, b.what+" "+number(*b.bound))
				}
			}
			if len(parts) > 0 {
				s = append(s, upperFirst(strings.Join(parts, " and "))+".")
			}
			if c.MultipleOf != nil {
				s = append(s, "A multiple of "+number(*c.MultipleOf)+".")
			}
		}
		if t.Kind == model.Array {
			s = append(s, between(c.MinItems, c.MaxItems, "item"))
			if c.UniqueItems {
				s = append(s, "The items are unique.")
			}
		}
		if obj {
			s = append(s, between(c.MinProperties, c.MaxProperties, "member"))
			for _, dep := range c.DependentRequired {
				s = append(s, fmt.Sprintf("With %q, %s must be present too.", dep.Member, quoteAll(dep.Requires)))
			}
		}
	}
	own := joinSentences(s)
	if own != "" && what != "" {
		own = what + ": " + lowerFirstWord(own)
	}
	elem := ""
	switch t.Kind {
	case model.Array:
		elem = "Each item"
	case model.Map:
		elem = "Each value"
	}
	if elem != "" && what != "" {
		elem += " of " + strings.ToLower(what[:1]) + what[1:]
	}
	if elem != "" {
		own = joinSentences([]string{own, assertionDocOf(t.Elem, elem)})
	}
	return own
}

// between says a count's bounds: "At least 1 and at most 100 items."
func between(min, max *int64, noun string) string {
	plural := func(n int64) string {
		if n == 1 {
			return noun
		}
		return noun + "s"
	}
	switch {
	case min != nil && max != nil && *min == *max:
		return fmt.Sprintf("Exactly %d %s.", *min, plural(*min))
	case min != nil && max != nil:
		return fmt.Sprintf("At least %d and at most %d %s.", *min, *max, plural(*max))
	case min != nil:
		return fmt.Sprintf("At least %d %s.", *min, plural(*min))
	case max != nil:
		return fmt.Sprintf("At most %d %s.", *max, plural(*max))
	}
	return ""
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func joinSentences(s []string) string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// lowerFirstWord lowers the first letter of a sentence that starts with a
// plain word ("At least" → "at least"), not of a name ("Format").
func lowerFirstWord(s string) string {
	for _, w := range []string{"At ", "Exactly ", "More ", "Less ", "A ", "The ", "Each ", "Matches ", "With "} {
		if strings.HasPrefix(s, w) {
			return strings.ToLower(s[:1]) + s[1:]
		}
	}
	return s
}

// annotationDoc returns the paragraphs the annotations add to a doc
// comment, after the description: the assertions of t (nil for none) with
// the default and readOnly/writeOnly, the x-… extension keywords one per
// line, and the Deprecated paragraph that gopls and staticcheck recognize.
// what is "member" or "definition".
func annotationDoc(a model.Annotations, t *model.Type, what string) []string {
	var paras []string
	facts := []string{assertionDoc(t)}
	if a.Default != nil {
		facts = append(facts, "Default: "+string(a.Default)+".")
	}
	if a.ReadOnly {
		facts = append(facts, "It is read-only (readOnly).")
	}
	if a.WriteOnly {
		facts = append(facts, "It is write-only (writeOnly).")
	}
	if f := joinSentences(facts); f != "" {
		paras = append(paras, f)
	}
	var ext []string
	for _, x := range a.Extensions {
		v := jsontext.Value(append([]byte(nil), x.Value...))
		if err := v.Compact(); err != nil {
			v = x.Value
		}
		ext = append(ext, x.Name+": "+string(v))
	}
	if len(ext) > 0 {
		paras = append(paras, strings.Join(ext, "\n"))
	}
	if a.Deprecated {
		paras = append(paras, "Deprecated: the schema marks this "+what+" deprecated.")
	}
	return paras
}
