package bearer_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

const resource = "http://127.0.0.1:9/mcp"

// fixture is a protected handler that echoes the subject and body it got.
type fixture struct {
	as  *oauthtest.Server
	p   *bearer.Protector
	srv *httptest.Server
}

func newFixture(t *testing.T, opts bearer.Options) *fixture {
	t.Helper()
	as := oauthtest.New(t)
	v, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: resource, JWKSURL: as.URL + "/jwks", RefreshInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	opts.Resource = resource
	opts.AuthorizationServers = []string{as.URL}
	if opts.Verifier == nil {
		opts.Verifier = v
	}
	p, err := bearer.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.HandleMetadata(mux)
	mux.Handle("/mcp", p.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := bearer.TokenInfoFrom(r.Context())
		if !ok {
			http.Error(w, "no token info", 500)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Subject", info.Subject)
		w.Header().Set("X-Authorization-Seen", r.Header.Get("Authorization"))
		w.Write(body)
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &fixture{as: as, p: p, srv: srv}
}

func (f *fixture) post(t *testing.T, token, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func challengeOf(t *testing.T, res *http.Response) oauthmeta.Challenge {
	t.Helper()
	c, ok := oauthmeta.BearerChallenge(res.Header)
	if !ok {
		t.Fatalf("status %d without a Bearer challenge: %q", res.StatusCode, res.Header.Values("WWW-Authenticate"))
	}
	return c
}

func TestMetadata(t *testing.T) {
	f := newFixture(t, bearer.Options{Scopes: []string{"mcp"}, ToolScopes: map[string][]string{"admin": {"admin:write"}}, ResourceName: "Test"})
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		res, err := http.Get(f.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		m, err := oauthmeta.DecodeProtectedResource(body)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want := &oauthmeta.ProtectedResource{Resource: resource, AuthorizationServers: []string{f.as.URL}, ScopesSupported: []string{"admin:write", "mcp"}, BearerMethodsSupported: []string{"header"}, ResourceName: "Test"}
		if d := cmp.Diff(want, m); d != "" {
			t.Errorf("%s (-want +got):\n%s", path, d)
		}
	}
	if got := f.p.MetadataURL(); got != "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("MetadataURL() = %s", got)
	}
}

func TestChallenges(t *testing.T) {
	f := newFixture(t, bearer.Options{Scopes: []string{"mcp"}})
	now := time.Now()
	tests := []struct {
		name      string
		token     string
		wantError string // the challenge's error, "" for none
	}{
		{"no token", "", ""},
		{"garbage", "not-a-jwt", "invalid_token"},
		{"wrong audience", f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": "http://127.0.0.1:9/other", "scope": "mcp"}), "invalid_token"},
		{"wrong issuer", f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "iss": "https://evil.example", "scope": "mcp"}), "invalid_token"},
		{"expired", f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "exp": now.Add(-2 * time.Minute).Unix(), "scope": "mcp"}), "invalid_token"},
		{"not yet valid", f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "nbf": now.Add(5 * time.Minute).Unix(), "scope": "mcp"}), "invalid_token"},
		{"no expiry", f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "exp": nil, "scope": "mcp"}), "invalid_token"},
		{"no subject", f.as.Token(t, oauthtest.Claims{"aud": resource, "scope": "mcp", "client_id": "app"}), "invalid_token"},
		{"alg none", unsigned(t, map[string]any{"iss": f.as.URL, "sub": "u", "aud": resource, "exp": now.Add(time.Hour).Unix(), "scope": "mcp"}), "invalid_token"},
		{"HMAC with the public key", hmacWithPublicKey(t, f.as, map[string]any{"iss": f.as.URL, "sub": "u", "aud": resource, "exp": now.Add(time.Hour).Unix(), "scope": "mcp"}), "invalid_token"},
		{"missing scope", f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "scope": "other"}), "insufficient_scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.post(t, tt.token, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			want := http.StatusUnauthorized
			if tt.wantError == "insufficient_scope" {
				want = http.StatusForbidden
			}
			if res.StatusCode != want {
				t.Fatalf("status %d, want %d", res.StatusCode, want)
			}
			c := challengeOf(t, res)
			if got, _ := c.Get("error"); got != tt.wantError {
				t.Errorf("error = %q, want %q", got, tt.wantError)
			}
			if got, _ := c.Get("resource_metadata"); got != f.p.MetadataURL() {
				t.Errorf("resource_metadata = %q", got)
			}
			if got, _ := c.Get("scope"); got != "mcp" {
				t.Errorf("scope = %q, want mcp", got)
			}
		})
	}
}

func TestTokenOnlyFromHeader(t *testing.T) {
	f := newFixture(t, bearer.Options{})
	tok := f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource})
	res, err := http.Post(f.srv.URL+"/mcp?access_token="+tok, "application/x-www-form-urlencoded", strings.NewReader("access_token="+tok))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("token in the query and body: status %d, want 401", res.StatusCode)
	}
	res = f.post(t, tok, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if res.StatusCode != 200 || res.Header.Get("X-Subject") != "u" {
		t.Errorf("token in the header: status %d, subject %q", res.StatusCode, res.Header.Get("X-Subject"))
	}
	if got := res.Header.Get("X-Authorization-Seen"); got != "" {
		t.Errorf("the handler saw the token: %q", got)
	}
}

func TestScopesPerMethodAndTool(t *testing.T) {
	f := newFixture(t, bearer.Options{
		MethodScopes: map[string][]string{"tools/call": {"tools"}},
		ToolScopes:   map[string][]string{"admin": {"admin:write"}},
	})
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + quote(tool) + `}}`
	}
	tests := []struct {
		scope, body string
		status      int
		wantScope   string
	}{
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, ""},
		{"", call("echo"), 403, "tools"},
		{"tools", call("echo"), 200, ""},
		{"tools", call("admin"), 403, "admin:write tools"},
		{"tools admin:write", call("admin"), 200, ""},
		{"tools", `[` + call("echo") + `,` + call("admin") + `]`, 403, "admin:write tools"},
		// The challenge names configured scopes only, never what the
		// request said.
		{"", call("x\"\r\nSet-Cookie: a=b"), 403, "tools"},
	}
	for _, tt := range tests {
		tok := f.as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "scope": tt.scope})
		res := f.post(t, tok, tt.body)
		if res.StatusCode != tt.status {
			t.Errorf("scope %q, %s: status %d, want %d", tt.scope, tt.body, res.StatusCode, tt.status)
			continue
		}
		if tt.status == 200 {
			got, _ := io.ReadAll(res.Body)
			if string(got) != tt.body {
				t.Errorf("the handler got body %s, want %s", got, tt.body)
			}
			continue
		}
		c := challengeOf(t, res)
		if got, _ := c.Get("error"); got != "insufficient_scope" {
			t.Errorf("error = %q", got)
		}
		if got, _ := c.Get("scope"); got != tt.wantScope {
			t.Errorf("scope = %q, want %q", got, tt.wantScope)
		}
		if len(res.Header.Values("Set-Cookie")) > 0 || strings.Contains(strings.Join(res.Header.Values("WWW-Authenticate"), ""), "Set-Cookie") {
			t.Errorf("request text reached the response headers: %v", res.Header)
		}
	}
}

func TestKeyRotation(t *testing.T) {
	f := newFixture(t, bearer.Options{})
	if res := f.post(t, f.as.Token(t, oauthtest.Claims{"sub": "a", "aud": resource}), `{}`); res.StatusCode != 200 {
		t.Fatalf("before rotation: %d", res.StatusCode)
	}
	before := f.as.JWKSFetches.Load()
	f.as.Rotate(t)
	if res := f.post(t, f.as.Token(t, oauthtest.Claims{"sub": "b", "aud": resource}), `{}`); res.StatusCode != 200 {
		t.Fatalf("after rotation: %d", res.StatusCode)
	}
	if f.as.JWKSFetches.Load() != before+1 {
		t.Errorf("key set fetched %d times for the new key, want once", f.as.JWKSFetches.Load()-before)
	}
}

type failingVerifier struct{}

func (failingVerifier) Verify(ctx context.Context, token string) (*bearer.TokenInfo, error) {
	return nil, errors.New("introspection endpoint unreachable")
}

func TestVerifierUnavailable(t *testing.T) {
	f := newFixture(t, bearer.Options{Verifier: failingVerifier{}})
	res := f.post(t, "opaque", `{}`)
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", res.StatusCode)
	}
}

// anonymousVerifier accepts every token without saying whose it is.
type anonymousVerifier struct{}

func (anonymousVerifier) Verify(ctx context.Context, token string) (*bearer.TokenInfo, error) {
	return &bearer.TokenInfo{Issuer: "https://as.example", Scopes: []string{"mcp"}}, nil
}

// A verifier's TokenInfo that names neither a subject nor a client is
// refused: all such tokens would share one principal, and so each
// other's sessions.
func TestVerifierWithoutPrincipal(t *testing.T) {
	f := newFixture(t, bearer.Options{Verifier: anonymousVerifier{}})
	res := f.post(t, "anything", `{}`)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", res.StatusCode)
	}
	if got, _ := challengeOf(t, res).Get("error"); got != "invalid_token" {
		t.Errorf("error = %q, want invalid_token", got)
	}
}

func TestNewErrors(t *testing.T) {
	v := failingVerifier{}
	tests := []struct {
		opts bearer.Options
		want string
	}{
		{bearer.Options{Resource: resource, AuthorizationServers: []string{"https://a"}}, "Verifier is nil"},
		{bearer.Options{Resource: "mcp", AuthorizationServers: []string{"https://a"}, Verifier: v}, "Options.Resource"},
		{bearer.Options{Resource: resource, Verifier: v}, "AuthorizationServers is empty"},
		{bearer.Options{Resource: resource, AuthorizationServers: []string{"https://a"}, Verifier: v, Scopes: []string{"a b"}}, `scope "a b"`},
	}
	for _, tt := range tests {
		if _, err := bearer.New(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", tt.opts, err, tt.want)
		}
	}
	for _, alg := range []string{"HS256", "none"} {
		_, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: "https://a", Audience: resource, JWKSURL: "https://a/jwks", Algorithms: []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)}})
		if err == nil {
			t.Errorf("NewJWTVerifier with %s: no error", alg)
		}
	}
}

func TestMessages(t *testing.T) {
	tests := []struct {
		body string
		want []bearer.Message
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`, []bearer.Message{{Method: "tools/call", Tool: "a"}}},
		{` [{"method":"ping"},{"id":1,"result":{}}] `, []bearer.Message{{Method: "ping"}, {}}},
		{`{`, []bearer.Message{{}}},
		{`[`, nil},
		{`7`, nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, bearer.Messages([]byte(tt.body))); d != "" {
			t.Errorf("Messages(%s) (-want +got):\n%s", tt.body, d)
		}
	}
}

func FuzzMessages(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`))
	f.Add([]byte(`[{"method":"ping"},{"method":"tools/call","params":{"name":7}}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, m := range bearer.Messages(body) {
			if m.Tool != "" && m.Method != "tools/call" {
				t.Fatalf("a tool outside tools/call: %+v", m)
			}
		}
	})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// unsigned returns a JWT with "alg": "none".
func unsigned(t *testing.T, claims map[string]any) string {
	t.Helper()
	return segment(t, map[string]any{"alg": "none", "typ": "at+jwt"}) + "." + segment(t, claims) + "."
}

// hmacWithPublicKey returns an HS256 JWT whose secret is the issuer's
// public key: the classic key-confusion attack.
func hmacWithPublicKey(t *testing.T, as *oauthtest.Server, claims map[string]any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(as.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	signing := segment(t, map[string]any{"alg": "HS256", "typ": "at+jwt", "kid": as.JWKS().Keys[0].KeyID}) + "." + segment(t, claims)
	mac := hmac.New(sha256.New, der)
	mac.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func segment(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
