package ssehttp

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/sse"
)

// FuzzResolveEndpoint: whatever an endpoint event carries, resolving it
// does not panic, and a URL it accepts has the SSE stream's origin, no
// fragment, and no line break.
func FuzzResolveEndpoint(f *testing.F) {
	for _, s := range []string{
		"/messages?sessionId=0123456789abcdef0123456789abcdef",
		"?sessionId=x", "messages", "http://127.0.0.1:8080/m", "http://127.0.0.1/m",
		"//evil.example/m", "https://127.0.0.1:8080/m", "/a\n/b", "%zz", " \t/m#f ", "http://[::1]:8080/m",
		"http://user:pw@127.0.0.1:8080/m", "javascript:alert(1)",
	} {
		f.Add("http://127.0.0.1:8080/sse", []byte(s))
	}
	f.Add("https://[::1]/a/b/sse?q=1", []byte("../m"))
	f.Fuzz(func(t *testing.T, baseURL string, data []byte) {
		base, err := url.Parse(baseURL)
		if err != nil {
			return
		}
		u, err := ResolveEndpoint(base, data)
		if err != nil {
			return
		}
		if origin(u) != origin(base) {
			t.Fatalf("ResolveEndpoint(%q, %q) = %s: origin %s, want %s", baseURL, data, u, origin(u), origin(base))
		}
		if u.Fragment != "" || strings.ContainsAny(u.String(), "\r\n") {
			t.Fatalf("ResolveEndpoint(%q, %q) = %q", baseURL, data, u)
		}
	})
}

// FuzzFirstEndpoint: whatever a server sends on the stream, reading its
// endpoint event does not panic; it succeeds only when the first event is
// endpoint, with a URL of the stream's origin.
func FuzzFirstEndpoint(f *testing.F) {
	for _, s := range []string{
		"event: endpoint\ndata: /sse?sessionId=0123456789abcdef0123456789abcdef\n\n",
		"event: endpoint\r\ndata: /messages?sessionId=1\r\n\r\nevent: message\r\ndata: {}\r\n\r\n",
		": comment\n\nevent: endpoint\ndata: ?sessionId=2\n\n",
		"event: message\ndata: {}\n\n",
		"event: endpoint\ndata: http://evil.example/\n\n",
		"event: endpoint\ndata: /a\ndata: /b\n\n",
		"\uFEFFevent:endpoint\ndata:/x\n\n",
		"event: endpoint\n",
		"",
	} {
		f.Add([]byte(s))
	}
	base, _ := url.Parse("http://127.0.0.1:8080/sse")
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := sse.NewReader(bytes.NewReader(stream), "", 1<<16)
		u, err := firstEndpoint(r, base)
		if err != nil {
			return
		}
		if origin(u) != origin(base) {
			t.Fatalf("endpoint %s of another origin accepted from %q", u, stream)
		}
		ev, _ := sse.NewReader(bytes.NewReader(stream), "", 1<<16).Next()
		if ev.Type != "endpoint" {
			t.Fatalf("endpoint taken from a first event of type %q: %q", ev.Type, stream)
		}
	})
}
