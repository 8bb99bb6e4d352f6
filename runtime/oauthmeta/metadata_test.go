package oauthmeta_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

func TestProtectedResourceURLs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"https://mcp.example.com/mcp", []string{
			"https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
			"https://mcp.example.com/.well-known/oauth-protected-resource"}},
		{"https://mcp.example.com/a/b/?x=1", []string{
			"https://mcp.example.com/.well-known/oauth-protected-resource/a/b",
			"https://mcp.example.com/.well-known/oauth-protected-resource"}},
		{"http://127.0.0.1:8080", []string{"http://127.0.0.1:8080/.well-known/oauth-protected-resource"}},
		{"http://127.0.0.1:8080/", []string{"http://127.0.0.1:8080/.well-known/oauth-protected-resource"}},
	}
	for _, tt := range tests {
		got, err := oauthmeta.ProtectedResourceURLs(tt.in)
		if err != nil {
			t.Errorf("ProtectedResourceURLs(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ProtectedResourceURLs(%q) (-want +got):\n%s", tt.in, d)
		}
	}
	for _, bad := range []string{"ftp://x/y", "/relative", "https://", "%zz"} {
		if _, err := oauthmeta.ProtectedResourceURLs(bad); err == nil {
			t.Errorf("ProtectedResourceURLs(%q): no error", bad)
		}
	}
}

func TestProtectedResourcePath(t *testing.T) {
	for in, want := range map[string]string{
		"":        "/.well-known/oauth-protected-resource",
		"/":       "/.well-known/oauth-protected-resource",
		"/mcp":    "/.well-known/oauth-protected-resource/mcp",
		"mcp/":    "/.well-known/oauth-protected-resource/mcp",
		"/a/b/c/": "/.well-known/oauth-protected-resource/a/b/c",
	} {
		if got := oauthmeta.ProtectedResourcePath(in); got != want {
			t.Errorf("ProtectedResourcePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAuthorizationServerURLs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"https://auth.example.com", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration"}},
		{"https://auth.example.com/tenant1", []string{
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration"}},
	}
	for _, tt := range tests {
		got, err := oauthmeta.AuthorizationServerURLs(tt.in)
		if err != nil {
			t.Errorf("AuthorizationServerURLs(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("AuthorizationServerURLs(%q) (-want +got):\n%s", tt.in, d)
		}
	}
	for _, bad := range []string{"https://a.example/x?y=1", "https://a.example/#f", "mailto:a@b"} {
		if _, err := oauthmeta.AuthorizationServerURLs(bad); err == nil {
			t.Errorf("AuthorizationServerURLs(%q): no error", bad)
		}
	}
}

func TestCanonicalResource(t *testing.T) {
	good := map[string]string{
		"HTTPS://MCP.Example.com/mcp":  "https://mcp.example.com/mcp",
		"https://mcp.example.com:443/": "https://mcp.example.com",
		"http://127.0.0.1:80/mcp/":     "http://127.0.0.1/mcp",
		"http://127.0.0.1:8080/mcp":    "http://127.0.0.1:8080/mcp",
		"https://[::1]:443/x":          "https://[::1]/x",
		"https://a.example/x?y=1":      "https://a.example/x?y=1",
	}
	for in, want := range good {
		got, err := oauthmeta.CanonicalResource(in)
		if err != nil || got != want {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"https://a.example/x#frag", "urn:x", "https://user@a.example/", "//a.example/x"} {
		if got, err := oauthmeta.CanonicalResource(bad); err == nil {
			t.Errorf("CanonicalResource(%q) = %q, want an error", bad, got)
		}
	}
}

func TestProtectedResourceCheck(t *testing.T) {
	m, err := oauthmeta.DecodeProtectedResource([]byte(`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"extension":{"x":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"https://auth.example.com"}, m.AuthorizationServers); d != "" {
		t.Errorf("authorization_servers (-want +got):\n%s", d)
	}
	if err := m.CheckResource("https://MCP.example.com/mcp/"); err != nil {
		t.Errorf("CheckResource of the same resource: %v", err)
	}
	if err := m.CheckResource("https://mcp.example.com/other"); err == nil || !strings.Contains(err.Error(), `names resource "https://mcp.example.com/mcp"`) {
		t.Errorf("CheckResource of another resource = %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   func([]byte) error
		in   string
		want string
	}{
		{"prm without resource", prm, `{"authorization_servers":["x"]}`, "member resource is missing"},
		{"prm duplicate", prm, `{"resource":"a","resource":"b"}`, "duplicate"},
		{"prm case", prm, `{"Resource":"a"}`, "member resource is missing"},
		{"prm type", prm, `{"resource":1}`, "protected resource metadata"},
		{"as without issuer", as, `{"token_endpoint":"x"}`, "member issuer is missing"},
		{"as not json", as, `{`, "authorization server metadata"},
		{"as too big", as, `{"issuer":"` + strings.Repeat("a", oauthmeta.MaxDocument) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		err := tt.fn([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func prm(b []byte) error { _, err := oauthmeta.DecodeProtectedResource(b); return err }
func as(b []byte) error  { _, err := oauthmeta.DecodeAuthorizationServer(b); return err }

func TestAuthorizationServerChecks(t *testing.T) {
	m, err := oauthmeta.DecodeAuthorizationServer([]byte(`{"issuer":"https://auth.example.com/","code_challenge_methods_supported":["plain","S256"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !m.SupportsPKCE() {
		t.Error("SupportsPKCE() = false with S256 listed")
	}
	if err := m.CheckIssuer("https://auth.example.com/"); err != nil {
		t.Errorf("CheckIssuer(same) = %v", err)
	}
	// RFC 8414: identical, not normalized.
	if err := m.CheckIssuer("https://auth.example.com"); err == nil {
		t.Error("CheckIssuer without the trailing slash: no error")
	}
	m.CodeChallengeMethodsSupported = nil
	if m.SupportsPKCE() {
		t.Error("SupportsPKCE() = true with nothing listed")
	}
}

func FuzzDecodeMetadata(f *testing.F) {
	f.Add([]byte(`{"resource":"https://a/mcp","authorization_servers":["https://b"]}`))
	f.Add([]byte(`{"issuer":"https://b","authorization_endpoint":"https://b/a","code_challenge_methods_supported":["S256"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := oauthmeta.DecodeProtectedResource(data); err == nil {
			if m.Resource == "" {
				t.Fatal("decoded PRM without resource")
			}
			_ = m.CheckResource("https://a/mcp")
		}
		if m, err := oauthmeta.DecodeAuthorizationServer(data); err == nil && m.Issuer == "" {
			t.Fatal("decoded AS metadata without issuer")
		}
	})
}

// TestCheckCovers: metadata covers its own resource and the servers under
// its path on a segment boundary, at the same origin; nothing else.
func TestCheckCovers(t *testing.T) {
	for _, tc := range []struct {
		resource, server string
		ok               bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/mcp", "https://MCP.example.com:443/mcp/", true},
		{"https://mcp.example.com", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/", "https://mcp.example.com/a/b", true},
		{"https://mcp.example.com/api", "https://mcp.example.com/api/mcp", true},
		{"https://mcp.example.com/api", "https://mcp.example.com/apiv2/mcp", false},
		{"https://mcp.example.com/mcp/x", "https://mcp.example.com/mcp", false},
		{"https://evil.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/?tenant=a", "https://mcp.example.com/mcp", false},
		{"not a url", "https://mcp.example.com/mcp", false},
	} {
		m := &oauthmeta.ProtectedResource{Resource: tc.resource}
		if err := m.CheckCovers(tc.server); (err == nil) != tc.ok {
			t.Errorf("resource %q, server %q: err = %v, want ok %v", tc.resource, tc.server, err, tc.ok)
		}
	}
}
