package plan

import (
	"strings"
	"unicode"
)

// initialisms are the words Go spells in capitals.
var initialisms = map[string]bool{
	"ID": true, "URI": true, "URL": true, "MIME": true, "JSON": true, "JSONRPC": true,
	"TTL": true, "HTTP": true, "API": true, "UTF8": true, "RPC": true, "SSE": true,
}

// words splits a schema name into words at case changes and punctuation:
// "mimeType" → [mime Type], "JSONRPCRequest" → [JSONRPC Request],
// "input_required" → [input required].
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(prev) && !unicode.IsUpper(prev):
			// keep digits with the word before them ("UTF8")
		}
	}
	flush(len(rs))
	return out
}

// GoName turns a schema name into an exported Go name with initialisms:
// "RequestId" → "RequestID", "mimeType" → "MIMEType", "_meta" → "Meta",
// "date-time" → "DateTime".
func GoName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		r := []rune(w)
		b.WriteRune(unicode.ToUpper(r[0]))
		b.WriteString(string(r[1:]))
	}
	if b.Len() == 0 {
		return "X"
	}
	name := b.String()
	if unicode.IsDigit([]rune(name)[0]) {
		name = "N" + name
	}
	return name
}
