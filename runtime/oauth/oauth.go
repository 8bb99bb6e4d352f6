// Package oauth is the OAuth 2.1 client side of MCP authorization
// (revisions 2025-03-26 to 2026-07-28): it finds out where an MCP server
// wants its tokens from, registers the client, runs the authorization code
// flow with PKCE, and puts the token on the requests to that server.
//
// A Client gives an http.Client per MCP server (HTTPClient): give it to a
// transport, such as streamhttp.ClientOptions.HTTPClient, and the requests
// carry the server's token. When the server answers 401, the Client
//
//  1. reads the server's Protected Resource Metadata (RFC 9728): from the
//     resource_metadata of the WWW-Authenticate challenge, else from the
//     path-specific well-known URI, then the root one; and checks that it
//     is for this server (a server whose metadata names another resource
//     is refused);
//  2. reads the authorization server's metadata from its well-known URIs
//     in the order MCP fixes (RFC 8414 and OpenID Connect discovery, path
//     insertion first) and checks its issuer character for character; a
//     server without Protected Resource Metadata (2025-03-26) is its own
//     authorization server, with /authorize, /token and /register at its
//     root when it has no metadata either;
//  3. refuses an authorization server that does not list PKCE S256;
//  4. picks the scope as MCP says: the challenge's scope, else the
//     resource's scopes_supported, else none; plus offline_access when the
//     authorization server lists it (so that a refresh token comes);
//  5. finds client credentials, in order: Config.Clients, credentials
//     registered earlier with the same issuer (Store), a Client ID
//     Metadata Document (Config.ClientMetadataURL, when the server accepts
//     them), dynamic client registration (RFC 7591, with
//     application_type). Credentials are bound to their issuer and never
//     shown to another authorization server;
//  6. sends the user to the authorization endpoint through the Authorizer
//     (a loopback redirect, or Headless), with PKCE S256, state and the
//     resource parameter (RFC 8707), and checks the redirect's state and
//     iss (RFC 9207: iss must equal the issuer exactly, and must be there
//     when the server says it sends it);
//  7. exchanges the code at the token endpoint with golang.org/x/oauth2,
//     authenticating as client_secret_basic, client_secret_post or none,
//     again with the resource parameter; saves the token in the Store;
//
// and sends the request again. A token that expired is refreshed first
// (with the resource parameter too). A 403 whose challenge says
// error="insufficient_scope" starts a new authorization for the union of
// the scopes held and the scopes the challenge asks (step-up), unless the
// token already holds them all. One request leads to at most
// Config.MaxAuthorizations authorizations; so does a run of requests none
// of which succeeded.
//
// The token goes only to the MCP server's origin, in the Authorization
// header (never in a URL), and never to an authorization server.
// Metadata, registration and token requests are plain HTTP requests of
// Config.HTTPClient; they must use https except to a loopback host (or
// with Config.InsecureHTTP).
package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// Config configures a Client.
type Config struct {
	// Authorizer runs the user's part of the flow. Required.
	Authorizer Authorizer
	// Store keeps tokens and registered clients. Default: a MemoryStore.
	Store Store
	// Clients are pre-registered client credentials, tried first. An
	// entry with an Issuer is used with that authorization server only;
	// one without is bound to the first issuer the Client meets.
	Clients []ClientCredentials
	// ClientMetadataURL is the HTTPS URL of the client's Client ID
	// Metadata Document, used as its client_id with authorization servers
	// that say client_id_metadata_document_supported. The document itself
	// is served by the application.
	ClientMetadataURL string
	// ClientName is the client_name sent in dynamic registration.
	// Default "mcpgen client".
	ClientName string
	// ApplicationType is the application_type sent in dynamic
	// registration: "native" (default) or "web".
	ApplicationType string
	// NoOfflineAccess stops the Client from asking for offline_access
	// (and so for a refresh token) when the authorization server lists it.
	NoOfflineAccess bool
	// MaxAuthorizations bounds the authorizations one request may lead to,
	// and those a run of failing requests may lead to. Default 3.
	MaxAuthorizations int
	// HTTPClient sends the metadata, registration and token requests, and
	// is the base of the clients HTTPClient returns. Default: one on
	// http.DefaultTransport, with a 30 s timeout for the OAuth requests
	// only.
	HTTPClient *http.Client
	// InsecureHTTP allows http URLs for authorization servers and
	// metadata on hosts other than loopback ones. For tests.
	InsecureHTTP bool
	// Logger receives the steps of each authorization. Default: discard.
	Logger *slog.Logger
}

// DefaultMaxAuthorizations is Config.MaxAuthorizations's default.
const DefaultMaxAuthorizations = 3

// Client authorizes requests to MCP servers. Its methods may be called
// from several goroutines.
type Client struct {
	cfg    Config
	store  Store
	oauth  *http.Client // for metadata, registration and token requests
	logger *slog.Logger

	mu      sync.Mutex
	servers map[string]*server // by canonical resource
	bound   map[int]string     // index in cfg.Clients → issuer it was bound to
}

// New returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Authorizer == nil {
		return nil, errors.New("oauth: Config.Authorizer is required")
	}
	if cfg.MaxAuthorizations <= 0 {
		cfg.MaxAuthorizations = DefaultMaxAuthorizations
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "mcpgen client"
	}
	switch cfg.ApplicationType {
	case "":
		cfg.ApplicationType = "native"
	case "native", "web":
	default:
		return nil, fmt.Errorf("oauth: Config.ApplicationType %q: must be native or web", cfg.ApplicationType)
	}
	if cfg.ClientMetadataURL != "" {
		u, err := url.Parse(cfg.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" {
			return nil, fmt.Errorf("oauth: Config.ClientMetadataURL %q: must be an https URL with a path", cfg.ClientMetadataURL)
		}
	}
	for i, c := range cfg.Clients {
		if c.ClientID == "" {
			return nil, fmt.Errorf("oauth: Config.Clients[%d]: no ClientID", i)
		}
		if err := checkAuthMethod(c.AuthMethod, c.ClientSecret); err != nil {
			return nil, fmt.Errorf("oauth: Config.Clients[%d]: %w", i, err)
		}
	}
	c := &Client{cfg: cfg, store: cfg.Store, servers: map[string]*server{}, bound: map[int]string{}}
	if c.store == nil {
		c.store = &MemoryStore{}
	}
	c.logger = cfg.Logger
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient != nil {
		c.oauth = cfg.HTTPClient
	} else {
		c.oauth = &http.Client{Timeout: 30 * time.Second}
	}
	return c, nil
}

func checkAuthMethod(m, secret string) error {
	switch m {
	case "", "client_secret_basic", "client_secret_post":
	case "none":
		if secret != "" {
			return errors.New(`AuthMethod "none" with a ClientSecret`)
		}
	default:
		return fmt.Errorf("AuthMethod %q: must be client_secret_basic, client_secret_post or none", m)
	}
	return nil
}

// Error is an authorization that did not succeed: its Step says which
// (such as "protected resource metadata", "registration", "token
// request") and Err why.
type Error struct {
	// Server is the MCP server's URL.
	Server string
	// Step names the step that failed.
	Step string
	// Err is the cause.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("oauth: authorizing for %s: %s: %v", e.Server, e.Step, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// AuthorizationFailed reports true: see session.AuthorizationError (a
// client of both eras does not fall back to initialize after it).
func (e *Error) AuthorizationFailed() bool { return true }

// HTTPClient returns an http.Client that authorizes its requests to the
// MCP server at serverURL (the URL the transport connects to), built on
// Config.HTTPClient's transport. Requests to other origins go out as they
// are.
func (c *Client) HTTPClient(serverURL string) (*http.Client, error) {
	rt, err := c.Transport(serverURL, nil)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: rt}
	if c.cfg.HTTPClient != nil {
		hc.Jar = c.cfg.HTTPClient.Jar
	}
	return hc, nil
}

// Transport returns an http.RoundTripper that authorizes the requests to
// the MCP server at serverURL and sends them with base (default:
// Config.HTTPClient's transport, or http.DefaultTransport).
func (c *Client) Transport(serverURL string, base http.RoundTripper) (http.RoundTripper, error) {
	s, err := c.server(serverURL)
	if err != nil {
		return nil, err
	}
	if base == nil && c.cfg.HTTPClient != nil {
		base = c.cfg.HTTPClient.Transport
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{s: s, base: base}, nil
}

// Logout forgets the token for the MCP server at serverURL, in memory and
// in the Store, so that the next request authorizes again. When the token's
// authorization server has a revocation endpoint, Logout first revokes the
// token there (RFC 7009: the refresh token, which ends its access tokens
// too, or else the access token); an error of the revocation is returned,
// but the token is forgotten either way.
func (c *Client) Logout(ctx context.Context, serverURL string) error {
	s, err := c.server(serverURL)
	if err != nil {
		return err
	}
	return s.logout(ctx)
}

// server returns the state kept for the MCP server at serverURL.
func (c *Client) server(serverURL string) (*server, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("oauth: server URL %q: %w", serverURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("oauth: server URL %q: must be an absolute http or https URL", serverURL)
	}
	resource, err := oauthmeta.CanonicalResource(serverURL)
	if err != nil {
		return nil, fmt.Errorf("oauth: server URL: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.servers[resource]; ok {
		return s, nil
	}
	s := &server{c: c, url: serverURL, origin: origin(u), resource: resource}
	c.servers[resource] = s
	return s, nil
}

// origin returns scheme://host of u, lower case, without a default port.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "https" && p == "443") && !(scheme == "http" && p == "80") {
		host += ":" + p
	}
	return scheme + "://" + host
}

// isLoopback reports whether host names the local machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkURL refuses a URL the client must not send OAuth requests to: not
// absolute http(s), or http to a host that is not loopback.
func (c *Client) checkURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", what, excerpt(raw), err)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%s %q: not an absolute http or https URL", what, excerpt(raw))
	}
	if u.Scheme == "http" && !c.cfg.InsecureHTTP && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("%s %q: OAuth needs https (http only to a loopback host)", what, excerpt(raw))
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s %q: a URL with user information", what, excerpt(raw))
	}
	return u, nil
}

// do sends an OAuth request (metadata, registration) with Config's HTTP
// client, following at most 10 redirects and none to a URL checkURL
// refuses (an https document must not lead to plain http elsewhere).
func (c *Client) do(req *http.Request) (*http.Response, error) {
	hc := *c.oauth
	prev := hc.CheckRedirect
	hc.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if _, err := c.checkURL("redirect", r.URL.String()); err != nil {
			return err
		}
		if prev != nil {
			return prev(r, via)
		}
		return nil
	}
	return hc.Do(req)
}

// excerpt returns s, cut to 200 bytes, for error messages about input
// that came from a server.
func excerpt(s string) string {
	const n = 200
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "�")
}
