// Package mcpheader implements the HTTP header rules of the Streamable HTTP
// transport of MCP 2026-07-28: the standard headers that mirror a request's
// method and name (Mcp-Method, Mcp-Name), the Mcp-Param-{Name} headers that
// mirror tool arguments a tool's inputSchema marks with x-mcp-header, the
// Base64 sentinel encoding of values that are not header-safe, and the
// server's check that the headers agree with the body.
//
// A client calls [Set] (or [Name] and [Params.Headers]) to build the headers
// of a POST, and [ParseTool] on every tool of a tools/list result to find its
// annotations, dropping the tools it reports as invalid. A server calls
// [Check] before it dispatches a request and answers an error with HTTP 400
// and JSON-RPC error -32020 (HeaderMismatch). The package only decides; it
// writes no responses.
//
// Header names are compared case-insensitively; header values are
// case-sensitive.
package mcpheader

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The names of the headers a 2026-07-28 client puts on every POST. Header
// names are case-insensitive; these are the spellings of the specification.
const (
	// HeaderProtocolVersion carries the revision of the request, equal to
	// its _meta "io.modelcontextprotocol/protocolVersion".
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderMethod carries the request's method.
	HeaderMethod = "Mcp-Method"
	// HeaderName carries params.name of tools/call and prompts/get,
	// params.uri of resources/read and params.taskId of the Tasks
	// extension's tasks/get, tasks/update and tasks/cancel, encoded by
	// [Encode].
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix precedes the x-mcp-header name of a tool parameter:
	// the annotation "Region" gives the header Mcp-Param-Region.
	HeaderParamPrefix = "Mcp-Param-"
)

// The markers around a Base64-encoded header value. They are case-sensitive.
const (
	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="
)

// Safe reports whether v can be sent as a header value as it is: it consists
// of printable ASCII (0x20 to 0x7E), does not begin or end with a space, and
// does not look like a Base64 sentinel (begin with "=?base64?" and end with
// "?="). Any other value, including one with a tab or another control
// character, goes through [Encode]'s Base64 form. The empty string is safe.
func Safe(v string) bool {
	if v != "" && (v[0] == ' ' || v[len(v)-1] == ' ') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return !(strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix))
}

// Encode returns the header value that carries v: v itself when [Safe]
// reports it safe, and otherwise "=?base64?" + the standard, padded Base64
// of v's bytes + "?=". The bytes are encoded as they are; for v in valid
// UTF-8 (as every JSON string is), Decode(Encode(v)) is v.
func Encode(v string) string {
	if Safe(v) {
		return v
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
}

// Decode returns the value a header value carries. Spaces and tabs around h
// are not part of the value (RFC 9110 §5.5) and are removed first. What
// remains must consist of visible ASCII, spaces and tabs. If it begins with
// "=?base64?" and ends with a further "?=" (both lowercase; the markers do
// not overlap), the text between them must be standard Base64 with padding
// and nothing else, and the bytes it decodes to valid UTF-8; they are the
// value ("=?base64??=" is the empty string). Any other text is the value
// literally, so "=?BASE64?SGk=?=" and "=?base64?SGk=" are literals.
func Decode(h string) (string, error) {
	lead := len(h) - len(strings.TrimLeft(h, " \t"))
	h = strings.Trim(h, " \t")
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Errorf("byte %d of the header value is %#02x, not visible ASCII, space or tab", lead+i, c)
		}
	}
	if len(h) < len(sentinelPrefix)+len(sentinelSuffix) ||
		!strings.HasPrefix(h, sentinelPrefix) || !strings.HasSuffix(h, sentinelSuffix) {
		return h, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(h[len(sentinelPrefix) : len(h)-len(sentinelSuffix)])
	if err != nil {
		return "", fmt.Errorf("the Base64 between %q and %q: %w", sentinelPrefix, sentinelSuffix, err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("the Base64 between %q and %q decodes to bytes that are not UTF-8", sentinelPrefix, sentinelSuffix)
	}
	return string(b), nil
}
