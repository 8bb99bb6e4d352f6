package oauthtest

import (
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Options shape a Server's authorization code flow.
type Options struct {
	// AuthMethods is token_endpoint_auth_methods_supported. Default: none,
	// client_secret_basic and client_secret_post.
	AuthMethods []string
	// Scopes is scopes_supported (omitted when empty).
	Scopes []string
	// CIMD advertises client_id_metadata_document_supported: any https
	// client_id is then accepted as a public client.
	CIMD bool
	// NoRegistration leaves the registration endpoint out.
	NoRegistration bool
	// NoPKCE leaves code_challenge_methods_supported out.
	NoPKCE bool
	// Iss is what the authorization response's iss is: "" (the issuer),
	// "omit" or "wrong". IssSupported advertises it.
	Iss          string
	IssSupported bool
	// TokenLifetime is the access tokens' lifetime. Default one hour.
	TokenLifetime time.Duration
	// RefreshTokens issues refresh tokens (also when offline_access is
	// asked for).
	RefreshTokens bool
	// Clients are pre-registered confidential clients (id → secret), which
	// authenticate with client_secret_basic.
	Clients map[string]string
	// GrantScopes, when set, decides the scope granted for the requested
	// one (default: what was asked).
	GrantScopes func(requested string) string
	// JWTClients are pre-registered clients that authenticate with
	// private_key_jwt (RFC 7523 section 2.2): client id → the public key
	// (*ecdsa.PublicKey, *rsa.PublicKey or ed25519.PublicKey) their
	// assertions are verified with. They, and the clients of Clients, may
	// use the client_credentials grant (RFC 6749 section 4.4), which the
	// metadata then lists, with private_key_jwt among the auth methods
	// unless AuthMethods is set.
	JWTClients map[string]crypto.PublicKey
	// AssertionAlgs, when set, is token_endpoint_auth_signing_alg_values_supported:
	// a client assertion signed with another algorithm is refused.
	AssertionAlgs []string
	// AssertionAudience is the aud a client assertion must have: "" for
	// the issuer, "token_endpoint" for the token endpoint URL.
	AssertionAudience string
	// AssertionIssuers are the issuers (iss → how their assertions are
	// checked) whose JWTs the Server accepts in the JWT bearer grant (RFC
	// 7523 section 2.1), which the metadata then lists: workload identity
	// platforms, and enterprise identity providers issuing ID-JAGs.
	AssertionIssuers map[string]AssertionIssuer
	// IdentityProvider makes the Server an enterprise identity provider
	// too: its token endpoint exchanges the ID tokens it issued (IDToken)
	// for ID-JAGs (RFC 8693 token exchange).
	IdentityProvider *IdentityProvider
	// DPoP, when set, binds the tokens of requests with a DPoP proof to
	// its key: see DPoP.
	DPoP *DPoP
}

// IdentityProvider configures a Server as an enterprise identity
// provider.
type IdentityProvider struct {
	// ClientID is the client_id claim of the ID-JAGs: the client's
	// identifier at the authorization server they are for.
	ClientID string
	// IssuedTokenType, when set, is the issued_token_type of the
	// exchange's answer instead of the ID-JAG's (a misbehaving provider).
	IssuedTokenType string
}

// AuthRequest is an authorization request the Server received.
type AuthRequest struct {
	ClientID, RedirectURI, Scope, Resource, State string
	CodeChallenge, CodeChallengeMethod            string
}

// TokenRequest is a token request the Server received. ClientAssertion
// is the private_key_jwt assertion, if any; Assertion the JWT bearer
// grant's; Audience and the Subject and Requested token types a token
// exchange's; DPoPJKT the thumbprint of the key of its valid DPoP proof,
// if any (with Options.DPoP).
type TokenRequest struct {
	GrantType, ClientID, AuthMethod, Resource, Scope string
	ClientAssertion, Assertion                       string
	Audience, SubjectToken                           string
	SubjectTokenType, RequestedTokenType             string
	DPoPJKT                                          string
}

// Revocation is an RFC 7009 revocation request the Server received.
type Revocation struct {
	ClientID, Token, Hint string
}

// Registration is a dynamic registration the Server received: the client
// metadata as sent.
type Registration map[string]any

// flow is the state of the authorization code flow.
type flow struct {
	codes   map[string]*grant
	refresh map[string]*grant
	clients map[string]*client
	auths   []AuthRequest
	tokens  []TokenRequest
	regs    []Registration
	revoked []Revocation
	jtis    map[string]bool // client id + " " + jti of the assertions accepted
}

type client struct{ id, secret, method, redirect string }

type grant struct {
	clientID, redirect, scope, resource, challenge string
	jkt                                            string // the DPoP key a refresh token is bound to
}

// AuthRequests returns the authorization requests received so far.
func (s *Server) AuthRequests() []AuthRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.flow.auths)
}

// TokenRequests returns the token requests received so far.
func (s *Server) TokenRequests() []TokenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.flow.tokens)
}

// Registrations returns the registrations received so far.
func (s *Server) Registrations() []Registration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.flow.regs)
}

// Revocations returns the revocation requests received so far.
func (s *Server) Revocations() []Revocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.flow.revoked)
}

// clientAuth returns the client a token or revocation request
// authenticates as, its secret, and how (RFC 6749 section 2.3).
func clientAuth(r *http.Request) (id, secret, method string) {
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		return id, secret, "client_secret_basic"
	}
	if r.PostForm.Has("client_secret") {
		return r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), "client_secret_post"
	}
	return r.PostForm.Get("client_id"), "", "none"
}

// metadata is the server's RFC 8414 document.
func (s *Server) metadata() map[string]any {
	m := map[string]any{
		"issuer":                                s.URL,
		"jwks_uri":                              s.URL + "/jwks",
		"authorization_endpoint":                s.URL + "/authorize",
		"token_endpoint":                        s.URL + "/token",
		"revocation_endpoint":                   s.URL + "/revoke",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported": s.authMethods(),
	}
	if len(s.opts.Clients) > 0 || len(s.opts.JWTClients) > 0 {
		m["grant_types_supported"] = []string{"authorization_code", "refresh_token", "client_credentials"}
	}
	if len(s.opts.AssertionIssuers) > 0 {
		m["grant_types_supported"] = append(m["grant_types_supported"].([]string), JWTBearerGrantType)
	}
	if s.opts.IdentityProvider != nil {
		m["grant_types_supported"] = append(m["grant_types_supported"].([]string), TokenExchangeGrantType)
	}
	if !s.opts.NoPKCE {
		m["code_challenge_methods_supported"] = []string{"S256"}
	}
	if !s.opts.NoRegistration {
		m["registration_endpoint"] = s.URL + "/register"
	}
	if len(s.opts.Scopes) > 0 {
		m["scopes_supported"] = s.opts.Scopes
	}
	if s.opts.DPoP != nil {
		m["dpop_signing_alg_values_supported"] = s.dpop.Algorithms()
	}
	if len(s.opts.AssertionAlgs) > 0 {
		m["token_endpoint_auth_signing_alg_values_supported"] = s.opts.AssertionAlgs
	}
	if s.opts.CIMD {
		m["client_id_metadata_document_supported"] = true
	}
	if s.opts.IssSupported {
		m["authorization_response_iss_parameter_supported"] = true
	}
	return m
}

func (s *Server) authMethods() []string {
	if s.opts.AuthMethods != nil {
		return s.opts.AuthMethods
	}
	if len(s.opts.JWTClients) > 0 {
		return []string{"none", "client_secret_basic", "client_secret_post", "private_key_jwt"}
	}
	return []string{"none", "client_secret_basic", "client_secret_post"}
}

func random() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// oauthError answers an OAuth error response (RFC 6749 section 5.2).
func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// handleFlow adds the flow's endpoints to mux.
func (s *Server) handleFlow(mux *http.ServeMux) {
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a := AuthRequest{ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"), Scope: q.Get("scope"), Resource: q.Get("resource"), State: q.Get("state"), CodeChallenge: q.Get("code_challenge"), CodeChallengeMethod: q.Get("code_challenge_method")}
		s.mu.Lock()
		s.flow.auths = append(s.flow.auths, a)
		c := s.flow.clients[a.ClientID]
		if c == nil && s.opts.CIMD && strings.HasPrefix(a.ClientID, "https://") {
			c = &client{id: a.ClientID, method: "none"}
			s.flow.clients[a.ClientID] = c
		}
		s.mu.Unlock()
		switch {
		case c == nil:
			http.Error(w, "unknown client_id", http.StatusBadRequest)
			return
		case q.Get("response_type") != "code":
			http.Error(w, "response_type must be code", http.StatusBadRequest)
			return
		case a.RedirectURI == "" || c.redirect != "" && !sameRedirect(c.redirect, a.RedirectURI):
			http.Error(w, "redirect_uri is not the registered one", http.StatusBadRequest)
			return
		}
		redirect, err := url.Parse(a.RedirectURI)
		if err != nil {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		v := redirect.Query()
		if a.CodeChallenge == "" || a.CodeChallengeMethod != "S256" {
			v.Set("error", "invalid_request")
			v.Set("error_description", "PKCE S256 is required")
		} else {
			code := random()
			s.mu.Lock()
			s.flow.codes[code] = &grant{clientID: c.id, redirect: a.RedirectURI, scope: a.Scope, resource: a.Resource, challenge: a.CodeChallenge}
			s.mu.Unlock()
			v.Set("code", code)
		}
		v.Set("state", a.State)
		switch s.opts.Iss {
		case "":
			v.Set("iss", s.URL)
		case "wrong":
			v.Set("iss", "https://evil.example")
		}
		redirect.RawQuery = v.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		r, ok := s.checkDPoP(w, r)
		if !ok {
			return
		}
		switch r.PostForm.Get("grant_type") {
		case "client_credentials":
			s.clientCredentials(w, r)
			return
		case JWTBearerGrantType:
			s.jwtBearer(w, r)
			return
		case TokenExchangeGrantType:
			s.tokenExchange(w, r)
			return
		}
		tr := TokenRequest{GrantType: r.PostForm.Get("grant_type"), Resource: r.PostForm.Get("resource"), Scope: r.PostForm.Get("scope"), DPoPJKT: proofJKT(r)}
		id, secret, method := clientAuth(r)
		tr.ClientID, tr.AuthMethod = id, method
		s.mu.Lock()
		s.flow.tokens = append(s.flow.tokens, tr)
		c := s.flow.clients[id]
		s.mu.Unlock()
		if c == nil || c.method != tr.AuthMethod || c.secret != secret {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
			return
		}
		var g *grant
		s.mu.Lock()
		switch tr.GrantType {
		case "authorization_code":
			g = s.flow.codes[r.PostForm.Get("code")]
			delete(s.flow.codes, r.PostForm.Get("code"))
		case "refresh_token":
			g = s.flow.refresh[r.PostForm.Get("refresh_token")]
		}
		s.mu.Unlock()
		if g == nil || g.clientID != id {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or used code or refresh token")
			return
		}
		if tr.GrantType == "authorization_code" {
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
				oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match")
				return
			}
			if r.PostForm.Get("redirect_uri") != g.redirect {
				oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs")
				return
			}
		}
		if tr.GrantType == "refresh_token" && g.jkt != "" && g.jkt != tr.DPoPJKT {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token is bound to another DPoP key")
			return
		}
		if tr.Resource != g.resource {
			oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's")
			return
		}
		scope := g.scope
		if s.opts.GrantScopes != nil {
			scope = s.opts.GrantScopes(scope)
		}
		life := s.opts.TokenLifetime
		if life == 0 {
			life = time.Hour
		}
		claims := Claims{"sub": "user-1", "client_id": id, "aud": g.resource, "exp": time.Now().Add(life).Unix()}
		if scope != "" {
			claims["scope"] = scope
		}
		resp := map[string]any{"token_type": "Bearer", "expires_in": int(life.Seconds())}
		s.bind(claims, resp, tr.DPoPJKT)
		if tr.GrantType == "authorization_code" && resp["token_type"] == "DPoP" {
			g.jkt = tr.DPoPJKT
		}
		tok, err := s.sign(claims)
		if err != nil {
			oauthError(w, http.StatusInternalServerError, "server_error", "signing the token: "+err.Error())
			return
		}
		resp["access_token"] = tok
		if scope != "" {
			resp["scope"] = scope
		}
		if s.opts.RefreshTokens || slices.Contains(strings.Fields(g.scope), "offline_access") {
			rt := random()
			s.mu.Lock()
			s.flow.refresh[rt] = g
			s.mu.Unlock()
			resp["refresh_token"] = rt
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(resp)
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		id, secret, method := clientAuth(r)
		s.mu.Lock()
		c := s.flow.clients[id]
		s.mu.Unlock()
		if c == nil || c.method != method || c.secret != secret {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
			return
		}
		tok := r.PostForm.Get("token")
		s.mu.Lock()
		s.flow.revoked = append(s.flow.revoked, Revocation{ClientID: id, Token: tok, Hint: r.PostForm.Get("token_type_hint")})
		if g := s.flow.refresh[tok]; g != nil && g.clientID == id {
			delete(s.flow.refresh, tok)
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK) // RFC 7009 section 2.2: also for unknown tokens
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.NoRegistration {
			http.NotFound(w, r)
			return
		}
		var reg Registration
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&reg); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_client_metadata", err.Error())
			return
		}
		method, _ := reg["token_endpoint_auth_method"].(string)
		if method == "" {
			method = "client_secret_basic"
		}
		if !slices.Contains(s.authMethods(), method) {
			method = s.authMethods()[0]
		}
		c := &client{id: "client-" + random(), method: method}
		if uris, ok := reg["redirect_uris"].([]any); ok && len(uris) == 1 {
			c.redirect, _ = uris[0].(string)
		}
		if method != "none" {
			c.secret = "secret-" + random()
		}
		s.mu.Lock()
		s.flow.regs = append(s.flow.regs, reg)
		s.flow.clients[c.id] = c
		s.mu.Unlock()
		out := map[string]any{"client_id": c.id, "token_endpoint_auth_method": method, "redirect_uris": reg["redirect_uris"]}
		if c.secret != "" {
			out["client_secret"] = c.secret
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(out)
	})
}

// sameRedirect compares a redirect URI with the registered one, ignoring
// the port of a loopback one (OAuth 2.1, RFC 8252 section 7.3).
func sameRedirect(registered, got string) bool {
	if registered == got {
		return true
	}
	r, err1 := url.Parse(registered)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || r.Scheme != "http" || g.Scheme != "http" {
		return false
	}
	loopback := func(h string) bool { return h == "127.0.0.1" || h == "[::1]" || h == "::1" || h == "localhost" }
	return loopback(r.Hostname()) && r.Hostname() == g.Hostname() && r.Path == g.Path && r.RawQuery == g.RawQuery
}
