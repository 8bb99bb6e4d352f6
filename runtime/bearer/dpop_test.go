package bearer_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// dpopSetup is a resource server's world for the DPoP tests: an issuer, a
// client key and the thumbprint its tokens are bound to.
type dpopSetup struct {
	is       *issuer
	verifier bearer.TokenVerifier
	key      *ecdsa.PrivateKey
	other    *ecdsa.PrivateKey
	jkt      string
	bound    string // a token bound to key, with scope mcp
	unbound  string // a token bound to no key, with scope mcp
}

func newDPoPSetup(t *testing.T) *dpopSetup { return newDPoPSetupTB(t) }

func newDPoPSetupTB(t testing.TB) *dpopSetup {
	t.Helper()
	s := &dpopSetup{is: newIssuer(t)}
	s.verifier = s.is.verifier(t, newClock(), bearer.JWTOptions{})
	var err error
	if s.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	if s.other, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	if s.jkt, err = dpop.Thumbprint(&s.key.PublicKey); err != nil {
		t.Fatal(err)
	}
	s.bound = s.is.token(t, map[string]any{"sub": "alice", "scope": "mcp", "cnf": map[string]any{"jkt": s.jkt}})
	s.unbound = s.is.token(t, map[string]any{"sub": "bob", "scope": "mcp"})
	return s
}

func (s *dpopSetup) protector(t *testing.T, d *bearer.DPoPOptions, log *slog.Logger) *bearer.Protector {
	t.Helper()
	p, err := bearer.New(bearer.Options{
		Resource: resource, AuthorizationServers: []string{s.is.URL}, Verifier: s.verifier,
		Scopes: []string{"mcp"}, ToolScopes: map[string][]string{"deploy": {"deploy"}}, DPoP: d, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// proof is a proof of key for method at url (resource when ""), for token.
func proof(t *testing.T, key *ecdsa.PrivateKey, method, url, token string, opts dpop.ProofOptions) string {
	t.Helper()
	if url == "" {
		url = resource
	}
	opts.AccessToken = token
	p, err := dpop.NewProof(key, method, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// served is what came of a request through Protect.
type served struct {
	status    int
	challenge []string // the WWW-Authenticate headers
	nonce     string   // the DPoP-Nonce header
	reached   bool
	seen      http.Header // the headers the handler saw
	info      *bearer.TokenInfo
}

// send sends a POST to target (resource when "") with the Authorization
// header auth and a DPoP header per proof, through p.
func send(p *bearer.Protector, target, host, auth string, proofs []string, body string) served {
	var out served
	h := p.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out.reached, out.seen = true, r.Header.Clone()
		out.info, _ = bearer.TokenInfoFrom(r.Context())
	}))
	if target == "" {
		target = resource
	}
	if body == "" {
		body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	}
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	if host != "" {
		r.Host = host
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	for _, pr := range proofs {
		r.Header.Add("DPoP", pr)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	out.status = w.Code
	out.challenge = w.Result().Header.Values("WWW-Authenticate")
	out.nonce = w.Result().Header.Get("DPoP-Nonce")
	return out
}

const algs = `algs="ES256 PS256 RS256 EdDSA"`

// Every DPoP check of Protect, with the request that fails it and the
// challenges it gets.
func TestProtectDPoP(t *testing.T) {
	s := newDPoPSetup(t)
	accepted := s.protector(t, &bearer.DPoPOptions{}, nil)
	required := s.protector(t, &bearer.DPoPOptions{Required: true}, nil)
	md := `resource_metadata="` + accepted.MetadataURL() + `"`
	const scope = `scope="mcp"`
	bearerPlain := `Bearer ` + scope + `, ` + md
	dpopPlain := `DPoP ` + scope + `, ` + md + `, ` + algs
	bearerErr := func(code, desc string) string {
		return `Bearer error="` + code + `", error_description="` + desc + `", ` + scope + `, ` + md
	}
	dpopErr := func(code, desc string) string {
		return `DPoP error="` + code + `", error_description="` + desc + `", ` + scope + `, ` + md + `, ` + algs
	}
	good := func() []string { return []string{proof(t, s.key, "POST", "", s.bound, dpop.ProofOptions{})} }
	tests := []struct {
		name      string
		p         *bearer.Protector
		target    string
		host      string
		auth      string
		proofs    func() []string
		body      string
		status    int
		challenge []string
	}{
		{"no token, DPoP accepted", accepted, "", "", "", nil, "", 401, []string{bearerPlain, dpopPlain}},
		{"no token, DPoP required", required, "", "", "", nil, "", 401, []string{dpopPlain}},
		{"bound token with its proof", accepted, "", "", "DPoP " + s.bound, good, "", 200, nil},
		{"scheme case-insensitive", accepted, "", "", "dpop " + s.bound, good, "", 200, nil},
		{"bound token with its proof, DPoP required", required, "", "", "DPoP " + s.bound, good, "", 200, nil},
		{"query ignored", accepted, resource + "?session=7", "", "DPoP " + s.bound, good, "", 200, nil},
		{"unbound token as Bearer", accepted, "", "", "Bearer " + s.unbound, nil, "", 200, nil},
		{"bound token as Bearer", accepted, "", "", "Bearer " + s.bound, good, "", 401,
			[]string{bearerErr("invalid_token", "the access token is bound to a DPoP key: send it as Authorization: DPoP, with a DPoP proof"), dpopPlain}},
		{"unbound token as DPoP", accepted, "", "", "DPoP " + s.unbound, func() []string { return []string{proof(t, s.key, "POST", "", s.unbound, dpop.ProofOptions{})} }, "", 401,
			[]string{bearerPlain, dpopErr("invalid_token", "the access token is not bound to a DPoP key (no cnf.jkt): send it with the Bearer scheme")}},
		{"unbound token as Bearer, DPoP required", required, "", "", "Bearer " + s.unbound, nil, "", 401,
			[]string{dpopErr("invalid_token", "this resource takes DPoP-bound tokens only: send the token as Authorization: DPoP, with a DPoP proof")}},
		{"bound token as Bearer, DPoP required", required, "", "", "Bearer " + s.bound, good, "", 401,
			[]string{dpopErr("invalid_token", "this resource takes DPoP-bound tokens only: send the token as Authorization: DPoP, with a DPoP proof")}},
		{"invalid token as DPoP", accepted, "", "", "DPoP not-a-token", good, "", 401,
			[]string{bearerPlain, dpopErr("invalid_token", "the access token is not valid for this resource")}},
		{"no proof", accepted, "", "", "DPoP " + s.bound, nil, "", 401,
			[]string{bearerPlain, dpopErr("invalid_dpop_proof", "the request has no DPoP header; send one proof made for it (RFC 9449 section 4)")}},
		{"two DPoP headers", accepted, "", "", "DPoP " + s.bound, func() []string { return append(good(), good()...) }, "", 401,
			[]string{bearerPlain, dpopErr("invalid_dpop_proof", "the request has 2 DPoP headers; send exactly one")}},
		{"proof for another method", accepted, "", "", "DPoP " + s.bound, func() []string { return []string{proof(t, s.key, "GET", "", s.bound, dpop.ProofOptions{})} }, "", 401,
			[]string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof was made for another method (htm), not POST")}},
		{"proof for another path", accepted, "", "", "DPoP " + s.bound, func() []string {
			return []string{proof(t, s.key, "POST", "http://127.0.0.1:9/other", s.bound, dpop.ProofOptions{})}
		}, "", 401, []string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof was made for another URL (htu), not http://127.0.0.1:9/mcp")}},
		{"proof for another port", accepted, "", "", "DPoP " + s.bound, func() []string {
			return []string{proof(t, s.key, "POST", "http://127.0.0.1:10/mcp", s.bound, dpop.ProofOptions{})}
		}, "", 401, []string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof was made for another URL (htu), not http://127.0.0.1:9/mcp")}},
		{"proof for the Host header, not the resource", accepted, "", "evil.example", "DPoP " + s.bound, func() []string {
			return []string{proof(t, s.key, "POST", "http://evil.example/mcp", s.bound, dpop.ProofOptions{})}
		}, "", 401, []string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof was made for another URL (htu), not http://127.0.0.1:9/mcp")}},
		{"proof of another key", accepted, "", "", "DPoP " + s.bound, func() []string { return []string{proof(t, s.other, "POST", "", s.bound, dpop.ProofOptions{})} }, "", 401,
			[]string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof's key is not the one the access token is bound to (cnf.jkt)")}},
		{"proof for another token", accepted, "", "", "DPoP " + s.bound, func() []string { return []string{proof(t, s.key, "POST", "", s.unbound, dpop.ProofOptions{})} }, "", 401,
			[]string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof's access token hash (ath) is not that of the access token sent with it")}},
		{"old proof", accepted, "", "", "DPoP " + s.bound, func() []string {
			return []string{proof(t, s.key, "POST", "", s.bound, dpop.ProofOptions{Now: time.Now().Add(-5 * time.Minute)})}
		}, "", 401, []string{bearerPlain, dpopErr("invalid_dpop_proof", "the DPoP proof's iat is more than 1m0s old; make a new proof for every request")}},
		{"insufficient scope", accepted, "", "", "DPoP " + s.bound, good, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}`, 403,
			[]string{`Bearer scope="deploy mcp", ` + md, `DPoP error="insufficient_scope", error_description="the access token lacks a scope this request needs", scope="deploy mcp", ` + md + `, ` + algs}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var proofs []string
			if tt.proofs != nil {
				proofs = tt.proofs()
			}
			got := send(tt.p, tt.target, tt.host, tt.auth, proofs, tt.body)
			if got.status != tt.status || !slices.Equal(got.challenge, tt.challenge) {
				t.Fatalf("got %d with\n%q\nwant %d with\n%q", got.status, got.challenge, tt.status, tt.challenge)
			}
			if got.reached != (tt.status == 200) {
				t.Fatalf("reached the handler: %v, with status %d", got.reached, got.status)
			}
			if got.reached && (got.seen.Get("Authorization") != "" || len(got.seen.Values("DPoP")) > 0) {
				t.Errorf("the handler saw Authorization %q and DPoP %q", got.seen.Get("Authorization"), got.seen.Values("DPoP"))
			}
			if got.reached && strings.HasPrefix(strings.ToLower(tt.auth), "dpop ") && got.info.JKT != s.jkt {
				t.Errorf("TokenInfo.JKT = %q, want %q", got.info.JKT, s.jkt)
			}
		})
	}
}

// A proof is taken once: the same request again is a replay.
func TestProtectDPoPReplay(t *testing.T) {
	s := newDPoPSetup(t)
	p := s.protector(t, &bearer.DPoPOptions{}, nil)
	pr := []string{proof(t, s.key, "POST", "", s.bound, dpop.ProofOptions{})}
	want := []int{200, 401, 401}
	for i, w := range want {
		got := send(p, "", "", "DPoP "+s.bound, pr, "")
		if got.status != w {
			t.Fatalf("use %d: status %d %q, want %d", i+1, got.status, got.challenge, w)
		}
		if w == 401 && !strings.Contains(strings.Join(got.challenge, "\n"), "used before") {
			t.Fatalf("use %d: %q, want a replay", i+1, got.challenge)
		}
	}
	// A new proof of the same client is fine.
	if got := send(p, "", "", "DPoP "+s.bound, []string{proof(t, s.key, "POST", "", s.bound, dpop.ProofOptions{})}, ""); got.status != 200 {
		t.Fatalf("a new proof: %d %q", got.status, got.challenge)
	}
}

// With nonces, a proof without the server's nonce gets use_dpop_nonce and
// a DPoP-Nonce; made again with it, it passes. A stale nonce is refused
// the same way.
func TestProtectDPoPNonce(t *testing.T) {
	s := newDPoPSetup(t)
	clk := newClock()
	nonces, err := dpop.NewHMACNonces(dpop.NonceOptions{Lifetime: time.Minute, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	p := s.protector(t, &bearer.DPoPOptions{Required: true, Proofs: dpop.VerifierOptions{Nonces: nonces}}, nil)
	auth := "DPoP " + s.bound
	steps := []struct {
		name   string
		nonce  func(last string) string
		status int
		code   string
	}{
		{"no nonce", func(string) string { return "" }, 401, "use_dpop_nonce"},
		{"the nonce given", func(last string) string { return last }, 200, ""},
		{"a made-up nonce", func(string) string { return "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }, 401, "use_dpop_nonce"},
		{"a stale nonce", func(last string) string { clk.Add(3 * time.Minute); return last }, 401, "use_dpop_nonce"},
		{"the new nonce", func(last string) string { return last }, 200, ""},
	}
	last := ""
	for _, st := range steps {
		got := send(p, "", "", auth, []string{proof(t, s.key, "POST", "", s.bound, dpop.ProofOptions{Nonce: st.nonce(last)})}, "")
		if got.status != st.status {
			t.Fatalf("%s: status %d %q, want %d", st.name, got.status, got.challenge, st.status)
		}
		if st.code != "" {
			if len(got.challenge) != 1 || !strings.HasPrefix(got.challenge[0], `DPoP error="`+st.code+`"`) {
				t.Fatalf("%s: challenge %q, want error=%q", st.name, got.challenge, st.code)
			}
			if got.nonce == "" {
				t.Fatalf("%s: no DPoP-Nonce header", st.name)
			}
			last = got.nonce
		}
		if st.status == 200 && got.nonce != "" {
			t.Errorf("%s: a new DPoP-Nonce %q while the client's is current", st.name, got.nonce)
		}
	}
}

// Introspection answers carry the binding in cnf, as JWTs do; a malformed
// cnf makes the token invalid.
func TestIntrospectionDPoP(t *testing.T) {
	s := newDPoPSetup(t)
	answers := map[string]string{
		"bound":   `{"active":true,"sub":"alice","aud":"` + resource + `","scope":"mcp","token_type":"DPoP","cnf":{"jkt":"` + s.jkt + `"}}`,
		"bad-cnf": `{"active":true,"sub":"alice","aud":"` + resource + `","scope":"mcp","cnf":"` + s.jkt + `"}`,
		"bad-jkt": `{"active":true,"sub":"alice","aud":"` + resource + `","scope":"mcp","cnf":{"jkt":7}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answers[r.FormValue("token")]))
	}))
	defer srv.Close()
	in, err := bearer.NewIntrospector(bearer.IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	s.verifier = in
	p := s.protector(t, &bearer.DPoPOptions{}, nil)
	tests := []struct {
		name, token, scheme string
		proofKey            *ecdsa.PrivateKey
		status              int
	}{
		{"bound with its proof", "bound", "DPoP", s.key, 200},
		{"bound as Bearer", "bound", "Bearer", nil, 401},
		{"bound, proof of another key", "bound", "DPoP", s.other, 401},
		{"cnf not an object", "bad-cnf", "DPoP", s.key, 401},
		{"jkt not a string", "bad-jkt", "DPoP", s.key, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var proofs []string
			if tt.proofKey != nil {
				proofs = []string{proof(t, tt.proofKey, "POST", "", tt.token, dpop.ProofOptions{})}
			}
			got := send(p, "", "", tt.scheme+" "+tt.token, proofs, "")
			if got.status != tt.status {
				t.Fatalf("status %d %q, want %d", got.status, got.challenge, tt.status)
			}
		})
	}
}

// A JWT whose cnf is malformed has no JKT; Protect refuses it when it
// takes DPoP, whatever the scheme.
func TestJWTConfirmation(t *testing.T) {
	s := newDPoPSetup(t)
	p := s.protector(t, &bearer.DPoPOptions{}, nil)
	for _, cnf := range []any{"x", map[string]any{"jkt": 7}, map[string]any{"jkt": ""}} {
		tok := s.is.token(t, map[string]any{"sub": "alice", "scope": "mcp", "cnf": cnf})
		info, err := s.verifier.Verify(t.Context(), tok)
		if err != nil || info.JKT != "" {
			t.Fatalf("cnf %v: %+v, %v; want a TokenInfo without JKT", cnf, info, err)
		}
		for _, scheme := range []string{"Bearer", "DPoP"} {
			got := send(p, "", "", scheme+" "+tok, []string{proof(t, s.key, "POST", "", tok, dpop.ProofOptions{})}, "")
			if got.status != http.StatusUnauthorized || !strings.Contains(strings.Join(got.challenge, " "), `error="invalid_token"`) {
				t.Errorf("cnf %v as %s: %d %q, want 401 invalid_token", cnf, scheme, got.status, got.challenge)
			}
		}
	}
	info, err := s.verifier.Verify(t.Context(), s.bound)
	if err != nil || info.JKT != s.jkt {
		t.Fatalf("bound token: %+v, %v; want JKT %s", info, err, s.jkt)
	}
}

// The log of refused proofs never holds the token.
func TestDPoPLogNeverHoldsToken(t *testing.T) {
	s := newDPoPSetup(t)
	var log lockedBuffer
	p := s.protector(t, &bearer.DPoPOptions{}, slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	send(p, "", "", "DPoP "+s.bound, []string{proof(t, s.key, "GET", "", s.bound, dpop.ProofOptions{})}, "")
	send(p, "", "", "Bearer "+s.bound, nil, "")
	send(p, "", "", "DPoP "+s.unbound, []string{proof(t, s.key, "POST", "", s.unbound, dpop.ProofOptions{})}, "")
	out := log.String()
	if strings.Count(out, "\n") < 3 {
		t.Fatalf("want a log line per refusal, got:\n%s", out)
	}
	for _, tok := range []string{s.bound, s.unbound} {
		for _, part := range strings.Split(tok, ".") {
			if strings.Contains(out, part) {
				t.Errorf("the log holds part of a token:\n%s", out)
			}
		}
	}
}

func TestNewRefusesBadDPoPOptions(t *testing.T) {
	s := newDPoPSetup(t)
	for _, d := range []*bearer.DPoPOptions{
		{Proofs: dpop.VerifierOptions{Algorithms: []string{"HS256"}}},
		{Proofs: dpop.VerifierOptions{ExternalURL: "not a url"}},
	} {
		if _, err := bearer.New(bearer.Options{Resource: resource, AuthorizationServers: []string{s.is.URL}, Verifier: s.verifier, DPoP: d}); err == nil {
			t.Errorf("New with DPoP %+v: no error", d)
		}
	}
}
