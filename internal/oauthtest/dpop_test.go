package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// dpopAnswer is what a DPoP token request got.
type dpopAnswer struct {
	status             int
	errCode, nonce     string
	tokenType, boundTo string
}

// postDPoP sends a client_credentials token request of client "agent"
// with the given DPoP proofs.
func postDPoP(t *testing.T, s *Server, proofs ...string) dpopAnswer {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}}
	req, err := http.NewRequest(http.MethodPost, s.URL+"/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("agent", "secret")
	for _, p := range proofs {
		req.Header.Add("DPoP", p)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error       string `json:"error"`
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	a := dpopAnswer{status: resp.StatusCode, errCode: body.Error, nonce: resp.Header.Get("DPoP-Nonce"), tokenType: body.TokenType}
	if body.AccessToken != "" {
		tok, err := jwt.ParseSigned(body.AccessToken, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Cnf struct {
				JKT string `json:"jkt"`
			} `json:"cnf"`
		}
		if err := tok.Claims(s.PublicKey(), &c); err != nil {
			t.Fatal(err)
		}
		a.boundTo = c.Cnf.JKT
	}
	return a
}

// The test authorization server binds a token to the key of a valid
// proof, refuses proofs that are not valid, asks for its nonce when told
// to, and answers Bearer when Unbound.
func TestDPoP(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jkt, _ := dpop.Thumbprint(key)
	proof := func(t *testing.T, _ *Server, method, target, nonce string) string {
		t.Helper()
		p, err := dpop.NewProof(key, method, target, dpop.ProofOptions{Nonce: nonce})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name   string
		opts   DPoP
		proofs func(t *testing.T, s *Server) []string
		want   dpopAnswer
	}{
		{"no proof: a bearer token", DPoP{}, func(*testing.T, *Server) []string { return nil }, dpopAnswer{status: 200, tokenType: "Bearer"}},
		{"valid proof: bound", DPoP{}, func(t *testing.T, s *Server) []string { return []string{proof(t, s, "POST", s.URL+"/token", "")} }, dpopAnswer{status: 200, tokenType: "DPoP", boundTo: jkt}},
		{"proof for another URL", DPoP{}, func(t *testing.T, s *Server) []string { return []string{proof(t, s, "POST", s.URL+"/other", "")} }, dpopAnswer{status: 400, errCode: "invalid_dpop_proof"}},
		{"proof for GET", DPoP{}, func(t *testing.T, s *Server) []string { return []string{proof(t, s, "GET", s.URL+"/token", "")} }, dpopAnswer{status: 400, errCode: "invalid_dpop_proof"}},
		{"two proofs", DPoP{}, func(t *testing.T, s *Server) []string {
			return []string{proof(t, s, "POST", s.URL+"/token", ""), proof(t, s, "POST", s.URL+"/token", "")}
		}, dpopAnswer{status: 400, errCode: "invalid_dpop_proof"}},
		{"nonce required, none sent", DPoP{Nonce: true}, func(t *testing.T, s *Server) []string { return []string{proof(t, s, "POST", s.URL+"/token", "")} }, dpopAnswer{status: 400, errCode: "use_dpop_nonce"}},
		{"unbound", DPoP{Unbound: true}, func(t *testing.T, s *Server) []string { return []string{proof(t, s, "POST", s.URL+"/token", "")} }, dpopAnswer{status: 200, tokenType: "Bearer"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewWith(t, Options{DPoP: &tt.opts, Clients: map[string]string{"agent": "secret"}})
			got := postDPoP(t, s, tt.proofs(t, s)...)
			if tt.opts.Nonce {
				if got.nonce == "" {
					t.Fatal("use_dpop_nonce without a DPoP-Nonce header")
				}
				got.nonce = ""
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("nonce required, then given", func(t *testing.T) {
		s := NewWith(t, Options{DPoP: &DPoP{Nonce: true}, Clients: map[string]string{"agent": "secret"}})
		first := postDPoP(t, s, proof(t, s, "POST", s.URL+"/token", ""))
		got := postDPoP(t, s, proof(t, s, "POST", s.URL+"/token", first.nonce))
		if got.status != 200 || got.tokenType != "DPoP" || got.boundTo != jkt {
			t.Errorf("with the nonce: %+v, want a token bound to %s", got, jkt)
		}
	})
}
