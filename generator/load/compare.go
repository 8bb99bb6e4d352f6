package load

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Difference is where two schemas first differ in what they accept.
type Difference struct {
	// Path is the JSON path of the first difference from the compared
	// schemas, such as "/properties/ttlMs/anyOf/0/maximum"; "" at their root.
	Path string
	// A and B are the shapes (see Schema.Shape) of the two schemas at Path.
	A, B string
}

// Compare compares two schemas by their lowered form: what the loader
// made of them (Zod's constructs lowered to the core vocabulary, $refs by
// definition name), ignoring their annotations (descriptions, titles,
// defaults, deprecated and x- keywords), which accept nothing. It returns
// the first difference, in member order, or nil when they are the same.
func Compare(a, b *Schema) *Difference {
	return compare(a, b, "")
}

func compare(a, b *Schema, path string) *Difference {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return differ(a, b, path)
	}
	diff := func(keyword string) *Difference {
		return differ(a, b, path+"/"+keyword)
	}
	switch {
	case (a.Bool == nil) != (b.Bool == nil) || a.Bool != nil && *a.Bool != *b.Bool:
		return differ(a, b, path)
	case a.Ref != b.Ref:
		return diff("$ref")
	case !slices.Equal(a.Types, b.Types):
		return diff("type")
	case a.Const != nil || b.Const != nil:
		if !bytes.Equal(a.Const, b.Const) {
			return diff("const")
		}
	}
	if !slices.EqualFunc(a.Enum, b.Enum, func(x, y jsontext.Value) bool { return bytes.Equal(compact(x), compact(y)) }) {
		return diff("enum")
	}
	if d := compareChecks(&a.Checks, &b.Checks); d != "" {
		return diff(d)
	}
	if !slices.Equal(sorted(a.Required), sorted(b.Required)) {
		return diff("required")
	}
	if len(a.Properties) != len(b.Properties) {
		return diff("properties")
	}
	for _, p := range a.Properties {
		q, ok := b.Property(p.Name)
		if !ok {
			return diff("properties/" + escape(p.Name))
		}
		if d := compare(p.Schema, q, path+"/properties/"+escape(p.Name)); d != nil {
			return d
		}
	}
	if d := compare(a.AdditionalProperties, b.AdditionalProperties, path+"/additionalProperties"); d != nil {
		return d
	}
	if d := compare(a.Items, b.Items, path+"/items"); d != nil {
		return d
	}
	if a.OneOf != b.OneOf {
		return diff("oneOf")
	}
	for _, list := range []struct {
		name string
		a, b []*Schema
	}{{"anyOf", a.AnyOf, b.AnyOf}, {"allOf", a.AllOf, b.AllOf}} {
		if len(list.a) != len(list.b) {
			return diff(list.name)
		}
		for i := range list.a {
			if d := compare(list.a[i], list.b[i], path+"/"+list.name+"/"+strconv.Itoa(i)); d != nil {
				return d
			}
		}
	}
	return nil
}

func differ(a, b *Schema, path string) *Difference {
	return &Difference{Path: path, A: shapeOf(a), B: shapeOf(b)}
}

// shapeOf returns the shape of s, or "(absent)" for none.
func shapeOf(s *Schema) string {
	switch {
	case s == nil:
		return "(absent)"
	case s.Bool != nil && s.Shape == "":
		return strconv.FormatBool(*s.Bool)
	}
	return s.Shape
}

func compact(v []byte) []byte {
	c := jsontext.Value(slices.Clone(v))
	_ = c.Compact() // the loader read it: it is valid JSON
	return c
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// compareChecks returns the keyword of the first assertion that differs,
// "" when none does.
func compareChecks(a, b *Checks) string {
	num := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	count := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	switch {
	case a.Format != b.Format:
		return "format"
	case a.Pattern != b.Pattern:
		return "pattern"
	case !count(a.MinLength, b.MinLength):
		return "minLength"
	case !count(a.MaxLength, b.MaxLength):
		return "maxLength"
	case !num(a.Minimum, b.Minimum):
		return "minimum"
	case !num(a.Maximum, b.Maximum):
		return "maximum"
	case !num(a.ExclusiveMinimum, b.ExclusiveMinimum):
		return "exclusiveMinimum"
	case !num(a.ExclusiveMaximum, b.ExclusiveMaximum):
		return "exclusiveMaximum"
	case !num(a.MultipleOf, b.MultipleOf):
		return "multipleOf"
	case !count(a.MinItems, b.MinItems):
		return "minItems"
	case !count(a.MaxItems, b.MaxItems):
		return "maxItems"
	case a.UniqueItems != b.UniqueItems:
		return "uniqueItems"
	case !count(a.MinProperties, b.MinProperties):
		return "minProperties"
	case !count(a.MaxProperties, b.MaxProperties):
		return "maxProperties"
	case fmt.Sprint(depList(a.DependentRequired)) != fmt.Sprint(depList(b.DependentRequired)):
		return "dependentRequired"
	}
	return ""
}

func depList(ds []*Dependency) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Member+"="+fmt.Sprint(d.Requires))
	}
	return out
}
