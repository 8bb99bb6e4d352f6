package emit

import (
	"bytes"
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/go-json-experiment/json/jsontext"
)

// ---- schema.go: the schema document itself, for validation at run time.

// schemaFile emits Schema(), which returns the revision's schema document,
// compacted, from a string constant: what runtime/validate compiles, so that
// validating needs neither files nor the network at run time. The generated
// package does not import a JSON Schema library; validation stays opt-in.
func (g *gen) schemaFile(f *jen.File) error {
	data, err := g.schemaBytes()
	if err != nil {
		return err
	}
	stripped, err := withoutDescriptions(data)
	if err != nil {
		return fmt.Errorf("emit schema.go: %w", err)
	}
	chunks, err := schemaChunks(stripped)
	if err != nil {
		return fmt.Errorf("emit schema.go: %w", err)
	}
	f.Comment("Schema returns what validation needs of the JSON Schema of revision " + g.p.Rev.Name)
	f.Comment("that this package was generated from (whose sha256 is in the file headers):")
	f.Comment("the schema compacted, without its description annotations. Each call returns")
	f.Comment("a new copy. Validate messages with it, such as with runtime/validate:")
	f.Comment("")
	f.Comment("\tv, err := validate.New(Revision, Schema())")
	f.Func().Id("Schema").Params().Index().Byte().Block(
		jen.Return(jen.Index().Byte().Parens(jen.Id("schemaJSON"))),
	)
	var expr *jen.Statement
	for i, c := range chunks {
		if i == 0 {
			expr = jen.Lit(c)
			continue
		}
		expr = expr.Op("+").Line().Lit(c)
	}
	f.Line()
	f.Comment("schemaJSON is the compacted schema document, one definition a line.")
	f.Const().Id("schemaJSON").Op("=").Add(expr)
	return nil
}

// schemaBytes returns the bytes of the schema document the revision was
// built from, which the loader keeps.
func (g *gen) schemaBytes() ([]byte, error) {
	if len(g.p.Rev.Schema) == 0 {
		return nil, fmt.Errorf("emit schema.go: the model of %s does not carry its schema document", g.p.Rev.Name)
	}
	return g.p.Rev.Schema, nil
}

// schemaChunks compacts the schema document and cuts it before each
// definition, so that a change to one definition changes one line of the
// generated constant.
func schemaChunks(data []byte) ([]string, error) {
	v := jsontext.Value(bytes.Clone(data))
	if err := v.Compact(); err != nil {
		return nil, err
	}
	var cuts []int64
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("the schema is not a JSON object")
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		if n := name.String(); n != "$defs" && n != "definitions" {
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
			return nil, fmt.Errorf("%s is not a JSON object", name.String())
		}
		for d.PeekKind() != '}' {
			cuts = append(cuts, d.InputOffset())
			if _, err := d.ReadToken(); err != nil {
				return nil, err
			}
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
	}
	var chunks []string
	prev := int64(0)
	for _, c := range cuts {
		// InputOffset is just past the previous value; the cut goes after
		// the comma that separates the definitions.
		for c < int64(len(v)) && (v[c] == ',' || v[c] == '{') {
			c++
		}
		if c > prev {
			chunks = append(chunks, string(v[prev:c]))
			prev = c
		}
	}
	chunks = append(chunks, string(v[prev:]))
	return chunks, nil
}

// withoutDescriptions returns the schema document without the "description"
// annotations of its schemas: validation does not need them. A member named
// "description" in a properties map is a property, not an annotation, and
// stays.
func withoutDescriptions(data []byte) ([]byte, error) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	e := jsontext.NewEncoder(&out)
	if err := copySchema(d, e, true); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(out.Bytes()), nil
}

// copySchema copies the next value from d to e. schema says whether the
// value is a schema (whose "description" member is dropped).
func copySchema(d *jsontext.Decoder, e *jsontext.Encoder, schema bool) error {
	switch d.PeekKind() {
	case '{':
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		if err := e.WriteToken(tok); err != nil {
			return err
		}
		for d.PeekKind() != '}' {
			name, err := d.ReadToken()
			if err != nil {
				return err
			}
			n := name.String()
			if schema && n == "description" {
				if err := d.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if err := e.WriteToken(jsontext.String(n)); err != nil {
				return err
			}
			switch {
			case schema && (n == "properties" || n == "definitions" || n == "$defs"):
				err = copyMap(d, e)
			case schema && (n == "items" || n == "additionalProperties"):
				err = copySchema(d, e, true)
			case schema && (n == "anyOf" || n == "allOf" || n == "oneOf"):
				err = copyList(d, e)
			case !schema && (n == "definitions" || n == "$defs"):
				err = copyMap(d, e)
			default:
				err = copySchema(d, e, false)
			}
			if err != nil {
				return err
			}
		}
		tok, err = d.ReadToken()
		if err != nil {
			return err
		}
		return e.WriteToken(tok)
	default:
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		return e.WriteValue(v)
	}
}

// copyMap copies an object whose member values are schemas.
func copyMap(d *jsontext.Decoder, e *jsontext.Encoder) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("want an object of schemas")
	}
	if err := e.WriteToken(tok); err != nil {
		return err
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return err
		}
		if err := e.WriteToken(jsontext.String(name.String())); err != nil {
			return err
		}
		if err := copySchema(d, e, true); err != nil {
			return err
		}
	}
	tok, err = d.ReadToken()
	if err != nil {
		return err
	}
	return e.WriteToken(tok)
}

// copyList copies an array of schemas.
func copyList(d *jsontext.Decoder, e *jsontext.Encoder) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '[' {
		return fmt.Errorf("want an array of schemas")
	}
	if err := e.WriteToken(tok); err != nil {
		return err
	}
	for d.PeekKind() != ']' {
		if err := copySchema(d, e, true); err != nil {
			return err
		}
	}
	tok, err = d.ReadToken()
	if err != nil {
		return err
	}
	return e.WriteToken(tok)
}
