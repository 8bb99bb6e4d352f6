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
// # Machine clients
//
// With Config.ClientCredentialsGrant, a Client acts for itself, with no
// user and no browser (an agent, a service, a batch job): steps 1, 2 and 4
// are the same (discovery, and the scope, without offline_access), step 3
// is not needed (no authorization endpoint, no PKCE), the credentials are
// those of Config.Clients only (no registration), and steps 6 and 7 are one
// token request of the client_credentials grant (RFC 6749 section 4.4)
// with the resource parameter. The client authenticates with
// client_secret_basic (RFC 6749 section 2.3.1: the form-urlencoded id and
// secret in a Basic header), client_secret_post, or private_key_jwt (RFC
// 7523 section 2.2): a JWT signed with ClientCredentials.PrivateKey whose
// iss and sub are the client id, whose aud is the authorization server's
// issuer identifier, with iat, an exp AssertionLifetime later and a unique
// jti, new for every token request. The aud is the issuer, not the token
// endpoint: the MCP extension for client credentials
// (https://github.com/modelcontextprotocol/ext-auth) and the update of RFC
// 7523 in the IETF OAuth working group (draft-ietf-oauth-rfc7523bis) name
// it, so that an assertion cannot be replayed at another server's
// endpoint. The method is the configured one, else the first of
// private_key_jwt (with a key), client_secret_basic and client_secret_post
// (with a secret) that the server lists. The token is kept in the Store,
// sent and re-acquired on 401 and on insufficient_scope as above; one
// that expires is replaced with a new grant before it is sent (no refresh
// token is kept: the client needs none).
//
// # Workload identity federation
//
// With Config.WorkloadIdentity, a Client is a workload with no user and
// no secret of its own: a job on Kubernetes, a SPIFFE-identified service,
// a cloud function, whose platform issues it a short-lived JWT. It
// presents that JWT in the JWT bearer grant (RFC 7523 section 2.1:
// grant_type urn:ietf:params:oauth:grant-type:jwt-bearer, the JWT as the
// assertion), with the resource parameter and the scope chosen as above,
// at the authorization server discovered as above; the authorization
// server trusts the platform's issuer and decides by the JWT's claims
// (https://github.com/modelcontextprotocol/ext-auth, workload identity
// federation). The JWT comes from an AssertionSource, called for every
// grant: AssertionFile reads a file again each time, so that a token the
// platform rotated is picked up; AssertionEnv reads an environment
// variable. The token request carries no client authentication, unless
// Config.Clients has a client for the issuer (with a secret, a key, or
// AuthMethod none for a client_id alone). The token is kept, sent and
// replaced as a machine client's; a grant the server refuses
// (invalid_grant, invalid_scope, unauthorized_client) is an error, not
// tried again nor with another grant.
//
// # Enterprise-managed authorization
//
// With Config.Enterprise, a Client whose user signed in with the
// enterprise's identity provider (IdP) gets tokens for MCP servers
// without another login, as the IdP's policy allows
// (https://github.com/modelcontextprotocol/ext-auth, enterprise-managed
// authorization; the Identity Assertion JWT Authorization Grant of the
// IETF OAuth working group, draft-ietf-oauth-identity-assertion-authz-grant).
// After discovery (steps 1, 2 and 4 above), it
//
//  1. sends a token exchange (RFC 8693) to IdentityProvider.TokenEndpoint:
//     grant_type urn:ietf:params:oauth:grant-type:token-exchange, the
//     user's identity assertion (IdentityProvider.IdentityAssertion, an
//     ID token or SAML assertion) as subject_token with its
//     subject_token_type, requested_token_type
//     urn:ietf:params:oauth:token-type:id-jag, audience the authorization
//     server's issuer identifier, resource the MCP server's resource
//     identifier, and the scope; authenticating as IdentityProvider's
//     client (client_secret_basic, client_secret_post, or none: the
//     client_id only). An answer whose issued_token_type is not the
//     ID-JAG's is refused;
//  2. presents the ID-JAG in the JWT bearer grant at the authorization
//     server, with the resource parameter and the scope, authenticating
//     with the client of Config.Clients for that issuer (or, without one,
//     as its Client ID Metadata Document, when the server accepts them).
//
// The token is kept, sent and replaced as a machine client's: a new
// exchange and grant, with the identity assertion the source returns
// then, and no refresh token kept.
//
// # DPoP
//
// With Config.DPoP, the Client's tokens are bound to a key it holds (RFC
// 9449): every request to the authorization server's token endpoint (the
// authorization code, refresh, client credentials and JWT bearer grants)
// and revocation request carries a DPoP proof of the key, a token whose
// token_type is DPoP goes to the MCP server as "Authorization: DPoP" with
// a new proof for every request (one of token_type Bearer, from an
// authorization server that did not bind it, as a bearer token), and a
// use_dpop_nonce answer with a DPoP-Nonce gets the request once more with
// the nonce. The key is DPoPOptions.Key, or one the Client generates and
// keeps in the Store with the token (Token.DPoPKey), so that a refresh, or
// the next run, proves the token with the same key. The token exchange at
// an enterprise identity provider carries no proof.
//
// The token goes only to the MCP server's origin, in the Authorization
// header (never in a URL), and never to an authorization server.
// Metadata, registration, token and revocation requests are plain HTTP
// requests of Config.HTTPClient; they must use https except to a loopback
// host (or with Config.InsecureHTTP). So is the token exchange at an
// identity provider, with the address policy below: an IdP on a private
// network that the MCP server's URL does not name needs
// Config.AllowAddresses.
//
// # Address policy
//
// The URLs of the OAuth requests come from the MCP server and its
// authorization server (a challenge's resource_metadata, the
// authorization_servers of the Protected Resource Metadata, the endpoints
// of the authorization server metadata, redirects), and the MCP server may
// answer the MCP requests with redirects: a remote server could use them
// to make the client send requests into the user's machine or network. So
// every such URL is classified with runtime/netpolicy before it is
// requested (or shown to the user, for the authorization endpoint), and
// every connection again after DNS resolution, before it is made (a
// net.Dialer Control hook, so that DNS cannot move a public name to a
// private address). An address is refused when its class is not allowed:
//
//   - public addresses are allowed;
//   - the class of the MCP server's own host is allowed, and no other:
//     loopback addresses (and localhost names) only when the MCP server's
//     URL is on loopback, RFC 1918 addresses only when it is on RFC 1918,
//     unique local addresses only when it is on one, CGNAT addresses only
//     when it is on CGNAT (a server on an overlay network's 100.x address
//     does not open the user's RFC 1918 LAN), link-local addresses only
//     when it is link-local; the host of the URL as written decides (a
//     server given by a DNS name other than a localhost name is public,
//     and allows nothing more);
//   - the addresses of the cloud metadata services (netpolicy.Metadata:
//     169.254.169.254, fd00:ec2::254, 100.100.100.200 and a few more) are
//     never allowed by the MCP server's class, only by
//     Config.AllowAddresses;
//   - Config.AllowAddresses allows more classes (such as
//     netpolicy.PrivateNetworks, for an authorization server on a
//     private network the MCP server's URL does not name);
//   - every other class is refused: loopback, private (RFC 1918), unique
//     local (fc00::/7), CGNAT (100.64.0.0/10), link-local (169.254.0.0/16
//     and fe80::/10), cloud metadata, unspecified (0.0.0.0/8, ::),
//     multicast, broadcast, documentation and reserved addresses, however
//     they are spelled: IPv6 forms that carry an IPv4 address are classed
//     by it, and a host that is a non-canonical spelling of an IPv4
//     address (2130706433, 0x7f.1, 127.1) is refused.
//
// A host that is not ASCII is refused too (an internationalized name is
// written in its xn-- form). The MCP server's own host:port is chosen by
// the user: its URLs pass the class check and its connections are not
// checked, nor are a proxy's (http.Transport.Proxy; through a proxy, the
// proxy resolves the target's name, and only the URL check applies to
// it).
//
// Plain http is allowed only to a loopback host (unless
// Config.InsecureHTTP). A localhost name is therefore not looked up in
// DNS: it is dialled at 127.0.0.1, then ::1 (RFC 6761 section 6.3), and a
// connection of a localhost name that reached another address (through a
// dialer of Config.HTTPClient's) is refused.
//
// Redirects: the OAuth requests follow at most 10, only within the
// policy, never from https to plain http, and, for a POST (token,
// registration, revocation), never to another origin. The MCP requests
// (the clients HTTPClient returns) follow none from https to plain http,
// none of a request other than GET or HEAD to another origin (a 307 would
// send a POST's JSON-RPC message there again), and none that leaves the
// MCP server's origin for a URL the policy refuses; their connections to
// any host:port but the MCP server's have the dial check. Headless
// requests the authorization endpoint with the policy too, and so can an
// Authorizer of the application's (HTTPClientFrom). A refusal is an error
// naming the URL, where it came from, the host's class and why; it matches
// netpolicy.ErrRefused (a *netpolicy.RefusedError) or ErrRedirectRefused.
//
// With a Config.HTTPClient, the URL and redirect checks always apply; the
// connection check applies when its Transport is an *http.Transport (it is
// cloned): before each connection is made, or, when the transport has its
// own DialContext or Dial, on the connection's remote address once made
// and before the request is sent, or, with its own DialTLSContext or
// DialTLS, once the TLS handshake is done (the ClientHello has gone to
// that address by then). A connection whose remote address is not an IP
// address and port (a tunnel's) cannot be checked and is refused, unless
// Config.AllowAddresses is netpolicy.All. Another RoundTripper (a
// wrapper, say) gets the URL and redirect checks only: the addresses a
// name resolves to are not checked.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// Config configures a Client.
type Config struct {
	// Authorizer runs the user's part of the flow. Required, unless
	// ClientCredentialsGrant, WorkloadIdentity or Enterprise.
	Authorizer Authorizer
	// ClientCredentialsGrant makes the Client a machine client, with no
	// user: it gets its tokens with the client_credentials grant (RFC 6749
	// section 4.4) instead of the authorization code flow, authenticating
	// with the credentials of Clients (see "Machine clients" in the package
	// documentation). Authorizer is then not used.
	ClientCredentialsGrant bool
	// WorkloadIdentity makes the Client a workload, with no user
	// (workload identity federation): it gets its tokens with the JWT
	// bearer grant (RFC 7523 section 2.1), presenting as the assertion the
	// workload identity token that WorkloadIdentity returns (see
	// AssertionFile and AssertionEnv, and "Workload identity federation"
	// in the package documentation). Clients is optional: the client of
	// an entry for the issuer authenticates as it says, and without one
	// the token request has no client authentication. Authorizer is then
	// not used.
	WorkloadIdentity AssertionSource
	// Enterprise makes the Client get its tokens by enterprise-managed
	// authorization: it exchanges the user's identity assertion at this
	// identity provider for an ID-JAG (RFC 8693 token exchange), then
	// presents the ID-JAG to the MCP server's authorization server in the
	// JWT bearer grant (RFC 7523 section 2.1), authenticating with the
	// credentials of Clients, or as the Client ID Metadata Document of
	// ClientMetadataURL (see "Enterprise-managed authorization" in the
	// package documentation). Authorizer is then not used.
	Enterprise *IdentityProvider
	// DPoP, when set, binds the Client's tokens to a key it holds (RFC
	// 9449): see DPoPOptions.
	DPoP *DPoPOptions
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
	// HTTPClient sends the metadata, registration, token and revocation
	// requests, with the address policy (see the package documentation:
	// the policy applies to its redirects always, and to its connections
	// when its Transport is an *http.Transport), and is the base of the
	// clients HTTPClient returns (whose connections to hosts other than
	// the MCP server's have the policy's dial check too). Default: one on
	// http.DefaultTransport, with a 30 s timeout for the OAuth requests
	// only.
	HTTPClient *http.Client
	// AllowAddresses are the classes of addresses the OAuth requests and
	// the MCP server's redirects may reach besides public ones and those
	// of the MCP server's own class (see the package documentation).
	// Default none: a remote server's metadata or redirects cannot point
	// the client at loopback, private, link-local, cloud metadata or
	// other special addresses, and a server on one kind of private
	// network (CGNAT, say) cannot point it at another (RFC 1918). A
	// deployment whose authorization server sits on a private network
	// that the MCP server's URL does not name sets
	// netpolicy.PrivateNetworks (or only the classes it needs);
	// netpolicy.Metadata is the only way to a cloud metadata service's
	// address; netpolicy.All turns the address policy off, and lets
	// through the connections of a Config.HTTPClient's own dialer whose
	// remote address is not an IP address and port (a tunnel's), which
	// are refused otherwise.
	AllowAddresses netpolicy.Class
	// InsecureHTTP allows http URLs for authorization servers and
	// metadata on hosts other than loopback ones. For tests. It does not
	// allow a redirect from https to http.
	InsecureHTTP bool
	// Logger receives the steps of each authorization. Default: discard.
	Logger *slog.Logger

	testNet *testNetwork // tests only: see export_test.go
}

// DefaultMaxAuthorizations is Config.MaxAuthorizations's default.
const DefaultMaxAuthorizations = 3

// Client authorizes requests to MCP servers. Its methods may be called
// from several goroutines.
type Client struct {
	cfg    Config
	store  Store
	base   *http.Client // Config.HTTPClient, or the default
	logger *slog.Logger

	mode    grantMode
	mu      sync.Mutex
	servers map[string]*server // by canonical resource
	bound   map[int]string     // index in cfg.Clients → issuer it was bound to
}

// grantMode is how a Client gets its tokens.
type grantMode int

const (
	authorizationCode grantMode = iota // the user authorizes, through the Authorizer
	clientCredentials                  // Config.ClientCredentialsGrant
	workloadIdentity                   // Config.WorkloadIdentity
	enterprise                         // Config.Enterprise
)

// machine reports whether the Client gets its tokens with no user and no
// authorization endpoint.
func (c *Client) machine() bool { return c.mode != authorizationCode }

// New returns a Client.
func New(cfg Config) (*Client, error) {
	mode := authorizationCode
	var modes []string
	if cfg.ClientCredentialsGrant {
		mode = clientCredentials
		modes = append(modes, "ClientCredentialsGrant")
	}
	if cfg.WorkloadIdentity != nil {
		mode = workloadIdentity
		modes = append(modes, "WorkloadIdentity")
	}
	if cfg.Enterprise != nil {
		mode = enterprise
		modes = append(modes, "Enterprise")
	}
	if len(modes) > 1 {
		return nil, fmt.Errorf("oauth: Config.%s: set one of them only: each is a way of getting tokens", strings.Join(modes, " and Config."))
	}
	if cfg.Authorizer == nil && mode == authorizationCode {
		return nil, errors.New("oauth: Config.Authorizer is required (or, for a client with no user, Config.ClientCredentialsGrant, Config.WorkloadIdentity or Config.Enterprise)")
	}
	if cfg.ClientCredentialsGrant && len(cfg.Clients) == 0 {
		return nil, errors.New("oauth: Config.ClientCredentialsGrant: Config.Clients must hold the client's credentials (a client ID with a ClientSecret or a PrivateKey)")
	}
	if cfg.Enterprise != nil {
		if err := cfg.Enterprise.check(); err != nil {
			return nil, fmt.Errorf("oauth: Config.Enterprise: %w", err)
		}
		if len(cfg.Clients) == 0 && cfg.ClientMetadataURL == "" {
			return nil, errors.New("oauth: Config.Enterprise: Config.Clients must hold the client's credentials at the MCP server's authorization server (or Config.ClientMetadataURL its Client ID Metadata Document)")
		}
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
		if err := checkClient(&c, mode); err != nil {
			return nil, fmt.Errorf("oauth: Config.Clients[%d] (client %q): %w", i, c.ClientID, err)
		}
	}
	if err := checkDPoP(cfg.DPoP); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, mode: mode, store: cfg.Store, servers: map[string]*server{}, bound: map[int]string{}}
	if c.store == nil {
		c.store = &MemoryStore{}
	}
	c.logger = cfg.Logger
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.HTTPClient != nil {
		c.base = cfg.HTTPClient
	} else {
		c.base = &http.Client{Timeout: 30 * time.Second}
	}
	return c, nil
}

// checkClient checks the client credentials of Config.Clients, of a
// Client that gets its tokens as mode says.
func checkClient(c *ClientCredentials, mode grantMode) error {
	switch c.AssertionAudience {
	case "", AudienceIssuer, AudienceTokenEndpoint:
	default:
		return fmt.Errorf("AssertionAudience %q; want %q (the default) or %q", excerpt(c.AssertionAudience), AudienceIssuer, AudienceTokenEndpoint)
	}
	if mode == authorizationCode {
		if c.PrivateKey != nil || c.AuthMethod == "private_key_jwt" {
			return errors.New("private_key_jwt (a PrivateKey) is supported with Config.ClientCredentialsGrant, Config.WorkloadIdentity or Config.Enterprise only")
		}
		return checkAuthMethod(c.AuthMethod, c.ClientSecret)
	}
	if c.PrivateKey != nil {
		if _, err := signingAlgorithm(c.PrivateKey); err != nil {
			return err
		}
	}
	switch c.AuthMethod {
	case "":
		if c.ClientSecret == "" && c.PrivateKey == nil && mode == clientCredentials {
			return errors.New("the client_credentials grant needs a ClientSecret or a PrivateKey")
		}
	case "none":
		if mode == clientCredentials {
			return errors.New(`AuthMethod "none": the client_credentials grant needs client_secret_basic, client_secret_post or private_key_jwt`)
		}
		if c.ClientSecret != "" || c.PrivateKey != nil {
			return errors.New(`AuthMethod "none" with a ClientSecret or a PrivateKey`)
		}
	case "client_secret_basic", "client_secret_post":
		if c.ClientSecret == "" {
			return fmt.Errorf("AuthMethod %q without a ClientSecret", c.AuthMethod)
		}
	case "private_key_jwt":
		if c.PrivateKey == nil {
			return errors.New(`AuthMethod "private_key_jwt" without a PrivateKey`)
		}
	default:
		if mode != clientCredentials {
			return fmt.Errorf("AuthMethod %q: the JWT bearer grant needs client_secret_basic, client_secret_post, private_key_jwt or none", c.AuthMethod)
		}
		return fmt.Errorf("AuthMethod %q: the client_credentials grant needs client_secret_basic, client_secret_post or private_key_jwt", c.AuthMethod)
	}
	return nil
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
// Config.HTTPClient's transport, jar and redirect policy, with the
// address policy (see the package documentation): the server's own
// host:port is the user's choice and is not checked, but every other
// connection is (the dial check, when the transport is an
// *http.Transport), and so is every redirect. It follows no redirect from
// https to plain http, none of a request other than GET or HEAD (a POST
// carries a JSON-RPC message) to another origin, and none that leaves the
// server's origin for a URL the policy refuses; then Config.HTTPClient's
// CheckRedirect decides, or at most 10 redirects are followed. Requests to
// other origins go out without the token.
func (c *Client) HTTPClient(serverURL string) (*http.Client, error) {
	s, err := c.server(serverURL)
	if err != nil {
		return nil, err
	}
	rt, err := c.Transport(serverURL, nil)
	if err != nil {
		return nil, err
	}
	var check func(*http.Request, []*http.Request) error
	hc := &http.Client{Transport: rt}
	if c.cfg.HTTPClient != nil {
		hc.Jar = c.cfg.HTTPClient.Jar
		check = c.cfg.HTTPClient.CheckRedirect
	}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := s.g.checkServerRedirect(req, via); err != nil {
			return err
		}
		if check != nil {
			return check(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return hc, nil
}

// Transport returns an http.RoundTripper that authorizes the requests to
// the MCP server at serverURL and sends them with base (default:
// Config.HTTPClient's transport, or http.DefaultTransport). When base is
// an *http.Transport, it is cloned (once per server) with the address
// policy's dial check: the connections to the server's own host:port are
// not checked (the user chose it), those to any other host are, as the
// OAuth requests' are. A RoundTripper does not follow redirects: the
// http.Client that uses it checks them (HTTPClient's does).
func (c *Client) Transport(serverURL string, base http.RoundTripper) (http.RoundTripper, error) {
	s, err := c.server(serverURL)
	if err != nil {
		return nil, err
	}
	if base == nil && c.cfg.HTTPClient != nil {
		base = c.cfg.HTTPClient.Transport
	}
	return &roundTripper{s: s, base: s.g.transport(base)}, nil
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
	s := &server{c: c, url: serverURL, origin: origin(u), resource: resource, g: c.newGuard(u)}
	if c.cfg.DPoP != nil {
		s.dpop = &dpopState{opts: c.cfg.DPoP}
	}
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

// excerpt returns s, cut to 200 bytes, for error messages about input
// that came from a server.
func excerpt(s string) string {
	const n = 200
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "�")
}
