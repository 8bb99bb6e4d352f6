package oauth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/dpop"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// rsNonces returns DPoP options of a resource server that requires its
// nonces in proofs, or not.
func rsDPoP(t *testing.T, nonce bool) *bearer.DPoPOptions {
	t.Helper()
	o := &bearer.DPoPOptions{}
	if nonce {
		n, err := dpop.NewHMACNonces(dpop.NonceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.Proofs.Nonces = n
	}
	return o
}

// A Client with Config.DPoP gets DPoP-bound tokens with a proof of its key
// at the token endpoint, in the login flow and as a machine client,
// retries with the authorization server's and the resource server's
// nonces, and sends the token with the DPoP scheme and a proof; a Bearer
// answer of an authorization server that does not bind is sent as a
// bearer token.
func TestDPoP(t *testing.T) {
	for _, tt := range []struct {
		name     string
		machine  bool
		as       oauthtest.DPoP
		required bool // the resource server takes DPoP-bound tokens only
		rsNonce  bool
		wantType string
	}{
		{"login", false, oauthtest.DPoP{}, true, false, "DPoP"},
		{"machine client", true, oauthtest.DPoP{}, true, false, "DPoP"},
		{"nonce at the authorization server", false, oauthtest.DPoP{Nonce: true}, true, false, "DPoP"},
		{"nonce at the resource server", false, oauthtest.DPoP{}, true, true, "DPoP"},
		{"nonces at both, machine client", true, oauthtest.DPoP{Nonce: true}, true, true, "DPoP"},
		{"Bearer answer falls back", false, oauthtest.DPoP{Unbound: true}, false, false, "Bearer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &tt.as, Clients: map[string]string{"machine": "secret"}})
			dp := rsDPoP(t, tt.rsNonce)
			dp.Required = tt.required
			url := protected(t, as, func(o *bearer.Options) { o.DPoP = dp })
			store := &oauth.MemoryStore{}
			cfg := oauth.Config{DPoP: &oauth.DPoPOptions{}, Store: store}
			if tt.machine {
				cfg.ClientCredentialsGrant = true
				cfg.Clients = []oauth.ClientCredentials{{ClientID: "machine", ClientSecret: "secret"}}
			}
			hc := httpClient(t, client(t, cfg), url)
			mustCall(t, hc, url, "tools/list")
			mustCall(t, hc, url, "tools/call")
			trs := as.TokenRequests()
			if len(trs) != 1 {
				t.Fatalf("%d token requests accepted, want 1: %+v", len(trs), trs)
			}
			if trs[0].DPoPJKT == "" {
				t.Fatalf("the token request had no valid DPoP proof")
			}
			tok, err := store.LoadToken(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			if tok.TokenType != tt.wantType {
				t.Errorf("stored token_type %q, want %q", tok.TokenType, tt.wantType)
			}
			if tt.wantType == "DPoP" {
				if tok.DPoPKey == nil {
					t.Fatal("the DPoP-bound token is stored without its key")
				}
				if jkt, _ := dpop.Thumbprint(tok.DPoPKey); jkt != trs[0].DPoPJKT {
					t.Errorf("stored key %s, the token request's proof %s", jkt, trs[0].DPoPJKT)
				}
			}
		})
	}
}

// A refresh sends a proof of the same key, so the new token keeps the
// binding (the test server refuses a refresh token with another key).
func TestDPoPRefreshKeepsKey(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{}, RefreshTokens: true, TokenLifetime: 5 * time.Second})
	url := protected(t, as, func(o *bearer.Options) { o.DPoP = &bearer.DPoPOptions{Required: true} })
	hc := httpClient(t, client(t, oauth.Config{DPoP: &oauth.DPoPOptions{}}), url)
	mustCall(t, hc, url, "tools/list") // authorizes
	mustCall(t, hc, url, "tools/list") // the token expires within 10 s: refreshed first
	trs := as.TokenRequests()
	if len(trs) != 2 || trs[0].GrantType != "authorization_code" || trs[1].GrantType != "refresh_token" {
		t.Fatalf("token requests %+v, want a code exchange then a refresh", trs)
	}
	if trs[0].DPoPJKT == "" || trs[1].DPoPJKT != trs[0].DPoPJKT {
		t.Errorf("refresh proof key %q, code exchange's %q: want the same key", trs[1].DPoPJKT, trs[0].DPoPJKT)
	}
}

// A configured key signs the proofs, and is not written to the Store.
func TestDPoPConfiguredKey(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	want, _ := dpop.Thumbprint(key)
	as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{}})
	url := protected(t, as, func(o *bearer.Options) { o.DPoP = &bearer.DPoPOptions{Required: true} })
	store := &oauth.MemoryStore{}
	mustCall(t, httpClient(t, client(t, oauth.Config{DPoP: &oauth.DPoPOptions{Key: key}, Store: store}), url), url, "tools/list")
	if trs := as.TokenRequests(); len(trs) != 1 || trs[0].DPoPJKT != want {
		t.Errorf("token requests %+v, want one with a proof of the configured key %s", trs, want)
	}
	tok, err := store.LoadToken(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if tok.DPoPKey != nil {
		t.Error("the configured key was saved in the Store")
	}
}

// The FileStore keeps the generated key with its token: a new Client on
// the same file sends the stored token with proofs of that key, without a
// new authorization; a file without a key (an older store) loads.
func TestDPoPFileStore(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{}})
	url := protected(t, as, func(o *bearer.Options) { o.DPoP = &bearer.DPoPOptions{Required: true} })
	path := filepath.Join(t.TempDir(), "tokens.json")
	mustCall(t, httpClient(t, client(t, oauth.Config{DPoP: &oauth.DPoPOptions{}, Store: oauth.NewFileStore(path)}), url), url, "tools/list")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"dpop_key"`) {
		t.Errorf("the file holds no dpop_key: %.200s", data)
	}
	mustCall(t, httpClient(t, client(t, oauth.Config{DPoP: &oauth.DPoPOptions{}, Store: oauth.NewFileStore(path)}), url), url, "tools/list")
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations, want 1: the second client should prove the stored token with the stored key", n)
	}

	old := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(old, []byte(`{"tokens":[{"resource":"https://mcp.example.com","token":{"issuer":"https://as.example.com","access_token":"at","token_type":"Bearer"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tok, err := oauth.NewFileStore(old).LoadToken(context.Background(), "https://mcp.example.com")
	if err != nil {
		t.Fatalf("a store without dpop_key: %v", err)
	}
	if tok.AccessToken != "at" || tok.DPoPKey != nil {
		t.Errorf("loaded %+v, want the token without a key", tok)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"tokens":[{"resource":"r","token":{"access_token":"at","dpop_key":"AAAA"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.NewFileStore(bad).LoadToken(context.Background(), "r"); err == nil || !strings.Contains(err.Error(), "PKCS#8") {
		t.Errorf("a store with a broken dpop_key: err = %v, want one naming PKCS#8", err)
	}
}

// recorder is a transport that keeps the headers of the last request.
type recorder struct {
	last http.Header
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.last = req.Header.Clone()
	return http.DefaultTransport.RoundTrip(req)
}

// A proof the Client sent is refused when it is sent again: each request
// gets a new one.
func TestDPoPReplayRefused(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{}})
	url := protected(t, as, func(o *bearer.Options) { o.DPoP = &bearer.DPoPOptions{Required: true} })
	rec := &recorder{}
	c := client(t, oauth.Config{DPoP: &oauth.DPoPOptions{}, HTTPClient: &http.Client{Transport: rec}})
	hc := httpClient(t, c, url)
	mustCall(t, hc, url, "tools/list")
	first := rec.last.Get("DPoP")
	mustCall(t, hc, url, "tools/list")
	if first == "" || rec.last.Get("DPoP") == first {
		t.Fatalf("proofs %q and %q: want a new one per request", first, rec.last.Get("DPoP"))
	}
	if !strings.HasPrefix(rec.last.Get("Authorization"), "DPoP ") {
		t.Fatalf("Authorization %.10q…, want the DPoP scheme", rec.last.Get("Authorization"))
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = rec.last.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a replayed proof: status %d, want 401", resp.StatusCode)
	}
}

// A DPoP-bound token of the Store, read by a Client without Config.DPoP,
// is not sent (it has no key to prove it with): the server's 401 leads to
// a new authorization, for a bearer token.
func TestDPoPStoredTokenWithoutDPoP(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{}})
	url := protected(t, as, func(o *bearer.Options) { o.DPoP = &bearer.DPoPOptions{} })
	store := &oauth.MemoryStore{}
	mustCall(t, httpClient(t, client(t, oauth.Config{DPoP: &oauth.DPoPOptions{}, Store: store}), url), url, "tools/list")
	mustCall(t, httpClient(t, client(t, oauth.Config{Store: store}), url), url, "tools/list")
	trs := as.TokenRequests()
	if len(trs) != 2 || trs[0].DPoPJKT == "" || trs[1].DPoPJKT != "" {
		t.Fatalf("token requests %+v, want one with a proof, then one without", trs)
	}
	tok, err := store.LoadToken(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.DPoPKey != nil {
		t.Errorf("stored token_type %q (key %v), want a Bearer token without a key", tok.TokenType, tok.DPoPKey != nil)
	}
}

// The JWT bearer grant of a workload and of enterprise-managed
// authorization carries a proof at the authorization server (with its
// nonce) and gets a DPoP-bound token; the token exchange at the identity
// provider carries none.
func TestDPoPJWTBearer(t *testing.T) {
	wlKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, dp *oauthtest.DPoP) (as, idp *oauthtest.Server, cfg oauth.Config)
	}{
		{"workload identity", func(t *testing.T, dp *oauthtest.DPoP) (*oauthtest.Server, *oauthtest.Server, oauth.Config) {
			as := oauthtest.NewWith(t, oauthtest.Options{DPoP: dp, AssertionIssuers: map[string]oauthtest.AssertionIssuer{workloadIssuer: {Key: &wlKey.PublicKey, Subjects: []string{"agent-7"}}}})
			return as, nil, oauth.Config{WorkloadIdentity: static(workloadJWT(t, wlKey, "", "agent-7", as.URL, time.Hour))}
		}},
		{"enterprise-managed authorization", func(t *testing.T, dp *oauthtest.DPoP) (*oauthtest.Server, *oauthtest.Server, oauth.Config) {
			idp := oauthtest.NewWith(t, oauthtest.Options{IdentityProvider: &oauthtest.IdentityProvider{ClientID: "mcp-client"}, DPoP: &oauthtest.DPoP{Nonce: true}})
			as := oauthtest.NewWith(t, oauthtest.Options{
				DPoP:             dp,
				Clients:          map[string]string{"mcp-client": "mcp-secret"},
				AssertionIssuers: map[string]oauthtest.AssertionIssuer{idp.URL: {KeyFunc: func() crypto.PublicKey { return idp.PublicKey() }, Type: oauthtest.IDJAGType}},
			})
			return as, idp, enterpriseConfig(t, idp, idp.IDToken(t, "alice@example.com", "idp-client", time.Hour))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, idp, cfg := tt.setup(t, &oauthtest.DPoP{Nonce: true})
			url := protected(t, as, func(o *bearer.Options) { o.DPoP = &bearer.DPoPOptions{Required: true} })
			store := &oauth.MemoryStore{}
			cfg.DPoP, cfg.Store = &oauth.DPoPOptions{}, store
			c, err := oauth.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			mustCall(t, httpClient(t, c, url), url, "tools/list")
			trs := as.TokenRequests()
			if len(trs) != 1 || trs[0].GrantType != oauthtest.JWTBearerGrantType || trs[0].DPoPJKT == "" {
				t.Fatalf("token requests %+v, want one JWT bearer grant with a proof", trs)
			}
			if idp != nil {
				// The exchange at the identity provider carries no proof.
				if ex := idp.TokenRequests(); len(ex) != 1 || ex[0].DPoPJKT != "" {
					t.Errorf("token exchanges %+v, want one without a proof", ex)
				}
			}
			tok, err := store.LoadToken(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			if tok.TokenType != "DPoP" || tok.DPoPKey == nil {
				t.Errorf("stored token_type %q (key %v), want DPoP with its key", tok.TokenType, tok.DPoPKey != nil)
			}
		})
	}
}

// The debug log of a DPoP login with nonces at both servers, a refresh
// and a logout holds no token, no proof and no key.
func TestDPoPLogs(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{Nonce: true}, RefreshTokens: true, TokenLifetime: 5 * time.Second})
	dp := rsDPoP(t, true)
	dp.Required = true
	url := protected(t, as, func(o *bearer.Options) { o.DPoP = dp })
	var logs bytes.Buffer
	rec := &recorder{}
	store := &oauth.MemoryStore{}
	c := client(t, oauth.Config{DPoP: &oauth.DPoPOptions{}, Store: store, HTTPClient: &http.Client{Transport: rec},
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	hc := httpClient(t, c, url)
	mustCall(t, hc, url, "tools/list")
	mustCall(t, hc, url, "tools/list") // refreshed first: the token expires within 10 s
	tok, err := store.LoadToken(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(tok.DPoPKey)
	if err != nil {
		t.Fatal(err)
	}
	proof := rec.last.Get("DPoP")
	if err := c.Logout(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	if revoked := as.Revocations(); len(revoked) != 1 || rec.last.Get("DPoP") == "" || rec.last.Get("DPoP") == proof {
		t.Errorf("revocations %d, the last request's proof %.12q…: want the revocation with a proof of its own", len(revoked), rec.last.Get("DPoP"))
	}
	if !strings.Contains(logs.String(), "DPoP nonce") {
		t.Fatalf("the logs do not show the nonce retry:\n%s", logs.String())
	}
	for name, s := range map[string]string{
		"access token":  tok.AccessToken,
		"refresh token": tok.RefreshToken,
		"proof":         proof,
		"key":           base64.StdEncoding.EncodeToString(der),
		"a JWT":         "eyJ",
	} {
		if s == "" {
			t.Fatalf("no %s to look for", name)
		}
		if strings.Contains(logs.String(), s) {
			t.Errorf("the logs hold the %s:\n%s", name, logs.String())
		}
	}
}
