package oauth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// machine returns an oauth.Client of the client_credentials grant with
// the client cc.
func machine(t *testing.T, cc oauth.ClientCredentials, store oauth.Store) *oauth.Client {
	t.Helper()
	c, err := oauth.New(oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{cc}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A machine client gets its token with the client_credentials grant, with
// the resource parameter and the scope of the challenge, authenticating
// as its credentials and the server's metadata say; the token reaches the
// MCP server, and the client assertions are those RFC 7523 asks for.
func TestClientCredentialsGrant(t *testing.T) {
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	const secret = "s3cr:t&=x" // form-urlencoded before Basic (RFC 6749 section 2.3.1)
	for _, tt := range []struct {
		name       string
		methods    []string // token_endpoint_auth_methods_supported; nil: all
		cc         oauth.ClientCredentials
		wantMethod string
		wantAlg    string
		wantKeyID  string
		verifyKey  crypto.PublicKey
	}{
		{"secret, basic", nil, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret}, "client_secret_basic", "", "", nil},
		{"secret, post only", []string{"client_secret_post"}, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret}, "client_secret_post", "", "", nil},
		{"secret, post asked", nil, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret, AuthMethod: "client_secret_post"}, "client_secret_post", "", "", nil},
		{"ES256 key with kid", nil, oauth.ClientCredentials{ClientID: "jwt-ec", PrivateKey: ecKey, KeyID: "k1"}, "private_key_jwt", "ES256", "k1", &ecKey.PublicKey},
		{"RS256 key", nil, oauth.ClientCredentials{ClientID: "jwt-rsa", PrivateKey: rsaKey}, "private_key_jwt", "RS256", "", &rsaKey.PublicKey},
		{"Ed25519 key", nil, oauth.ClientCredentials{ClientID: "jwt-ed", PrivateKey: edKey}, "private_key_jwt", "EdDSA", "", edKey.Public()},
		{"key and secret: the key", nil, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret, PrivateKey: ecKey}, "private_key_jwt", "ES256", "", &ecKey.PublicKey},
		{"key and secret, basic only: the secret", []string{"client_secret_basic"}, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret, PrivateKey: ecKey}, "client_secret_basic", "", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, oauthtest.Options{
				AuthMethods: tt.methods,
				Clients:     map[string]string{"machine": secret},
				JWTClients:  map[string]crypto.PublicKey{"jwt-ec": &ecKey.PublicKey, "jwt-rsa": &rsaKey.PublicKey, "jwt-ed": edKey.Public(), "machine": &ecKey.PublicKey},
			})
			url := protected(t, as, func(o *bearer.Options) { o.Scopes = []string{"mcp:read"} })
			store := &oauth.MemoryStore{}
			c := machine(t, tt.cc, store)
			hc := httpClient(t, c, url)
			mustCall(t, hc, url, "tools/list")
			mustCall(t, hc, url, "tools/call")
			trs := as.TokenRequests()
			if len(trs) != 1 {
				t.Fatalf("%d token requests, want 1 (the second call reuses the token): %+v", len(trs), trs)
			}
			tr := trs[0]
			if tr.GrantType != "client_credentials" || tr.ClientID != tt.cc.ClientID || tr.AuthMethod != tt.wantMethod || tr.Resource != url || tr.Scope != "mcp:read" {
				t.Errorf("token request = %+v, want client_credentials by %s with %s, resource %s, scope mcp:read", tr, tt.cc.ClientID, tt.wantMethod, url)
			}
			if len(as.AuthRequests()) != 0 || len(as.Registrations()) != 0 {
				t.Errorf("authorization requests %v, registrations %v: a machine client makes none", as.AuthRequests(), as.Registrations())
			}
			tok, err := store.LoadToken(context.Background(), url)
			if err != nil || tok.Issuer != as.URL || tok.RefreshToken != "" || tok.Scope != "mcp:read" {
				t.Errorf("stored token = %+v, %v", tok, err)
			}
			if tt.verifyKey == nil {
				if tr.ClientAssertion != "" {
					t.Errorf("a client assertion with %s", tt.wantMethod)
				}
				return
			}
			a, err := jwt.ParseSigned(tr.ClientAssertion, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(tt.wantAlg)})
			if err != nil {
				t.Fatalf("client assertion: %v", err)
			}
			if h := a.Headers[0]; h.KeyID != tt.wantKeyID {
				t.Errorf("kid %q, want %q", h.KeyID, tt.wantKeyID)
			}
			var cl jwt.Claims
			if err := a.Claims(tt.verifyKey, &cl); err != nil {
				t.Fatalf("client assertion: %v", err)
			}
			if cl.Issuer != tt.cc.ClientID || cl.Subject != tt.cc.ClientID || len(cl.Audience) != 1 || cl.Audience[0] != as.URL || cl.ID == "" {
				t.Errorf("claims %+v: want iss = sub = %s, aud [%s], a jti", cl, tt.cc.ClientID, as.URL)
			}
			if cl.IssuedAt == nil || cl.Expiry == nil || cl.Expiry.Time().Sub(cl.IssuedAt.Time()) != oauth.AssertionLifetime || oauth.AssertionLifetime > 5*time.Minute {
				t.Errorf("iat %v, exp %v: want exp = iat + %v", cl.IssuedAt, cl.Expiry, oauth.AssertionLifetime)
			}
		})
	}
}

// Each token request has a new assertion (a new jti): a token that
// expires is replaced with a new grant before it is sent, and the test
// authorization server refuses a replayed jti.
func TestClientCredentialsRenew(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	// Tokens live 5 s, less than the margin before expiry at which a
	// token is replaced: every request gets a new one.
	as := oauthtest.NewWith(t, oauthtest.Options{TokenLifetime: 5 * time.Second, JWTClients: map[string]crypto.PublicKey{"jwt": &key.PublicKey}})
	url := protected(t, as, nil)
	c := machine(t, oauth.ClientCredentials{ClientID: "jwt", PrivateKey: key}, nil)
	hc := httpClient(t, c, url)
	for range 3 {
		mustCall(t, hc, url, "tools/list")
	}
	trs := as.TokenRequests()
	if len(trs) != 3 {
		t.Fatalf("%d token requests, want 3", len(trs))
	}
	seen := map[string]bool{}
	for _, tr := range trs {
		if tr.ClientAssertion == "" || seen[tr.ClientAssertion] {
			t.Errorf("assertion %q empty or sent twice", tr.ClientAssertion)
		}
		seen[tr.ClientAssertion] = true
	}
}

// A token from the Store that the server refuses is replaced with a new
// grant.
func TestClientCredentialsStoredTokenRefused(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{Clients: map[string]string{"machine": "secret"}})
	url := protected(t, as, nil)
	store := &oauth.MemoryStore{}
	stale := &oauth.Token{Issuer: as.URL, AccessToken: "revoked", TokenType: "Bearer"}
	if err := store.SaveToken(context.Background(), url, stale); err != nil {
		t.Fatal(err)
	}
	c := machine(t, oauth.ClientCredentials{ClientID: "machine", ClientSecret: "secret"}, store)
	mustCall(t, httpClient(t, c, url), url, "tools/list")
	if n := len(as.TokenRequests()); n != 1 {
		t.Errorf("%d token requests, want 1", n)
	}
	if tok, err := store.LoadToken(context.Background(), url); err != nil || tok.AccessToken == "revoked" {
		t.Errorf("stored token = %+v, %v: want the new one", tok, err)
	}
}

// What a machine client refuses, or the authorization server refuses, and
// that the errors say where and never hold the secret.
func TestClientCredentialsErrors(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const secret = "the-real-secret"
	for _, tt := range []struct {
		name    string
		opts    oauthtest.Options
		cc      oauth.ClientCredentials
		wantErr string
	}{
		{"wrong secret", oauthtest.Options{Clients: map[string]string{"machine": secret}}, oauth.ClientCredentials{ClientID: "machine", ClientSecret: "wrong-secret"}, "invalid_client"},
		{"unknown client", oauthtest.Options{Clients: map[string]string{"machine": secret}}, oauth.ClientCredentials{ClientID: "nobody", ClientSecret: secret}, "invalid_client"},
		{"another key", oauthtest.Options{JWTClients: map[string]crypto.PublicKey{"jwt": &key.PublicKey}}, oauth.ClientCredentials{ClientID: "jwt", PrivateKey: other}, "invalid_client"},
		{"grant not offered", oauthtest.Options{}, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret}, "does not list client_credentials in grant_types_supported"},
		{"no common auth method", oauthtest.Options{AuthMethods: []string{"private_key_jwt"}, Clients: map[string]string{"machine": secret}}, oauth.ClientCredentials{ClientID: "machine", ClientSecret: secret}, `allow "client_secret_basic client_secret_post" only`},
		{"client bound to another issuer", oauthtest.Options{Clients: map[string]string{"machine": secret}}, oauth.ClientCredentials{Issuer: "https://other.example", ClientID: "machine", ClientSecret: secret}, "Config.Clients has no client for issuer"},
		{"a server that takes its token endpoint as aud", oauthtest.Options{AssertionAudience: "token_endpoint", JWTClients: map[string]crypto.PublicKey{"jwt": &key.PublicKey}}, oauth.ClientCredentials{ClientID: "jwt", PrivateKey: key}, "invalid_client"},
		{"a key the server's algorithms leave out", oauthtest.Options{AssertionAlgs: []string{"RS256", "EdDSA"}, JWTClients: map[string]crypto.PublicKey{"jwt": &key.PublicKey}}, oauth.ClientCredentials{ClientID: "jwt", PrivateKey: key}, `takes client assertions signed with "RS256 EdDSA" (token_endpoint_auth_signing_alg_values_supported), and the PrivateKey signs ES256`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, tt.opts)
			url := protected(t, as, nil)
			c := machine(t, tt.cc, nil)
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one with %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), "client credentials grant") {
				t.Errorf("error %v does not name the step", err)
			}
			for _, s := range []string{secret, "wrong-secret"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %v holds the secret", err)
				}
			}
		})
	}
}

// The aud of a client assertion is the issuer unless AssertionAudience
// says the token endpoint; a server that lists the algorithms it takes
// gets an assertion signed with one of them.
func TestClientAssertionAudience(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tt := range []struct {
		name     string
		opts     oauthtest.Options
		audience string
		wantAud  string // after the server's URL
	}{
		{"issuer by default", oauthtest.Options{}, "", ""},
		{"issuer asked", oauthtest.Options{}, oauth.AudienceIssuer, ""},
		{"token endpoint", oauthtest.Options{AssertionAudience: "token_endpoint"}, oauth.AudienceTokenEndpoint, "/token"},
		{"an algorithm the server lists", oauthtest.Options{AssertionAlgs: []string{"RS256", "ES256"}}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.JWTClients = map[string]crypto.PublicKey{"jwt": &key.PublicKey}
			as := oauthtest.NewWith(t, tt.opts)
			url := protected(t, as, nil)
			c := machine(t, oauth.ClientCredentials{ClientID: "jwt", PrivateKey: key, AssertionAudience: tt.audience}, nil)
			mustCall(t, httpClient(t, c, url), url, "tools/list")
			trs := as.TokenRequests()
			if len(trs) != 1 {
				t.Fatalf("%d token requests, want 1", len(trs))
			}
			a, err := jwt.ParseSigned(trs[0].ClientAssertion, []jose.SignatureAlgorithm{jose.ES256})
			if err != nil {
				t.Fatal(err)
			}
			var cl jwt.Claims
			if err := a.Claims(&key.PublicKey, &cl); err != nil {
				t.Fatal(err)
			}
			if want := as.URL + tt.wantAud; len(cl.Audience) != 1 || cl.Audience[0] != want {
				t.Errorf("aud %v, want [%s]", cl.Audience, want)
			}
		})
	}
}

// New refuses configurations of machine clients that cannot work.
func TestClientCredentialsConfig(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		cfg     oauth.Config
		wantErr string
	}{
		{"no clients", oauth.Config{ClientCredentialsGrant: true}, "Config.Clients must hold the client's credentials"},
		{"neither secret nor key", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m"}}}, "needs a ClientSecret or a PrivateKey"},
		{"none", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", AuthMethod: "none"}}}, `AuthMethod "none"`},
		{"basic without a secret", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", AuthMethod: "client_secret_basic", PrivateKey: ec}}}, "without a ClientSecret"},
		{"private_key_jwt without a key", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", AuthMethod: "private_key_jwt", ClientSecret: "s"}}}, "without a PrivateKey"},
		{"P-224 key", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", PrivateKey: p224}}}, "P-256, P-384 or P-521"},
		{"1024-bit RSA key", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", PrivateKey: small}}}, "at least 2048"},
		{"key without the grant", oauth.Config{Authorizer: &oauth.Headless{}, Clients: []oauth.ClientCredentials{{ClientID: "m", PrivateKey: ec}}}, "private_key_jwt (a PrivateKey) is supported with Config.ClientCredentialsGrant, Config.WorkloadIdentity or Config.Enterprise only"},
		{"no authorizer, no grant", oauth.Config{}, "Config.Authorizer is required"},
		{"unknown assertion audience", oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", PrivateKey: ec, AssertionAudience: "token-endpoint"}}}, `AssertionAudience "token-endpoint"; want "issuer" (the default) or "token_endpoint"`},
	} {
		_, err := oauth.New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: New: %v, want an error with %q", tt.name, err, tt.wantErr)
		}
	}
	if _, err := oauth.New(oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{{ClientID: "m", PrivateKey: ec}}}); err != nil {
		t.Errorf("New with a key: %v", err)
	}
}

// Logout of a machine client revokes its access token, authenticating as
// at the token endpoint, and the next request gets a new grant.
func TestClientCredentialsLogout(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{Clients: map[string]string{"machine": "secret"}})
	url := protected(t, as, nil)
	c := machine(t, oauth.ClientCredentials{ClientID: "machine", ClientSecret: "secret"}, nil)
	hc := httpClient(t, c, url)
	mustCall(t, hc, url, "tools/list")
	if err := c.Logout(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	revs := as.Revocations()
	if len(revs) != 1 || revs[0].ClientID != "machine" || revs[0].Hint != "access_token" || revs[0].Token == "" {
		t.Errorf("revocations = %+v, want the access token's, by machine", revs)
	}
	mustCall(t, hc, url, "tools/list")
	if n := len(as.TokenRequests()); n != 2 {
		t.Errorf("%d token requests, want 2 (a new grant after Logout)", n)
	}
}

// The debug log of a machine client's grants holds neither the secret,
// nor the assertion, nor the token.
func TestClientCredentialsLogs(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const secret = "never-log-this-secret"
	for _, cc := range []oauth.ClientCredentials{
		{ClientID: "machine", ClientSecret: secret},
		{ClientID: "jwt", PrivateKey: key},
	} {
		as := oauthtest.NewWith(t, oauthtest.Options{Clients: map[string]string{"machine": secret}, JWTClients: map[string]crypto.PublicKey{"jwt": &key.PublicKey}})
		url := protected(t, as, nil)
		var logs bytes.Buffer
		c, err := oauth.New(oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{cc}, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err != nil {
			t.Fatal(err)
		}
		mustCall(t, httpClient(t, c, url), url, "tools/list")
		trs := as.TokenRequests()
		if len(trs) != 1 || !strings.Contains(logs.String(), "client credentials grant") {
			t.Fatalf("%d token requests; logs:\n%s", len(trs), logs.String())
		}
		for _, s := range []string{secret, trs[0].ClientAssertion} {
			if s != "" && strings.Contains(logs.String(), s) {
				t.Errorf("%s: the logs hold a credential:\n%s", cc.ClientID, logs.String())
			}
		}
	}
}
