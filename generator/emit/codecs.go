package emit

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
)

// ---- json.go: one encoder and one strict decoder per type.

func (g *gen) codecs(f *jen.File) error {
	for _, d := range g.p.Rev.Decls {
		if g.external(d) {
			continue
		}
		var err error
		switch d.Kind {
		case model.Object:
			err = g.objectCodec(f, d)
		case model.Union:
			err = g.unionCodec(f, d)
		case model.Enum:
			g.enumCodec(f, d)
		case model.Alias:
			if g.p.Defined[d] {
				err = g.aliasCodec(f, d)
			}
		}
		if err != nil {
			return err
		}
	}
	g.unknownVariantCodec(f)
	g.metaChecks(f)
	return nil
}

// unknownVariantCodec writes the codec of UnknownVariant, if a union has it:
// the raw object, unchanged both ways.
func (g *gen) unknownVariantCodec(f *jen.File) {
	if len(g.taggedUnions()) == 0 {
		return
	}
	name := plan.UnknownVariant
	f.Line()
	f.Comment("encode writes x.Raw unchanged; it must be a JSON object.")
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("encode").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		jen.If(jen.Len(jen.Id("x").Dot("Raw")).Op("==").Lit(0)).Block(
			jen.Id("e").Dot("Fail").Call(jen.Lit(name+" has no value")),
			jen.Return(),
		),
		jen.Id("e").Dot("RawObject").Call(jen.Id("x").Dot("Raw")),
	)
	g.commonMethods(f, name, true)
	f.Comment("UnmarshalJSONFrom reads any JSON object into x.Raw, verbatim.")
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSONFrom").Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Add(wire("ReadObjectValue")).Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("x").Dot("Raw").Op("=").Id("raw"),
		jen.Return(jen.Nil()),
	)
}

// commonMethods writes AppendJSON, ValidJSON, MarshalJSON and UnmarshalJSON
// around the type's encode and UnmarshalJSONFrom.
func (g *gen) commonMethods(f *jen.File, name string, ptr bool) {
	recv := jen.Id("x").Id(name)
	if ptr {
		recv = jen.Id("x").Op("*").Id(name)
	}
	f.Comment("AppendJSON appends the JSON encoding of x to b.")
	f.Func().Params(recv).Id("AppendJSON").Params(jen.Id("b").Index().Byte()).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Id("b")),
		jen.Id("x").Dot("encode").Call(jen.Op("&").Id("e")),
		jen.Return(jen.Id("e").Dot("Bytes").Call()),
	)
	f.Comment("ValidJSON marks AppendJSON as appending only valid JSON (wire.ValidJSON).")
	f.Func().Params(recv.Clone()).Id("ValidJSON").Params().Block()
	f.Comment("MarshalJSON implements json.Marshaler.")
	f.Func().Params(jen.Id("x").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("x").Dot("AppendJSON").Call(jen.Nil())),
	)
	f.Comment("UnmarshalJSON implements json.Unmarshaler, strictly: see UnmarshalJSONFrom.")
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Return(wire("Unmarshal").Call(jen.Id("b"), jen.Id("x"))),
	)
}

func (g *gen) objectCodec(f *jen.File, d *model.Decl) error {
	name := g.name(d)
	// encode
	var enc []jen.Code
	enc = append(enc, jen.Id("e").Dot("BeginObject").Call())
	for _, c := range d.Consts {
		w := []jen.Code{jen.Id("e").Dot("Name").Call(quotedName(c.Name)), jen.Id("e").Dot("Literal").Call(jen.Lit(string(c.Value)))}
		if c.Required {
			enc = append(enc, w...)
		} else {
			enc = append(enc, jen.If(jen.Op("!").Id("x").Dot("Omit"+plan.GoName(c.Name))).Block(w...))
		}
	}
	for _, fl := range d.Fields {
		v := jen.Id("x").Dot(fieldName(fl))
		body := []jen.Code{jen.Id("e").Dot("Name").Call(quotedName(fl.Name))}
		what := name + "." + fl.Name
		if !fl.Required && !fl.Type.Nullable && g.category(fl.Type) == catPointer {
			body = append(body, g.encodeValue(fl.Type, jen.Op("*").Add(v.Clone()), what, 0)...)
		} else {
			body = append(body, g.encodeValue(fl.Type, v.Clone(), what, 0)...)
		}
		for _, k := range fl.MetaKeys {
			if k.Required {
				body = append(body, jen.If(jen.Op("!").Add(wire("Has")).Call(v.Clone(), jen.Lit(k.Name))).Block(
					jen.Id("e").Dot("Fail").Call(jen.Lit(fmt.Sprintf("encode: %s: _meta lacks the required member %q", what, k.Name))),
					jen.Return(),
				))
			}
		}
		if fl.Required {
			enc = append(enc, body...)
		} else {
			enc = append(enc, jen.If(g.present(fl, v)).Block(body...))
		}
	}
	if d.Open {
		var known []jen.Code
		for _, fl := range d.Fields {
			known = append(known, jen.Lit(fl.Name))
		}
		for _, c := range d.Consts {
			known = append(known, jen.Lit(c.Name))
		}
		loop := []jen.Code{}
		if len(known) > 0 {
			loop = append(loop, jen.Switch(jen.Id("k")).Block(
				jen.Case(known...).Block(
					jen.Id("e").Dot("Fail").Call(jen.Lit("Extra repeats the member ").Op("+").Id("k").Op("+").Lit(", which the struct has a field for")),
					jen.Return(),
				),
			))
		}
		if d.ExtraType != nil {
			loop = append(loop, jen.Id("e").Dot("Key").Call(jen.Id("k")), jen.Id("v").Op(":=").Id("x").Dot("Extra").Index(jen.Id("k")))
			loop = append(loop, g.encodeValue(d.ExtraType, jen.Id("v"), name+".Extra[]", 1)...)
		} else {
			loop = append(loop, jen.Id("e").Dot("Key").Call(jen.Id("k")), jen.Id("e").Dot("Raw").Call(jen.Id("x").Dot("Extra").Index(jen.Id("k"))))
		}
		enc = append(enc, jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Add(wire("SortedKeys")).Call(jen.Id("x").Dot("Extra"))).Block(loop...))
	}
	enc = append(enc, jen.Id("e").Dot("EndObject").Call())
	checked := false
	for _, fl := range d.Fields {
		checked = checked || hasChecks(fl.Type)
	}
	f.Line()
	f.Commentf("encode writes x as a JSON object, constants included.")
	if checked {
		f.Comment("A member that breaks an assertion of the schema that decoders check (see the")
		f.Comment("field docs) is an error: the peer's strict decoder would refuse it.")
	}
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("encode").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(enc...)
	g.commonMethods(f, name, true)
	g.envelopeMethod(f, d)

	// decode
	type req struct {
		name string
		bit  int
	}
	var reqs []req
	bit := map[string]int{}
	for _, fl := range d.Fields {
		if fl.Required {
			bit[fl.Name] = len(reqs)
			reqs = append(reqs, req{fl.Name, len(reqs)})
		}
	}
	for _, c := range d.Consts {
		if c.Required {
			bit[c.Name] = len(reqs)
			reqs = append(reqs, req{c.Name, len(reqs)})
		}
	}
	if len(reqs) > 64 {
		return fmt.Errorf("emit %s: more than 64 required members", d.Name)
	}
	var cases []jen.Code
	mark := func(n string) []jen.Code {
		if b, ok := bit[n]; ok {
			return []jen.Code{jen.Id("seen").Op("|=").Lit(uint64(1) << b)}
		}
		return nil
	}
	for _, c := range d.Consts {
		body := []jen.Code{
			jen.If(jen.Err().Op(":=").Add(wire("ReadConst")).Call(jen.Id("d"), jen.Lit(string(c.Value))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		}
		if !c.Required {
			body = append(body, jen.Id("x").Dot("Omit"+plan.GoName(c.Name)).Op("=").False())
		}
		body = append(body, mark(c.Name)...)
		cases = append(cases, jen.Case(jen.Lit(c.Name)).Block(body...))
	}
	for _, fl := range d.Fields {
		dst := jen.Id("x").Dot(fieldName(fl))
		var body []jen.Code
		if !fl.Required && !fl.Type.Nullable && g.category(fl.Type) == catPointer {
			if t := resolveType(fl.Type); t.Kind == model.Ref && t.Decl.Resolve().Kind == model.Object {
				body = append(body, dst.Clone().Op("=").New(g.goType(fl.Type)))
				body = append(body, g.decodeTo(fl.Type, dst.Clone(), 0)...)
			} else {
				body = append(body, jen.Var().Id("v").Add(g.goType(fl.Type)))
				body = append(body, g.decodeTo(fl.Type, jen.Id("v"), 1)...)
				body = append(body, dst.Clone().Op("=").Op("&").Id("v"))
			}
		} else {
			body = append(body, g.decodeTo(fl.Type, dst, 0)...)
		}
		if !fl.Required && fl.Type.Nullable {
			body = append(body, jen.Id("x").Dot(fieldName(fl)+"Null").Op("=").Add(dst.Clone()).Op("==").Nil())
		}
		if fn := g.metaCheck(d, fl); fn != "" {
			body = append(body, jen.If(jen.Err().Op(":=").Id(fn).Call(jen.Id("d"), dst.Clone()), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		}
		body = append(body, mark(fl.Name)...)
		cases = append(cases, jen.Case(jen.Lit(fl.Name)).Block(body...))
	}
	if d.Open && d.ExtraType != nil {
		cases = append(cases, jen.Default().Block(append(append([]jen.Code{
			jen.Id("k").Op(":=").String().Call(jen.Id("name")),
			jen.Var().Id("v").Add(g.goType(d.ExtraType)),
		}, g.decodeTo(d.ExtraType, jen.Id("v"), 1)...),
			jen.If(jen.Id("x").Dot("Extra").Op("==").Nil()).Block(jen.Id("x").Dot("Extra").Op("=").Map(jen.String()).Add(g.goType(d.ExtraType)).Values()),
			jen.Id("x").Dot("Extra").Index(jen.Id("k")).Op("=").Id("v"),
		)...))
	} else if d.Open {
		cases = append(cases, jen.Default().Block(
			jen.Id("k").Op(":=").String().Call(jen.Id("name")),
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(wire("ReadValue")).Call(jen.Id("d")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.If(jen.Id("x").Dot("Extra").Op("==").Nil()).Block(jen.Id("x").Dot("Extra").Op("=").Map(jen.String()).Qual(jsontextPkg, "Value").Values()),
			jen.Id("x").Dot("Extra").Index(jen.Id("k")).Op("=").Id("v"),
		))
	} else if d.Closed {
		cases = append(cases, jen.Default().Block(
			jen.Return(wire("UnknownMember").Call(jen.Id("d"), jen.Id("name"))),
		))
	} else {
		cases = append(cases, jen.Default().Block(
			jen.If(jen.Err().Op(":=").Add(wire("Skip")).Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		))
	}
	var dec []jen.Code
	dec = append(dec,
		jen.If(jen.Err().Op(":=").Add(wire("BeginObject")).Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("x").Op("=").Id(name).Values(),
	)
	for _, c := range d.Consts {
		if !c.Required {
			dec = append(dec, jen.Id("x").Dot("Omit"+plan.GoName(c.Name)).Op("=").True())
		}
	}
	if len(reqs) > 0 {
		dec = append(dec, jen.Var().Id("seen").Uint64())
	}
	dec = append(dec, jen.For().Block(
		jen.List(jen.Id("name"), jen.Id("ok"), jen.Err()).Op(":=").Add(wire("NextName")).Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Break()),
		jen.Switch(jen.String().Call(jen.Id("name"))).Block(cases...),
	))
	for _, r := range reqs {
		dec = append(dec, jen.If(jen.Id("seen").Op("&").Lit(uint64(1)<<r.bit).Op("==").Lit(0)).Block(
			jen.Return(wire("Missing").Call(jen.Id("d"), jen.Lit(r.name))),
		))
	}
	dec = append(dec, jen.Return(jen.Nil()))
	f.Comment("UnmarshalJSONFrom decodes x strictly from d: member names match case-sensitively,")
	f.Comment("duplicates and missing required members are errors, and unknown members are")
	switch {
	case d.Open:
		f.Comment("kept in Extra.")
	case d.Closed:
		f.Comment("errors (the schema closes the object).")
	default:
		f.Comment("skipped.")
	}
	if checked {
		f.Comment("A value that breaks an assertion of the schema (see the field docs) is an error.")
	}
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSONFrom").Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(dec...)
	return nil
}

// encodeValue writes the value v of type t (never an optional pointer),
// first checking the assertions the decoders check; what names the value in
// their errors ("Tool.name", "Tool.tags[]").
func (g *gen) encodeValue(t *model.Type, v *jen.Statement, what string, depth int) []jen.Code {
	e := jen.Id("e")
	if t.Nullable {
		base := *t
		base.Nullable = false
		inner := g.encodeValue(&base, jen.Op("*").Add(v.Clone()), what, depth)
		if rt := resolveType(&base); rt.Kind == model.Ref && rt.Decl.Resolve().Kind == model.Object {
			inner = g.encodeValue(&base, v.Clone(), what, depth)
			if g.external(rt.Decl) {
				inner = []jen.Code{e.Clone().Dot("Value").Call(v.Clone())}
			}
		}
		return []jen.Code{jen.If(v.Clone().Op("==").Nil()).Block(e.Clone().Dot("Null").Call()).Else().Block(inner...)}
	}
	if c := encodeChecks(t, v, what); len(c) > 0 {
		plain := *t
		plain.Checks, plain.Values = nil, nil
		return append(c, g.encodeValue(&plain, v, what, depth)...)
	}
	switch t.Kind {
	case model.String:
		return []jen.Code{e.Dot("String").Call(v)}
	case model.Integer:
		return []jen.Code{e.Dot("Int").Call(v)}
	case model.Number:
		return []jen.Code{e.Dot("Float").Call(v)}
	case model.Boolean:
		return []jen.Code{e.Dot("Bool").Call(v)}
	case model.RawValue:
		return []jen.Code{e.Dot("Raw").Call(v)}
	case model.RawObject:
		code := []jen.Code{e.Dot("RawObject").Call(v)}
		for _, c := range t.ObjectConsts {
			code = append(code, jen.Id("e").Dot("RequireConst").Call(v.Clone(), jen.Lit(c.Name), jen.Lit(string(c.Value))))
		}
		return code
	case model.ID:
		return []jen.Code{e.Dot("ID").Call(v)}
	case model.Array:
		i := "i" + strconv.Itoa(depth)
		return []jen.Code{
			e.Clone().Dot("BeginArray").Call(),
			jen.For(jen.Id(i).Op(":=").Range().Add(v)).Block(g.encodeValue(t.Elem, v.Clone().Index(jen.Id(i)), what+"[]", depth+1)...),
			e.Clone().Dot("EndArray").Call(),
		}
	case model.Map:
		k, val := "k"+strconv.Itoa(depth), "v"+strconv.Itoa(depth)
		return []jen.Code{
			e.Clone().Dot("BeginObject").Call(),
			jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(wire("SortedKeys")).Call(v)).Block(
				append([]jen.Code{
					e.Clone().Dot("Key").Call(jen.Id(k)),
					jen.Id(val).Op(":=").Add(v.Clone()).Index(jen.Id(k)),
				}, g.encodeValue(t.Elem, jen.Id(val), what+"{}", depth+1)...)...,
			),
			e.Clone().Dot("EndObject").Call(),
		}
	case model.Ref:
		rt := resolveType(t)
		if rt != t {
			return g.encodeValue(rt, v, what, depth)
		}
		if g.external(t.Decl) {
			// A type of the core package encodes through its AppendJSON.
			return []jen.Code{e.Dot("Value").Call(jen.Op("&").Parens(v))}
		}
		return []jen.Code{jen.Parens(v).Dot("encode").Call(e)}
	}
	panic("emit: unknown type kind")
}

// decodeTo decodes the next value of d into dst, an addressable Go value of
// the type of t.
func (g *gen) decodeTo(t *model.Type, dst *jen.Statement, depth int) []jen.Code {
	errRet := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
	if t.Nullable {
		base := *t
		base.Nullable = false
		tmp := "n" + strconv.Itoa(depth)
		return []jen.Code{
			jen.List(jen.Id("null"), jen.Err()).Op(":=").Add(wire("ReadNull")).Call(jen.Id("d")),
			errRet,
			jen.If(jen.Id("null")).Block(dst.Clone().Op("=").Nil()).Else().Block(
				append(append([]jen.Code{jen.Var().Id(tmp).Add(g.goType(&base))},
					g.decodeTo(&base, jen.Id(tmp), depth+1)...),
					dst.Clone().Op("=").Op("&").Id(tmp))...,
			),
		}
	}
	read := func(fn string) []jen.Code {
		v := "v" + strconv.Itoa(depth)
		code := []jen.Code{
			jen.List(jen.Id(v), jen.Err()).Op(":=").Add(wire(fn)).Call(jen.Id("d")),
			errRet,
		}
		code = append(code, decodeChecks(t, jen.Id(v))...)
		return append(code, dst.Clone().Op("=").Id(v))
	}
	switch t.Kind {
	case model.String:
		return read("ReadString")
	case model.Integer:
		return read("ReadInt")
	case model.Number:
		return read("ReadFloat")
	case model.Boolean:
		return read("ReadBool")
	case model.RawValue:
		return read("ReadValue")
	case model.RawObject:
		code := read("ReadObjectValue")
		for _, c := range t.ObjectConsts {
			code = append(code, jen.If(jen.Err().Op(":=").Add(wire("RequireConst")).Call(jen.Id("d"), dst.Clone(), jen.Lit(c.Name), jen.Lit(string(c.Value))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		}
		return code
	case model.ID, model.Ref:
		return []jen.Code{jen.If(jen.Err().Op(":=").Add(dst).Dot("UnmarshalJSONFrom").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))}
	case model.Array:
		s, el := "s"+strconv.Itoa(depth), "e"+strconv.Itoa(depth)
		return append([]jen.Code{
			jen.If(jen.Err().Op(":=").Add(wire("BeginArray")).Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id(s).Op(":=").Add(g.goType(t)).Values(),
			jen.For().Block(append([]jen.Code{
				jen.List(jen.Id("more"), jen.Err()).Op(":=").Add(wire("More")).Call(jen.Id("d")),
				errRet,
				jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
				jen.Var().Id(el).Add(g.goType(t.Elem)),
			}, append(g.decodeTo(t.Elem, jen.Id(el), depth+1), jen.Id(s).Op("=").Append(jen.Id(s), jen.Id(el)))...)...),
		}, append(decodeChecks(t, jen.Id(s)),
			dst.Clone().Op("=").Id(s),
		)...)
	case model.Map:
		m, el, k := "m"+strconv.Itoa(depth), "e"+strconv.Itoa(depth), "k"+strconv.Itoa(depth)
		return append([]jen.Code{
			jen.If(jen.Err().Op(":=").Add(wire("BeginObject")).Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id(m).Op(":=").Add(g.goType(t)).Values(),
			jen.For().Block(append([]jen.Code{
				jen.List(jen.Id("key"), jen.Id("ok"), jen.Err()).Op(":=").Add(wire("NextName")).Call(jen.Id("d")),
				errRet,
				jen.If(jen.Op("!").Id("ok")).Block(jen.Break()),
				jen.Id(k).Op(":=").String().Call(jen.Id("key")),
				jen.Var().Id(el).Add(g.goType(t.Elem)),
			}, append(g.decodeTo(t.Elem, jen.Id(el), depth+1), jen.Id(m).Index(jen.Id(k)).Op("=").Id(el))...)...),
		}, append(decodeChecks(t, jen.Id(m)),
			dst.Clone().Op("=").Id(m),
		)...)
	}
	panic("emit: unknown type kind")
}

func (g *gen) enumCodec(f *jen.File, d *model.Decl) {
	name := g.name(d)
	f.Line()
	f.Commentf("encode writes x as a JSON string; a value outside the enum is an error.")
	f.Func().Params(jen.Id("x").Id(name)).Id("encode").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		jen.If(jen.Op("!").Id("x").Dot("Valid").Call()).Block(
			jen.Id("e").Dot("Fail").Call(jen.Lit(name+" ").Op("+").Qual("strconv", "Quote").Call(jen.String().Call(jen.Id("x"))).Op("+").Lit(" is not one of its values")),
			jen.Return(),
		),
		jen.Id("e").Dot("String").Call(jen.String().Call(jen.Id("x"))),
	)
	g.commonMethods(f, name, false)
	f.Comment("UnmarshalJSONFrom decodes x from d; a string that is not one of the values is an error.")
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSONFrom").Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Add(wire("ReadString")).Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.Op("!").Id(name).Call(jen.Id("s")).Dot("Valid").Call()).Block(
			jen.Return(wire("EnumError").Call(jen.Id("d"), jen.Id("s"), jen.Id(lowerFirst(name)+"Values"))),
		),
		jen.Op("*").Id("x").Op("=").Id(name).Call(jen.Id("s")),
		jen.Return(jen.Nil()),
	)
}

func (g *gen) aliasCodec(f *jen.File, d *model.Decl) error {
	name := g.name(d)
	t := d.Target
	// The defined type converts to its underlying type for the shared code.
	under := g.goType(t)
	var enc []jen.Code
	switch t.Kind {
	case model.Array, model.Map, model.RawValue, model.RawObject:
		enc = g.encodeValue(t, jen.Parens(under.Clone()).Parens(jen.Id("x")), name, 0)
		if t.Kind == model.Array || t.Kind == model.Map {
			enc = append([]jen.Code{jen.Id("v").Op(":=").Add(under.Clone()).Parens(jen.Id("x"))}, g.encodeValue(t, jen.Id("v"), name, 0)...)
		}
	default:
		enc = g.encodeValue(t, under.Clone().Parens(jen.Id("x")), name, 0)
	}
	f.Line()
	f.Commentf("encode writes x.")
	if hasChecks(t) {
		f.Comment("A value that breaks an assertion of the schema that decoders check (see the")
		f.Comment("type's doc) is an error: the peer's strict decoder would refuse it.")
	}
	f.Func().Params(jen.Id("x").Id(name)).Id("encode").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(enc...)
	g.commonMethods(f, name, false)
	f.Comment("UnmarshalJSONFrom decodes x strictly from d.")
	if hasChecks(t) {
		f.Comment("A value that breaks an assertion of the schema (see the type's doc) is an error.")
	}
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSONFrom").Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(
		append(append([]jen.Code{jen.Var().Id("v").Add(under.Clone())}, g.decodeTo(t, jen.Id("v"), 1)...),
			jen.Op("*").Id("x").Op("=").Id(name).Parens(jen.Id("v")),
			jen.Return(jen.Nil()))...,
	)
	return nil
}

// kindCase maps a plan kind to the jsontext kinds it covers.
var kindCase = map[string][]jen.Code{
	"object":  {jen.LitRune('{')},
	"array":   {jen.LitRune('[')},
	"string":  {jen.LitRune('"')},
	"number":  {jen.LitRune('0')},
	"boolean": {jen.LitRune('t'), jen.LitRune('f')},
	"null":    {jen.LitRune('n')},
}

func (g *gen) unionCodec(f *jen.File, d *model.Decl) error {
	name := g.name(d)
	u := g.p.Unions[d]
	f.Line()
	f.Commentf("encode writes the variant in x.Value; an empty union is an error.")
	var write jen.Code
	if g.openUnion(d) {
		write = jen.Id("e").Dot("Value").Call(jen.Id("x").Dot("Value"))
	} else {
		write = g.variantSwitch(d, name)
	}
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("encode").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		jen.If(jen.Id("x").Dot("Value").Op("==").Nil()).Block(
			jen.Id("e").Dot("Fail").Call(jen.Lit(name+" has no value")),
			jen.Return(),
		),
		write,
	)
	g.commonMethods(f, name, true)
	var body []jen.Code
	body = append(body,
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Add(wire("ReadUnionValue")).Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	)
	var cases []jen.Code
	var want []string
	for _, kc := range u.Root.Kinds {
		want = append(want, kc.Kind)
		cases = append(cases, jen.Case(kindCase[kc.Kind]...).Block(g.node(d, kc.Node, 0)...))
	}
	body = append(body, jen.Switch(jen.Id("raw").Dot("Kind").Call()).Block(cases...))
	body = append(body, jen.Return(wire("KindError").Call(jen.Id("d"), jen.Lit(name), jen.Id("raw").Dot("Kind").Call(), jen.Lit(joinOr(want)))))
	f.Comment("UnmarshalJSONFrom decodes x from d, choosing the variant as the plan says:")
	for _, line := range planLines(g.p, d) {
		f.Comment("  " + line)
	}
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSONFrom").Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(body...)
	return nil
}

// variantSwitch writes the variant in x.Value by a type switch over the
// union's variants rather than through the interface: e passed to an
// interface method would escape, and with it the Encoder of every
// AppendJSON that reaches a union (one allocation per encoded result).
// The interface's marker method is unexported, so the variants, and
// UnknownVariant for a tagged union, are all its implementations: a value
// type X implements it as X and *X.
func (g *gen) variantSwitch(d *model.Decl, name string) jen.Code {
	var cases []jen.Code
	seen := map[string]bool{}
	add := func(t jen.Code, key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		cases = append(cases, jen.Case(t).Block(jen.Id("v").Dot("encode").Call(jen.Id("e"))))
	}
	for _, v := range d.Variants {
		vd := v.Decl.Resolve()
		n := g.name(vd)
		if vd.Kind != model.Object {
			add(jen.Id(n), n)
		}
		add(jen.Op("*").Id(n), "*"+n)
	}
	if g.p.Unions[d].Tagged() {
		add(jen.Op("*").Id(plan.UnknownVariant), "*"+plan.UnknownVariant)
	}
	cases = append(cases, jen.Default().Block(jen.Id("e").Dot("Fail").Call(jen.Lit(name+" holds a value that is not one of its variants"))))
	return jen.Switch(jen.Id("v").Op(":=").Id("x").Dot("Value").Assert(jen.Type())).Block(cases...)
}

func planLines(p *plan.Plan, d *model.Decl) []string {
	one := &plan.Plan{Rev: &model.Revision{Decls: []*model.Decl{d}}, Names: p.Names, Unions: map[*model.Decl]*plan.Union{d: p.Unions[d]}}
	s := one.String()
	var lines []string
	for i, l := range splitLines(s) {
		if i == 0 || l == "" {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func joinOr(ks []string) string {
	switch len(ks) {
	case 0:
		return ""
	case 1:
		return ks[0]
	}
	s := ""
	for i, k := range ks {
		switch {
		case i == 0:
			s = k
		case i == len(ks)-1:
			s += " or " + k
		default:
			s += ", " + k
		}
	}
	return s
}

// node emits the decision tree n; every path returns.
func (g *gen) node(u *model.Decl, n *plan.Node, depth int) []jen.Code {
	uname := g.name(u)
	switch {
	case n.Variant != nil:
		vd := n.Variant.Resolve()
		vn := g.ref(vd)
		if vd.Kind == model.Object {
			return []jen.Code{
				jen.Id("v").Op(":=").New(vn),
				jen.If(jen.Err().Op(":=").Add(wire("UnmarshalAt")).Call(jen.Id("d"), jen.Id("raw"), jen.Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.Id("x").Dot("Value").Op("=").Id("v"),
				jen.Return(jen.Nil()),
			}
		}
		return []jen.Code{
			jen.Var().Id("v").Add(vn),
			jen.If(jen.Err().Op(":=").Add(wire("UnmarshalAt")).Call(jen.Id("d"), jen.Id("raw"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Id("x").Dot("Value").Op("=").Id("v"),
			jen.Return(jen.Nil()),
		}
	case n.Tag != "":
		tag, ok := "tag"+strconv.Itoa(depth), "ok"+strconv.Itoa(depth)
		var cases []jen.Code
		absent := []jen.Code{jen.Return(wire("TagError").Call(jen.Id("d"), jen.Lit(uname), jen.Lit(n.Tag), jen.Lit(""), jen.False()))}
		if n.Absent != nil {
			absent = g.node(u, n.Absent, depth+1)
		}
		cases = append(cases, jen.Case(jen.Op("!").Id(ok)).Block(absent...))
		for _, c := range n.Cases {
			cases = append(cases, jen.Case(jen.String().Call(jen.Id(tag)).Op("==").Lit(c.Value)).Block(g.node(u, c.Node, depth+1)...))
		}
		code := []jen.Code{
			jen.List(jen.Id(tag), jen.Id(ok)).Op(":=").Add(wire("MemberTag")).Call(jen.Id("raw"), jen.Lit(n.Tag)),
			jen.Switch().Block(cases...),
		}
		if n.Closed {
			return append(code, jen.Return(wire("TagError").Call(jen.Id("d"), jen.Lit(uname), jen.Lit(n.Tag), jen.String().Call(jen.Id(tag)), jen.True())))
		}
		return append(code,
			jen.If(jen.List(jen.Id("kept"), jen.Id("ok")).Op(":=").Add(wire("KeepUnknown")).Call(jen.Id("d"), jen.Id("raw"), jen.Lit(n.Tag)), jen.Id("ok")).Block(
				jen.Id("x").Dot("Value").Op("=").Op("&").Id(plan.UnknownVariant).Values(jen.Dict{jen.Id("Raw"): jen.Id("kept")}),
				jen.Return(jen.Nil()),
			),
			jen.Return(wire("TagError").Call(jen.Id("d"), jen.Lit(uname), jen.Lit(n.Tag), jen.String().Call(jen.Id(tag)), jen.True())),
		)
	case n.Try != nil:
		var code []jen.Code
		var names []string
		for _, t := range n.Try {
			vn := g.name(t.Variant.Resolve())
			names = append(names, vn)
			code = append(code, jen.Block(
				jen.Id("v").Op(":=").New(g.ref(t.Variant.Resolve())),
				jen.If(wire("Unmarshal").Call(jen.Id("raw"), jen.Id("v")).Op("==").Nil()).Block(
					jen.Id("x").Dot("Value").Op("=").Id("v"),
					jen.Return(jen.Nil()),
				),
			))
		}
		return append(code, jen.Return(wire("NoVariant").Call(jen.Id("d"), jen.Lit(uname), jen.Lit("it decodes as none of "+joinOr(names)))))
	default:
		var cases []jen.Code
		var names []string
		for _, c := range n.Present {
			var path []jen.Code
			for _, p := range c.Path {
				path = append(path, jen.Lit(p))
			}
			names = append(names, joinPath(c.Path))
			cases = append(cases, jen.Case(wire("Has").Call(append([]jen.Code{jen.Id("raw")}, path...)...)).Block(g.node(u, c.Node, depth+1)...))
		}
		code := []jen.Code{}
		if len(cases) > 0 {
			code = append(code, jen.Switch().Block(cases...))
		}
		if n.Else != nil {
			return append(code, g.node(u, n.Else, depth+1)...)
		}
		return append(code, jen.Return(wire("NoVariant").Call(jen.Id("d"), jen.Lit(uname), jen.Lit("want one of the members "+joinOr(names)))))
	}
}

func joinPath(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += "/"
		}
		s += x
	}
	return s
}

// metaCheck returns the name of the function that checks the keys the
// schema declares in the _meta member fl of d, "" when it declares none.
// Members whose _meta refers to the same definition share one function.
func (g *gen) metaCheck(d *model.Decl, fl *model.Field) string {
	if !fl.Meta || len(fl.MetaKeys) == 0 {
		return ""
	}
	owner := fl.MetaDecl
	if owner == "" {
		owner = d.Name + "Meta"
	}
	name := "checkMeta" + plan.GoName(owner)
	if g.meta == nil {
		g.meta = map[string][]*model.Field{}
	}
	if _, ok := g.meta[name]; !ok {
		g.meta[name] = fl.MetaKeys
		g.metaOrder = append(g.metaOrder, name)
	}
	return name
}

// metaChecks writes the functions metaCheck named: each present key decodes
// strictly as its declared type, and the required ones are present.
func (g *gen) metaChecks(f *jen.File) {
	for _, name := range g.metaOrder {
		var body []jen.Code
		for _, k := range g.meta[name] {
			var call *jen.Statement
			switch t := resolveType(k.Type); {
			case t.Kind == model.ID && !t.Nullable:
				// A progress token or request ID: checked in place, where a
				// new(ID) passed as an Unmarshaler would escape to the heap.
				call = wire("MetaID").Call(jen.Id("d"), jen.Id("meta"), jen.Lit(k.Name))
			case k.Type.Kind == model.ID, k.Type.Kind == model.Ref:
				// Decoded into a variable of the check's own, which stays
				// on the stack, where new(T) passed to wire.MetaMember
				// would be allocated on every call, the member present
				// or not.
				call = wire("MetaCheck").Call(jen.Id("d"), jen.Id("meta"), jen.Lit(k.Name),
					jen.Func().Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder")).Error().Block(
						jen.Var().Id("v").Add(g.goType(k.Type)),
						jen.Return(jen.Id("v").Dot("UnmarshalJSONFrom").Call(jen.Id("d"))),
					))
			case k.Type.Kind == model.String, k.Type.Kind == model.Integer, k.Type.Kind == model.Number, k.Type.Kind == model.Boolean:
				call = wire("MetaScalar").Types(g.goType(k.Type)).Call(jen.Id("d"), jen.Id("meta"), jen.Lit(k.Name))
			}
			missing := jen.Return(wire("MissingMeta").Call(jen.Id("d"), jen.Lit(k.Name)))
			switch {
			case call == nil && k.Required:
				// Raw JSON, a slice or a map: only its presence is checked.
				body = append(body, jen.If(jen.Op("!").Add(wire("Has")).Call(jen.Id("meta"), jen.Lit(k.Name))).Block(missing))
			case call == nil:
			case k.Required:
				body = append(body,
					jen.If(jen.List(jen.Id("ok"), jen.Err()).Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())).
						Else().If(jen.Op("!").Id("ok")).Block(missing))
			default:
				body = append(body, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
			}
		}
		body = append(body, jen.Return(jen.Nil()))
		f.Line()
		f.Commentf("%s checks the members the schema declares in a _meta object just", name)
		f.Comment("read from d: each one present decodes strictly as its type, and the")
		f.Comment("required ones are present. Other members are free.")
		f.Func().Id(name).Params(jen.Id("d").Op("*").Qual(jsontextPkg, "Decoder"), jen.Id("meta").Qual(jsontextPkg, "Value")).Error().Block(body...)
	}
}

// envelopeMethod writes AppendJSONWithMeta (wire.MetaAppender) for an object
// whose _meta has required members, such as the request params of
// 2026-07-28, whose envelope (revision, client capabilities) the session
// engine fills in: a value without them still encodes through it.
func (g *gen) envelopeMethod(f *jen.File, d *model.Decl) {
	var meta *model.Field
	for _, fl := range d.Fields {
		if fl.Name != "_meta" || fl.Type.Kind != model.RawObject {
			continue
		}
		for _, k := range fl.MetaKeys {
			if k.Required {
				meta = fl
			}
		}
	}
	if meta == nil {
		return
	}
	name := g.name(d)
	field := fieldName(meta)
	f.Comment("AppendJSONWithMeta appends the JSON encoding of x to b, with the members of")
	f.Comment("meta (a JSON object) added to its _meta where x.Meta lacks them")
	f.Comment("(wire.MetaAppender).")
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("AppendJSONWithMeta").Params(jen.Id("b").Index().Byte(), jen.Id("meta").Qual(jsontextPkg, "Value")).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Id("y").Op(":=").Op("*").Id("x"),
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Add(wire("MergeMembers")).Call(jen.Id("x").Dot(field), jen.Id("meta")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("encode: "+name+"._meta: %w"), jen.Err()))),
		jen.Id("y").Dot(field).Op("=").Id("m"),
		jen.Return(jen.Id("y").Dot("AppendJSON").Call(jen.Id("b"))),
	)
}
