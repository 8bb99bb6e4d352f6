package mcpheader

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// NameField returns the params member that Mcp-Name mirrors for method
// ("name", "uri" or "taskId", see [Name]), or "" when method has no
// Mcp-Name.
func NameField(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		// The Tasks extension (io.modelcontextprotocol/tasks) names the
		// task: https://github.com/modelcontextprotocol/ext-tasks
		return "taskId"
	}
	return ""
}

// Name returns the value the Mcp-Name header mirrors for a request with
// method and params: params.name for tools/call and prompts/get,
// params.uri for resources/read, and params.taskId for the Tasks
// extension's tasks/get, tasks/update and tasks/cancel. required reports
// whether method is one of these, which must carry Mcp-Name; for any other method Name returns
// "", false. The value is the body's, unencoded: the header carries
// Encode(value). When params has no such member, or it is not a string,
// value is "".
func Name(method string, params jsontext.Value) (value string, required bool) {
	field := NameField(method)
	if field == "" {
		return "", false
	}
	value, _ = stringMember(params, field)
	return value, true
}

// stringMember returns the member name of the object v if it is a string.
func stringMember(v jsontext.Value, name string) (string, bool) {
	m, _ := wire.Member(v, name)
	return unquote(m)
}

// plainString returns the JSON value m unquoted if it is a string, without
// allocating when it has no escapes (the bytes then alias m).
func plainString(m jsontext.Value) ([]byte, bool) {
	if len(m) >= 2 && m[0] == '"' && m[len(m)-1] == '"' {
		if inner := m[1 : len(m)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return inner, true
		}
	}
	s, ok := unquote(m)
	return []byte(s), ok
}

// unquote returns the JSON value m unquoted if it is a string.
func unquote(m jsontext.Value) (string, bool) {
	if len(m) == 0 || m.Kind() != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, m)
	if err != nil {
		return "", false
	}
	return string(s), true
}

// Set puts on h the headers a client mirrors from a request with method and
// params: Mcp-Method, Mcp-Name where the method requires it ([Name]), and,
// for tools/call, the Mcp-Param headers of tool, the annotations of the
// called tool as [ParseTool] found them ([Params.Headers]); a nil tool adds
// none. It replaces those headers if h has them, and leaves every other
// header alone: MCP-Protocol-Version is the caller's, and Mcp-Param headers
// of another tool are not removed. It fails, leaving h unchanged, when the
// method is not a safe header value, when a method that requires Mcp-Name
// has no string params.name (params.uri for resources/read, params.taskId
// for tasks/*), or when
// Params.Headers fails.
func Set(h http.Header, method string, params jsontext.Value, tool Params) error {
	if method == "" || !Safe(method) {
		return fmt.Errorf("mcpheader: the method %s cannot be sent as a header value", quote(method))
	}
	var name string
	field := NameField(method)
	if field != "" {
		var ok bool
		if name, ok = stringMember(params, field); !ok {
			return fmt.Errorf("mcpheader: a %s request needs a string params.%s for the %s header", method, field, HeaderName)
		}
	}
	var ph http.Header
	if method == "tools/call" && len(tool) > 0 {
		args, _ := wire.Member(params, "arguments")
		var err error
		if ph, err = tool.Headers(args); err != nil {
			return err
		}
	}
	h.Set(HeaderMethod, method)
	if field != "" {
		h.Set(HeaderName, Encode(name))
	}
	for k, v := range ph {
		h[k] = v
	}
	return nil
}

// ErrMismatch is the error every header mismatch found by [Check] wraps. A
// server answers it with HTTP 400 Bad Request and JSON-RPC error -32020
// (HeaderMismatch).
var ErrMismatch = errors.New("header mismatch")

// MismatchError is a header that does not agree with the request body. It
// wraps [ErrMismatch].
type MismatchError struct {
	// Header is the header's name as the specification spells it, such as
	// "Mcp-Name" or "Mcp-Param-Region".
	Header string
	// Problem says what is wrong with it. Values from the request are
	// quoted, with control characters escaped, and long ones shortened.
	Problem string
}

// Error returns "header mismatch: HEADER: PROBLEM".
func (e *MismatchError) Error() string {
	return "header mismatch: " + e.Header + ": " + e.Problem
}

// Unwrap returns ErrMismatch.
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Check reports whether the mirrored headers h of a request agree with its
// body, whose method is method and whose params are params (nil when it has
// none). tool holds the annotations of the called tool when method is
// "tools/call" (nil for a tool without annotations or one the server does
// not know); for any other method it is not used. Check compares, in this
// order:
//   - Mcp-Method, which must be present and equal method exactly (values are
//     case-sensitive);
//   - Mcp-Name, for tools/call, prompts/get, resources/read and the Tasks
//     extension's tasks/get, tasks/update and tasks/cancel only, which
//     must be present and, after [Decode], equal params.name (params.uri
//     for resources/read, params.taskId for tasks/*), which must be a
//     string;
//   - for each annotation of tool, the header Mcp-Param-{Name}: it must be
//     present when the argument at the annotation's path is present and not
//     null, and absent otherwise (a header that claims a value the body
//     does not carry is a mismatch too). After [Decode], a string argument
//     must equal the value exactly, true and false must be "true" and
//     "false", and a number must equal the value numerically, so "042",
//     "42.0" and "4.2e1" all match 42 (the value must be a decimal number:
//     digits with an optional sign, fraction and exponent). An object or
//     array argument matches no header.
//
// Header names are matched case-insensitively, even in an h whose keys are
// not in canonical form; spaces and tabs around values are ignored; a
// header that appears more than once is a mismatch; a value with a
// character that is not visible ASCII, space or tab, or with a malformed
// Base64 sentinel, is a mismatch. Headers this list does not name (Mcp-Name
// on other methods, Mcp-Param headers of no annotation) are not looked at,
// nor is MCP-Protocol-Version, which the caller compares with _meta itself.
//
// The first mismatch is returned as a *MismatchError, which wraps
// [ErrMismatch]. Params that are not valid JSON (RFC 8259 with unique
// member names and valid UTF-8) cannot be compared with: Check then returns
// an error that does not wrap ErrMismatch, and the caller reports the body
// as malformed.
func Check(h http.Header, method string, params jsontext.Value, tool Params) error {
	if len(params) > 0 && !params.IsValid() {
		return errors.New("mcpheader: the params are not valid JSON (with unique member names and valid UTF-8); headers cannot be compared with them")
	}
	var name, args jsontext.Value
	if field := NameField(method); field != "" {
		name, _ = wire.Member(params, field)
	}
	if method == "tools/call" {
		args, _ = wire.Member(params, "arguments")
	}
	return CheckMembers(h, method, name, args, tool)
}

// CheckMembers is [Check] for a caller that has already read the params,
// which must be valid JSON, in one scan of its own: name is the member
// [NameField] names for method (nil when absent or when method has no
// Mcp-Name), and arguments is params.arguments (nil when absent; used for
// tools/call only). It compares the same headers, in the same order, with
// the same errors as Check.
func CheckMembers(h http.Header, method string, name, arguments jsontext.Value, tool Params) error {
	got, err := header(h, HeaderMethod)
	if err != nil {
		return err
	}
	if got == nil {
		return mismatch(HeaderMethod, "missing; the body's method is %s", quote(method))
	}
	if m := strings.Trim(*got, " \t"); m != method {
		return mismatch(HeaderMethod, "the value %s does not match the body's method %s", quote(m), quote(method))
	}
	if field := NameField(method); field != "" {
		if err := checkName(h, name, field); err != nil {
			return err
		}
	}
	if method != "tools/call" || len(tool) == 0 {
		return nil
	}
	for _, p := range tool {
		if err := checkParam(h, arguments, p); err != nil {
			return err
		}
	}
	return nil
}

// checkName compares Mcp-Name with params.field, whose value is member
// (nil when absent).
func checkName(h http.Header, member jsontext.Value, field string) error {
	got, err := header(h, HeaderName)
	if err != nil {
		return err
	}
	want, ok := plainString(member)
	if got == nil {
		if !ok {
			return mismatch(HeaderName, "missing (and the body has no string params.%s)", field)
		}
		return mismatch(HeaderName, "missing; the body's params.%s is %s", field, quote(string(want)))
	}
	v, err := Decode(*got)
	if err != nil {
		return mismatch(HeaderName, "%v", err)
	}
	if !ok {
		return mismatch(HeaderName, "the value is %s, but the body has no string params.%s", quote(v), field)
	}
	if v != string(want) {
		return mismatch(HeaderName, "the value %s does not match the body's params.%s %s", quote(v), field, quote(string(want)))
	}
	return nil
}

// checkParam compares the header of the annotation p with the argument at
// its path in args.
func checkParam(h http.Header, args jsontext.Value, p Param) error {
	name := p.Header()
	got, err := header(h, name)
	if err != nil {
		return err
	}
	at := "/arguments" + pointer(p.Path)
	arg, present := lookup(args, p.Path)
	if present && arg.Kind() == 'n' {
		present = false
	}
	switch {
	case got == nil && !present:
		return nil
	case got == nil:
		return mismatch(name, "missing; the body has %s at params%s", quoteJSON(arg), at)
	}
	v, err := Decode(*got)
	if err != nil {
		return mismatch(name, "%v", err)
	}
	if !present {
		return mismatch(name, "the value is %s, but the body has no value at params%s", quote(v), at)
	}
	switch arg.Kind() {
	case '"':
		s, err := jsontext.AppendUnquote(nil, arg)
		if err == nil && string(s) == v {
			return nil
		}
	case 't', 'f':
		if v == string(arg) {
			return nil
		}
	case '0':
		hd, err := parseDecimal(v)
		if err != nil {
			return mismatch(name, "the value %s is not a decimal number, and params%s is the number %s", quote(v), at, quoteJSON(arg))
		}
		if bd, err := parseDecimal(string(arg)); err == nil && bd == hd {
			return nil
		}
	default:
		return mismatch(name, "params%s is %s, which no header can carry", at, wire.KindPhrase(arg.Kind()))
	}
	return mismatch(name, "the value %s does not match params%s %s", quote(v), at, quoteJSON(arg))
}

// header returns the one value of the header name in h, or nil when h does
// not have it. Keys are compared case-insensitively, so that an h built by
// hand with keys not in canonical form is read correctly too.
func header(h http.Header, name string) (*string, error) {
	var found *string // the first value, in h itself: no copy
	n := 0
	for k, vs := range h {
		if len(vs) > 0 && strings.EqualFold(k, name) {
			if found == nil {
				found = &vs[0]
			}
			n += len(vs)
		}
	}
	if n <= 1 {
		return found, nil
	}
	return nil, mismatch(name, "the header appears %d times; it must appear once", n)
}

func mismatch(header, format string, args ...any) error {
	return &MismatchError{Header: header, Problem: fmt.Sprintf(format, args...)}
}

// maxQuoted is how many bytes of a value an error message shows.
const maxQuoted = 64

// quote returns s quoted for an error message, shortened to about maxQuoted
// bytes.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// quoteJSON returns the JSON value v for an error message, shortened to
// about maxQuoted bytes.
func quoteJSON(v jsontext.Value) string {
	if len(v) <= maxQuoted {
		return string(v)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "..."
}
