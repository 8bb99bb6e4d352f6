package load

import (
	"fmt"
	"strings"
)

// Treatment says what the generator does with a JSON Schema keyword.
type Treatment int

// The treatments.
const (
	// Structure: the keyword decides the Go type (properties, anyOf, $ref…).
	Structure Treatment = iota + 1
	// Assertion: the keyword restricts values. It is carried into the model
	// and the doc comments; Keyword.Decoder says whether the generated strict
	// decoders enforce it (and the encoders refuse to break it) or leave it to
	// validation against the schema (runtime/validate, "mcpgen validate"),
	// which enforces every assertion.
	Assertion
	// Annotation: the keyword is accepted and does not change the Go type;
	// Keyword.Doc says whether it reaches the doc comments.
	Annotation
	// Unsupported: the keyword has no settled Go mapping; a schema that uses
	// it fails to load, naming the keyword and its JSON pointer.
	Unsupported
)

func (t Treatment) String() string {
	switch t {
	case Structure:
		return "structure"
	case Assertion:
		return "assertion"
	case Annotation:
		return "annotation"
	case Unsupported:
		return "unsupported"
	}
	return "invalid"
}

// Keyword is the decided treatment of one JSON Schema keyword.
type Keyword struct {
	Name      string
	Treatment Treatment
	// Decoder reports an assertion that the generated strict decoders
	// enforce (a cheap check on one value, with the value's JSON pointer in
	// the error), and that the encoders refuse to break, so that a Go program
	// cannot send what a strict decoder refuses. The others are left to
	// validation. So is every assertion on a value whose Go type does not
	// hold it: raw JSON, a struct, a string-or-integer ID.
	Decoder bool
	// Doc reports an annotation that reaches the doc comments. (Every
	// assertion reaches them too: "At most 100 items.")
	Doc bool
	// Where restricts the keyword: "top" for the schema file's root only,
	// "" for any subschema.
	Where string
	// Why explains the treatment.
	Why string
}

// Keywords is the one table of every keyword of JSON Schema draft-07 and
// 2020-12 (core, applicator, validation, unevaluated, format, content and
// meta-data vocabularies), with what mcpgen does with it. A keyword that is
// in neither dialect is an error, except the extension keywords "x-…",
// which are annotations (2026-07-28 uses x-mcp-header).
var Keywords = []Keyword{
	// Core.
	{Name: "$schema", Treatment: Structure, Where: "top", Why: "names the dialect, which decides the definitions keyword and the reference form; on a definition (Zod writes it on every one) it is accepted and ignored when it names the file's dialect; an embedded schema of another dialect has no Go mapping"},
	{Name: "$defs", Treatment: Structure, Where: "top", Why: "the named definitions (2020-12); each becomes a Go type; nested definitions have no reference form here"},
	{Name: "definitions", Treatment: Structure, Where: "top", Why: "the named definitions (draft-07); each becomes a Go type"},
	{Name: "$ref", Treatment: Structure, Why: "a reference to a definition becomes its Go type; only local references to top-level definitions are resolved, nothing is fetched"},
	{Name: "$id", Treatment: Annotation, Where: "top", Why: "the file's identifier; below the root it would start a new resolution scope, which has no Go mapping"},
	{Name: "$comment", Treatment: Annotation, Why: "a note to schema readers, not to Go users"},
	{Name: "$anchor", Treatment: Unsupported, Why: "a named location for references; mcpgen resolves references by definition name only"},
	{Name: "$dynamicRef", Treatment: Unsupported, Why: "references resolved at evaluation time have no static Go type"},
	{Name: "$dynamicAnchor", Treatment: Unsupported, Why: "references resolved at evaluation time have no static Go type"},
	{Name: "$recursiveRef", Treatment: Unsupported, Why: "references resolved at evaluation time have no static Go type"},
	{Name: "$recursiveAnchor", Treatment: Unsupported, Why: "references resolved at evaluation time have no static Go type"},
	{Name: "$vocabulary", Treatment: Unsupported, Why: "belongs to meta-schemas, not to a protocol schema"},

	// Applicators.
	{Name: "properties", Treatment: Structure, Why: "the members of an object become struct fields"},
	{Name: "additionalProperties", Treatment: Structure, Why: "next to properties: {} or true keeps unknown members as raw JSON (Extra), a schema keeps them typed, false rejects them; alone, a typed map"},
	{Name: "items", Treatment: Structure, Why: "the element type of a slice (the draft-07 tuple form is unsupported)"},
	{Name: "anyOf", Treatment: Structure, Why: "a sealed union, told apart by the union's plan"},
	{Name: "oneOf", Treatment: Structure, Why: "a sealed union like anyOf: the plan's decoding picks exactly one variant"},
	{Name: "allOf", Treatment: Structure, Why: "object parts flattened into one struct"},
	{Name: "not", Treatment: Unsupported, Why: "a negated schema has no Go type; only a schema that is just {\"not\": {}}, which Zod writes for false (as in additionalProperties: no other members), is read, as false"},
	{Name: "if", Treatment: Unsupported, Why: "a conditional schema has no static Go type"},
	{Name: "then", Treatment: Unsupported, Why: "a conditional schema has no static Go type"},
	{Name: "else", Treatment: Unsupported, Why: "a conditional schema has no static Go type"},
	{Name: "dependentSchemas", Treatment: Unsupported, Why: "a schema that applies when a member is present has no static Go type"},
	{Name: "dependencies", Treatment: Unsupported, Why: "draft-07: its schema form has no static Go type"},
	{Name: "prefixItems", Treatment: Unsupported, Why: "tuples have no settled Go mapping"},
	{Name: "additionalItems", Treatment: Unsupported, Why: "draft-07 tuples have no settled Go mapping"},
	{Name: "contains", Treatment: Unsupported, Why: "a slice whose some element matches has no Go type"},
	{Name: "minContains", Treatment: Unsupported, Why: "only meaningful with contains"},
	{Name: "maxContains", Treatment: Unsupported, Why: "only meaningful with contains"},
	{Name: "patternProperties", Treatment: Unsupported, Why: "member types chosen by regular expression have no Go mapping"},
	{Name: "propertyNames", Treatment: Unsupported, Why: "a schema on member names has no Go mapping; only {\"type\": \"string\"} (or {}), which every member name meets and Zod writes on records, is accepted and ignored"},
	{Name: "unevaluatedProperties", Treatment: Unsupported, Why: "depends on the evaluation of sibling applicators, which have no Go mapping here"},
	{Name: "unevaluatedItems", Treatment: Unsupported, Why: "depends on the evaluation of sibling applicators, which have no Go mapping here"},

	// Validation: structure.
	{Name: "type", Treatment: Structure, Why: "the Go type; a list of types is a union, with null a nullable member"},
	{Name: "const", Treatment: Structure, Why: "a constant member: encoders write it, decoders check it"},
	{Name: "enum", Treatment: Structure, Why: "a string enum becomes a Go string type with constants; another enum (integers, numbers, booleans, or a mix with null) keeps its scalar type, or raw JSON, and the codecs check the value against the set"},
	{Name: "required", Treatment: Structure, Why: "required members are plain fields checked by decoders; the others keep presence"},

	// Validation: assertions.
	{Name: "minLength", Treatment: Assertion, Decoder: true, Why: "a count of the code points of one decoded string, as JSON Schema counts length"},
	{Name: "maxLength", Treatment: Assertion, Decoder: true, Why: "a count of the code points of one decoded string, as JSON Schema counts length"},
	{Name: "pattern", Treatment: Assertion, Why: "ECMA-262 regular expressions are not Go's RE2; the validator implements them, compiled once"},
	{Name: "minimum", Treatment: Assertion, Decoder: true, Why: "one comparison: exact for an integer, of the decoded float64 for a number"},
	{Name: "maximum", Treatment: Assertion, Decoder: true, Why: "one comparison: exact for an integer, of the decoded float64 for a number"},
	{Name: "exclusiveMinimum", Treatment: Assertion, Decoder: true, Why: "one comparison, as minimum (a number, as both dialects write it)"},
	{Name: "exclusiveMaximum", Treatment: Assertion, Decoder: true, Why: "one comparison, as maximum (a number, as both dialects write it)"},
	{Name: "multipleOf", Treatment: Assertion, Decoder: true, Why: "a remainder, on an integer whose divisor is integral (below 2^63); a number, or any other divisor, is left to validation, which uses exact decimal arithmetic"},
	{Name: "minItems", Treatment: Assertion, Decoder: true, Why: "the length of one decoded slice"},
	{Name: "maxItems", Treatment: Assertion, Decoder: true, Why: "the length of one decoded slice"},
	{Name: "uniqueItems", Treatment: Assertion, Why: "JSON equality of every pair of elements is quadratic and needs the raw values"},
	{Name: "minProperties", Treatment: Assertion, Decoder: true, Why: "the size of one decoded map; on a struct or raw JSON object the decoder keeps no count of the members, so there it is left to validation"},
	{Name: "maxProperties", Treatment: Assertion, Decoder: true, Why: "the size of one decoded map; on a struct or raw JSON object it is left to validation"},
	{Name: "dependentRequired", Treatment: Assertion, Why: "co-occurrence of members; the struct keeps presence, validation checks it"},
	{Name: "format", Treatment: Assertion, Why: "date-time, uri, email… parsers differ in tolerance and cost; validation asserts formats, the decoders keep the string (the format reaches the doc and the diff)"},

	// Meta-data and content annotations.
	{Name: "title", Treatment: Annotation, Why: "the description says more; titles are kept in the schema for tools"},
	{Name: "description", Treatment: Annotation, Doc: true, Why: "becomes the doc comment"},
	{Name: "default", Treatment: Annotation, Doc: true, Why: "the doc comment says the default; decoders do not fill it in, so absent stays absent"},
	{Name: "examples", Treatment: Annotation, Why: "kept in the schema for tools"},
	{Name: "deprecated", Treatment: Annotation, Doc: true, Why: "a \"Deprecated:\" paragraph in the doc comment, which linters and gopls understand"},
	{Name: "readOnly", Treatment: Annotation, Doc: true, Why: "the doc comment says it; the protocol has no writer to enforce it against"},
	{Name: "writeOnly", Treatment: Annotation, Doc: true, Why: "the doc comment says it"},
	{Name: "contentEncoding", Treatment: Annotation, Why: "an annotation in 2020-12; the value stays the string it is on the wire"},
	{Name: "contentMediaType", Treatment: Annotation, Why: "an annotation in 2020-12; the value stays the string it is on the wire"},
	{Name: "contentSchema", Treatment: Annotation, Why: "an annotation in 2020-12; the value stays the string it is on the wire"},
}

// ExtensionKeyword is the treatment of the keywords "x-…" that no dialect defines.
var ExtensionKeyword = Keyword{Name: "x-…", Treatment: Annotation, Doc: true, Why: "extension keywords, such as x-mcp-header, are kept in the schema and reach the model as annotations and the doc comments as a line each (x-mcp-header: \"Region\"); they do not change the Go type"}

// LookupKeyword returns the treatment of the keyword name. Extension
// keywords ("x-…") are annotations.
func LookupKeyword(name string) (Keyword, bool) {
	if strings.HasPrefix(name, "x-") {
		k := ExtensionKeyword
		k.Name = name
		return k, true
	}
	for _, k := range Keywords {
		if k.Name == name {
			return k, true
		}
	}
	return Keyword{}, false
}

// KeywordTable renders Keywords as a Markdown table.
func KeywordTable() string {
	var b strings.Builder
	b.WriteString("| keyword | treatment | enforced by | reaches doc | why |\n|---|---|---|---|---|\n")
	row := func(k Keyword) {
		by := ""
		if k.Treatment == Assertion {
			by = "validate"
			if k.Decoder {
				by = "codecs and validate"
			}
		}
		name := "`" + k.Name + "`"
		if k.Where == "top" {
			name += " (root only)"
		}
		doc := ""
		if k.Doc {
			doc = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, k.Treatment, by, doc, k.Why)
	}
	for _, k := range Keywords {
		row(k)
	}
	row(ExtensionKeyword)
	return b.String()
}
