// Package httpmsg holds what the HTTP transports (streamhttp and ssehttp)
// say about the HTTP messages they exchange: the excerpt of a body quoted
// in an error, a Content-Type's media type, the authorization context
// their client's requests carry, the tag that names a session in logs, and
// what they tell of their connection (transport.Info).
package httpmsg

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
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
	if plainMediaType(ct) {
		// What the parse below returns for it, without its map of
		// parameters: the usual value ("application/json") costs nothing.
		return ct
	}
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		t, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// plainMediaType reports whether ct has no parameters, no white space and
// no upper-case letters: MediaType returns such a value as it is, whether
// mime.ParseMediaType takes it or not.
func plainMediaType(ct string) bool {
	for i := 0; i < len(ct); i++ {
		switch c := ct[i]; {
		case c == ';', c == ' ', c == '\t', c == '\r', c == '\n', c == '\v', c == '\f', c >= 'A' && c <= 'Z', c >= 0x80:
			return false
		}
	}
	return true
}

// AuthContext names the authorization that requests sent through rt with
// header carry, for session.AuthContexter: what rt says when it
// implements AuthContext() string (as runtime/oauth's transport does),
// else the digest of header's Authorization values, else "".
func AuthContext(rt http.RoundTripper, header http.Header) string {
	if a, ok := rt.(interface{ AuthContext() string }); ok {
		return a.AuthContext()
	}
	if v := header.Values("Authorization"); len(v) > 0 {
		return AuthDigest(strings.Join(v, "\n"))
	}
	return ""
}

// AuthDigest returns an opaque name of a credential, such as an access
// token, that does not reveal it: a base64url SHA-256 digest.
func AuthDigest(credential string) string {
	sum := sha256.Sum256([]byte(credential))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Tag returns the name of a session id (or of another value that works as
// a credential, such as an SSE event id that embeds one) in logs: the first
// 8 hex digits of its SHA-256 digest. A tag tells log lines of one session
// apart from another's without revealing the id: 32 of the digest's bits
// do not give the id back, nor let anyone use the session. An operator
// who holds an id finds its lines with the tag of it, such as
// printf %s "$id" | sha256sum | cut -c1-8.
func Tag(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:4])
}

// Hide returns body, a peer's answer, with each occurrence of each of ids
// (a session id, an SSE event id that holds one) replaced by its Tag: a
// peer may quote them in a refusal, and what is made of its answer goes
// into errors and logs, which never hold them. An id is found as it is and
// as escaped in a JSON string (with and without the escaping of <, > and
// &). An id that contains another comes first in ids; empty ones are
// skipped. body itself is not changed.
func Hide(body []byte, ids ...string) []byte {
	for _, id := range ids {
		if id == "" {
			continue
		}
		tag := []byte(Tag(id))
		for _, form := range jsonForms(id) {
			if bytes.Contains(body, form) {
				body = bytes.ReplaceAll(body, form, tag)
			}
		}
	}
	return body
}

// jsonForms returns id as it is and as escaped in a JSON string, with and
// without the escaping of HTML's characters, each once.
func jsonForms(id string) [][]byte {
	forms := [][]byte{[]byte(id)}
	add := func(quoted []byte) {
		form := bytes.Clone(bytes.TrimSuffix(bytes.TrimPrefix(bytes.TrimSpace(quoted), []byte(`"`)), []byte(`"`)))
		for _, f := range forms {
			if bytes.Equal(f, form) {
				return
			}
		}
		forms = append(forms, form)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if enc.Encode(id) == nil {
		add(b.Bytes())
	}
	b.Reset()
	enc.SetEscapeHTML(false)
	if enc.Encode(id) == nil {
		add(b.Bytes())
	}
	return forms
}

// AuthHint says what a client can do about an answer with status 401
// (Unauthorized), going by the challenges of its WWW-Authenticate headers
// (RFC 9110 section 11.6.1): for an API key gate (APIKey header="X-API-Key")
// it names the header to set, for a Bearer challenge it points to OAuth. It
// returns "" for any other status, and for a 401 it can say nothing about.
// The names are those of the generated packages' HTTPClientOptions
// (ssehttp.AutoOptions), which a user of the HTTP transports meets first.
func AuthHint(status int, h http.Header) string {
	if status != http.StatusUnauthorized {
		return ""
	}
	var keyHeader, other string // a Bearer challenge comes first
	for _, v := range h.Values("WWW-Authenticate") {
		cs, err := oauthmeta.ParseChallenges(v)
		if err != nil {
			continue
		}
		for _, c := range cs {
			switch {
			case strings.EqualFold(c.Scheme, "Bearer"):
				return "the server asks for OAuth authorization (a Bearer token): give HTTPClientOptions.HTTPClient an OAuth client (see runtime/oauth), or set the Authorization header in HTTPClientOptions.Header"
			case strings.EqualFold(c.Scheme, "APIKey"):
				if name, ok := c.Get("header"); ok && name != "" && keyHeader == "" {
					keyHeader = name
				}
				other = "an API key"
			case other == "":
				other = "authorization of the scheme " + c.Scheme
			}
		}
	}
	switch {
	case keyHeader != "":
		return fmt.Sprintf("the server asks for an API key in the header %s: set it in HTTPClientOptions.Header", keyHeader)
	case other == "":
		return "the server asks for credentials: set the header it expects in HTTPClientOptions.Header"
	}
	return "the server asks for " + other + ": set the header it expects in HTTPClientOptions.Header"
}
