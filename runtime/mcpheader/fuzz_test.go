package mcpheader_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

// Decode never panics and returns UTF-8; every UTF-8 string survives
// Encode and Decode, and Encode's output is a header value that HTTP
// neither rejects nor trims.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"us-west1", "=?base64?SGVsbG8=?=", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "SGVsbG8=",
		"=?base64?SGVsbG8=", "=?BASE64?SGVsbG8=?=", "  x  ", "\tindented", "line1\r\nline2", "Hello, 世界",
		"=?base64??=", "=?base64?=", "=?base64?/w==?=", "", " ", "\x00", "\x7f", "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := mcpheader.Decode(s); err == nil && !utf8.ValidString(v) {
			t.Fatalf("Decode(%q) = %q, not UTF-8", s, v)
		}
		if !utf8.ValidString(s) {
			return
		}
		e := mcpheader.Encode(s)
		if mcpheader.Safe(s) != (e == s) {
			t.Fatalf("Safe(%q) = %v, Encode = %q", s, mcpheader.Safe(s), e)
		}
		for i := 0; i < len(e); i++ {
			if e[i] < 0x20 || e[i] > 0x7e {
				t.Fatalf("Encode(%q) = %q has byte %#02x", s, e, e[i])
			}
		}
		if e != strings.Trim(e, " \t") {
			t.Fatalf("Encode(%q) = %q has whitespace HTTP would trim", s, e)
		}
		back, err := mcpheader.Decode(e)
		if err != nil || back != s {
			t.Fatalf("Decode(Encode(%q) = %q) = %q, %v", s, e, back, err)
		}
	})
}

// ParseTool never panics, and what it accepts keeps the rules: names are
// non-empty tokens, unique case-insensitively, on string, integer or
// boolean properties with a path.
func FuzzParseTool(f *testing.F) {
	for _, s := range []string{
		customHeadersSchema, customHeadersNullSchema, serverToolSchema,
		`{"type":"object","properties":{"value":{"type":"string","x-mcp-header":""}}}`,
		`{"properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}`,
		`{"properties":{"l":{"items":{"type":"string","x-mcp-header":"I"}}}}`,
		`{"properties":{"r":{"type":["string","null"],"x-mcp-header":"R"}}}`,
		`{"$defs":{"r":{"type":"string","x-mcp-header":"R"}},"allOf":[{"not":{}}]}`,
		`{"default":{"x-mcp-header":5},"x-ext":[[{"x-mcp-header":"Z"}]]}`,
		`{"x-mcp-header":"Root"}`, `true`, `[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		tool, err := mcpheader.ParseTool(jsontext.Value(schema))
		if err != nil {
			if tool != nil {
				t.Fatalf("ParseTool returned %v with error %v", tool, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range tool {
			if p.Name == "" || strings.ContainsAny(p.Name, " :\t\r\n\"(),/;<=>?@[\\]{}") {
				t.Fatalf("accepted name %q", p.Name)
			}
			for i := 0; i < len(p.Name); i++ {
				if p.Name[i] <= 0x20 || p.Name[i] >= 0x7f {
					t.Fatalf("accepted name %q", p.Name)
				}
			}
			if k := strings.ToLower(p.Name); seen[k] {
				t.Fatalf("accepted name %q twice", p.Name)
			} else {
				seen[k] = true
			}
			if p.Type != "string" && p.Type != "integer" && p.Type != "boolean" {
				t.Fatalf("accepted type %q", p.Type)
			}
			if len(p.Path) == 0 {
				t.Fatalf("accepted %q with an empty path", p.Name)
			}
		}
	})
}

// Check never panics on any headers and body; its errors are mismatches
// whenever the params are valid JSON; and what Set writes for a call of any
// tool ParseTool accepts, Check accepts.
func FuzzCheck(f *testing.F) {
	f.Add(serverToolSchema, `{"region":"Hello","priority":0,"verbose":false}`, "tools/call", "=?base64?SGVsbG8=?=")
	f.Add(serverToolSchema, `{"region":" padded ","priority":42.0,"db":{"shard":-7}}`, "tools/call", "042")
	f.Add(customHeadersSchema, `{"region":"us-west1","priority":42,"verbose":null,"tab_val":"\tindented"}`, "tools/call", "=?base64?SGVsbG8?=")
	f.Add(customHeadersSchema, `{"region":[1],"priority":1e400}`, "prompts/get", "  x  ")
	f.Add(`{}`, `{}`, "resources/read", "file:///a")
	f.Add(`{"properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`, `{"n":9007199254740991}`, "tools/call", "4.2e1")
	f.Fuzz(func(t *testing.T, schema, args, method, value string) {
		tool, err := mcpheader.ParseTool(jsontext.Value(schema))
		if err != nil {
			tool = nil
		}
		params := jsontext.Value(`{"name":"t","uri":"t","arguments":` + args + `}`)
		valid := params.IsValid()

		// Arbitrary header values on every header Check reads.
		h := http.Header{"Mcp-Method": {method}, "Mcp-Name": {value}}
		for _, p := range tool {
			h.Set(p.Header(), value)
		}
		err = mcpheader.Check(h, method, params, tool)
		if err != nil && valid && !errors.Is(err, mcpheader.ErrMismatch) {
			t.Fatalf("Check: %v is not a mismatch, but the params are valid JSON", err)
		}

		// Set, then Check. Set does not validate params it does not read, so
		// only valid params are sure to pass.
		if !valid {
			return
		}
		h = http.Header{}
		if err := mcpheader.Set(h, method, params, tool); err != nil {
			return
		}
		if err := mcpheader.Check(h, method, params, tool); err != nil {
			t.Fatalf("Check after Set(%q, %s): %v\nheaders: %v", method, params, err, h)
		}
	})
}
