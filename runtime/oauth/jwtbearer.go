package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// The grant and token types of the JWT bearer grant (RFC 7523 section
// 2.1) and of token exchange (RFC 8693).
const (
	jwtBearerGrantType     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"

	// IDJAGTokenType is the token type of an Identity Assertion JWT
	// Authorization Grant (ID-JAG): the requested_token_type of the token
	// exchange at the enterprise identity provider, and the
	// issued_token_type its answer must have.
	IDJAGTokenType = "urn:ietf:params:oauth:token-type:id-jag"
	// IDTokenType is the token type of an OpenID Connect ID token (RFC
	// 8693 section 3): IdentityProvider.AssertionType's default.
	IDTokenType = "urn:ietf:params:oauth:token-type:id_token"
	// SAML2TokenType is the token type of a SAML 2.0 assertion (RFC 8693
	// section 3).
	SAML2TokenType = "urn:ietf:params:oauth:token-type:saml2"
)

// maxAssertion bounds an assertion an AssertionSource reads from a file.
const maxAssertion = 64 << 10

// An AssertionSource returns an assertion the Client presents to get a
// token: a workload identity token (Config.WorkloadIdentity, a JWT), or
// the user's identity assertion (IdentityProvider.IdentityAssertion: an
// ID token, or a base64url-encoded SAML 2.0 assertion). It is called
// for every token request, so that it can return a token that was
// rotated or renewed since the last one. Its errors should not contain
// the assertion.
type AssertionSource func(ctx context.Context) (string, error)

// AssertionFile returns an AssertionSource that reads the file at path,
// again on every call (a platform that rotates the token rewrites the
// file: Kubernetes' projected service account tokens, SPIFFE helpers,
// cloud agents), and returns its content without surrounding white
// space. An empty file, or one larger than 64 KiB, is an error.
func AssertionFile(path string) AssertionSource {
	return func(ctx context.Context) (string, error) {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("assertion file: %w", err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxAssertion+1))
		if err != nil {
			return "", fmt.Errorf("assertion file %s: %w", path, err)
		}
		if len(data) > maxAssertion {
			return "", fmt.Errorf("assertion file %s: larger than %d bytes; it must hold one JWT", path, maxAssertion)
		}
		a := strings.TrimSpace(string(data))
		if a == "" {
			return "", fmt.Errorf("assertion file %s: empty; it must hold one JWT", path)
		}
		return a, nil
	}
}

// AssertionEnv returns an AssertionSource that reads the environment
// variable name on every call and returns its value without surrounding
// white space. An unset or empty variable is an error.
func AssertionEnv(name string) AssertionSource {
	return func(ctx context.Context) (string, error) {
		a := strings.TrimSpace(os.Getenv(name))
		if a == "" {
			return "", fmt.Errorf("assertion environment variable %s: unset or empty; it must hold one JWT", name)
		}
		return a, nil
	}
}

// IdentityProvider is the enterprise identity provider (IdP) of
// enterprise-managed authorization: the Client exchanges the user's
// identity assertion there for an ID-JAG for the MCP server's
// authorization server (see "Enterprise-managed authorization" in the
// package documentation).
type IdentityProvider struct {
	// TokenEndpoint is the URL of the IdP's token endpoint, where the
	// token exchange (RFC 8693) is sent. Required.
	TokenEndpoint string
	// ClientID is the client's identifier at the IdP: the client the user
	// signed in to with single sign-on. Required.
	ClientID string
	// ClientSecret is the client's secret at the IdP; empty for a public
	// client.
	ClientSecret string
	// AuthMethod is how the client authenticates at the IdP:
	// "client_secret_basic", "client_secret_post" or "none". Empty:
	// client_secret_basic with a ClientSecret, none (client_id in the
	// form) without.
	AuthMethod string
	// IdentityAssertion returns the user's identity assertion, the
	// subject_token of the exchange: the ID token (or SAML assertion) the
	// client got when the user signed in. Called for every exchange.
	// Required.
	IdentityAssertion AssertionSource
	// AssertionType is the subject_token_type: IDTokenType (default) or
	// SAML2TokenType.
	AssertionType string
}

// check checks an IdentityProvider's configuration.
func (p *IdentityProvider) check() error {
	u, err := url.Parse(p.TokenEndpoint)
	if err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("TokenEndpoint %q: must be an absolute https URL", p.TokenEndpoint)
	}
	if p.ClientID == "" {
		return errors.New("no ClientID: the client's identifier at the identity provider is required")
	}
	if p.IdentityAssertion == nil {
		return errors.New("no IdentityAssertion: the source of the user's identity assertion is required")
	}
	switch p.AssertionType {
	case "", IDTokenType, SAML2TokenType:
	default:
		return fmt.Errorf("AssertionType %q: must be %s or %s", p.AssertionType, IDTokenType, SAML2TokenType)
	}
	if p.AuthMethod == "private_key_jwt" {
		return errors.New(`AuthMethod "private_key_jwt" is not supported at the identity provider: use client_secret_basic, client_secret_post or none`)
	}
	return checkAuthMethod(p.AuthMethod, p.ClientSecret)
}

// assertionAuthMethod returns how the client cc authenticates at the
// token endpoint in a JWT bearer grant: not at all without a client
// (workload identity federation needs none: the assertion identifies the
// workload), "none" (client_id in the form) for a client with neither a
// secret nor a key or whose AuthMethod is none, otherwise as the
// client_credentials grant does.
func assertionAuthMethod(d *discovered, cc *ClientCredentials) (string, error) {
	switch {
	case cc == nil:
		return "", nil
	case cc.AuthMethod == "none", cc.AuthMethod == "" && cc.ClientSecret == "" && cc.PrivateKey == nil:
		return "none", nil
	}
	return machineAuthMethod(d, cc)
}

// tokenRequest sends a token request of grantType with params (and scope
// and the resource parameter of d) to the token endpoint tokenURL,
// authenticating as clientID with method ("" sends no client
// authentication), and returns the answer. x/oauth2's clientcredentials
// package sends it: its EndpointParams may replace the grant_type.
func (s *server) tokenRequest(ctx context.Context, tokenURL, grantType string, params url.Values, scopes []string, clientID, secret, method string) (*oauth2.Token, error) {
	conf := &clientcredentials.Config{
		TokenURL:       tokenURL,
		Scopes:         scopes,
		EndpointParams: params,
		AuthStyle:      oauth2.AuthStyleInParams,
	}
	conf.EndpointParams.Set("grant_type", grantType)
	switch method {
	case "":
	case "none", "private_key_jwt":
		conf.ClientID = clientID
	case "client_secret_basic":
		conf.ClientID, conf.ClientSecret = clientID, secret
		conf.AuthStyle = oauth2.AuthStyleInHeader // form-urlencoded id and secret, then Basic (RFC 6749 section 2.3.1)
	case "client_secret_post":
		conf.ClientID, conf.ClientSecret = clientID, secret
	default:
		return nil, fmt.Errorf("client authentication %q is not supported here", method)
	}
	hc := s.g.oauth()
	if grantType == jwtBearerGrantType {
		hc = s.tokenClient() // with a DPoP proof, for the MCP server's authorization server
	}
	return conf.Token(context.WithValue(ctx, oauth2.HTTPClient, hc))
}

// assertion calls src for the assertion of a token request, and checks
// that it is one token: a JWT (three base64url parts) when jwt, else (a
// base64url-encoded SAML assertion) non-empty, without white space. An
// error says no more of it than its length.
func assertion(ctx context.Context, src AssertionSource, what string, jwt bool) (string, error) {
	a, err := src(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if a == "" || strings.ContainsAny(a, " \t\r\n") {
		return "", fmt.Errorf("%s: not one token (%d bytes, empty or with white space)", what, len(a))
	}
	if parts := strings.Split(a, "."); jwt && len(parts) != 3 {
		return "", fmt.Errorf("%s: not a JWT (%d bytes, want three base64url parts separated by dots)", what, len(a))
	}
	return a, nil
}

// bearerGrant gets a token for scopes with the JWT bearer grant (RFC 7523
// section 2.1) at the discovered authorization server, presenting the
// assertion a, with the resource parameter (RFC 8707), and makes it the
// server's token. As with the client_credentials grant, a refresh token
// that comes with it is not kept: a new grant is made instead, with a new
// assertion.
func (s *server) bearerGrant(ctx context.Context, d *discovered, step, a string, cc *ClientCredentials, scopes []string) error {
	method, err := assertionAuthMethod(d, cc)
	if err != nil {
		return s.errorf(step, "Config.Clients' client %q: %w", excerpt(cc.ClientID), err)
	}
	params := url.Values{"assertion": {a}, "resource": {d.resource}}
	var id, secret string
	if cc != nil {
		id, secret = cc.ClientID, cc.ClientSecret
		if method == "private_key_jwt" {
			ca, err := clientAssertion(cc, d.as, time.Now())
			if err != nil {
				return s.errorf(step, "Config.Clients' client %q: %w", excerpt(cc.ClientID), err)
			}
			params.Set("client_assertion_type", ClientAssertionType)
			params.Set("client_assertion", ca)
		}
	}
	s.c.logger.Debug("oauth: JWT bearer grant", "server", s.url, "issuer", d.issuer, "client_id", id, "method", method, "scope", strings.Join(scopes, " "))
	t, err := s.tokenRequest(ctx, d.as.TokenEndpoint, jwtBearerGrantType, params, scopes, id, secret, method)
	if err != nil {
		return s.wrap(step, err)
	}
	return s.keepGrant(ctx, step, "JWT bearer", t, d, scopes, cc, method)
}

// checkJWTBearer refuses an authorization server whose metadata lists
// grant types without the JWT bearer grant.
func (s *server) checkJWTBearer(d *discovered, step string) error {
	if gt := d.as.GrantTypesSupported; len(gt) > 0 && !slices.Contains(gt, jwtBearerGrantType) {
		return s.errorf(step, "issuer %q does not list %s in grant_types_supported (%q)", excerpt(d.issuer), jwtBearerGrantType, excerpt(strings.Join(gt, " ")))
	}
	return nil
}

// workloadToken gets a token for scopes by workload identity federation:
// the JWT bearer grant with the workload identity token of
// Config.WorkloadIdentity, read anew for every grant.
func (s *server) workloadToken(ctx context.Context, d *discovered, scopes []string) error {
	const step = "JWT bearer grant"
	if err := s.checkJWTBearer(d, step); err != nil {
		return err
	}
	cc, err := s.credentials(ctx, d)
	if err != nil {
		return err
	}
	a, err := assertion(ctx, s.c.cfg.WorkloadIdentity, "Config.WorkloadIdentity", true)
	if err != nil {
		return s.wrap(step, err)
	}
	return s.bearerGrant(ctx, d, step, a, cc, scopes)
}

// enterpriseToken gets a token for scopes by enterprise-managed
// authorization: a token exchange (RFC 8693) of the user's identity
// assertion at the identity provider for an ID-JAG whose audience is the
// authorization server's issuer and whose resource is the MCP server,
// then the JWT bearer grant with the ID-JAG at the authorization server.
func (s *server) enterpriseToken(ctx context.Context, d *discovered, scopes []string) error {
	const step = "token exchange"
	if err := s.checkJWTBearer(d, "JWT bearer grant"); err != nil {
		return err
	}
	cc, err := s.credentials(ctx, d)
	if err != nil {
		return err
	}
	idp := s.c.cfg.Enterprise
	if _, err := s.g.checkURL("Config.Enterprise.TokenEndpoint", idp.TokenEndpoint); err != nil {
		return s.wrap(step, err)
	}
	typ := idp.AssertionType
	if typ == "" {
		typ = IDTokenType
	}
	subject, err := assertion(ctx, idp.IdentityAssertion, "Config.Enterprise.IdentityAssertion", typ == IDTokenType)
	if err != nil {
		return s.wrap(step, err)
	}
	method := idp.AuthMethod
	if method == "" {
		method = "none"
		if idp.ClientSecret != "" {
			method = "client_secret_basic"
		}
	}
	params := url.Values{
		"requested_token_type": {IDJAGTokenType},
		"audience":             {d.as.Issuer},
		"resource":             {d.resource},
		"subject_token":        {subject},
		"subject_token_type":   {typ},
	}
	s.c.logger.Debug("oauth: token exchange for an ID-JAG", "server", s.url, "idp", idp.TokenEndpoint, "audience", d.as.Issuer, "client_id", idp.ClientID, "method", method, "scope", strings.Join(scopes, " "))
	t, err := s.tokenRequest(ctx, idp.TokenEndpoint, tokenExchangeGrantType, params, scopes, idp.ClientID, idp.ClientSecret, method)
	if err != nil {
		return s.wrap(step, fmt.Errorf("identity provider %s: %w", excerpt(idp.TokenEndpoint), err))
	}
	if it, _ := t.Extra("issued_token_type").(string); it != IDJAGTokenType {
		return s.errorf(step, "identity provider %s: issued_token_type %q, want %s", excerpt(idp.TokenEndpoint), excerpt(it), IDJAGTokenType)
	}
	return s.bearerGrant(ctx, d, "JWT bearer grant", t.AccessToken, cc, scopes)
}
