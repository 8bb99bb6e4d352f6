package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// ClientAssertionType is the client_assertion_type of the private_key_jwt
// client authentication (RFC 7523 section 2.2).
const ClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// AssertionLifetime is how long a client assertion the Client signs is
// valid: its exp is its iat plus AssertionLifetime. A new assertion, with
// a new jti, is signed for every token request.
const AssertionLifetime = 2 * time.Minute

// signingAlgorithm returns the JWS algorithm of a client assertion signed
// with key: ES256, ES384 or ES512 for an ECDSA key on P-256, P-384 or
// P-521, RS256 for an RSA key of 2048 bits or more, EdDSA for an Ed25519
// key.
func signingAlgorithm(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", errors.New("PrivateKey: an ECDSA key must be on P-256, P-384 or P-521")
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return "", fmt.Errorf("PrivateKey: an RSA key of %d bits; at least 2048 are needed", k.N.BitLen())
		}
		return jose.RS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("PrivateKey: a %T; want an *ecdsa.PrivateKey, *rsa.PrivateKey or ed25519.PrivateKey", key)
}

// The values of ClientCredentials.AssertionAudience.
const (
	// AudienceIssuer makes the aud of a client assertion the
	// authorization server's issuer identifier (the default).
	AudienceIssuer = "issuer"
	// AudienceTokenEndpoint makes the aud of a client assertion the
	// authorization server's token endpoint URL.
	AudienceTokenEndpoint = "token_endpoint"
)

// clientAssertion returns a private_key_jwt client assertion of cc for
// the authorization server as (RFC 7523 sections 2.2 and 3): iss and sub
// the client id, aud its issuer (or token endpoint, as
// cc.AssertionAudience says), iat now, exp AssertionLifetime later, a
// random jti, signed with cc.PrivateKey (kid cc.KeyID when set). A server
// that lists the algorithms it takes
// (token_endpoint_auth_signing_alg_values_supported) and not the key's
// gets no assertion: the error names both.
func clientAssertion(cc *ClientCredentials, as *oauthmeta.AuthorizationServer, now time.Time) (string, error) {
	if cc.PrivateKey == nil {
		return "", errors.New("private_key_jwt needs a PrivateKey")
	}
	alg, err := signingAlgorithm(cc.PrivateKey)
	if err != nil {
		return "", err
	}
	if algs := as.TokenEndpointAuthSigningAlgValuesSupported; len(algs) > 0 && !slices.Contains(algs, string(alg)) {
		return "", fmt.Errorf("issuer %q takes client assertions signed with %q (token_endpoint_auth_signing_alg_values_supported), and the PrivateKey signs %s", excerpt(as.Issuer), excerpt(strings.Join(algs, " ")), alg)
	}
	audience := as.Issuer
	if cc.AssertionAudience == AudienceTokenEndpoint {
		if as.TokenEndpoint == "" {
			return "", fmt.Errorf("AssertionAudience %q, and issuer %q names no token endpoint", AudienceTokenEndpoint, excerpt(as.Issuer))
		}
		audience = as.TokenEndpoint
	}
	key := jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: cc.PrivateKey, KeyID: cc.KeyID, Algorithm: string(alg)}}
	sig, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("client assertion: %w", err)
	}
	jti := make([]byte, 18)
	rand.Read(jti)
	claims := jwt.Claims{
		Issuer:   cc.ClientID,
		Subject:  cc.ClientID,
		Audience: jwt.Audience{audience},
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(AssertionLifetime)),
		ID:       base64.RawURLEncoding.EncodeToString(jti),
	}
	a, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("client assertion: %w", err)
	}
	return a, nil
}

// machineAuthMethod returns how the client cc authenticates at the token
// endpoint of the discovered authorization server in the
// client_credentials grant. Its candidates are cc.AuthMethod when set,
// else private_key_jwt when it has a PrivateKey, then client_secret_basic
// and client_secret_post when it has a ClientSecret; the first one the
// server lists in token_endpoint_auth_methods_supported is taken (the
// first candidate when the server lists none).
func machineAuthMethod(d *discovered, cc *ClientCredentials) (string, error) {
	var candidates []string
	switch {
	case cc.AuthMethod != "":
		candidates = []string{cc.AuthMethod}
	default:
		if cc.PrivateKey != nil {
			candidates = append(candidates, "private_key_jwt")
		}
		if cc.ClientSecret != "" {
			candidates = append(candidates, "client_secret_basic", "client_secret_post")
		}
	}
	if len(candidates) == 0 {
		return "", errors.New("the client has neither a ClientSecret nor a PrivateKey")
	}
	supported := d.as.TokenEndpointAuthMethodsSupported
	if len(supported) == 0 {
		return candidates[0], nil
	}
	for _, m := range candidates {
		if slices.Contains(supported, m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("issuer %q accepts token_endpoint_auth_methods_supported %q, and the client's credentials allow %q only", excerpt(d.issuer), excerpt(strings.Join(supported, " ")), strings.Join(candidates, " "))
}

// machineToken gets a token for scopes with the client_credentials grant
// (RFC 6749 section 4.4) at the discovered authorization server, with the
// resource parameter (RFC 8707), and makes it the server's token. A
// refresh token that comes with it is not kept: the client gets a new
// token with its credentials instead (RFC 6749 section 4.4.3).
func (s *server) machineToken(ctx context.Context, d *discovered, scopes []string) error {
	const step = "client credentials grant"
	if gt := d.as.GrantTypesSupported; len(gt) > 0 && !slices.Contains(gt, "client_credentials") {
		return s.errorf(step, "issuer %q does not list client_credentials in grant_types_supported (%q)", excerpt(d.issuer), excerpt(strings.Join(gt, " ")))
	}
	cc, err := s.credentials(ctx, d)
	if err != nil {
		return err
	}
	method, err := machineAuthMethod(d, cc)
	if err != nil {
		return s.errorf(step, "Config.Clients' client %q: %w", excerpt(cc.ClientID), err)
	}
	conf := &clientcredentials.Config{
		ClientID:       cc.ClientID,
		TokenURL:       d.as.TokenEndpoint,
		Scopes:         scopes,
		EndpointParams: url.Values{"resource": {d.resource}},
		AuthStyle:      oauth2.AuthStyleInParams,
	}
	switch method {
	case "client_secret_basic":
		conf.ClientSecret = cc.ClientSecret
		conf.AuthStyle = oauth2.AuthStyleInHeader // form-urlencoded id and secret, then Basic (RFC 6749 section 2.3.1)
	case "client_secret_post":
		conf.ClientSecret = cc.ClientSecret
	case "private_key_jwt":
		a, err := clientAssertion(cc, d.as, time.Now())
		if err != nil {
			return s.errorf(step, "Config.Clients' client %q: %w", excerpt(cc.ClientID), err)
		}
		conf.EndpointParams.Set("client_assertion_type", ClientAssertionType)
		conf.EndpointParams.Set("client_assertion", a)
	default:
		return s.errorf(step, "Config.Clients' client %q: AuthMethod %q cannot authenticate a client_credentials grant", excerpt(cc.ClientID), cc.AuthMethod)
	}
	s.c.logger.Debug("oauth: client credentials grant", "server", s.url, "issuer", d.issuer, "client_id", cc.ClientID, "method", method, "scope", strings.Join(scopes, " "))
	tctx := context.WithValue(ctx, oauth2.HTTPClient, s.tokenClient())
	t, err := conf.Token(tctx)
	if err != nil {
		return s.wrap(step, err)
	}
	return s.keepGrant(ctx, step, "client credentials", t, d, scopes, cc, method)
}

// keepGrant keeps the token t a grant with no user gave (client
// credentials, JWT bearer) for the authorization server d: without its
// refresh token, since such a grant is made again rather than refreshed
// (RFC 6749 section 4.4.3), and with the credentials cc (nil for none)
// that got it, authenticated with method.
func (s *server) keepGrant(ctx context.Context, step, grant string, t *oauth2.Token, d *discovered, scopes []string, cc *ClientCredentials, method string) error {
	tok, err := fromOAuth2(t, d.issuer, strings.Join(scopes, " "))
	if err != nil {
		return s.wrap(step, err)
	}
	tok.RefreshToken = ""
	if cc != nil {
		used := *cc
		used.AuthMethod = method
		s.mu.Lock()
		s.creds = &used
		s.mu.Unlock()
	}
	s.setToken(ctx, tok)
	s.c.logger.Debug("oauth: got a token with the "+grant+" grant", "server", s.url, "issuer", d.issuer, "scope", tok.Scope)
	return nil
}
