package mcpheader_test

// Replays of the five SEP-2243 scenarios of @modelcontextprotocol/conformance
// 0.2.0-alpha.12 over real HTTP on 127.0.0.1: the server scenarios
// (http-header-validation, http-custom-header-server-validation) send their
// requests byte for byte to a server that answers with Check, and the
// client scenarios (http-standard-headers, http-custom-headers) receive
// requests whose headers Set wrote and apply the scenario's own checks,
// ported from its JavaScript. http-invalid-tool-headers needs no network: its
// tools are replayed in TestParseToolInvalid.

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// checkServer answers every POST by Check: 400 with JSON-RPC error -32020 on
// a mismatch, 200 with an empty result otherwise. tools maps a tool's name to
// its annotations.
func checkServer(t *testing.T, tools map[string]mcpheader.Params) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		msg := jsontext.Value(body)
		method, _ := wire.MemberString(msg, "method")
		params, _ := wire.Member(msg, "params")
		id, ok := wire.Member(msg, "id")
		if !ok {
			id = jsontext.Value("null")
		}
		name, _ := mcpheader.Name(method, params)
		w.Header().Set("Content-Type", "application/json")
		err = mcpheader.Check(r.Header, method, params, tools[name])
		switch {
		case errors.Is(err, mcpheader.ErrMismatch):
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32020,"message":%q}}`, id, err.Error())
		case err != nil:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":%q}}`, err.Error())
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// rawPost sends one HTTP/1.1 POST with exactly the given header lines (names
// spelled and values spaced as given) and returns the status and the
// JSON-RPC error code of the answer (0 when it has a result).
func rawPost(t *testing.T, srv *httptest.Server, headers [][2]string, body string) (status, code int) {
	t.Helper()
	addr := srv.Listener.Addr().String()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A bound, so that a broken server fails the test instead of hanging it.
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n", addr, len(body))
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if errv, ok := wire.Member(answer, "error"); ok {
		c, _ := wire.MemberString(errv, "code")
		code, _ = strconv.Atoi(c)
	} else if _, ok := wire.Member(answer, "result"); !ok {
		t.Fatalf("answer %s has neither result nor error", answer)
	}
	return resp.StatusCode, code
}

// serverCase is one request of a server scenario and the answer it expects:
// accept (200 and a result) or reject (400 and -32020).
type serverCase struct {
	check   string // the scenario's check name
	headers [][2]string
	body    string
	accept  bool
}

func runServerCases(t *testing.T, srv *httptest.Server, cases []serverCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.check, func(t *testing.T) {
			status, code := rawPost(t, srv, c.headers, c.body)
			if c.accept && (status != http.StatusOK || code != 0) {
				t.Errorf("status %d, error code %d; want 200 and a result", status, code)
			}
			if !c.accept && (status != http.StatusBadRequest || code != -32020) {
				t.Errorf("status %d, error code %d; want 400 and -32020", status, code)
			}
		})
	}
}

// http-header-validation, against a server whose first tool is "lookup".
func TestConformanceHTTPHeaderValidation(t *testing.T) {
	srv := checkServer(t, nil)
	version := [2]string{"MCP-Protocol-Version", "2026-07-28"}
	list := `{"jsonrpc":"2.0","id":100,"method":"tools/list","params":{` + meta + `}}`
	callLookup := `{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"lookup","arguments":{},` + meta + `}}`
	runServerCases(t, srv, []serverCase{
		{"ServerRejectsMismatchedMethodHeader", [][2]string{version, {"Mcp-Method", "prompts/list"}}, list, false},
		{"ServerRejectsMissingMethodHeader", [][2]string{version}, list, false},
		{"ServerRejectsMismatchedNameHeader", [][2]string{version, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "wrong_tool_name"}}, callLookup, false},
		{"ServerAcceptsWhitespaceHeaderValue", [][2]string{version, {"Mcp-Method", "tools/call"}, {"Mcp-Name", "  lookup  "}}, callLookup, true},
		{"ServerRejectsMissingNameHeader", [][2]string{version, {"Mcp-Method", "tools/call"}}, callLookup, false},
		{"ServerAcceptsLowercaseHeaderName", [][2]string{version, {"mcp-method", "tools/list"}}, list, true},
		{"ServerAcceptsUppercaseHeaderName", [][2]string{version, {"MCP-METHOD", "tools/list"}}, list, true},
		{"ServerRejectsCaseMismatchValue", [][2]string{version, {"Mcp-Method", "TOOLS/LIST"}}, list, false},
	})
}

// http-custom-header-server-validation, against a server with the tool of
// serverToolSchema: region is its first string x-mcp-header parameter, and
// the scenario fills the other required arguments with 0, false and
// "test-default" and mirrors the annotated ones.
func TestConformanceHTTPCustomHeaderServerValidation(t *testing.T) {
	srv := checkServer(t, map[string]mcpheader.Params{"lookup": serverTool(t)})
	hello := base64.StdEncoding.EncodeToString([]byte("Hello"))
	headers := func(param ...string) [][2]string {
		h := [][2]string{
			{"MCP-Protocol-Version", "2026-07-28"},
			{"Mcp-Param-Priority", "0"},
			{"Mcp-Param-Verbose", "false"},
			{"Mcp-Method", "tools/call"},
			{"Mcp-Name", "lookup"},
		}
		if len(param) == 1 {
			h = append(h, [2]string{"Mcp-Param-Region", param[0]})
		}
		return h
	}
	body := func(region string) string {
		return `{"jsonrpc":"2.0","id":200,"method":"tools/call","params":` + call(strconv.Quote(region)) + `}`
	}
	runServerCases(t, srv, []serverCase{
		{"ServerAcceptsValidBase64", headers("=?base64?" + hello + "?="), body("Hello"), true},
		{"ServerRejectsInvalidBase64Padding", headers("=?base64?SGVsbG8?="), body("Hello"), false},
		{"ServerRejectsInvalidBase64Chars", headers("=?base64?SGVs!!!bG8=?="), body("Hello"), false},
		{"ServerLiteralMissingBase64Prefix", headers(hello), body(hello), true},
		{"ServerLiteralMissingBase64Suffix", headers("=?base64?" + hello), body("=?base64?" + hello), true},
		{"ServerRejectsMissingCustomHeader", headers(), body("test-value"), false},
	})
}

// recorder is a server that keeps the headers of every request and answers
// with an empty result.
type recorder struct {
	mu      sync.Mutex
	headers []http.Header
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	rec.mu.Lock()
	rec.headers = append(rec.headers, r.Header.Clone())
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
}

// send POSTs a request with method and params, its headers written by Set,
// through net/http's client, and returns the headers the server received.
func (rec *recorder) send(t *testing.T, srv *httptest.Server, method, params string, tool mcpheader.Params) http.Header {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(mcpheader.HeaderProtocolVersion, "2026-07-28")
	if err := mcpheader.Set(req.Header, method, jsontext.Value(params), tool); err != nil {
		t.Fatalf("Set: %v", err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	got := rec.headers[len(rec.headers)-1]
	// What the client sent, the server accepts.
	if err := mcpheader.Check(got, method, jsontext.Value(params), tool); err != nil {
		t.Errorf("Check of what Set sent: %v", err)
	}
	return got
}

// http-standard-headers: Mcp-Method on every request, and Mcp-Name equal to
// params.name or params.uri, compared as the scenario does (the raw header
// value, case-sensitive).
func TestConformanceHTTPStandardHeaders(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	requests := []struct {
		method, params string
		nameField      string // "" when the scenario checks no Mcp-Name
	}{
		{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, ""},
		{"notifications/initialized", `{}`, ""},
		{"tools/list", `{` + meta + `}`, ""},
		{"tools/call", `{"name":"test_headers","arguments":{},` + meta + `}`, "name"},
		{"tools/call", `{"name":"my-hyphenated-tool","arguments":{},` + meta + `}`, "name"},
		{"resources/list", `{` + meta + `}`, ""},
		{"resources/read", `{"uri":"file:///path/to/file%20name.txt",` + meta + `}`, "uri"},
		{"resources/read", `{"uri":"https://example.com/resource?id=123",` + meta + `}`, "uri"},
		{"prompts/list", `{` + meta + `}`, ""},
		{"prompts/get", `{"name":"test_prompt",` + meta + `}`, "name"},
	}
	for _, r := range requests {
		name, _ := wire.MemberString(jsontext.Value(r.params), r.nameField)
		t.Run(r.method+" "+name, func(t *testing.T) {
			h := rec.send(t, srv, r.method, r.params, nil)
			// checkMcpMethodHeader (ClientMcpMethodHeader_*).
			if got := h.Get("mcp-method"); got != r.method {
				t.Errorf("Mcp-Method header %q, want %q", got, r.method)
			}
			// checkMcpNameHeader (ClientMcpNameHeader_*).
			if r.nameField != "" {
				if got := h.Get("mcp-name"); got != name {
					t.Errorf("Mcp-Name header %q, want %q", got, name)
				}
			}
		})
	}
}

// The scenario's helpers, ported: needsBase64 is its Ns, scenarioDecode its
// Ms, compareNumbers its Fs.
var sentinelPattern = regexp.MustCompile(`^=\?base64\?(.*)\?=$`)

func needsBase64(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 32 || v[i] > 126 {
			return true
		}
	}
	// JavaScript's trim: for a string of printable ASCII, spaces only.
	return v != strings.TrimSpace(v)
}

func scenarioDecode(h string) (string, bool) {
	m := sentinelPattern.FindStringSubmatch(h)
	if m == nil {
		return h, false
	}
	b, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		return "", true
	}
	return string(b), true
}

// checkParamHeader is the scenario's check of one Mcp-Param header: the
// problem, or "".
func checkParamHeader(h http.Header, name, want, typ string) string {
	vals, ok := h[http.CanonicalHeaderKey("mcp-param-"+strings.ToLower(name))]
	if !ok || len(vals) != 1 {
		return fmt.Sprintf("missing Mcp-Param-%s header", name)
	}
	raw := vals[0]
	got, isSentinel := scenarioDecode(raw)
	if needsBase64(want) && !isSentinel {
		return fmt.Sprintf("value %q requires Base64 encoding but header was sent as plain: %q", want, raw)
	}
	if typ == "integer" {
		a, errA := strconv.ParseFloat(got, 64)
		b, errB := strconv.ParseFloat(want, 64)
		if errA != nil || errB != nil || a != b {
			return fmt.Sprintf("numeric header value %q does not match body value %q", got, want)
		}
		return ""
	}
	if got != want {
		return fmt.Sprintf("header value %q (raw %q) does not match body value %q", got, raw, want)
	}
	return ""
}

// http-custom-headers: the client mirrors the annotated arguments of
// test_custom_headers with the right encoding, sends nothing for
// unannotated ones, and omits the header of a null argument
// (test_custom_headers_null).
func TestConformanceHTTPCustomHeaders(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	tool, err := mcpheader.ParseTool(jsontext.Value(customHeadersSchema))
	if err != nil {
		t.Fatal(err)
	}
	params := `{"name":"test_custom_headers","arguments":{"region":"us-west1","priority":42,"verbose":false,"debug":true,"empty_val":"","method_val":"test-method","float_val":3.14159,"non_ascii_val":"Hello, 世界","whitespace_val":" padded ","leading_space_val":" us-west1","trailing_space_val":"us-west1 ","internal_space_val":"us west 1","control_char_val":"line1\nline2","crlf_val":"line1\r\nline2","tab_val":"\tindented","query":"SELECT * FROM users"},` + meta + `}`
	h := rec.send(t, srv, "tools/call", params, tool)

	// sep-2243-client-supports-custom-headers
	mirrored := false
	for k := range h {
		mirrored = mirrored || strings.HasPrefix(strings.ToLower(k), "mcp-param-")
	}
	if !mirrored {
		t.Error("ClientSupportsCustomHeaders: no Mcp-Param-* header")
	}
	checks := []struct {
		check, header, value, typ string
	}{
		{"sep-2243-client-mirrors-designated-params", "Region", "us-west1", "string"},
		{"sep-2243-client-encode-values", "Priority", "42", "integer"},
		{"sep-2243-client-encode-values", "Verbose", "false", "boolean"},
		{"sep-2243-client-encode-values", "Debug", "true", "boolean"},
		{"sep-2243-client-mirrors-designated-params", "EmptyVal", "", "string"},
		{"sep-2243-client-mirrors-designated-params", "Method", "test-method", "string"},
		{"sep-2243-client-base64-unsafe", "NonAscii", "Hello, 世界", "string"},
		{"sep-2243-client-base64-unsafe", "Whitespace", " padded ", "string"},
		{"sep-2243-client-base64-unsafe", "LeadingSpace", " us-west1", "string"},
		{"sep-2243-client-base64-unsafe", "TrailingSpace", "us-west1 ", "string"},
		{"sep-2243-client-mirrors-designated-params", "InternalSpace", "us west 1", "string"},
		{"sep-2243-client-base64-unsafe", "ControlChar", "line1\nline2", "string"},
		{"sep-2243-client-base64-unsafe", "CrLf", "line1\r\nline2", "string"},
		{"sep-2243-client-base64-unsafe", "Tab", "\tindented", "string"},
	}
	for _, c := range checks {
		if problem := checkParamHeader(h, c.header, c.value, c.typ); problem != "" {
			t.Errorf("%s ClientCustomHeader_%s: %s", c.check, c.header, problem)
		}
	}
	// sep-2243-client-mirrors-designated-params: ClientCustomHeaderNoMirrorNumber
	// and ClientCustomHeaderNoMirrorUnannotated.
	for _, k := range []string{"mcp-param-floatval", "mcp-param-float_val", "mcp-param-query"} {
		if v, ok := h[http.CanonicalHeaderKey(k)]; ok {
			t.Errorf("unexpected header %s: %q for an unannotated parameter", k, v)
		}
	}

	// sep-2243-client-omit-null: ClientCustomHeaderOmitNull.
	toolNull, err := mcpheader.ParseTool(jsontext.Value(customHeadersNullSchema))
	if err != nil {
		t.Fatal(err)
	}
	h = rec.send(t, srv, "tools/call", `{"name":"test_custom_headers_null","arguments":{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"},`+meta+`}`, toolNull)
	if v, ok := h["Mcp-Param-Verbose"]; ok {
		t.Errorf("Mcp-Param-Verbose should be omitted when null, but got %q", v)
	}
	if problem := checkParamHeader(h, "Region", "us-east1", "string"); problem != "" {
		t.Error(problem)
	}
}

// The scenario's own test for values that need Base64 agrees with Safe on
// the values of the encoding table (Safe also refuses a literal that looks
// like a sentinel, which the scenario does not test).
func TestConformanceNeedsBase64(t *testing.T) {
	for _, v := range []string{"us-west1", "Hello, 世界", " padded ", "line1\nline2", "us west 1", "\tindented", "", "a\tb", "a\x7fb", "SELECT * FROM users"} {
		if needsBase64(v) == mcpheader.Safe(v) {
			t.Errorf("needsBase64(%q) = %v, Safe = %v", v, needsBase64(v), mcpheader.Safe(v))
		}
	}
}
