package oauthtest

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The grant and token types of the JWT bearer grant (RFC 7523 section
// 2.1) and of token exchange (RFC 8693).
const (
	JWTBearerGrantType     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	TokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
	IDJAGTokenType         = "urn:ietf:params:oauth:token-type:id-jag"
	IDTokenType            = "urn:ietf:params:oauth:token-type:id_token"
	// IDJAGType is the typ header of an ID-JAG.
	IDJAGType = "oauth-id-jag+jwt"
)

// idJAGLifetime is the lifetime of the ID-JAGs the Server issues as an
// identity provider.
const idJAGLifetime = 5 * time.Minute

// AssertionIssuer is an issuer whose JWTs the Server accepts as the
// assertion of the JWT bearer grant (RFC 7523 section 2.1): a workload
// identity platform, or an enterprise identity provider issuing ID-JAGs.
type AssertionIssuer struct {
	// Key verifies the assertions' signatures (an *ecdsa.PublicKey,
	// *rsa.PublicKey or ed25519.PublicKey); KeyFunc, when set, is asked
	// for it instead, at each grant (a key that rotates).
	Key     crypto.PublicKey
	KeyFunc func() crypto.PublicKey
	// Subjects are the sub values accepted; empty accepts any.
	Subjects []string
	// Type is the typ header the assertions must have: "" for any,
	// IDJAGType for ID-JAGs, whose client_id must then be the client that
	// authenticates and whose resource that of the request.
	Type string
}

// jwtBearer answers a token request of the JWT bearer grant: the
// assertion must be signed by the key of an issuer of
// Options.AssertionIssuers, with aud the Server's issuer (or its token
// endpoint), exp in the future (30 s leeway) and an accepted sub; the
// client, if it authenticates, must be a known one. The token's sub is
// the assertion's.
func (s *Server) jwtBearer(w http.ResponseWriter, r *http.Request) {
	tr := TokenRequest{GrantType: JWTBearerGrantType, Resource: r.PostForm.Get("resource"), Scope: r.PostForm.Get("scope"), Assertion: r.PostForm.Get("assertion"), DPoPJKT: proofJKT(r)}
	id, err := s.optionalClient(r, &tr)
	s.mu.Lock()
	s.flow.tokens = append(s.flow.tokens, tr)
	s.mu.Unlock()
	if err != nil {
		oauthError(w, http.StatusUnauthorized, "invalid_client", err.Error())
		return
	}
	sub, err := s.verifyGrant(tr.Assertion, id, tr.Resource)
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_grant", err.Error())
		return
	}
	s.issueGrant(w, sub, id, tr)
}

// optionalClient authenticates the client of a request whose grant needs
// no client authentication: none at all, a public client (client_id
// only), a client of Options.Clients with its secret, or one of
// Options.JWTClients with its assertion. It returns the client id, "" for
// none.
func (s *Server) optionalClient(r *http.Request, tr *TokenRequest) (string, error) {
	if r.PostForm.Has("client_assertion") || r.PostForm.Has("client_assertion_type") {
		tr.AuthMethod = "private_key_jwt"
		tr.ClientAssertion = r.PostForm.Get("client_assertion")
		id, err := s.verifyAssertion(r)
		tr.ClientID = id
		return id, err
	}
	id, secret, method := clientAuth(r)
	tr.ClientID, tr.AuthMethod = id, method
	if method == "none" {
		return id, nil
	}
	s.mu.Lock()
	c := s.flow.clients[id]
	s.mu.Unlock()
	if c == nil || c.secret == "" || c.secret != secret {
		return id, errors.New("client authentication failed")
	}
	if !slices.Contains(s.authMethods(), method) {
		return id, fmt.Errorf("%s is not in token_endpoint_auth_methods_supported", method)
	}
	return id, nil
}

// verifyGrant checks the assertion of a JWT bearer grant (RFC 7523
// section 3) for the client clientID ("" for none) and the request's
// resource, and returns its subject.
func (s *Server) verifyGrant(assertion, clientID, resource string) (string, error) {
	if assertion == "" {
		return "", errors.New("no assertion")
	}
	tok, err := jwt.ParseSigned(assertion, []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.PS256, jose.EdDSA})
	if err != nil {
		return "", fmt.Errorf("assertion: %w", err)
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return "", fmt.Errorf("assertion: %w", err)
	}
	iss, ok := s.opts.AssertionIssuers[unverified.Issuer]
	if !ok {
		return "", fmt.Errorf("assertion: iss %q is not a trusted issuer", unverified.Issuer)
	}
	key := iss.Key
	if iss.KeyFunc != nil {
		key = iss.KeyFunc()
	}
	if alg := tok.Headers[0].Algorithm; !algFits(alg, key) {
		return "", fmt.Errorf("assertion: alg %q does not fit the issuer's key", alg)
	}
	if typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string); iss.Type != "" && typ != iss.Type {
		return "", fmt.Errorf("assertion: typ %q, want %q", typ, iss.Type)
	}
	var c jwt.Claims
	var extra struct {
		ClientID string `json:"client_id"`
		Resource string `json:"resource"`
	}
	if err := tok.Claims(key, &c, &extra); err != nil {
		return "", fmt.Errorf("assertion: signature: %w", err)
	}
	if err := c.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{s.URL, s.URL + "/", s.URL + "/token"}}, 30*time.Second); err != nil {
		return "", fmt.Errorf("assertion: %w", err)
	}
	if c.Expiry == nil {
		return "", errors.New("assertion: no exp")
	}
	if len(iss.Subjects) > 0 && !slices.Contains(iss.Subjects, c.Subject) {
		return "", fmt.Errorf("assertion: sub %q is not allowed", c.Subject)
	}
	if iss.Type == IDJAGType {
		if extra.ClientID != clientID {
			return "", fmt.Errorf("ID-JAG: client_id %q is not the authenticated client %q", extra.ClientID, clientID)
		}
		if resource != "" && extra.Resource != resource {
			return "", fmt.Errorf("ID-JAG: resource %q is not the request's %q", extra.Resource, resource)
		}
	}
	return c.Subject, nil
}

// IDToken returns an OpenID Connect ID token of the Server's for the
// user subject, for the client audience, valid for life: the identity
// assertion a client exchanges at the Server as an identity provider.
func (s *Server) IDToken(t testing.TB, subject, audience string, life time.Duration) string {
	t.Helper()
	tok, err := s.signTyped("JWT", Claims{"sub": subject, "aud": audience, "email": subject, "exp": time.Now().Add(life).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tokenExchange answers a token exchange (RFC 8693) at the Server as an
// enterprise identity provider (Options.IdentityProvider): an ID token it
// issued (aud the requesting client) for an ID-JAG (typ
// oauth-id-jag+jwt) for the audience, resource and scope asked, whose
// client_id is IdentityProvider.ClientID.
func (s *Server) tokenExchange(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	tr := TokenRequest{GrantType: TokenExchangeGrantType, Resource: f.Get("resource"), Scope: f.Get("scope"), Audience: f.Get("audience"),
		SubjectToken: f.Get("subject_token"), SubjectTokenType: f.Get("subject_token_type"), RequestedTokenType: f.Get("requested_token_type")}
	id, err := s.optionalClient(r, &tr)
	s.mu.Lock()
	s.flow.tokens = append(s.flow.tokens, tr)
	s.mu.Unlock()
	idp := s.opts.IdentityProvider
	if err != nil {
		oauthError(w, http.StatusUnauthorized, "invalid_client", err.Error())
		return
	}
	switch {
	case idp == nil:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "not an identity provider")
		return
	case tr.SubjectTokenType != IDTokenType || tr.RequestedTokenType != IDJAGTokenType || tr.Audience == "" || tr.Resource == "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "want subject_token_type id_token, requested_token_type id-jag, an audience and a resource")
		return
	}
	tok, err := jwt.ParseSigned(tr.SubjectToken, []jose.SignatureAlgorithm{jose.ES256})
	var c jwt.Claims
	if err == nil {
		err = tok.Claims(s.PublicKey(), &c)
	}
	if err == nil {
		err = c.ValidateWithLeeway(jwt.Expected{Issuer: s.URL, AnyAudience: jwt.Audience{id}}, 30*time.Second)
	}
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_grant", "subject_token: "+err.Error())
		return
	}
	claims := Claims{"sub": c.Subject, "aud": tr.Audience, "resource": tr.Resource, "client_id": idp.ClientID, "jti": random(), "exp": time.Now().Add(idJAGLifetime).Unix()}
	if tr.Scope != "" {
		claims["scope"] = tr.Scope
	}
	jag, err := s.signTyped(IDJAGType, claims)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "signing the ID-JAG: "+err.Error())
		return
	}
	issued := IDJAGTokenType
	if idp.IssuedTokenType != "" {
		issued = idp.IssuedTokenType
	}
	resp := map[string]any{"access_token": jag, "issued_token_type": issued, "token_type": "N_A", "expires_in": int(idJAGLifetime.Seconds())}
	if tr.Scope != "" {
		resp["scope"] = tr.Scope
	}
	writeJSON(w, resp)
}

// writeJSON answers a token response.
func writeJSON(w http.ResponseWriter, resp map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(resp)
}
