package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// assertion signs a client assertion with claims, with key and alg.
func assertion(t *testing.T, key crypto.Signer, alg jose.SignatureAlgorithm, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// postToken sends a client_credentials token request with form (and
// Basic credentials when id is not empty) and returns the status and the
// error code of the answer.
func postToken(t *testing.T, s *Server, form url.Values, id, secret string) (int, string) {
	t.Helper()
	form.Set("grant_type", "client_credentials")
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
	var body struct {
		Error       string `json:"error"`
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode == http.StatusOK && body.AccessToken == "" {
		t.Fatalf("200 without an access_token")
	}
	return resp.StatusCode, body.Error
}

// The client_credentials grant: the secrets and assertions the test
// authorization server accepts, and those it refuses.
func TestClientCredentials(t *testing.T) {
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := NewWith(t, Options{
		Clients:    map[string]string{"machine": "s3cr:t&=x", "public": ""},
		JWTClients: map[string]crypto.PublicKey{"jwt-ec": &ecKey.PublicKey, "jwt-rsa": &rsaKey.PublicKey},
	})
	now := time.Now()
	claims := func(id string, edit map[string]any) map[string]any {
		c := map[string]any{"iss": id, "sub": id, "aud": s.URL, "iat": now.Unix(), "exp": now.Add(time.Minute).Unix(), "jti": random()}
		for k, v := range edit {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	jwtForm := func(a string) url.Values {
		return url.Values{"client_assertion_type": {AssertionType}, "client_assertion": {a}, "resource": {"https://mcp.example/mcp"}}
	}
	replayed := assertion(t, ecKey, jose.ES256, claims("jwt-ec", nil))
	for _, tt := range []struct {
		name       string
		form       url.Values
		id, secret string
		wantStatus int
		wantError  string
	}{
		{"basic", url.Values{"scope": {"mcp"}}, "machine", "s3cr:t&=x", 200, ""},
		{"post", url.Values{"client_id": {"machine"}, "client_secret": {"s3cr:t&=x"}}, "", "", 200, ""},
		{"wrong secret", url.Values{}, "machine", "guess", 401, "invalid_client"},
		{"unknown client", url.Values{}, "nobody", "s3cr:t&=x", 401, "invalid_client"},
		{"no authentication", url.Values{"client_id": {"public"}}, "", "", 401, "invalid_client"},
		{"ES256 assertion", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", nil))), "", "", 200, ""},
		{"RS256 assertion", jwtForm(assertion(t, rsaKey, jose.RS256, claims("jwt-rsa", nil))), "", "", 200, ""},
		{"aud the token endpoint", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"aud": s.URL + "/token"}))), "", "", 401, "invalid_client"},
		{"aud another server", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"aud": "https://evil.example"}))), "", "", 401, "invalid_client"},
		{"expired", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"iat": now.Add(-10 * time.Minute).Unix(), "exp": now.Add(-8 * time.Minute).Unix()}))), "", "", 401, "invalid_client"},
		{"lives too long", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"exp": now.Add(time.Hour).Unix()}))), "", "", 401, "invalid_client"},
		{"no jti", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"jti": nil}))), "", "", 401, "invalid_client"},
		{"no exp", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"exp": nil}))), "", "", 401, "invalid_client"},
		{"sub not iss", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-ec", map[string]any{"sub": "jwt-rsa"}))), "", "", 401, "invalid_client"},
		{"signed by another key", jwtForm(assertion(t, otherKey, jose.ES256, claims("jwt-ec", nil))), "", "", 401, "invalid_client"},
		{"RSA key's client, EC signature", jwtForm(assertion(t, ecKey, jose.ES256, claims("jwt-rsa", nil))), "", "", 401, "invalid_client"},
		{"unknown iss", jwtForm(assertion(t, ecKey, jose.ES256, claims("nobody", nil))), "", "", 401, "invalid_client"},
		{"wrong assertion type", url.Values{"client_assertion_type": {"urn:other"}, "client_assertion": {assertion(t, ecKey, jose.ES256, claims("jwt-ec", nil))}}, "", "", 401, "invalid_client"},
		{"not a JWT", jwtForm("not.a.jwt"), "", "", 401, "invalid_client"},
		{"first use", jwtForm(replayed), "", "", 200, ""},
		{"replayed jti", jwtForm(replayed), "", "", 401, "invalid_client"},
	} {
		status, code := postToken(t, s, tt.form, tt.id, tt.secret)
		if status != tt.wantStatus || code != tt.wantError {
			t.Errorf("%s: %d %q, want %d %q", tt.name, status, code, tt.wantStatus, tt.wantError)
		}
	}
	trs := s.TokenRequests()
	if len(trs) == 0 || trs[0].ClientID != "machine" || trs[0].AuthMethod != "client_secret_basic" || trs[0].Scope != "mcp" {
		t.Errorf("token requests = %+v", trs)
	}
}

// The metadata lists the grant and private_key_jwt when there are clients
// for them.
func TestClientCredentialsMetadata(t *testing.T) {
	for _, tt := range []struct {
		name        string
		opts        Options
		wantGrant   bool
		wantJWTAuth bool
	}{
		{"no clients", Options{}, false, false},
		{"secret clients", Options{Clients: map[string]string{"m": "s"}}, true, false},
		{"key clients", Options{JWTClients: map[string]crypto.PublicKey{"m": nil}}, true, true},
	} {
		m := newMeta(tt.opts)
		grants, _ := m["grant_types_supported"].([]string)
		methods, _ := m["token_endpoint_auth_methods_supported"].([]string)
		if got := slices.Contains(grants, "client_credentials"); got != tt.wantGrant {
			t.Errorf("%s: grant_types_supported %v", tt.name, grants)
		}
		if got := slices.Contains(methods, "private_key_jwt"); got != tt.wantJWTAuth {
			t.Errorf("%s: token_endpoint_auth_methods_supported %v", tt.name, methods)
		}
	}
}

func newMeta(opts Options) map[string]any {
	s := &Server{opts: opts, URL: "http://127.0.0.1:1"}
	return s.metadata()
}
