package ssehttp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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

// FuzzServerPOST sends arbitrary bodies to a live session: the server
// answers each with 202, or with 400, 413 or 415 and a JSON-RPC error
// body; it never panics, and the session lives on.
func FuzzServerPOST(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":5,"method":7}`,
		`{"jsonrpc":`, ``, `null`, `[]`, `"x"`,
		`{"jsonrpc":"2.0","id":6,"method":"ping","id":7}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", 5000) + `"}}}`,
	} {
		f.Add([]byte(s))
	}
	h := NewServer(echoServer, ServerOptions{MaxBodyBytes: 4096})
	hs := httptest.NewServer(h)
	defer func() {
		h.Close()
		hs.Close()
	}()
	resp, err := http.Get(hs.URL + "/sse")
	if err != nil {
		f.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	endpoint := ""
	for endpoint == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			f.Fatal(err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = d
		}
	}
	go io.Copy(io.Discard, br) // the answers
	target := hs.URL + endpoint
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	for _, b := range []string{init, `{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(w, req)
		if w.Code != http.StatusAccepted {
			f.Fatalf("%s: %d %s", b, w.Code, w.Body)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusAccepted:
			if w.Body.Len() != 0 {
				t.Fatalf("202 with a body %q", w.Body)
			}
			return
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("POST %q: %d %s", body, w.Code, w.Body)
		}
		var answer any
		if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil || !strings.Contains(w.Body.String(), `"jsonrpc":"2.0"`) {
			t.Fatalf("POST %q: %d with a body that is not a JSON-RPC error: %s (%v)", body, w.Code, w.Body, err)
		}
	})
}
