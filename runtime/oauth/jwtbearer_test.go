package oauth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// workloadIssuer is the iss of the workload identity tokens of the tests.
const workloadIssuer = "https://workload.platform.example"

// workloadJWT returns a workload identity token signed with key: iss
// workloadIssuer, sub, aud, exp life from now (negative: expired), a jti.
func workloadJWT(t *testing.T, key *ecdsa.PrivateKey, typ, sub, aud string, life time.Duration) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s, err := jwt.Signed(sig).Claims(jwt.Claims{Issuer: workloadIssuer, Subject: sub, Audience: jwt.Audience{aud}, IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), Expiry: jwt.NewNumericDate(now.Add(life)), ID: rand.Text()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// static is an AssertionSource of one assertion.
func static(a string) oauth.AssertionSource {
	return func(context.Context) (string, error) { return a, nil }
}

// workloadServer starts an authorization server that trusts the workload
// tokens of key for the subject "agent-7", with the clients of opts, and
// a resource server asking for scope mcp:read; it returns both.
func workloadServer(t *testing.T, key *ecdsa.PrivateKey, opts oauthtest.Options) (*oauthtest.Server, string) {
	t.Helper()
	opts.AssertionIssuers = map[string]oauthtest.AssertionIssuer{workloadIssuer: {Key: &key.PublicKey, Subjects: []string{"agent-7"}}}
	as := oauthtest.NewWith(t, opts)
	return as, protected(t, as, func(o *bearer.Options) { o.Scopes = []string{"mcp:read"} })
}

// A workload gets its token with the JWT bearer grant, presenting its
// workload identity token with the resource parameter and the challenge's
// scope, with no client authentication or as its client says; the token
// reaches the MCP server and is reused.
func TestWorkloadIdentity(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	clientKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tt := range []struct {
		name       string
		clients    []oauth.ClientCredentials
		wantClient string
		wantMethod string
	}{
		{"no client", nil, "", "none"},
		{"public client", []oauth.ClientCredentials{{ClientID: "wl"}}, "wl", "none"},
		{"secret", []oauth.ClientCredentials{{ClientID: "machine", ClientSecret: "s"}}, "machine", "client_secret_basic"},
		{"private_key_jwt", []oauth.ClientCredentials{{ClientID: "jwt", PrivateKey: clientKey}}, "jwt", "private_key_jwt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, url := workloadServer(t, key, oauthtest.Options{Clients: map[string]string{"machine": "s"}, JWTClients: map[string]crypto.PublicKey{"jwt": &clientKey.PublicKey}})
			wl := workloadJWT(t, key, "", "agent-7", as.URL, time.Hour)
			store := &oauth.MemoryStore{}
			c, err := oauth.New(oauth.Config{WorkloadIdentity: static(wl), Clients: tt.clients, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			hc := httpClient(t, c, url)
			mustCall(t, hc, url, "tools/list")
			mustCall(t, hc, url, "tools/call")
			trs := as.TokenRequests()
			if len(trs) != 1 {
				t.Fatalf("%d token requests, want 1: %+v", len(trs), trs)
			}
			tr := trs[0]
			if tr.GrantType != oauthtest.JWTBearerGrantType || tr.Assertion != wl || tr.Resource != url || tr.Scope != "mcp:read" || tr.ClientID != tt.wantClient || tr.AuthMethod != tt.wantMethod {
				t.Errorf("token request = %+v, want the JWT bearer grant with the workload token, resource %s, scope mcp:read, client %q by %s", tr, url, tt.wantClient, tt.wantMethod)
			}
			if len(as.AuthRequests()) != 0 || len(as.Registrations()) != 0 {
				t.Errorf("authorization requests %v, registrations %v: a workload makes none", as.AuthRequests(), as.Registrations())
			}
			tok, err := store.LoadToken(context.Background(), url)
			if err != nil || tok.Issuer != as.URL || tok.RefreshToken != "" || tok.Scope != "mcp:read" {
				t.Errorf("stored token = %+v, %v", tok, err)
			}
		})
	}
}

// The workload identity token is read again for every grant: a token
// file the platform rewrote is what the next grant presents, and so is an
// environment variable's new value.
func TestWorkloadIdentityRotates(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const env = "MCPGEN_TEST_WORKLOAD_TOKEN"
	file := filepath.Join(t.TempDir(), "token")
	for _, tt := range []struct {
		name  string
		src   oauth.AssertionSource
		write func(string)
	}{
		{"file", oauth.AssertionFile(file), func(a string) {
			if err := os.WriteFile(file, []byte(a+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"environment", oauth.AssertionEnv(env), func(a string) { t.Setenv(env, a) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Tokens live 5 s, less than the margin before expiry at which
			// a token is replaced: every request makes a new grant.
			as, url := workloadServer(t, key, oauthtest.Options{TokenLifetime: 5 * time.Second})
			c, err := oauth.New(oauth.Config{WorkloadIdentity: tt.src})
			if err != nil {
				t.Fatal(err)
			}
			hc := httpClient(t, c, url)
			var want []string
			for range 3 {
				a := workloadJWT(t, key, "", "agent-7", as.URL, time.Hour)
				tt.write(a)
				want = append(want, a)
				mustCall(t, hc, url, "tools/list")
			}
			trs := as.TokenRequests()
			if len(trs) != 3 {
				t.Fatalf("%d token requests, want 3", len(trs))
			}
			for i, tr := range trs {
				if tr.Assertion != want[i] {
					t.Errorf("grant %d presented an old workload token", i)
				}
			}
		})
	}
}

// What a workload's grant refuses, or the authorization server refuses:
// the error names the step and the cause, holds no assertion, and comes
// after one token request at most (no retry, no other grant).
func TestWorkloadIdentityErrors(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		opts     oauthtest.Options
		src      func(issuer string) oauth.AssertionSource
		wantErr  string
		requests int
	}{
		{"wrong aud", oauthtest.Options{}, func(iss string) oauth.AssertionSource {
			return static(workloadJWT(t, key, "", "agent-7", "https://other.example", time.Hour))
		}, "invalid_grant", 1},
		{"expired", oauthtest.Options{}, func(iss string) oauth.AssertionSource {
			return static(workloadJWT(t, key, "", "agent-7", iss, -time.Hour))
		}, "invalid_grant", 1},
		{"another subject", oauthtest.Options{}, func(iss string) oauth.AssertionSource {
			return static(workloadJWT(t, key, "", "agent-8", iss, time.Hour))
		}, "invalid_grant", 1},
		{"another key", oauthtest.Options{}, func(iss string) oauth.AssertionSource {
			return static(workloadJWT(t, other, "", "agent-7", iss, time.Hour))
		}, "invalid_grant", 1},
		{"not a JWT", oauthtest.Options{}, func(string) oauth.AssertionSource { return static("not-a-jwt") }, "Config.WorkloadIdentity: not a JWT", 0},
		{"white space", oauthtest.Options{}, func(string) oauth.AssertionSource { return static("a.b c.d") }, "Config.WorkloadIdentity: not one token", 0},
		{"source fails", oauthtest.Options{}, func(string) oauth.AssertionSource {
			return func(context.Context) (string, error) { return "", errors.New("agent socket closed") }
		}, "Config.WorkloadIdentity: agent socket closed", 0},
		{"empty file", oauthtest.Options{}, func(string) oauth.AssertionSource { return oauth.AssertionFile(empty) }, "empty; it must hold one JWT", 0},
		{"missing file", oauthtest.Options{}, func(string) oauth.AssertionSource {
			return oauth.AssertionFile(filepath.Join(t.TempDir(), "none"))
		}, "no such file", 0},
		{"unset variable", oauthtest.Options{}, func(string) oauth.AssertionSource { return oauth.AssertionEnv("MCPGEN_TEST_UNSET_VARIABLE") }, "MCPGEN_TEST_UNSET_VARIABLE: unset or empty", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, url := workloadServer(t, key, tt.opts)
			src := tt.src(as.URL)
			a, _ := src(context.Background())
			c, err := oauth.New(oauth.Config{WorkloadIdentity: src})
			if err != nil {
				t.Fatal(err)
			}
			_, err = call(httpClient(t, c, url), url, "tools/list")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "JWT bearer grant") {
				t.Fatalf("error %v, want one of the JWT bearer grant with %q", err, tt.wantErr)
			}
			if a != "" && strings.Contains(err.Error(), a) {
				t.Errorf("error %v holds the assertion", err)
			}
			if n := len(as.TokenRequests()); n != tt.requests {
				t.Errorf("%d token requests, want %d", n, tt.requests)
			}
		})
	}
}

// An authorization server that does not list the JWT bearer grant is
// refused before any token request.
func TestWorkloadIdentityGrantNotOffered(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	as := oauthtest.New(t)
	url := protected(t, as, nil)
	c, err := oauth.New(oauth.Config{WorkloadIdentity: static(workloadJWT(t, key, "", "agent-7", as.URL, time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(httpClient(t, c, url), url, "tools/list")
	if err == nil || !strings.Contains(err.Error(), "does not list urn:ietf:params:oauth:grant-type:jwt-bearer in grant_types_supported") {
		t.Fatalf("error %v", err)
	}
	if n := len(as.TokenRequests()); n != 0 {
		t.Errorf("%d token requests, want 0", n)
	}
}

// enterpriseSetup starts an identity provider, an authorization server
// that trusts its ID-JAGs and knows the client "mcp-client" (secret
// "mcp-secret"), and a resource server asking for scope mcp:read.
func enterpriseSetup(t *testing.T, idp oauthtest.IdentityProvider) (idpSrv, as *oauthtest.Server, url string) {
	t.Helper()
	idpSrv = oauthtest.NewWith(t, oauthtest.Options{IdentityProvider: &idp})
	as = oauthtest.NewWith(t, oauthtest.Options{
		Clients:          map[string]string{"mcp-client": "mcp-secret"},
		AssertionIssuers: map[string]oauthtest.AssertionIssuer{idpSrv.URL: {KeyFunc: func() crypto.PublicKey { return idpSrv.PublicKey() }, Type: oauthtest.IDJAGType}},
	})
	return idpSrv, as, protected(t, as, func(o *bearer.Options) { o.Scopes = []string{"mcp:read"} })
}

// enterpriseConfig is the Config of a client that signed in to idp as
// the user alice, with the client "idp-client" there, and is "mcp-client"
// at the MCP server's authorization server.
func enterpriseConfig(t *testing.T, idp *oauthtest.Server, idToken string) oauth.Config {
	return oauth.Config{
		Enterprise: &oauth.IdentityProvider{
			TokenEndpoint:     idp.URL + "/token",
			ClientID:          "idp-client",
			IdentityAssertion: static(idToken),
		},
		Clients: []oauth.ClientCredentials{{ClientID: "mcp-client", ClientSecret: "mcp-secret"}},
	}
}

// Enterprise-managed authorization: the user's ID token is exchanged at
// the identity provider for an ID-JAG for the authorization server's
// issuer and the MCP server, which the client presents in the JWT bearer
// grant, authenticating with its secret; the token reaches the MCP
// server.
func TestEnterprise(t *testing.T) {
	idp, as, url := enterpriseSetup(t, oauthtest.IdentityProvider{ClientID: "mcp-client"})
	idToken := idp.IDToken(t, "alice@example.com", "idp-client", time.Hour)
	store := &oauth.MemoryStore{}
	cfg := enterpriseConfig(t, idp, idToken)
	cfg.Store = store
	c, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hc := httpClient(t, c, url)
	mustCall(t, hc, url, "tools/list")
	mustCall(t, hc, url, "tools/call")
	ex := idp.TokenRequests()
	if len(ex) != 1 {
		t.Fatalf("%d requests at the identity provider, want 1: %+v", len(ex), ex)
	}
	want := oauthtest.TokenRequest{GrantType: oauthtest.TokenExchangeGrantType, ClientID: "idp-client", AuthMethod: "none", Resource: url, Scope: "mcp:read",
		Audience: as.URL, SubjectToken: idToken, SubjectTokenType: oauthtest.IDTokenType, RequestedTokenType: oauthtest.IDJAGTokenType}
	if ex[0] != want {
		t.Errorf("token exchange = %+v\nwant %+v", ex[0], want)
	}
	trs := as.TokenRequests()
	if len(trs) != 1 {
		t.Fatalf("%d token requests at the authorization server, want 1: %+v", len(trs), trs)
	}
	if tr := trs[0]; tr.GrantType != oauthtest.JWTBearerGrantType || tr.ClientID != "mcp-client" || tr.AuthMethod != "client_secret_basic" || tr.Resource != url || tr.Scope != "mcp:read" || tr.Assertion == "" {
		t.Errorf("token request = %+v, want the JWT bearer grant by mcp-client with client_secret_basic, resource %s, scope mcp:read", tr, url)
	}
	jag, err := jwt.ParseSigned(trs[0].Assertion, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var cl jwt.Claims
	if err := jag.Claims(idp.PublicKey(), &cl); err != nil || cl.Subject != "alice@example.com" || len(cl.Audience) != 1 || cl.Audience[0] != as.URL {
		t.Errorf("ID-JAG claims %+v, %v: want sub alice, aud %s", cl, err, as.URL)
	}
	if tok, err := store.LoadToken(context.Background(), url); err != nil || tok.RefreshToken != "" || tok.Issuer != as.URL {
		t.Errorf("stored token = %+v, %v", tok, err)
	}
}

// What enterprise-managed authorization refuses, or the servers refuse:
// an answer of the identity provider that is not an ID-JAG is not
// presented to the authorization server; errors hold neither the ID
// token nor a secret.
func TestEnterpriseErrors(t *testing.T) {
	for _, tt := range []struct {
		name     string
		idp      oauthtest.IdentityProvider
		idToken  func(idp *oauthtest.Server) string
		edit     func(*oauth.Config)
		wantErr  string
		step     string
		bearerRq int
	}{
		{"issued_token_type not id-jag", oauthtest.IdentityProvider{ClientID: "mcp-client", IssuedTokenType: "urn:ietf:params:oauth:token-type:access_token"}, nil, nil,
			`issued_token_type "urn:ietf:params:oauth:token-type:access_token", want urn:ietf:params:oauth:token-type:id-jag`, "token exchange", 0},
		{"expired ID token", oauthtest.IdentityProvider{ClientID: "mcp-client"}, func(idp *oauthtest.Server) string {
			return idp.IDToken(t, "alice@example.com", "idp-client", -time.Hour)
		}, nil, "invalid_grant", "token exchange", 0},
		{"ID token of another client", oauthtest.IdentityProvider{ClientID: "mcp-client"}, func(idp *oauthtest.Server) string {
			return idp.IDToken(t, "alice@example.com", "another-app", time.Hour)
		}, nil, "invalid_grant", "token exchange", 0},
		{"ID-JAG for another client", oauthtest.IdentityProvider{ClientID: "someone-else"}, nil, nil, "invalid_grant", "JWT bearer grant", 1},
		{"wrong secret at the authorization server", oauthtest.IdentityProvider{ClientID: "mcp-client"}, nil, func(c *oauth.Config) {
			c.Clients[0].ClientSecret = "wrong-secret"
		}, "invalid_client", "JWT bearer grant", 1},
		{"SAML assertion, which the provider refuses", oauthtest.IdentityProvider{ClientID: "mcp-client"}, func(*oauthtest.Server) string {
			return "PHNhbWw6QXNzZXJ0aW9uPjwvc2FtbDpBc3NlcnRpb24-" // base64url, not a JWT: sent as it is
		}, func(c *oauth.Config) {
			c.Enterprise.AssertionType = oauth.SAML2TokenType
		}, "invalid_request", "token exchange", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			idp, as, url := enterpriseSetup(t, tt.idp)
			idToken := idp.IDToken(t, "alice@example.com", "idp-client", time.Hour)
			if tt.idToken != nil {
				idToken = tt.idToken(idp)
			}
			var logs bytes.Buffer
			cfg := enterpriseConfig(t, idp, idToken)
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			if tt.edit != nil {
				tt.edit(&cfg)
			}
			c, err := oauth.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = call(httpClient(t, c, url), url, "tools/list")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.step) {
				t.Fatalf("error %v, want one of the %s with %q", err, tt.step, tt.wantErr)
			}
			if ex := idp.TokenRequests(); len(ex) != 1 || ex[0].SubjectToken != idToken {
				t.Errorf("token exchanges %+v, want one, of the identity assertion", ex)
			}
			if n := len(as.TokenRequests()); n != tt.bearerRq {
				t.Errorf("%d token requests at the authorization server, want %d", n, tt.bearerRq)
			}
			for _, s := range append([]string{idToken, "mcp-secret", "wrong-secret"}, assertions(as)...) {
				if strings.Contains(err.Error(), s) || strings.Contains(logs.String(), s) {
					t.Errorf("the error or the logs hold a credential: %v\n%s", err, logs.String())
				}
			}
		})
	}
}

// assertions returns the assertions as received.
func assertions(as *oauthtest.Server) []string {
	var out []string
	for _, tr := range as.TokenRequests() {
		if tr.Assertion != "" {
			out = append(out, tr.Assertion)
		}
	}
	return out
}

// New refuses configurations of workloads and of enterprise-managed
// authorization that cannot work.
func TestJWTBearerConfig(t *testing.T) {
	src := static("a.b.c")
	idp := func(edit func(*oauth.IdentityProvider)) *oauth.IdentityProvider {
		p := &oauth.IdentityProvider{TokenEndpoint: "https://idp.example/token", ClientID: "c", IdentityAssertion: src}
		if edit != nil {
			edit(p)
		}
		return p
	}
	mcpClient := []oauth.ClientCredentials{{ClientID: "m", ClientSecret: "s"}}
	for _, tt := range []struct {
		name    string
		cfg     oauth.Config
		wantErr string
	}{
		{"two modes", oauth.Config{ClientCredentialsGrant: true, WorkloadIdentity: src, Clients: mcpClient}, "Config.ClientCredentialsGrant and Config.WorkloadIdentity: set one of them only"},
		{"three modes", oauth.Config{ClientCredentialsGrant: true, WorkloadIdentity: src, Enterprise: idp(nil), Clients: mcpClient}, "and Config.Enterprise: set one"},
		{"none with a secret", oauth.Config{WorkloadIdentity: src, Clients: []oauth.ClientCredentials{{ClientID: "m", ClientSecret: "s", AuthMethod: "none"}}}, `AuthMethod "none" with a ClientSecret`},
		{"unknown method", oauth.Config{WorkloadIdentity: src, Clients: []oauth.ClientCredentials{{ClientID: "m", AuthMethod: "tls_client_auth"}}}, "the JWT bearer grant needs"},
		{"no token endpoint", oauth.Config{Enterprise: idp(func(p *oauth.IdentityProvider) { p.TokenEndpoint = "" }), Clients: mcpClient}, "TokenEndpoint"},
		{"relative token endpoint", oauth.Config{Enterprise: idp(func(p *oauth.IdentityProvider) { p.TokenEndpoint = "/token" }), Clients: mcpClient}, "must be an absolute https URL"},
		{"no IdP client", oauth.Config{Enterprise: idp(func(p *oauth.IdentityProvider) { p.ClientID = "" }), Clients: mcpClient}, "no ClientID"},
		{"no identity assertion", oauth.Config{Enterprise: idp(func(p *oauth.IdentityProvider) { p.IdentityAssertion = nil }), Clients: mcpClient}, "no IdentityAssertion"},
		{"unknown assertion type", oauth.Config{Enterprise: idp(func(p *oauth.IdentityProvider) { p.AssertionType = "urn:x" }), Clients: mcpClient}, `AssertionType "urn:x"`},
		{"private_key_jwt at the IdP", oauth.Config{Enterprise: idp(func(p *oauth.IdentityProvider) { p.AuthMethod = "private_key_jwt" }), Clients: mcpClient}, "not supported at the identity provider"},
		{"no client at the authorization server", oauth.Config{Enterprise: idp(nil)}, "Config.Clients must hold the client's credentials at the MCP server's authorization server"},
	} {
		_, err := oauth.New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: New: %v, want an error with %q", tt.name, err, tt.wantErr)
		}
	}
	for _, cfg := range []oauth.Config{
		{WorkloadIdentity: src},
		{WorkloadIdentity: src, Clients: []oauth.ClientCredentials{{ClientID: "public"}}},
		{Enterprise: idp(nil), Clients: mcpClient},
		{Enterprise: idp(nil), ClientMetadataURL: "https://app.example/client.json"},
	} {
		if _, err := oauth.New(cfg); err != nil {
			t.Errorf("New: %v", err)
		}
	}
}

// Logout of a workload with no client forgets the token without a
// revocation (it cannot authenticate one), and the next request makes a
// new grant; with a client, the token is revoked as that client.
func TestWorkloadIdentityLogout(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tt := range []struct {
		name        string
		clients     []oauth.ClientCredentials
		revocations int
	}{
		{"no client", nil, 0},
		{"client", []oauth.ClientCredentials{{ClientID: "machine", ClientSecret: "s"}}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, url := workloadServer(t, key, oauthtest.Options{Clients: map[string]string{"machine": "s"}})
			c, err := oauth.New(oauth.Config{WorkloadIdentity: static(workloadJWT(t, key, "", "agent-7", as.URL, time.Hour)), Clients: tt.clients})
			if err != nil {
				t.Fatal(err)
			}
			hc := httpClient(t, c, url)
			mustCall(t, hc, url, "tools/list")
			if err := c.Logout(context.Background(), url); err != nil {
				t.Fatal(err)
			}
			if n := len(as.Revocations()); n != tt.revocations {
				t.Errorf("%d revocations, want %d", n, tt.revocations)
			}
			mustCall(t, hc, url, "tools/list")
			if n := len(as.TokenRequests()); n != 2 {
				t.Errorf("%d token requests, want 2 (a new grant after Logout)", n)
			}
		})
	}
}
