package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
	"golang.org/x/oauth2"
)

// server is what a Client knows of one MCP server.
type server struct {
	c        *Client
	url      string     // as given
	origin   string     // where its token may go
	resource string     // canonical URI: the Store's key
	g        *guard     // the address policy of its OAuth requests
	dpop     *dpopState // with Config.DPoP

	authMu sync.Mutex // one authorization or refresh at a time

	mu       sync.Mutex
	loaded   bool   // the Store was asked for a token
	tok      *Token // the token requests carry
	gen      uint64 // counts changes of tok
	failures int    // authorizations since the last request that succeeded
	disc     *discovered
	creds    *ClientCredentials // used for disc.issuer
}

// discovered is where a server's tokens come from.
type discovered struct {
	resource string // the resource parameter
	issuer   string
	as       *oauthmeta.AuthorizationServer
	scopes   []string // the resource's scopes_supported
	fallback bool     // 2025-03-26 default endpoints, no metadata
}

// current returns the token to send and its generation. The first call
// asks the Store.
func (s *server) current(ctx context.Context) (*Token, uint64) {
	s.mu.Lock()
	if s.loaded {
		defer s.mu.Unlock()
		return s.tok, s.gen
	}
	s.mu.Unlock()
	tok, err := s.c.store.LoadToken(ctx, s.resource)
	if err != nil && !errors.Is(err, ErrNotFound) {
		s.c.logger.Warn("oauth: reading the token store", "server", s.url, "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		s.loaded = true
		if err == nil && tok != nil && tok.AccessToken != "" {
			s.tok = tok
			s.gen++
		}
	}
	return s.tok, s.gen
}

// setToken makes tok the server's token and saves it.
func (s *server) setToken(ctx context.Context, tok *Token) {
	s.bindToken(tok)
	s.mu.Lock()
	s.tok = tok
	s.gen++
	s.loaded = true
	s.mu.Unlock()
	if err := s.c.store.SaveToken(ctx, s.resource, tok); err != nil {
		s.c.logger.Warn("oauth: saving the token", "server", s.url, "err", err)
	}
}

func (s *server) errorf(step string, format string, args ...any) error {
	return &Error{Server: s.url, Step: step, Err: fmt.Errorf(format, args...)}
}

func (s *server) wrap(step string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Server: s.url, Step: step, Err: s.g.explain(err)}
}

// do sends an OAuth request (metadata, registration, revocation) with the
// address policy.
func (s *server) do(req *http.Request) (*http.Response, error) {
	return s.g.oauth().Do(req)
}

// outcome is what reauthorize did.
type outcome int

const (
	retry      outcome = iota // the token changed: send again
	refreshed                 // refreshed the token: send again
	authorized                // a new authorization: send again
)

// reauthorize reacts to a 401 or 403 (status) with challenge ch, for a
// request sent with the token of generation gen. mayRefresh says whether
// this request may still try a refresh.
func (s *server) reauthorize(ctx context.Context, status int, ch oauthmeta.Challenge, gen uint64, mayRefresh bool) (outcome, error) {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	s.mu.Lock()
	tok, now, failures := s.tok, s.gen, s.failures
	s.mu.Unlock()
	if now != gen {
		return retry, nil
	}
	d, err := s.discover(ctx, ch)
	if err != nil {
		return 0, err
	}
	challenged := scopeList(param(ch, "scope"))
	var held []string
	if tok != nil && tok.Issuer == d.issuer {
		held = scopeList(tok.Scope)
	}
	var scopes []string
	if status == http.StatusForbidden {
		if tok != nil && tok.Issuer == d.issuer && containsAll(held, challenged) {
			return 0, s.errorf("step-up", "the server answers 403 insufficient_scope for scope %q, which the token already holds", excerpt(strings.Join(challenged, " ")))
		}
		scopes = union(held, challenged)
	} else {
		if mayRefresh && !s.c.machine() && tok != nil && tok.RefreshToken != "" && tok.Issuer == d.issuer {
			if err := s.refresh(ctx, d, tok); err == nil {
				return refreshed, nil
			} else {
				s.c.logger.Info("oauth: refresh failed; authorizing again", "server", s.url, "err", err)
			}
		}
		switch {
		case len(challenged) > 0:
			scopes = challenged
		case len(d.scopes) > 0:
			scopes = d.scopes
		}
		scopes = union(held, scopes)
	}
	if failures >= s.c.cfg.MaxAuthorizations {
		return 0, s.errorf("authorization", "%d authorizations in a row did not lead to a request the server accepted; giving up", failures)
	}
	if !s.c.cfg.NoOfflineAccess && !s.c.machine() && slices.Contains(d.as.ScopesSupported, "offline_access") && len(scopes) > 0 {
		scopes = union(scopes, []string{"offline_access"})
	}
	s.mu.Lock()
	s.failures++
	s.mu.Unlock()
	if err := s.authorize(ctx, d, scopes); err != nil {
		return 0, err
	}
	return authorized, nil
}

// succeeded notes a request the server accepted.
func (s *server) succeeded() {
	s.mu.Lock()
	s.failures = 0
	s.mu.Unlock()
}

// param returns a challenge parameter's value.
func param(ch oauthmeta.Challenge, name string) string {
	v, _ := ch.Get(name)
	return v
}

// scopeList splits a scope string (RFC 6749 section 3.3).
func scopeList(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// discover finds the server's authorization server, again at each
// authorization (the server may have moved to another one).
func (s *server) discover(ctx context.Context, ch oauthmeta.Challenge) (*discovered, error) {
	var prm *oauthmeta.ProtectedResource
	var prmURL string
	var tried []string
	urls, err := oauthmeta.ProtectedResourceURLs(s.url)
	if err != nil {
		return nil, s.wrap("protected resource metadata", err)
	}
	if rm := param(ch, "resource_metadata"); rm != "" {
		urls = append([]string{rm}, urls...)
	}
	for i, u := range urls {
		if slices.Contains(tried, u) {
			continue
		}
		tried = append(tried, u)
		source := "well-known URI"
		fromChallenge := i == 0 && param(ch, "resource_metadata") != ""
		if fromChallenge {
			source = "the challenge's resource_metadata"
		}
		data, found, err := s.fetch(ctx, "protected resource metadata", source, u)
		if err != nil {
			if fromChallenge {
				s.c.logger.Info("oauth: the challenge's resource_metadata could not be read; trying the well-known URIs", "url", u, "err", err)
				continue
			}
			return nil, err
		}
		if !found {
			continue
		}
		m, err := oauthmeta.DecodeProtectedResource(data)
		if err != nil {
			return nil, s.errorf("protected resource metadata", "%s: %w", excerpt(u), err)
		}
		if err := m.CheckCovers(s.url); err != nil {
			return nil, s.errorf("protected resource metadata", "%s: %w", excerpt(u), err)
		}
		prm = m
		prmURL = u
		break
	}
	d := &discovered{}
	if prm != nil {
		if len(prm.AuthorizationServers) == 0 {
			return nil, s.errorf("protected resource metadata", "it names no authorization server")
		}
		d.issuer = prm.AuthorizationServers[0]
		d.resource = prm.Resource
		d.scopes = scopeList(strings.Join(prm.ScopesSupported, " "))
	} else {
		// 2025-03-26: no Protected Resource Metadata; the MCP server's
		// origin is its authorization server.
		d.issuer = s.origin
		d.resource = s.resource
	}
	source := "the MCP server's origin as authorization server"
	if prm != nil {
		source = "protected resource metadata " + excerpt(prmURL) + " names authorization server"
	}
	if _, err := s.g.checkURL(source, d.issuer); err != nil {
		return nil, s.wrap("authorization server metadata", err)
	}
	asURLs, err := oauthmeta.AuthorizationServerURLs(d.issuer)
	if err != nil {
		return nil, s.wrap("authorization server metadata", err)
	}
	for _, u := range asURLs {
		data, found, err := s.fetch(ctx, "authorization server metadata", "well-known URI", u)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		m, err := oauthmeta.DecodeAuthorizationServer(data)
		if err != nil {
			return nil, s.errorf("authorization server metadata", "%s: %w", excerpt(u), err)
		}
		if prm == nil {
			// 2025-03-26 looks the metadata up from the MCP server's
			// origin, not from an issuer identifier: the issuer it names
			// must be of that origin, and is then the issuer.
			if iu, err := url.Parse(m.Issuer); err != nil || iu.Host == "" || origin(iu) != s.origin {
				return nil, s.errorf("authorization server metadata", "%s: issuer %q is not of the MCP server's origin %s", excerpt(u), excerpt(m.Issuer), s.origin)
			}
			d.issuer = m.Issuer
		} else if err := m.CheckIssuer(d.issuer); err != nil {
			return nil, s.errorf("authorization server metadata", "%s: %w", excerpt(u), err)
		}
		d.as = m
		break
	}
	if d.as == nil {
		if prm != nil {
			return nil, s.errorf("authorization server metadata", "none found for issuer %q at %s", excerpt(d.issuer), strings.Join(asURLs, ", "))
		}
		// 2025-03-26's default endpoints.
		d.fallback = true
		d.as = &oauthmeta.AuthorizationServer{
			Issuer:                        d.issuer,
			AuthorizationEndpoint:         d.issuer + "/authorize",
			TokenEndpoint:                 d.issuer + "/token",
			RegistrationEndpoint:          d.issuer + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
		}
		s.c.logger.Debug("oauth: no metadata; using the default endpoints", "server", s.url, "issuer", d.issuer)
	}
	endpoints := []struct{ what, u string }{{"authorization_endpoint", d.as.AuthorizationEndpoint}, {"token_endpoint", d.as.TokenEndpoint}}
	if s.c.machine() {
		// No authorization request: neither PKCE nor the authorization
		// endpoint is used.
		endpoints = endpoints[1:]
	} else if !d.as.SupportsPKCE() {
		return nil, s.errorf("authorization server metadata", "issuer %q does not list PKCE S256 in code_challenge_methods_supported; MCP clients must not use it", excerpt(d.issuer))
	}
	for _, e := range endpoints {
		if e.u == "" {
			return nil, s.errorf("authorization server metadata", "issuer %q has no %s", excerpt(d.issuer), e.what)
		}
		if _, err := s.g.checkURL(s.names(d, e.what), e.u); err != nil {
			return nil, s.wrap("authorization server metadata", err)
		}
	}
	s.mu.Lock()
	if s.disc == nil || s.disc.issuer != d.issuer {
		s.creds = nil
	}
	s.disc = d
	s.mu.Unlock()
	s.c.logger.Debug("oauth: discovered", "server", s.url, "issuer", d.issuer, "resource", d.resource)
	return d, nil
}

// names says where an endpoint of the authorization server metadata
// comes from: `issuer "https://as.example" names token_endpoint`.
func (s *server) names(d *discovered, what string) string {
	if d.fallback {
		return "the default " + what + " of the MCP server's origin"
	}
	return fmt.Sprintf("issuer %q names %s", excerpt(d.issuer), what)
}

// fetch GETs a metadata document from raw, which came from source. A 4xx
// answer is "not found" (the next well-known URI is tried); anything else
// but 200 is an error.
func (s *server) fetch(ctx context.Context, step, source, raw string) ([]byte, bool, error) {
	if _, err := s.g.checkURL(source, raw); err != nil {
		return nil, false, s.wrap(step, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, false, s.wrap(step, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.do(req)
	if err != nil {
		return nil, false, s.wrap(step, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, oauthmeta.MaxDocument+1))
	if err != nil {
		return nil, false, s.errorf(step, "%s: %w", excerpt(raw), err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return data, true, nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		s.c.logger.Debug("oauth: not found", "step", step, "url", raw, "status", resp.StatusCode)
		return nil, false, nil
	default:
		return nil, false, s.errorf(step, "%s: %s", excerpt(raw), resp.Status)
	}
}

// credentials returns the client credentials for the discovered issuer.
func (s *server) credentials(ctx context.Context, d *discovered) (*ClientCredentials, error) {
	c := s.c
	c.mu.Lock()
	for i, cc := range c.cfg.Clients {
		if cc.Issuer == d.issuer || cc.Issuer == "" && (c.bound[i] == "" || c.bound[i] == d.issuer) {
			if cc.Issuer == "" {
				c.bound[i] = d.issuer
			}
			c.mu.Unlock()
			cc.Issuer = d.issuer
			return &cc, nil
		}
	}
	c.mu.Unlock()
	switch c.mode {
	case clientCredentials:
		return nil, s.errorf("client credentials grant", "Config.Clients has no client for issuer %q (each entry with an Issuer is used with that issuer only, one without with the first issuer met)", excerpt(d.issuer))
	case workloadIdentity:
		return nil, nil // the token request goes without client authentication
	case enterprise:
		if c.cfg.ClientMetadataURL != "" && d.as.ClientIDMetadataDocumentSupported {
			return &ClientCredentials{Issuer: d.issuer, ClientID: c.cfg.ClientMetadataURL, AuthMethod: "none"}, nil
		}
		return nil, s.errorf("JWT bearer grant", "Config.Clients has no client for issuer %q%s (each entry with an Issuer is used with that issuer only, one without with the first issuer met)", excerpt(d.issuer), map[bool]string{true: ", and it does not accept Client ID Metadata Documents", false: ""}[c.cfg.ClientMetadataURL != ""])
	}
	if cc, err := c.store.LoadClient(ctx, d.issuer); err == nil && cc.ClientID != "" {
		cc.Issuer = d.issuer
		return cc, nil
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, s.wrap("registration", err)
	}
	if c.cfg.ClientMetadataURL != "" && d.as.ClientIDMetadataDocumentSupported {
		return &ClientCredentials{Issuer: d.issuer, ClientID: c.cfg.ClientMetadataURL, AuthMethod: "none"}, nil
	}
	if d.as.RegistrationEndpoint == "" {
		return nil, s.errorf("registration", "issuer %q offers no dynamic client registration%s, and Config.Clients has no client for it", excerpt(d.issuer), map[bool]string{true: "", false: " nor Client ID Metadata Documents"}[d.as.ClientIDMetadataDocumentSupported])
	}
	cc, err := s.register(ctx, d)
	if err != nil {
		return nil, err
	}
	if err := c.store.SaveClient(ctx, d.issuer, cc); err != nil {
		c.logger.Warn("oauth: saving the registered client", "issuer", d.issuer, "err", err)
	}
	return cc, nil
}

// registration is the RFC 7591 client metadata the client sends.
type registration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
}

// registered is the part of the registration response the client reads.
type registered struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret,omitempty"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// maxRegistration bounds a registration response.
const maxRegistration = 64 << 10

// register registers the client dynamically (RFC 7591).
func (s *server) register(ctx context.Context, d *discovered) (*ClientCredentials, error) {
	const step = "registration"
	if _, err := s.g.checkURL(s.names(d, "registration_endpoint"), d.as.RegistrationEndpoint); err != nil {
		return nil, s.wrap(step, err)
	}
	method := "client_secret_basic"
	supported := d.as.TokenEndpointAuthMethodsSupported
	switch {
	case slices.Contains(supported, "none"):
		method = "none"
	case len(supported) == 0, slices.Contains(supported, "client_secret_basic"):
	case slices.Contains(supported, "client_secret_post"):
		method = "client_secret_post"
	}
	body, err := json.Marshal(registration{
		ClientName:              s.c.cfg.ClientName,
		RedirectURIs:            []string{s.c.cfg.Authorizer.RedirectURL()},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         s.c.cfg.ApplicationType,
	})
	if err != nil {
		return nil, s.wrap(step, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, s.wrap(step, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.do(req)
	if err != nil {
		return nil, s.wrap(step, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRegistration+1))
	if err != nil {
		return nil, s.wrap(step, err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, s.errorf(step, "%s answered %s: %s", excerpt(d.as.RegistrationEndpoint), resp.Status, excerpt(string(data)))
	}
	cc, err := decodeRegistered(data, method)
	if err != nil {
		return nil, s.errorf(step, "the response: %w", err)
	}
	cc.Issuer = d.issuer
	s.c.logger.Debug("oauth: registered", "issuer", d.issuer, "client_id", cc.ClientID, "method", cc.AuthMethod)
	return cc, nil
}

// decodeRegistered reads a registration response (RFC 7591 section 3.2.1)
// to a request that asked for the token endpoint auth method.
func decodeRegistered(data []byte, method string) (*ClientCredentials, error) {
	if len(data) > maxRegistration {
		return nil, fmt.Errorf("larger than %d bytes", maxRegistration)
	}
	var r registered
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.ClientID == "" {
		return nil, errors.New("no client_id")
	}
	cc := &ClientCredentials{ClientID: r.ClientID, ClientSecret: r.ClientSecret, AuthMethod: r.TokenEndpointAuthMethod}
	if cc.AuthMethod == "" {
		cc.AuthMethod = method
		if method == "none" && cc.ClientSecret != "" {
			cc.AuthMethod = ""
		}
	}
	if err := checkAuthMethod(cc.AuthMethod, cc.ClientSecret); err != nil {
		return nil, err
	}
	return cc, nil
}

// config returns the x/oauth2 configuration of the client credentials cc
// at the discovered server.
func (s *server) config(d *discovered, cc *ClientCredentials, scopes []string) *oauth2.Config {
	method := cc.AuthMethod
	if method == "" {
		switch {
		case cc.ClientSecret == "":
			method = "none"
		case slices.Contains(d.as.TokenEndpointAuthMethodsSupported, "client_secret_post") && !slices.Contains(d.as.TokenEndpointAuthMethodsSupported, "client_secret_basic"):
			method = "client_secret_post"
		default:
			method = "client_secret_basic"
		}
	}
	conf := &oauth2.Config{
		ClientID: cc.ClientID,
		Scopes:   scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL:   d.as.AuthorizationEndpoint,
			TokenURL:  d.as.TokenEndpoint,
			AuthStyle: oauth2.AuthStyleInParams,
		},
	}
	if a := s.c.cfg.Authorizer; a != nil {
		conf.RedirectURL = a.RedirectURL()
	}
	switch method {
	case "client_secret_basic":
		conf.ClientSecret = cc.ClientSecret
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	case "client_secret_post":
		conf.ClientSecret = cc.ClientSecret
	}
	return conf
}

// randomState returns a fresh state value.
func randomState() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// authorize runs the authorization code flow for scopes.
func (s *server) authorize(ctx context.Context, d *discovered, scopes []string) error {
	switch s.c.mode {
	case clientCredentials:
		return s.machineToken(ctx, d, scopes)
	case workloadIdentity:
		return s.workloadToken(ctx, d, scopes)
	case enterprise:
		return s.enterpriseToken(ctx, d, scopes)
	}
	cc, err := s.credentials(ctx, d)
	if err != nil {
		return err
	}
	conf := s.config(d, cc, scopes)
	state := randomState()
	verifier := oauth2.GenerateVerifier()
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	s.c.logger.Debug("oauth: authorizing", "server", s.url, "issuer", d.issuer, "scope", strings.Join(scopes, " "))
	q, err := s.c.cfg.Authorizer.Authorize(context.WithValue(ctx, guardKey{}, s.g), authURL)
	if err != nil {
		return s.wrap("authorization", err)
	}
	if e := q.Get("error"); e != "" {
		msg := excerpt(e)
		if desc := q.Get("error_description"); desc != "" {
			msg += ": " + excerpt(desc)
		}
		return s.errorf("authorization", "the authorization server refused: %s", msg)
	}
	if q.Get("state") != state {
		return s.errorf("authorization", "the redirect's state is not the request's (a forged or stale redirect)")
	}
	if q.Has("iss") {
		if iss := q.Get("iss"); iss != d.as.Issuer {
			return s.errorf("authorization", "the redirect's iss %q is not the issuer %q (RFC 9207: a mix-up attack, or another server)", excerpt(iss), excerpt(d.as.Issuer))
		}
	} else if d.as.AuthorizationResponseIssParameterSupported {
		return s.errorf("authorization", "the redirect has no iss, though issuer %q says it sends one (RFC 9207)", excerpt(d.as.Issuer))
	}
	code := q.Get("code")
	if code == "" {
		return s.errorf("authorization", "the redirect has no code")
	}
	// x/oauth2 sends the token request with the client of the context:
	// the policy's, whose redirects stay within the origin and https.
	tctx := context.WithValue(ctx, oauth2.HTTPClient, s.tokenClient())
	t, err := conf.Exchange(tctx, code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		return s.wrap("token request", err)
	}
	tok, err := fromOAuth2(t, d.issuer, strings.Join(scopes, " "))
	if err != nil {
		return s.wrap("token request", err)
	}
	s.mu.Lock()
	s.creds = cc
	s.mu.Unlock()
	s.setToken(ctx, tok)
	s.c.logger.Debug("oauth: authorized", "server", s.url, "issuer", d.issuer, "scope", tok.Scope)
	return nil
}

// fromOAuth2 converts a token response.
func fromOAuth2(t *oauth2.Token, issuer, requested string) (*Token, error) {
	if t.AccessToken == "" {
		return nil, errors.New("the response has no access_token")
	}
	typ := t.Type()
	switch {
	case strings.EqualFold(typ, tokenTypeBearer):
		typ = tokenTypeBearer
	case strings.EqualFold(typ, tokenTypeDPoP):
		typ = tokenTypeDPoP
	default:
		return nil, fmt.Errorf("token_type %q: only Bearer and DPoP tokens are supported", excerpt(typ))
	}
	tok := &Token{Issuer: issuer, AccessToken: t.AccessToken, TokenType: typ, RefreshToken: t.RefreshToken, Expiry: t.Expiry, Scope: requested}
	if sc, ok := t.Extra("scope").(string); ok {
		tok.Scope = sc
	}
	return tok, nil
}

// refresh gets a new access token with tok's refresh token, sending the
// resource parameter too (x/oauth2 has no option for it on refresh: a
// transport adds it).
func (s *server) refresh(ctx context.Context, d *discovered, tok *Token) error {
	s.mu.Lock()
	cc := s.creds
	s.mu.Unlock()
	if cc == nil {
		var err error
		if cc, err = s.credentials(ctx, d); err != nil {
			return err
		}
	}
	conf := s.config(d, cc, nil)
	hc := *s.tokenClient() // the policy's redirect check, and its transport (with DPoP proofs) under addForm
	hc.Transport = &addForm{base: hc.Transport, url: d.as.TokenEndpoint, name: "resource", value: d.resource}
	tctx := context.WithValue(ctx, oauth2.HTTPClient, &hc)
	t, err := conf.TokenSource(tctx, &oauth2.Token{RefreshToken: tok.RefreshToken, Expiry: time.Unix(1, 0)}).Token()
	if err != nil {
		return s.wrap("refresh", err)
	}
	nt, err := fromOAuth2(t, d.issuer, tok.Scope)
	if err != nil {
		return s.wrap("refresh", err)
	}
	s.mu.Lock()
	s.creds = cc
	s.mu.Unlock()
	s.setToken(ctx, nt)
	s.c.logger.Debug("oauth: refreshed", "server", s.url)
	return nil
}

// expiryDelta is how long before its expiry a token is refreshed (as
// x/oauth2 does).
const expiryDelta = 10 * time.Second

// addForm adds a form parameter to the POSTs to one URL that lack it.
type addForm struct {
	base             http.RoundTripper
	url, name, value string
}

func (a *addForm) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.URL.String() != a.url || req.Body == nil ||
		!strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return a.base.RoundTrip(req)
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(data))
	if err != nil {
		return nil, err
	}
	if !form.Has(a.name) {
		form.Set(a.name, a.value)
	}
	body := form.Encode()
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(strings.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	return a.base.RoundTrip(r)
}

// ensureFresh refreshes a token that expired, or expires within
// expiryDelta, before it is sent, when it has a refresh token from the
// server's authorization server. It reports whether the token may have
// changed meanwhile (false: tok is still the one to send).
//
// A client with no user (Config.ClientCredentialsGrant, WorkloadIdentity
// or Enterprise) gets a new token with a new grant instead.
func (s *server) ensureFresh(ctx context.Context, tok *Token, gen uint64) bool {
	machine := s.c.machine()
	if tok == nil || tok.RefreshToken == "" && !machine || tok.Expiry.IsZero() || time.Until(tok.Expiry) > expiryDelta {
		return false
	}
	s.authMu.Lock()
	defer s.authMu.Unlock()
	s.mu.Lock()
	d, now := s.disc, s.gen
	s.mu.Unlock()
	if now != gen {
		return true
	}
	if d == nil {
		// A token from the Store, before any discovery.
		var err error
		if d, err = s.discover(ctx, oauthmeta.Challenge{}); err != nil {
			s.c.logger.Info("oauth: refreshing an expired token", "server", s.url, "err", err)
			return false
		}
	}
	if d.issuer != tok.Issuer {
		return false
	}
	if machine {
		if err := s.authorize(ctx, d, scopeList(tok.Scope)); err != nil {
			s.c.logger.Info("oauth: replacing an expired token", "server", s.url, "err", err)
			return false
		}
		return true
	}
	if err := s.refresh(ctx, d, tok); err != nil {
		s.c.logger.Info("oauth: refreshing an expired token", "server", s.url, "err", err)
		return false
	}
	return true
}

// logout forgets the server's token, revoking it first (RFC 7009) when
// its authorization server has a revocation endpoint.
func (s *server) logout(ctx context.Context) error {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	tok, _ := s.current(ctx)
	s.mu.Lock()
	d, cc := s.disc, s.creds
	s.tok = nil
	s.gen++
	s.loaded = true
	s.mu.Unlock()
	if err := s.c.store.DeleteToken(ctx, s.resource); err != nil {
		return s.wrap("logout", err)
	}
	if tok == nil {
		return nil
	}
	if d == nil || d.issuer != tok.Issuer {
		var err error
		if d, err = s.discover(ctx, oauthmeta.Challenge{}); err != nil || d.issuer != tok.Issuer {
			return nil // the authorization server is unknown or another: nothing to revoke there
		}
	}
	if d.as.RevocationEndpoint == "" {
		return nil
	}
	if cc == nil {
		var err error
		if cc, err = s.credentials(ctx, d); err != nil {
			return err
		}
		if cc == nil {
			return nil // a workload with no client: it cannot authenticate a revocation
		}
	}
	token, hint := tok.RefreshToken, "refresh_token"
	if token == "" {
		token, hint = tok.AccessToken, "access_token"
	}
	return s.revoke(ctx, d, cc, token, hint)
}

// revoke sends an RFC 7009 revocation request, authenticating as the
// client does at the token endpoint.
func (s *server) revoke(ctx context.Context, d *discovered, cc *ClientCredentials, token, hint string) error {
	const step = "revocation"
	if _, err := s.g.checkURL(s.names(d, "revocation_endpoint"), d.as.RevocationEndpoint); err != nil {
		return s.wrap(step, err)
	}
	conf := s.config(d, cc, nil)
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	if conf.Endpoint.AuthStyle != oauth2.AuthStyleInHeader {
		form.Set("client_id", conf.ClientID)
		if conf.ClientSecret != "" {
			form.Set("client_secret", conf.ClientSecret)
		}
	}
	if cc.AuthMethod == "private_key_jwt" {
		a, err := clientAssertion(cc, d.as, time.Now())
		if err != nil {
			return s.wrap(step, err)
		}
		form.Set("client_assertion_type", ClientAssertionType)
		form.Set("client_assertion", a)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return s.wrap(step, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if conf.Endpoint.AuthStyle == oauth2.AuthStyleInHeader {
		req.SetBasicAuth(url.QueryEscape(conf.ClientID), url.QueryEscape(conf.ClientSecret))
	}
	resp, err := s.tokenClient().Do(req)
	if err != nil {
		return s.wrap(step, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return s.errorf(step, "%s answered %s: %s", excerpt(d.as.RevocationEndpoint), resp.Status, excerpt(string(body)))
	}
	return nil
}
