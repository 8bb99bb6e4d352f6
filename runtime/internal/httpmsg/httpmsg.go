// Package httpmsg holds what the HTTP client transports (streamhttp and
// ssehttp) say about the HTTP messages they receive: the excerpt of a body
// quoted in an error, and a Content-Type's media type.
package httpmsg

import (
	"io"
	"mime"
	"strings"
	"unicode/utf8"
)

// ExcerptLength is how many bytes of a body an error quotes.
const ExcerptLength = 200

// BodyExcerpt returns the start of a body on one line, for an error. It
// reads at most ExcerptLength+1 bytes of r.
func BodyExcerpt(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, ExcerptLength+1))
	return Excerpt(b)
}

// Excerpt returns the start of b on one line, for an error: at most
// ExcerptLength bytes, cut on a character boundary (with "…" when cut),
// invalid UTF-8 replaced, runs of white space made one space.
func Excerpt(b []byte) string {
	cut := len(b) > ExcerptLength
	if cut {
		b = b[:ExcerptLength]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if cut {
		s += "…"
	}
	return s
}

// MediaType returns the lower-case media type of a Content-Type value,
// also of one mime.ParseMediaType refuses (what comes before its ';').
func MediaType(ct string) string {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		t, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(t))
}
