package mcpheader_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The _meta every 2026-07-28 request carries; the conformance scenarios add
// it to their params.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// A tool like the one http-custom-header-server-validation looks for: a
// string x-mcp-header parameter, and other required annotated parameters
// the scenario fills with defaults (0, false, "test-default") and mirrors
// with String(default).
const serverToolSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"priority":{"type":"integer","x-mcp-header":"Priority"},
	"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
	"db":{"type":"object","properties":{"shard":{"type":"integer","x-mcp-header":"Shard"}}},
	"query":{"type":"string"}},
	"required":["region","priority","verbose","query"]}`

func serverTool(t testing.TB) mcpheader.Params {
	t.Helper()
	tool, err := mcpheader.ParseTool(jsontext.Value(serverToolSchema))
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// call returns the params of a tools/call of the server tool with the
// region argument region (a JSON value; "" leaves it out).
func call(region string) string {
	args := `"priority":0,"verbose":false,"query":"test-default"`
	if region != "" {
		args = `"region":` + region + `,` + args
	}
	return `{"name":"lookup","arguments":{` + args + `},` + meta + `}`
}

// callHeaders are the headers http-custom-header-server-validation sends
// with call, plus the given ones.
func callHeaders(extra ...string) http.Header {
	h := http.Header{
		"Mcp-Protocol-Version": {"2026-07-28"},
		"Mcp-Method":           {"tools/call"},
		"Mcp-Name":             {"lookup"},
		"Mcp-Param-Priority":   {"0"},
		"Mcp-Param-Verbose":    {"false"},
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = append(h[extra[i]], extra[i+1])
	}
	return h
}

func mis(header, problem string) *mcpheader.MismatchError {
	return &mcpheader.MismatchError{Header: header, Problem: problem}
}

func TestCheck(t *testing.T) {
	tool := serverTool(t)
	listParams := `{` + meta + `}`
	tests := []struct {
		name   string
		h      http.Header
		method string
		params string
		tool   mcpheader.Params
		want   *mcpheader.MismatchError // nil: the headers agree
	}{
		// http-header-validation, tools[0] being "lookup".
		{"ServerRejectsMismatchedMethodHeader",
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"prompts/list"}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `the value "prompts/list" does not match the body's method "tools/list"`)},
		{"ServerRejectsMissingMethodHeader",
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `missing; the body's method is "tools/list"`)},
		{"ServerRejectsMismatchedNameHeader",
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"wrong_tool_name"}}, "tools/call", `{"name":"lookup","arguments":{},` + meta + `}`, nil,
			mis("Mcp-Name", `the value "wrong_tool_name" does not match the body's params.name "lookup"`)},
		{"ServerAcceptsWhitespaceHeaderValue",
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"  lookup  "}}, "tools/call", `{"name":"lookup","arguments":{},` + meta + `}`, nil,
			nil},
		{"ServerRejectsMissingNameHeader",
			http.Header{"Mcp-Method": {"tools/call"}}, "tools/call", `{"name":"lookup","arguments":{},` + meta + `}`, nil,
			mis("Mcp-Name", `missing; the body's params.name is "lookup"`)},
		{"ServerAcceptsLowercaseHeaderName",
			http.Header{"mcp-method": {"tools/list"}}, "tools/list", listParams, nil, nil},
		{"ServerAcceptsUppercaseHeaderName",
			http.Header{"MCP-METHOD": {"tools/list"}}, "tools/list", listParams, nil, nil},
		{"ServerRejectsCaseMismatchValue",
			http.Header{"Mcp-Method": {"TOOLS/LIST"}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `the value "TOOLS/LIST" does not match the body's method "tools/list"`)},

		// http-custom-header-server-validation, with the tool above.
		{"ServerAcceptsValidBase64",
			callHeaders("Mcp-Param-Region", "=?base64?SGVsbG8=?="), "tools/call", call(`"Hello"`), tool, nil},
		{"ServerRejectsInvalidBase64Padding",
			callHeaders("Mcp-Param-Region", "=?base64?SGVsbG8?="), "tools/call", call(`"Hello"`), tool,
			mis("Mcp-Param-Region", `the Base64 between "=?base64?" and "?=": illegal base64 data at input byte 4`)},
		{"ServerRejectsInvalidBase64Chars",
			callHeaders("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), "tools/call", call(`"Hello"`), tool,
			mis("Mcp-Param-Region", `the Base64 between "=?base64?" and "?=": illegal base64 data at input byte 4`)},
		{"ServerLiteralMissingBase64Prefix",
			callHeaders("Mcp-Param-Region", "SGVsbG8="), "tools/call", call(`"SGVsbG8="`), tool, nil},
		{"ServerLiteralMissingBase64Suffix",
			callHeaders("Mcp-Param-Region", "=?base64?SGVsbG8="), "tools/call", call(`"=?base64?SGVsbG8="`), tool, nil},
		{"ServerRejectsMissingCustomHeader",
			callHeaders(), "tools/call", call(`"test-value"`), tool,
			mis("Mcp-Param-Region", `missing; the body has "test-value" at params/arguments/region`)},

		// The standard headers of the other methods.
		{"prompts/get", http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"test_prompt"}}, "prompts/get", `{"name":"test_prompt"}`, nil, nil},
		{"prompts/get, wrong name", http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"other"}}, "prompts/get", `{"name":"test_prompt"}`, nil,
			mis("Mcp-Name", `the value "other" does not match the body's params.name "test_prompt"`)},
		{"resources/read", http.Header{"Mcp-Method": {"resources/read"}, "Mcp-Name": {"file:///path/to/file%20name.txt"}}, "resources/read", `{"uri":"file:///path/to/file%20name.txt"}`, nil, nil},
		{"resources/read, query string", http.Header{"Mcp-Method": {"resources/read"}, "Mcp-Name": {"https://example.com/resource?id=123"}}, "resources/read", `{"uri":"https://example.com/resource?id=123"}`, nil, nil},
		{"resources/read compares the uri, not a name", http.Header{"Mcp-Method": {"resources/read"}, "Mcp-Name": {"readme"}}, "resources/read", `{"uri":"file:///a","name":"readme"}`, nil,
			mis("Mcp-Name", `the value "readme" does not match the body's params.uri "file:///a"`)},
		// The Tasks extension's methods name the task.
		{"tasks/get", http.Header{"Mcp-Method": {"tasks/get"}, "Mcp-Name": {"t-1"}}, "tasks/get", `{"taskId":"t-1"}`, nil, nil},
		{"tasks/get, wrong task", http.Header{"Mcp-Method": {"tasks/get"}, "Mcp-Name": {"t-2"}}, "tasks/get", `{"taskId":"t-1"}`, nil,
			mis("Mcp-Name", `the value "t-2" does not match the body's params.taskId "t-1"`)},
		{"tasks/update, no Mcp-Name", http.Header{"Mcp-Method": {"tasks/update"}}, "tasks/update", `{"taskId":"t-1","inputResponses":{}}`, nil,
			mis("Mcp-Name", `missing; the body's params.taskId is "t-1"`)},
		{"tasks/cancel", http.Header{"Mcp-Method": {"tasks/cancel"}, "Mcp-Name": {"t-1"}}, "tasks/cancel", `{"taskId":"t-1"}`, nil, nil},
		{"tasks/cancel compares the taskId, not a name", http.Header{"Mcp-Method": {"tasks/cancel"}, "Mcp-Name": {"x"}}, "tasks/cancel", `{"taskId":"t-1","name":"x"}`, nil,
			mis("Mcp-Name", `the value "x" does not match the body's params.taskId "t-1"`)},
		{"Base64 name", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?5pel5pys6Kqe?="}}, "tools/call", `{"name":"日本語"}`, nil, nil},
		{"Base64 name, mismatch", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?5pel5pys?="}}, "tools/call", `{"name":"日本語"}`, nil,
			mis("Mcp-Name", `the value "日本" does not match the body's params.name "日本語"`)},
		{"non-ASCII name sent raw", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"日本語"}}, "tools/call", `{"name":"日本語"}`, nil,
			mis("Mcp-Name", `byte 0 of the header value is 0xe6, not visible ASCII, space or tab`)},
		{"the literal of a sentinel", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}}, "tools/call", `{"name":"=?base64?literal?="}`, nil, nil},
		{"body name not a string", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"5"}}, "tools/call", `{"name":5}`, nil,
			mis("Mcp-Name", `the value is "5", but the body has no string params.name`)},
		{"body without name or header", http.Header{"Mcp-Method": {"tools/call"}}, "tools/call", `{}`, nil,
			mis("Mcp-Name", `missing (and the body has no string params.name)`)},
		{"no params at all", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"x"}}, "tools/call", ``, nil,
			mis("Mcp-Name", `the value is "x", but the body has no string params.name`)},
		{"Mcp-Name is not looked at on other methods", http.Header{"Mcp-Method": {"tools/list"}, "Mcp-Name": {"anything\x00"}}, "tools/list", listParams, nil, nil},
		{"raw non-ASCII header against an escaped body name", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"é"}}, "tools/call", `{"name":"\u00e9"}`, nil,
			mis("Mcp-Name", `byte 0 of the header value is 0xc3, not visible ASCII, space or tab`)},
		{"repeated Mcp-Method", http.Header{"Mcp-Method": {"tools/list", "tools/list"}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `the header appears 2 times; it must appear once`)},
		{"Mcp-Method under two spellings", http.Header{"Mcp-Method": {"tools/list"}, "mcp-method": {"tools/call"}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `the header appears 2 times; it must appear once`)},
		{"repeated Mcp-Name", http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"a", "b"}}, "prompts/get", `{"name":"a"}`, nil,
			mis("Mcp-Name", `the header appears 2 times; it must appear once`)},
		{"Mcp-Method is not Base64-decoded", http.Header{"Mcp-Method": {"=?base64?dG9vbHMvbGlzdA==?="}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `the value "=?base64?dG9vbHMvbGlzdA==?=" does not match the body's method "tools/list"`)},
		{"long values are shortened", http.Header{"Mcp-Method": {strings.Repeat("x", 100)}}, "tools/list", listParams, nil,
			mis("Mcp-Method", `the value "`+strings.Repeat("x", 64)+`"... does not match the body's method "tools/list"`)},

		// Mcp-Param edge cases.
		{"all present", callHeaders("Mcp-Param-Region", "eu", "Mcp-Param-Shard", "3"), "tools/call",
			`{"name":"lookup","arguments":{"region":"eu","priority":0,"verbose":false,"db":{"shard":3}}}`, tool, nil},
		{"nested argument, missing header", callHeaders("Mcp-Param-Region", "eu"), "tools/call",
			`{"name":"lookup","arguments":{"region":"eu","priority":0,"verbose":false,"db":{"shard":3}}}`, tool,
			mis("Mcp-Param-Shard", `missing; the body has 3 at params/arguments/db/shard`)},
		{"header for an absent argument", callHeaders("Mcp-Param-Region", "eu"), "tools/call", call(""), tool,
			mis("Mcp-Param-Region", `the value is "eu", but the body has no value at params/arguments/region`)},
		{"header for a null argument", callHeaders("Mcp-Param-Region", "eu"), "tools/call", call(`null`), tool,
			mis("Mcp-Param-Region", `the value is "eu", but the body has no value at params/arguments/region`)},
		{"null argument, no header", callHeaders(), "tools/call", call(`null`), tool, nil},
		{"absent argument, no header", callHeaders(), "tools/call", call(""), tool, nil},
		{"empty string, empty header", callHeaders("Mcp-Param-Region", ""), "tools/call", call(`""`), tool, nil},
		{"empty string, missing header", callHeaders(), "tools/call", call(`""`), tool,
			mis("Mcp-Param-Region", `missing; the body has "" at params/arguments/region`)},
		{"header name in lower case", callHeaders("mcp-param-region", "eu"), "tools/call", call(`"eu"`), tool, nil},
		{"values are case-sensitive", callHeaders("Mcp-Param-Region", "EU"), "tools/call", call(`"eu"`), tool,
			mis("Mcp-Param-Region", `the value "EU" does not match params/arguments/region "eu"`)},
		{"string with spaces in Base64", callHeaders("Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?="), "tools/call", call(`" padded "`), tool, nil},
		{"padded string sent raw loses its spaces", callHeaders("Mcp-Param-Region", " padded "), "tools/call", call(`" padded "`), tool,
			mis("Mcp-Param-Region", `the value "padded" does not match params/arguments/region " padded "`)},
		{"internal tab sent raw", callHeaders("Mcp-Param-Region", "a\tb"), "tools/call", call(`"a\tb"`), tool, nil},
		{"CRLF in a header value", callHeaders("Mcp-Param-Region", "a\r\nb"), "tools/call", call(`"a\r\nb"`), tool,
			mis("Mcp-Param-Region", `byte 1 of the header value is 0x0d, not visible ASCII, space or tab`)},
		{"repeated Mcp-Param", callHeaders("Mcp-Param-Region", "eu", "Mcp-Param-Region", "eu"), "tools/call", call(`"eu"`), tool,
			mis("Mcp-Param-Region", `the header appears 2 times; it must appear once`)},
		{"unknown Mcp-Param headers are not looked at", callHeaders("Mcp-Param-Region", "eu", "Mcp-Param-Other", "\x00"), "tools/call", call(`"eu"`), tool, nil},
		{"Mcp-Param-Method is not Mcp-Method", callHeaders("Mcp-Param-Region", "eu", "Mcp-Param-Method", "x"), "tools/call", call(`"eu"`), tool, nil},
		{"object argument", callHeaders("Mcp-Param-Region", "{}"), "tools/call", call(`{}`), tool,
			mis("Mcp-Param-Region", `params/arguments/region is an object, which no header can carry`)},
		{"object argument, no header", callHeaders(), "tools/call", call(`[1]`), tool,
			mis("Mcp-Param-Region", `missing; the body has [1] at params/arguments/region`)},
		{"string argument for a number-looking header", callHeaders("Mcp-Param-Region", "042"), "tools/call", call(`"42"`), tool,
			mis("Mcp-Param-Region", `the value "042" does not match params/arguments/region "42"`)},
		{"a tool is only used for tools/call", http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"lookup"}}, "prompts/get", call(`"eu"`), tool, nil},
		{"a call without the tool's annotations", http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"lookup"}}, "tools/call", call(`"eu"`), nil, nil},
		{"arguments not an object", callHeaders("Mcp-Param-Region", "eu"), "tools/call", `{"name":"lookup","arguments":"eu"}`, tool,
			mis("Mcp-Param-Region", `the value is "eu", but the body has no value at params/arguments/region`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mcpheader.Check(tt.h, tt.method, jsontext.Value(tt.params), tt.tool)
			// CheckMembers, given the members Check reads, answers the same.
			var name, args jsontext.Value
			if f := mcpheader.NameField(tt.method); f != "" {
				name, _ = wire.Member(jsontext.Value(tt.params), f)
			}
			if tt.method == "tools/call" {
				args, _ = wire.Member(jsontext.Value(tt.params), "arguments")
			}
			if merr := mcpheader.CheckMembers(tt.h, tt.method, name, args, tt.tool); fmt.Sprint(merr) != fmt.Sprint(err) {
				t.Errorf("CheckMembers = %v, Check = %v; want the same", merr, err)
			}
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if !errors.Is(err, mcpheader.ErrMismatch) {
				t.Fatalf("Check = %v, want an error wrapping ErrMismatch", err)
			}
			var got *mcpheader.MismatchError
			if !errors.As(err, &got) {
				t.Fatalf("Check = %T, want a *MismatchError", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
			if want := "header mismatch: " + got.Header + ": " + got.Problem; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// Integer arguments are compared numerically (SEP-2243: "42.0 and 42 are
// considered equal"), booleans literally.
func TestCheckNumbers(t *testing.T) {
	tool := mcpheader.Params{{Name: "N", Path: []string{"n"}, Type: "integer"}}
	tests := []struct {
		header string
		body   string
		match  bool
	}{
		{"42", "42", true},
		{"042", "42", true},
		{"42.0", "42", true},
		{"42.000", "42", true},
		{"4.2e1", "42", true},
		{"4.2E+1", "42", true},
		{"420e-1", "42", true},
		{"+42", "42", true},
		{"42", "42.0", true},
		{"42", "4.2e1", true},
		{"0", "0", true},
		{"-0", "0", true},
		{"0", "-0.0", true},
		{"0.0e5", "0", true},
		{"-7", "-7", true},
		{"9007199254740993", "9007199254740993", true}, // exact beyond float64
		{"9007199254740992", "9007199254740993", false},
		{"3.14159", "3.14159", true},
		{"1e400", "1e400", true},
		{"43", "42", false},
		{"-42", "42", false},
		{"42.5", "42", false},
		{"4.2e2", "42", false},
		{"", "42", false},
		{"abc", "42", false},
		{"0x2A", "42", false},
		{"42.", "42", false},
		{".42e2", "42", false},
		{"42e", "42", false},
		{"4_2", "42", false},
		{"Infinity", "42", false},
		{"1e99999999999999", "1", false},
		{"=?base64?NDI=?=", "42", true}, // Base64 "42"
	}
	for _, tt := range tests {
		t.Run(tt.header+" vs "+tt.body, func(t *testing.T) {
			h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"t"}, "Mcp-Param-N": {tt.header}}
			err := mcpheader.Check(h, "tools/call", jsontext.Value(`{"name":"t","arguments":{"n":`+tt.body+`}}`), tool)
			if tt.match && err != nil {
				t.Errorf("Check: %v", err)
			}
			if !tt.match && !errors.Is(err, mcpheader.ErrMismatch) {
				t.Errorf("Check = %v, want a mismatch", err)
			}
		})
	}
	bools := []struct {
		header, body string
		match        bool
	}{
		{"true", "true", true},
		{"false", "false", true},
		{"True", "true", false},
		{"FALSE", "false", false},
		{"1", "true", false},
		{"false", "true", false},
		{"=?base64?dHJ1ZQ==?=", "true", true},
	}
	for _, tt := range bools {
		t.Run(tt.header+" vs "+tt.body, func(t *testing.T) {
			h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"t"}, "Mcp-Param-N": {tt.header}}
			err := mcpheader.Check(h, "tools/call", jsontext.Value(`{"name":"t","arguments":{"n":`+tt.body+`}}`), tool)
			if tt.match && err != nil {
				t.Errorf("Check: %v", err)
			}
			if !tt.match && !errors.Is(err, mcpheader.ErrMismatch) {
				t.Errorf("Check = %v, want a mismatch", err)
			}
		})
	}
}

// Params that are not valid JSON are the body's problem, not a header
// mismatch.
func TestCheckInvalidParams(t *testing.T) {
	for _, params := range []string{`{"name":"a"`, `{"name":"a","name":"b"}`, "{\"name\":\"\xff\"}", `{} {}`} {
		h := http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"a"}}
		err := mcpheader.Check(h, "tools/call", jsontext.Value(params), nil)
		if err == nil || errors.Is(err, mcpheader.ErrMismatch) {
			t.Errorf("Check(params %q) = %v, want an error that is not ErrMismatch", params, err)
		}
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		method, params string
		value          string
		required       bool
	}{
		{"tools/call", `{"name":"test_headers"}`, "test_headers", true},
		{"tools/call", `{"name":"my-hyphenated-tool","arguments":{}}`, "my-hyphenated-tool", true},
		{"prompts/get", `{"name":"test_prompt"}`, "test_prompt", true},
		{"resources/read", `{"uri":"file:///path/to/file%20name.txt","name":"x"}`, "file:///path/to/file%20name.txt", true},
		{"resources/read", `{"name":"x"}`, "", true},
		{"tasks/get", `{"taskId":"t-1"}`, "t-1", true},
		{"tasks/update", `{"taskId":"t-1","inputResponses":{}}`, "t-1", true},
		{"tasks/cancel", `{"name":"x"}`, "", true},
		{"tasks/result", `{"taskId":"t-1"}`, "", false},
		{"tools/call", `{"name":"caf\u00e9"}`, "café", true},
		{"tools/call", `{"name":7}`, "", true},
		{"tools/call", ``, "", true},
		{"tools/list", `{"name":"x"}`, "", false},
		{"initialize", `{}`, "", false},
		{"notifications/initialized", ``, "", false},
		{"Tools/Call", `{"name":"x"}`, "", false},
	}
	for _, tt := range tests {
		value, required := mcpheader.Name(tt.method, jsontext.Value(tt.params))
		if value != tt.value || required != tt.required {
			t.Errorf("Name(%q, %s) = %q, %v; want %q, %v", tt.method, tt.params, value, required, tt.value, tt.required)
		}
	}
}

func TestSet(t *testing.T) {
	tool := serverTool(t)
	tests := []struct {
		name   string
		before http.Header
		method string
		params string
		tool   mcpheader.Params
		want   http.Header
	}{
		{"tools/list", http.Header{}, "tools/list", `{}`, nil, http.Header{"Mcp-Method": {"tools/list"}}},
		{"notification", http.Header{}, "notifications/initialized", ``, nil, http.Header{"Mcp-Method": {"notifications/initialized"}}},
		{"tools/call", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, "tools/call", call(`"Hello, 世界"`), tool, http.Header{
			"Mcp-Protocol-Version": {"2026-07-28"},
			"Mcp-Method":           {"tools/call"},
			"Mcp-Name":             {"lookup"},
			"Mcp-Param-Region":     {"=?base64?SGVsbG8sIOS4lueVjA==?="},
			"Mcp-Param-Priority":   {"0"},
			"Mcp-Param-Verbose":    {"false"},
		}},
		{"replaces, and keeps other headers", http.Header{"Mcp-Method": {"old"}, "Mcp-Name": {"old"}, "Mcp-Param-Region": {"old"}, "Mcp-Param-Stale": {"x"}}, "tools/call", call(`"eu"`), tool, http.Header{
			"Mcp-Method":         {"tools/call"},
			"Mcp-Name":           {"lookup"},
			"Mcp-Param-Region":   {"eu"},
			"Mcp-Param-Priority": {"0"},
			"Mcp-Param-Verbose":  {"false"},
			"Mcp-Param-Stale":    {"x"},
		}},
		{"unsafe name", http.Header{}, "prompts/get", `{"name":" padded "}`, nil, http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"=?base64?IHBhZGRlZCA=?="}}},
		{"resources/read", http.Header{}, "resources/read", `{"uri":"https://example.com/resource?id=123"}`, nil, http.Header{"Mcp-Method": {"resources/read"}, "Mcp-Name": {"https://example.com/resource?id=123"}}},
		{"tasks/get", http.Header{}, "tasks/get", `{"taskId":"AAAAAAAAAAAAAAAAAAAAAA"}`, nil, http.Header{"Mcp-Method": {"tasks/get"}, "Mcp-Name": {"AAAAAAAAAAAAAAAAAAAAAA"}}},
		{"tool ignored off tools/call", http.Header{}, "prompts/get", call(`"eu"`), tool, http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"lookup"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.before.Clone()
			if err := mcpheader.Set(h, tt.method, jsontext.Value(tt.params), tt.tool); err != nil {
				t.Fatalf("Set: %v", err)
			}
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("headers after Set (-want +got):\n%s", diff)
			}
			// What Set writes, Check accepts (Mcp-Param-Stale is not one of
			// the tool's).
			if err := mcpheader.Check(h, tt.method, jsontext.Value(tt.params), tt.tool); err != nil {
				t.Errorf("Check after Set: %v", err)
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	tool := serverTool(t)
	tests := []struct {
		name    string
		method  string
		params  string
		tool    mcpheader.Params
		wantErr string
	}{
		{"empty method", "", `{}`, nil, `the method "" cannot be sent as a header value`},
		{"method with a newline", "tools/list\r\nX-Evil: 1", `{}`, nil, `the method "tools/list\r\nX-Evil: 1" cannot be sent`},
		{"tools/call without a name", "tools/call", `{"arguments":{}}`, nil, "a tools/call request needs a string params.name for the Mcp-Name header"},
		{"resources/read with a numeric uri", "resources/read", `{"uri":1}`, nil, "needs a string params.uri"},
		{"bad argument", "tools/call", call(`3.5`), tool, "mcpheader: Mcp-Param-Region from arguments/region: the number 3.5 is not an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{"Keep": {"1"}}
			err := mcpheader.Set(h, tt.method, jsontext.Value(tt.params), tt.tool)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Set = %v, want an error containing %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(http.Header{"Keep": {"1"}}, h); diff != "" {
				t.Errorf("Set changed h on error (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkCheck measures the check of a tools/call with three mirrored
// arguments, as a server runs it on every request.
func BenchmarkCheck(b *testing.B) {
	tool := serverTool(b)
	params := jsontext.Value(call(`"Hello, 世界"`))
	h := callHeaders("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")
	b.ReportAllocs()
	for b.Loop() {
		if err := mcpheader.Check(h, "tools/call", params, tool); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTool measures reading the annotations of
// test_custom_headers, as a client does for every tool of tools/list.
func BenchmarkParseTool(b *testing.B) {
	schema := jsontext.Value(customHeadersSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mcpheader.ParseTool(schema); err != nil {
			b.Fatal(err)
		}
	}
}
