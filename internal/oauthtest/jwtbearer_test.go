package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// typed signs claims with key (ES256) and the typ header typ ("" for
// none).
func typed(t *testing.T, key *ecdsa.PrivateKey, typ string, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// post sends a token request with form (and Basic credentials when id is
// not empty) and returns the status and the answer.
func post(t *testing.T, s *Server, form url.Values, id, secret string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id != "" {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// The JWT bearer grant: the assertions the test authorization server
// accepts, and those it refuses (another aud, expired, another key,
// issuer or subject, the wrong typ, an ID-JAG for another client or
// resource).
func TestJWTBearer(t *testing.T) {
	wl, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	idp, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s := NewWith(t, Options{
		Clients: map[string]string{"mcp-client": "secret"},
		AssertionIssuers: map[string]AssertionIssuer{
			"https://workload.example": {Key: &wl.PublicKey, Subjects: []string{"agent"}},
			"https://idp.example":      {KeyFunc: func() crypto.PublicKey { return &idp.PublicKey }, Type: IDJAGType},
		},
	})
	const resource = "https://mcp.example/mcp"
	now := time.Now()
	claims := func(iss string, edit map[string]any) map[string]any {
		c := map[string]any{"iss": iss, "sub": "agent", "aud": s.URL, "iat": now.Unix(), "exp": now.Add(time.Minute).Unix(), "jti": random()}
		if iss == "https://idp.example" {
			c["client_id"], c["resource"] = "mcp-client", resource
		}
		for k, v := range edit {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	for _, tt := range []struct {
		name      string
		assertion string
		id        string // Basic client authentication
		wantCode  string // "" for a token
	}{
		{"workload token", typed(t, wl, "JWT", claims("https://workload.example", nil)), "", ""},
		{"aud with a slash", typed(t, wl, "", claims("https://workload.example", map[string]any{"aud": s.URL + "/"})), "", ""},
		{"aud the token endpoint", typed(t, wl, "", claims("https://workload.example", map[string]any{"aud": s.URL + "/token"})), "", ""},
		{"workload token with a client", typed(t, wl, "", claims("https://workload.example", nil)), "mcp-client", ""},
		{"ID-JAG", typed(t, idp, IDJAGType, claims("https://idp.example", nil)), "mcp-client", ""},
		{"wrong aud", typed(t, wl, "", claims("https://workload.example", map[string]any{"aud": "https://other.example"})), "", "invalid_grant"},
		{"expired", typed(t, wl, "", claims("https://workload.example", map[string]any{"exp": now.Add(-time.Minute).Unix()})), "", "invalid_grant"},
		{"no exp", typed(t, wl, "", claims("https://workload.example", map[string]any{"exp": nil})), "", "invalid_grant"},
		{"another key", typed(t, other, "", claims("https://workload.example", nil)), "", "invalid_grant"},
		{"untrusted issuer", typed(t, wl, "", claims("https://evil.example", nil)), "", "invalid_grant"},
		{"another subject", typed(t, wl, "", claims("https://workload.example", map[string]any{"sub": "intruder"})), "", "invalid_grant"},
		{"ID-JAG with the wrong typ", typed(t, idp, "JWT", claims("https://idp.example", nil)), "mcp-client", "invalid_grant"},
		{"ID-JAG for another client", typed(t, idp, IDJAGType, claims("https://idp.example", map[string]any{"client_id": "other"})), "mcp-client", "invalid_grant"},
		{"ID-JAG for another resource", typed(t, idp, IDJAGType, claims("https://idp.example", map[string]any{"resource": "https://other.example/mcp"})), "mcp-client", "invalid_grant"},
		{"ID-JAG without client authentication", typed(t, idp, IDJAGType, claims("https://idp.example", nil)), "", "invalid_grant"},
		{"not a JWT", "not-a-jwt", "", "invalid_grant"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"grant_type": {JWTBearerGrantType}, "assertion": {tt.assertion}, "resource": {resource}, "scope": {"mcp:read"}}
			status, body := post(t, s, form, tt.id, "secret")
			if tt.wantCode == "" {
				if status != http.StatusOK || body["access_token"] == "" || body["token_type"] != "Bearer" || body["scope"] != "mcp:read" {
					t.Fatalf("status %d, %v: want a token", status, body)
				}
				return
			}
			if status != http.StatusBadRequest || body["error"] != tt.wantCode {
				t.Errorf("status %d, %v: want 400 %s", status, body, tt.wantCode)
			}
		})
	}
	if status, body := post(t, s, url.Values{"grant_type": {JWTBearerGrantType}, "assertion": {typed(t, wl, "", claims("https://workload.example", nil))}}, "mcp-client", "wrong"); status != http.StatusUnauthorized || body["error"] != "invalid_client" {
		t.Errorf("wrong client secret: status %d, %v: want 401 invalid_client", status, body)
	}
}

// The token exchange of a Server that is an identity provider: an ID
// token it issued to the client, for an ID-JAG; and what it refuses.
func TestTokenExchange(t *testing.T) {
	s := NewWith(t, Options{IdentityProvider: &IdentityProvider{ClientID: "mcp-client"}})
	good := s.IDToken(t, "alice", "idp-client", time.Hour)
	form := func(edit map[string]string) url.Values {
		f := url.Values{"grant_type": {TokenExchangeGrantType}, "client_id": {"idp-client"}, "subject_token": {good}, "subject_token_type": {IDTokenType},
			"requested_token_type": {IDJAGTokenType}, "audience": {"https://as.example"}, "resource": {"https://mcp.example/mcp"}, "scope": {"mcp:read"}}
		for k, v := range edit {
			if v == "" {
				f.Del(k)
			} else {
				f.Set(k, v)
			}
		}
		return f
	}
	status, body := post(t, s, form(nil), "", "")
	if status != http.StatusOK || body["issued_token_type"] != IDJAGTokenType || body["token_type"] != "N_A" {
		t.Fatalf("status %d, %v: want an ID-JAG", status, body)
	}
	jag, err := jwt.ParseSigned(body["access_token"].(string), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var c jwt.Claims
	var extra struct {
		ClientID string `json:"client_id"`
		Resource string `json:"resource"`
		Scope    string `json:"scope"`
	}
	if err := jag.Claims(s.PublicKey(), &c, &extra); err != nil {
		t.Fatal(err)
	}
	if typ := jag.Headers[0].ExtraHeaders[jose.HeaderType]; typ != IDJAGType || c.Issuer != s.URL || c.Subject != "alice" || len(c.Audience) != 1 || c.Audience[0] != "https://as.example" ||
		extra.ClientID != "mcp-client" || extra.Resource != "https://mcp.example/mcp" || extra.Scope != "mcp:read" || c.ID == "" {
		t.Errorf("ID-JAG typ %v, claims %+v %+v", typ, c, extra)
	}
	for _, tt := range []struct {
		name string
		edit map[string]string
		want string
	}{
		{"expired ID token", map[string]string{"subject_token": s.IDToken(t, "alice", "idp-client", -time.Hour)}, "invalid_grant"},
		{"ID token of another client", map[string]string{"client_id": "another-app"}, "invalid_grant"},
		{"no audience", map[string]string{"audience": ""}, "invalid_request"},
		{"no resource", map[string]string{"resource": ""}, "invalid_request"},
		{"access token requested", map[string]string{"requested_token_type": "urn:ietf:params:oauth:token-type:access_token"}, "invalid_request"},
		{"SAML subject", map[string]string{"subject_token_type": "urn:ietf:params:oauth:token-type:saml2"}, "invalid_request"},
	} {
		if status, body := post(t, s, form(tt.edit), "", ""); status != http.StatusBadRequest || body["error"] != tt.want {
			t.Errorf("%s: status %d, %v: want 400 %s", tt.name, status, body, tt.want)
		}
	}
	plain := NewWith(t, Options{})
	if status, body := post(t, plain, form(nil), "", ""); status != http.StatusBadRequest || body["error"] != "unsupported_grant_type" {
		t.Errorf("a server that is no identity provider: status %d, %v", status, body)
	}
}
