package mcpheader_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

// The inputSchema of test_custom_headers in the http-custom-headers
// scenario, as its tools/list handler serves it.
const customHeadersSchema = `{"type":"object","properties":{
	"region":{"type":"string","description":"Plain ASCII string value","x-mcp-header":"Region"},
	"priority":{"type":"integer","description":"Integer numeric value","x-mcp-header":"Priority"},
	"verbose":{"type":"boolean","description":"Boolean value","x-mcp-header":"Verbose"},
	"debug":{"type":"boolean","description":"Boolean true value","x-mcp-header":"Debug"},
	"empty_val":{"type":"string","description":"Empty string value","x-mcp-header":"EmptyVal"},
	"method_val":{"type":"string","description":"Value for header named \"Method\"","x-mcp-header":"Method"},
	"float_val":{"type":"number","description":"Floating point value — no x-mcp-header annotation, should not be mirrored"},
	"non_ascii_val":{"type":"string","description":"Non-ASCII string value","x-mcp-header":"NonAscii"},
	"whitespace_val":{"type":"string","description":"String with leading/trailing whitespace","x-mcp-header":"Whitespace"},
	"leading_space_val":{"type":"string","description":"String with leading space only","x-mcp-header":"LeadingSpace"},
	"trailing_space_val":{"type":"string","description":"String with trailing space only","x-mcp-header":"TrailingSpace"},
	"internal_space_val":{"type":"string","description":"String with internal spaces only","x-mcp-header":"InternalSpace"},
	"control_char_val":{"type":"string","description":"String with control characters","x-mcp-header":"ControlChar"},
	"crlf_val":{"type":"string","description":"String with carriage return and line feed","x-mcp-header":"CrLf"},
	"tab_val":{"type":"string","description":"String with leading tab","x-mcp-header":"Tab"},
	"query":{"type":"string","description":"No x-mcp-header annotation - should not be mirrored"}},
	"required":["region","priority","query"]}`

// The inputSchema of test_custom_headers_null in http-custom-headers.
const customHeadersNullSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"priority":{"type":"integer","x-mcp-header":"Priority"},
	"verbose":{"type":"boolean","description":"Boolean value — will be null to test omission","x-mcp-header":"Verbose"},
	"query":{"type":"string","description":"No x-mcp-header annotation"}},
	"required":["region","priority","query"]}`

func p(name, typ string, path ...string) mcpheader.Param {
	return mcpheader.Param{Name: name, Path: path, Type: typ}
}

func TestParseToolValid(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   mcpheader.Params
	}{
		// http-custom-headers: both tools are valid, float_val and query
		// are not annotated.
		{"custom-headers test_custom_headers", customHeadersSchema, mcpheader.Params{
			p("Region", "string", "region"),
			p("Priority", "integer", "priority"),
			p("Verbose", "boolean", "verbose"),
			p("Debug", "boolean", "debug"),
			p("EmptyVal", "string", "empty_val"),
			p("Method", "string", "method_val"),
			p("NonAscii", "string", "non_ascii_val"),
			p("Whitespace", "string", "whitespace_val"),
			p("LeadingSpace", "string", "leading_space_val"),
			p("TrailingSpace", "string", "trailing_space_val"),
			p("InternalSpace", "string", "internal_space_val"),
			p("ControlChar", "string", "control_char_val"),
			p("CrLf", "string", "crlf_val"),
			p("Tab", "string", "tab_val"),
		}},
		{"custom-headers test_custom_headers_null", customHeadersNullSchema, mcpheader.Params{
			p("Region", "string", "region"),
			p("Priority", "integer", "priority"),
			p("Verbose", "boolean", "verbose"),
		}},
		// http-invalid-tool-headers: valid_tool is kept.
		{"invalid-tool-headers valid_tool",
			`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`,
			mcpheader.Params{p("Region", "string", "region")}},
		// The spec's example (execute_sql).
		{"spec example execute_sql",
			`{"type":"object","properties":{"region":{"type":"string","description":"The region to execute the query in","x-mcp-header":"Region"},"query":{"type":"string","description":"The SQL query to execute"}},"required":["region","query"]}`,
			mcpheader.Params{p("Region", "string", "region")}},
		{"no annotations", `{"type":"object","properties":{"a":{"type":"string"}}}`, nil},
		{"empty object", `{}`, nil},
		{"empty input", ``, nil},
		{"boolean schema", `true`, nil},
		// Nested properties are reachable through properties alone.
		{"nested property",
			`{"type":"object","properties":{"db":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}}`,
			mcpheader.Params{p("Region", "string", "db", "region")}},
		{"annotation before type", `{"properties":{"n":{"x-mcp-header":"N","type":"integer"}}}`,
			mcpheader.Params{p("N", "integer", "n")}},
		{"nullable string", `{"properties":{"r":{"type":["string","null"],"x-mcp-header":"R"}}}`,
			mcpheader.Params{p("R", "string", "r")}},
		{"nullable integer, null first", `{"properties":{"r":{"type":["null","integer"],"x-mcp-header":"R"}}}`,
			mcpheader.Params{p("R", "integer", "r")}},
		{"one-element type array", `{"properties":{"r":{"type":["boolean"],"x-mcp-header":"R"}}}`,
			mcpheader.Params{p("R", "boolean", "r")}},
		{"every token character", "{\"properties\":{\"t\":{\"type\":\"string\",\"x-mcp-header\":\"!#$%&'*+-.^_`|~09AZaz\"}}}",
			mcpheader.Params{p("!#$%&'*+-.^_`|~09AZaz", "string", "t")}},
		{"name with an escaped character", `{"properties":{"r":{"type":"string","x-mcp-header":"\u0052egion"}}}`,
			mcpheader.Params{p("Region", "string", "r")}},
		{"property names with / and ~", `{"properties":{"a/b":{"properties":{"c~d":{"type":"string","x-mcp-header":"X"}}}}}`,
			mcpheader.Params{p("X", "string", "a/b", "c~d")}},
		{"empty property name", `{"properties":{"":{"type":"string","x-mcp-header":"E"}}}`,
			mcpheader.Params{p("E", "string", "")}},
		// A property named x-mcp-header is a name, not an annotation.
		{"property named x-mcp-header", `{"properties":{"x-mcp-header":{"type":"object"}}}`, nil},
		// Instances inside const, default, enum and examples are data.
		{"annotation-shaped data",
			`{"default":{"x-mcp-header":5},"examples":[{"x-mcp-header":""}],"properties":{"o":{"type":"object","const":{"x-mcp-header":"Y"},"enum":[{"x-mcp-header":"Z"}]}}}`,
			nil},
		{"name used again in a different annotation order", `{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"B"}}}`,
			mcpheader.Params{p("A", "string", "a"), p("B", "string", "b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mcpheader.ParseTool(jsontext.Value(tt.schema))
			if err != nil {
				t.Fatalf("ParseTool: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseTool (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseToolInvalid(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		pointer string // of the *AnnotationError
		problem string // a substring of its Problem
	}{
		// http-invalid-tool-headers: each tool the client must drop, with
		// the check it mirrors.
		{"invalid_empty_header (sep-2243-x-mcp-header-not-empty)",
			`{"type":"object","properties":{"value":{"type":"string","x-mcp-header":""}},"required":["value"]}`,
			"/properties/value/x-mcp-header", "the header name is empty"},
		{"invalid_object_header (sep-2243-x-mcp-header-primitive-only)",
			`{"type":"object","properties":{"data":{"type":"object","x-mcp-header":"Data"}},"required":["data"]}`,
			"/properties/data/x-mcp-header", `the property's type is "object"; x-mcp-header needs type string, integer or boolean`},
		{"invalid_array_header (sep-2243-x-mcp-header-primitive-only)",
			`{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}},"required":["items"]}`,
			"/properties/items/x-mcp-header", `the property's type is "array";`},
		{"invalid_null_header (sep-2243-x-mcp-header-primitive-only)",
			`{"type":"object","properties":{"nil":{"type":"null","x-mcp-header":"Nil"}},"required":["nil"]}`,
			"/properties/nil/x-mcp-header", `the property's type is "null";`},
		{"invalid_number_header (sep-2243-x-mcp-header-primitive-only)",
			`{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}},"required":["score"]}`,
			"/properties/score/x-mcp-header", `the property's type is "number";`},
		{"invalid_duplicate_same_case (sep-2243-x-mcp-header-unique)",
			`{"type":"object","properties":{"field1":{"type":"string","x-mcp-header":"Region"},"field2":{"type":"string","x-mcp-header":"Region"}},"required":["field1","field2"]}`,
			"/properties/field2/x-mcp-header", `"Region" is already used at /properties/field1/x-mcp-header`},
		{"invalid_duplicate_diff_case (sep-2243-x-mcp-header-unique)",
			`{"type":"object","properties":{"field1":{"type":"string","x-mcp-header":"MyField"},"field2":{"type":"string","x-mcp-header":"myfield"}},"required":["field1","field2"]}`,
			"/properties/field2/x-mcp-header", `"myfield" is already used at /properties/field1/x-mcp-header`},
		{"invalid_space_in_name (sep-2243-x-mcp-header-charset)",
			`{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"My Region"}},"required":["value"]}`,
			"/properties/value/x-mcp-header", `has ' ', which is not an HTTP token character`},
		{"invalid_colon_in_name (sep-2243-x-mcp-header-charset)",
			`{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region:Primary"}},"required":["value"]}`,
			"/properties/value/x-mcp-header", `has ':', which is not an HTTP token character`},
		{"invalid_non_ascii_name (sep-2243-x-mcp-header-charset)",
			`{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Région"}},"required":["value"]}`,
			"/properties/value/x-mcp-header", `"Région" has a non-ASCII character`},
		{"invalid_control_char_name (sep-2243-x-mcp-header-charset)",
			`{"type":"object","properties":{"value":{"type":"string","x-mcp-header":"Region\t1"}},"required":["value"]}`,
			"/properties/value/x-mcp-header", `has the control character 0x09`},
		// SEP-2243: "REGION" duplicates "Region".
		{"duplicate, upper case", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`,
			"/properties/b/x-mcp-header", "already used"},
		{"duplicate across nesting levels", `{"properties":{"a":{"type":"string","x-mcp-header":"R"},"o":{"properties":{"b":{"type":"string","x-mcp-header":"r"}}}}}`,
			"/properties/o/properties/b/x-mcp-header", "already used at /properties/a/x-mcp-header"},
		// The value of the annotation.
		{"number value", `{"properties":{"a":{"type":"string","x-mcp-header":5}}}`,
			"/properties/a/x-mcp-header", "the value is 5, not a string"},
		{"null value", `{"properties":{"a":{"type":"string","x-mcp-header":null}}}`,
			"/properties/a/x-mcp-header", "the value is null, not a string"},
		{"object value", `{"properties":{"a":{"type":"string","x-mcp-header":{"name":"A"}}}}`,
			"/properties/a/x-mcp-header", "not a string"},
		{"CR in the name", `{"properties":{"a":{"type":"string","x-mcp-header":"A\r\nX-Evil: 1"}}}`,
			"/properties/a/x-mcp-header", "control character 0x0d"},
		{"DEL in the name", `{"properties":{"a":{"type":"string","x-mcp-header":"A\u007f"}}}`,
			"/properties/a/x-mcp-header", "control character 0x7f"},
		{"slash in the name", `{"properties":{"a":{"type":"string","x-mcp-header":"A/B"}}}`,
			"/properties/a/x-mcp-header", "'/', which is not an HTTP token character"},
		// Types.
		{"no type", `{"properties":{"a":{"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", "the property has no type"},
		{"no type, only an enum", `{"properties":{"a":{"enum":["x","y"],"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", "the property has no type"},
		{"two primitive types", `{"properties":{"a":{"type":["string","integer"],"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", `the property's type ["string","integer"] allows both "string" and "integer"`},
		{"number in a type array", `{"properties":{"a":{"type":["number","null"],"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", `the property's type ["number","null"] allows "number"`},
		{"type array of only null", `{"properties":{"a":{"type":["null"],"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", `the property's type ["null"] allows none of them`},
		{"type is not a string", `{"properties":{"a":{"type":7,"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", "the property's type is 7"},
		{"type array with a number", `{"properties":{"a":{"type":["string",1],"x-mcp-header":"A"}}}`,
			"/properties/a/x-mcp-header", "is not an array of strings"},
		// Static reachability: only a chain of properties.
		{"on the root", `{"type":"string","x-mcp-header":"Root"}`,
			"/x-mcp-header", "on the schema root"},
		{"under items", `{"properties":{"list":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`,
			"/properties/list/items/x-mcp-header", `not reached from the schema root through "properties" alone`},
		{"under items of an object", `{"properties":{"list":{"type":"array","items":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}}}`,
			"/properties/list/items/properties/r/x-mcp-header", "not reached"},
		{"under prefixItems", `{"properties":{"t":{"prefixItems":[{"type":"string"},{"type":"string","x-mcp-header":"P"}]}}}`,
			"/properties/t/prefixItems/1/x-mcp-header", "not reached"},
		{"under oneOf", `{"oneOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]}`,
			"/oneOf/0/properties/r/x-mcp-header", "not reached"},
		{"under anyOf of a property", `{"properties":{"r":{"anyOf":[{"type":"string","x-mcp-header":"R"},{"type":"null"}]}}}`,
			"/properties/r/anyOf/0/x-mcp-header", "not reached"},
		{"under allOf", `{"allOf":[{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}]}`,
			"/allOf/0/properties/r/x-mcp-header", "not reached"},
		{"under not", `{"not":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}`,
			"/not/properties/r/x-mcp-header", "not reached"},
		{"under then", `{"if":{"required":["a"]},"then":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}`,
			"/then/properties/r/x-mcp-header", "not reached"},
		{"under $defs, even when referenced", `{"properties":{"r":{"$ref":"#/$defs/r"}},"$defs":{"r":{"type":"string","x-mcp-header":"R"}}}`,
			"/$defs/r/x-mcp-header", "not reached"},
		{"under definitions", `{"definitions":{"r":{"type":"string","x-mcp-header":"R"}}}`,
			"/definitions/r/x-mcp-header", "not reached"},
		{"under additionalProperties", `{"additionalProperties":{"type":"string","x-mcp-header":"R"}}`,
			"/additionalProperties/x-mcp-header", "not reached"},
		{"under patternProperties", `{"patternProperties":{"^r":{"type":"string","x-mcp-header":"R"}}}`,
			"/patternProperties/^r/x-mcp-header", "not reached"},
		{"under dependentSchemas", `{"dependentSchemas":{"a":{"properties":{"r":{"type":"string","x-mcp-header":"R"}}}}}`,
			"/dependentSchemas/a/properties/r/x-mcp-header", "not reached"},
		{"under an unknown keyword", `{"x-extension":{"nested":[{"type":"string","x-mcp-header":"R"}]}}`,
			"/x-extension/nested/0/x-mcp-header", "not reached"},
		{"pointer escaping", `{"properties":{"a/b":{"items":{"properties":{"c~d":{"type":"string","x-mcp-header":"X"}}}}}}`,
			"/properties/a~1b/items/properties/c~0d/x-mcp-header", "not reached"},
		// The first rule broken in document order wins over later ones.
		{"first of two problems", `{"properties":{"a":{"type":"number","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":""}}}`,
			"/properties/a/x-mcp-header", "number"},
		{"name checked before place", `{"items":{"type":"string","x-mcp-header":"bad name"}}`,
			"/items/x-mcp-header", "not an HTTP token character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mcpheader.ParseTool(jsontext.Value(tt.schema))
			var ae *mcpheader.AnnotationError
			if !errors.As(err, &ae) {
				t.Fatalf("ParseTool = %v, %v; want an *AnnotationError", got, err)
			}
			if got != nil {
				t.Errorf("ParseTool returned %v with its error", got)
			}
			if diff := cmp.Diff(tt.pointer, ae.Pointer); diff != "" {
				t.Errorf("Pointer (-want +got):\n%s", diff)
			}
			if !strings.Contains(ae.Problem, tt.problem) {
				t.Errorf("Problem = %q, want it to contain %q", ae.Problem, tt.problem)
			}
			if want := "x-mcp-header at " + ae.Pointer + ": " + ae.Problem; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// An inputSchema that is not valid JSON is an error, never an
// *AnnotationError.
func TestParseToolBadJSON(t *testing.T) {
	tests := []struct {
		name   string
		schema string
	}{
		{"truncated", `{"properties":{"a":{"type":"string","x-mcp-header":"A"}`},
		{"duplicate member", `{"properties":{"a":{"type":"string","x-mcp-header":"A","x-mcp-header":"B"}}}`},
		{"duplicate property", `{"properties":{"a":{"type":"string"},"a":{"type":"string","x-mcp-header":"A"}}}`},
		{"two values", `{} {}`},
		{"invalid UTF-8", "{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\xff\"}}}"},
		{"not JSON", `properties`},
		{"trailing comma", `{"properties":{},}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mcpheader.ParseTool(jsontext.Value(tt.schema))
			if err == nil {
				t.Fatalf("ParseTool = %v, nil; want an error", got)
			}
			var ae *mcpheader.AnnotationError
			if errors.As(err, &ae) {
				t.Errorf("ParseTool error %v is an *AnnotationError", err)
			}
			if !strings.Contains(err.Error(), "inputSchema is not valid JSON") {
				t.Errorf("error %q does not say the inputSchema is not valid JSON", err)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	custom, err := mcpheader.ParseTool(jsontext.Value(customHeadersSchema))
	if err != nil {
		t.Fatal(err)
	}
	customNull, err := mcpheader.ParseTool(jsontext.Value(customHeadersNullSchema))
	if err != nil {
		t.Fatal(err)
	}
	one := func(typ string, path ...string) mcpheader.Params { return mcpheader.Params{p("V", typ, path...)} }
	tests := []struct {
		name string
		tool mcpheader.Params
		args string
		want http.Header
	}{
		// http-custom-headers: the arguments of its two tool calls.
		{"custom-headers test_custom_headers", custom,
			`{"region":"us-west1","priority":42,"verbose":false,"debug":true,"empty_val":"","method_val":"test-method","float_val":3.14159,"non_ascii_val":"Hello, 世界","whitespace_val":" padded ","leading_space_val":" us-west1","trailing_space_val":"us-west1 ","internal_space_val":"us west 1","control_char_val":"line1\nline2","crlf_val":"line1\r\nline2","tab_val":"\tindented","query":"SELECT * FROM users"}`,
			http.Header{
				"Mcp-Param-Region":        {"us-west1"},
				"Mcp-Param-Priority":      {"42"},
				"Mcp-Param-Verbose":       {"false"},
				"Mcp-Param-Debug":         {"true"},
				"Mcp-Param-Emptyval":      {""},
				"Mcp-Param-Method":        {"test-method"},
				"Mcp-Param-Nonascii":      {"=?base64?SGVsbG8sIOS4lueVjA==?="},
				"Mcp-Param-Whitespace":    {"=?base64?IHBhZGRlZCA=?="},
				"Mcp-Param-Leadingspace":  {"=?base64?IHVzLXdlc3Qx?="},
				"Mcp-Param-Trailingspace": {"=?base64?dXMtd2VzdDEg?="},
				"Mcp-Param-Internalspace": {"us west 1"},
				"Mcp-Param-Controlchar":   {"=?base64?bGluZTEKbGluZTI=?="},
				"Mcp-Param-Crlf":          {"=?base64?bGluZTENCmxpbmUy?="},
				"Mcp-Param-Tab":           {"=?base64?CWluZGVudGVk?="},
			}},
		{"custom-headers test_custom_headers_null (sep-2243-client-omit-null)", customNull,
			`{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}`,
			http.Header{"Mcp-Param-Region": {"us-east1"}, "Mcp-Param-Priority": {"1"}}},
		{"absent arguments are omitted", customNull, `{"query":"SELECT 1"}`, http.Header{}},
		{"no arguments at all", customNull, ``, http.Header{}},
		{"arguments null", customNull, `null`, http.Header{}},
		{"no annotations", nil, `{"a":1}`, http.Header{}},
		// Integers in any JSON spelling, in decimal.
		{"negative integer", one("integer", "n"), `{"n":-7}`, http.Header{"Mcp-Param-V": {"-7"}}},
		{"integer written 42.0", one("integer", "n"), `{"n":42.0}`, http.Header{"Mcp-Param-V": {"42"}}},
		{"integer written 4.2e1", one("integer", "n"), `{"n":4.2e1}`, http.Header{"Mcp-Param-V": {"42"}}},
		{"integer written 1E2", one("integer", "n"), `{"n":1E2}`, http.Header{"Mcp-Param-V": {"100"}}},
		{"zero", one("integer", "n"), `{"n":0}`, http.Header{"Mcp-Param-V": {"0"}}},
		{"negative zero", one("integer", "n"), `{"n":-0.0}`, http.Header{"Mcp-Param-V": {"0"}}},
		{"largest safe integer", one("integer", "n"), `{"n":9007199254740991}`, http.Header{"Mcp-Param-V": {"9007199254740991"}}},
		{"smallest safe integer", one("integer", "n"), `{"n":-9007199254740991}`, http.Header{"Mcp-Param-V": {"-9007199254740991"}}},
		// Nested paths.
		{"nested argument", one("string", "db", "region"), `{"db":{"region":"eu"}}`, http.Header{"Mcp-Param-V": {"eu"}}},
		{"nested, parent absent", one("string", "db", "region"), `{"x":1}`, http.Header{}},
		{"nested, parent not an object", one("string", "db", "region"), `{"db":"eu"}`, http.Header{}},
		{"nested, null", one("string", "db", "region"), `{"db":{"region":null}}`, http.Header{}},
		// The value's JSON kind decides, not the schema's type.
		{"string for an integer property", one("integer", "n"), `{"n":"42"}`, http.Header{"Mcp-Param-V": {"42"}}},
		{"escaped string", one("string", "s"), `{"s":"caf\u00e9"}`, http.Header{"Mcp-Param-V": {"=?base64?Y2Fmw6k=?="}}},
		{"sentinel-looking string", one("string", "s"), `{"s":"=?base64?SGk=?="}`, http.Header{"Mcp-Param-V": {"=?base64?PT9iYXNlNjQ/U0drPT89?="}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tool.Headers(jsontext.Value(tt.args))
			if err != nil {
				t.Fatalf("Headers: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Headers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeadersErrors(t *testing.T) {
	one := func(typ string, path ...string) mcpheader.Params { return mcpheader.Params{p("V", typ, path...)} }
	tests := []struct {
		name    string
		tool    mcpheader.Params
		args    string
		wantErr string
	}{
		{"fraction", one("integer", "n"), `{"n":3.5}`, "Mcp-Param-V from arguments/n: the number 3.5 is not an integer within ±(2^53-1)"},
		{"beyond the safe range", one("integer", "n"), `{"n":9007199254740992}`, "the number 9007199254740992 is not an integer"},
		{"far beyond the safe range", one("integer", "n"), `{"n":1e400}`, "the number 1e400 is not an integer"},
		{"huge exponent", one("integer", "n"), `{"n":1e99999999999999}`, "exponent too large"},
		{"object", one("string", "o"), `{"o":{"a":1}}`, "the argument is an object; a header carries only"},
		{"array", one("string", "o"), `{"o":[1]}`, "the argument is an array"},
		{"invalid JSON", one("string", "o"), `{"o":`, "the arguments are not valid JSON"},
		{"duplicate member", one("string", "o"), `{"o":"a","o":"b"}`, "the arguments are not valid JSON"},
		{"pointer escaping in the message", one("string", "a/b"), `{"a/b":[]}`, "from arguments/a~1b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tool.Headers(jsontext.Value(tt.args))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Headers = %v, %v; want an error containing %q", got, err, tt.wantErr)
			}
		})
	}
}
