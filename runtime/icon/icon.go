// Package icon checks the icons MCP peers send (Icon on Implementation,
// Tool, Prompt, Resource, ResourceTemplate and ResourceLink, from protocol
// revision 2025-11-25) before an application fetches or renders them.
//
// Icons come from the peer and are untrusted. An application that fetches
// or renders one must, by the specification:
//
//   - accept only https: URLs and data: URIs ([CheckSource]), and reject
//     every other scheme: javascript:, file:, ftp:, ws:, http: and
//     app-local ones;
//   - follow no redirect to another scheme or origin;
//   - fetch without credentials: no cookies, no Authorization header;
//   - preferably (SHOULD) accept only icons from the server's own origin;
//   - tell the content type by the image's magic bytes and reject a
//     mismatch with the declared mimeType;
//   - bound the image's byte size, dimensions and frame count;
//   - treat SVG (image/svg+xml) as possibly executable content: render it
//     only where scripts cannot run.
//
// Renderers must support image/png and image/jpeg, and should support
// image/svg+xml and image/webp. This package checks what can be checked
// without fetching: the source and the sizes ([CheckSizes]).
package icon

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// CheckSource checks an icon's src: an https: URL with a host, or a data:
// URI of an image/* media type with base64 data. The error says what is
// wrong; nil means the source may be fetched or decoded under the rules of
// the package doc.
func CheckSource(src string) error {
	scheme, rest, ok := strings.Cut(src, ":")
	if !ok || scheme == "" {
		return fmt.Errorf("icon src %q has no scheme: want an https: URL or a data: URI", clip(src))
	}
	switch strings.ToLower(scheme) {
	case "https":
		u, err := url.Parse(src)
		if err != nil {
			return fmt.Errorf("icon src %q is not a URL: %w", clip(src), err)
		}
		if u.Host == "" || u.Opaque != "" {
			return fmt.Errorf("icon src %q has no host", clip(src))
		}
		if u.User != nil {
			return fmt.Errorf("icon src %q carries credentials (user info)", clip(src))
		}
		return nil
	case "data":
		return checkData(rest)
	}
	return fmt.Errorf("icon src %q: scheme %q is not allowed (only https and data are)", clip(src), scheme)
}

// checkData checks the part of a data: URI after "data:".
func checkData(rest string) error {
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return fmt.Errorf("icon src data: URI has no comma before its data")
	}
	params := strings.Split(meta, ";")
	media := strings.ToLower(strings.TrimSpace(params[0]))
	if !strings.HasPrefix(media, "image/") || len(media) == len("image/") {
		return fmt.Errorf("icon src data: URI has media type %q, want an image/ type", clip(params[0]))
	}
	if !strings.EqualFold(params[len(params)-1], "base64") {
		return fmt.Errorf("icon src data: URI is not base64 (no ;base64 before the comma)")
	}
	if data == "" {
		return fmt.Errorf("icon src data: URI has no data")
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return fmt.Errorf("icon src data: URI: the data is not base64: %w", err)
	}
	return nil
}

// CheckSizes checks an icon's sizes: each entry is "any" or WIDTHxHEIGHT
// in pixels, such as "48x48" (the HTML sizes syntax: positive decimal
// numbers without leading zeros, x or X between them, "any" in any case).
func CheckSizes(sizes []string) error {
	for i, s := range sizes {
		if !validSize(s) {
			return fmt.Errorf("icon sizes[%d] %q: want WIDTHxHEIGHT such as \"48x48\", or \"any\"", i, clip(s))
		}
	}
	return nil
}

func validSize(s string) bool {
	if strings.EqualFold(s, "any") {
		return true
	}
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	return ok && dimension(w) && dimension(h)
}

// dimension reports whether s is a positive decimal without leading zeros.
func dimension(s string) bool {
	if s == "" || s[0] == '0' || len(s) > 9 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clip shortens s for an error message: a data: URI can be large.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:61] + "..."
}
