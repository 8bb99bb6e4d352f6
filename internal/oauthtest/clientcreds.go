package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// AssertionType is the client_assertion_type of private_key_jwt (RFC 7523
// section 2.2).
const AssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// maxAssertionLifetime bounds exp - iat of a client assertion the Server
// accepts.
const maxAssertionLifetime = 5 * time.Minute

// clientCredentials answers a token request of the client_credentials
// grant (RFC 6749 section 4.4): the client authenticates with its secret
// (a client of Options.Clients, client_secret_basic or
// client_secret_post) or with a private_key_jwt assertion (a client of
// Options.JWTClients, RFC 7523 section 2.2), and gets a token for itself
// (sub is the client id) with the scope and resource it asked for.
func (s *Server) clientCredentials(w http.ResponseWriter, r *http.Request) {
	tr := TokenRequest{GrantType: "client_credentials", Resource: r.PostForm.Get("resource"), Scope: r.PostForm.Get("scope"), DPoPJKT: proofJKT(r)}
	var id string
	var err error
	if r.PostForm.Has("client_assertion") || r.PostForm.Has("client_assertion_type") {
		tr.AuthMethod = "private_key_jwt"
		tr.ClientAssertion = r.PostForm.Get("client_assertion")
		id, err = s.verifyAssertion(r)
		tr.ClientID = id
	} else {
		var secret string
		id, secret, tr.AuthMethod = clientAuth(r)
		tr.ClientID = id
		s.mu.Lock()
		c := s.flow.clients[id]
		s.mu.Unlock()
		switch {
		case tr.AuthMethod == "none":
			err = errors.New("the client_credentials grant is for confidential clients: no client authentication")
		case c == nil || c.secret == "" || c.secret != secret:
			err = errors.New("client authentication failed")
		case !slices.Contains(s.authMethods(), tr.AuthMethod):
			err = fmt.Errorf("%s is not in token_endpoint_auth_methods_supported", tr.AuthMethod)
		}
	}
	s.mu.Lock()
	s.flow.tokens = append(s.flow.tokens, tr)
	s.mu.Unlock()
	if err != nil {
		oauthError(w, http.StatusUnauthorized, "invalid_client", err.Error())
		return
	}
	s.issueGrant(w, id, id, tr)
}

// verifyAssertion checks the private_key_jwt client assertion of a token
// request (RFC 7523 sections 2.2 and 3): its type, signature by the key
// registered for its iss (with an algorithm of AssertionAlgs when set),
// iss = sub = client_id, aud the issuer (or the token endpoint, as
// AssertionAudience says), exp in
// the future and at most five minutes after iat, and a jti not seen
// before. It returns the client id.
func (s *Server) verifyAssertion(r *http.Request) (string, error) {
	if t := r.PostForm.Get("client_assertion_type"); t != AssertionType {
		return "", fmt.Errorf("client_assertion_type %q, want %s", t, AssertionType)
	}
	tok, err := jwt.ParseSigned(r.PostForm.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.PS256, jose.EdDSA})
	if err != nil {
		return "", fmt.Errorf("client_assertion: %w", err)
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return "", fmt.Errorf("client_assertion: %w", err)
	}
	id := unverified.Issuer
	key, ok := s.opts.JWTClients[id]
	if !ok {
		return id, fmt.Errorf("client_assertion: iss %q is no client with a registered key", id)
	}
	if alg := tok.Headers[0].Algorithm; !algFits(alg, key) {
		return id, fmt.Errorf("client_assertion: alg %q does not fit the client's key", alg)
	} else if len(s.opts.AssertionAlgs) > 0 && !slices.Contains(s.opts.AssertionAlgs, alg) {
		return id, fmt.Errorf("client_assertion: alg %q is not in token_endpoint_auth_signing_alg_values_supported", alg)
	}
	var c jwt.Claims
	if err := tok.Claims(key, &c); err != nil {
		return id, fmt.Errorf("client_assertion: signature: %w", err)
	}
	if c.Subject != id {
		return id, fmt.Errorf("client_assertion: sub %q is not iss %q", c.Subject, id)
	}
	if cid := r.PostForm.Get("client_id"); cid != "" && cid != id {
		return id, fmt.Errorf("client_assertion: client_id %q is not iss %q", cid, id)
	}
	aud := s.URL
	if s.opts.AssertionAudience == "token_endpoint" {
		aud = s.URL + "/token"
	}
	if err := c.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{aud}}, 30*time.Second); err != nil {
		return id, fmt.Errorf("client_assertion: %w", err)
	}
	if c.Expiry == nil || c.IssuedAt == nil {
		return id, errors.New("client_assertion: no exp or no iat")
	}
	if c.Expiry.Time().Sub(c.IssuedAt.Time()) > maxAssertionLifetime {
		return id, fmt.Errorf("client_assertion: lives %v, more than %v", c.Expiry.Time().Sub(c.IssuedAt.Time()), maxAssertionLifetime)
	}
	if c.ID == "" {
		return id, errors.New("client_assertion: no jti")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flow.jtis == nil {
		s.flow.jtis = map[string]bool{}
	}
	if s.flow.jtis[id+" "+c.ID] {
		return id, fmt.Errorf("client_assertion: jti %q was used before (a replay)", c.ID)
	}
	s.flow.jtis[id+" "+c.ID] = true
	return id, nil
}

// algFits reports whether alg is a signature algorithm of key's type.
func algFits(alg string, key crypto.PublicKey) bool {
	switch key.(type) {
	case *ecdsa.PublicKey:
		return strings.HasPrefix(alg, "ES")
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	default:
		return alg == string(jose.EdDSA)
	}
}

// issueGrant answers a grant that was accepted (client credentials, JWT
// bearer) with an access token for subject sub and client clientID ("" for
// none), bound to the proof's key when tr carried one, and no refresh
// token.
func (s *Server) issueGrant(w http.ResponseWriter, sub, clientID string, tr TokenRequest) {
	scope := tr.Scope
	if s.opts.GrantScopes != nil {
		scope = s.opts.GrantScopes(scope)
	}
	life := s.opts.TokenLifetime
	if life == 0 {
		life = time.Hour
	}
	claims := Claims{"sub": sub, "exp": time.Now().Add(life).Unix()}
	if clientID != "" {
		claims["client_id"] = clientID
	}
	if tr.Resource != "" {
		claims["aud"] = tr.Resource
	}
	if scope != "" {
		claims["scope"] = scope
	}
	resp := map[string]any{"token_type": "Bearer", "expires_in": int(life.Seconds())}
	s.bind(claims, resp, tr.DPoPJKT)
	tok, err := s.sign(claims)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "signing the token: "+err.Error())
		return
	}
	resp["access_token"] = tok
	if scope != "" {
		resp["scope"] = scope
	}
	writeJSON(w, resp)
}
