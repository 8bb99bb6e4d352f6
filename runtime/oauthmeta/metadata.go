// Package oauthmeta provides the OAuth 2.x documents and headers that MCP
// authorization is built from, shared by the resource server and the client
// sides of mcpgen:
//
//   - ProtectedResource, the RFC 9728 Protected Resource Metadata a server
//     publishes, and ProtectedResourceURLs, where a client looks for it;
//   - AuthorizationServer, the RFC 8414 authorization server metadata (also
//     read from an OpenID Connect discovery document), and
//     AuthorizationServerURLs, the order in which a client tries its
//     well-known locations;
//   - Challenge, the WWW-Authenticate challenge of RFC 9110 section 11.6.1
//     with the Bearer parameters of RFC 6750 and RFC 9728 (error, scope,
//     resource_metadata), parsed and written.
//
// Nothing here does network I/O; the documents decode with
// github.com/go-json-experiment/json: names are matched case-sensitively,
// duplicate names are refused and unknown members are ignored (both
// documents are extensible).
package oauthmeta

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
)

// MaxDocument is the size in bytes above which Decode refuses a metadata
// document. Real documents are a few kilobytes.
const MaxDocument = 1 << 20

// ProtectedResource is the Protected Resource Metadata of RFC 9728 section
// 2: what an MCP server, as an OAuth resource server, says about itself.
// MCP requires AuthorizationServers to hold at least one issuer.
type ProtectedResource struct {
	// Resource is the resource identifier: the canonical URI of the MCP
	// server (RFC 8707), which clients send as the resource parameter and
	// which tokens must name as their audience.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuer identifiers of the
	// authorization servers that issue tokens for Resource.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// JWKSURI is the resource's own JSON Web Key Set, if it signs anything.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported lists the scopes a client may request for Resource.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported lists how the resource accepts bearer tokens;
	// MCP allows only "header".
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name of the resource.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is a URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
}

// AuthorizationServer is the authorization server metadata of RFC 8414
// section 2, also the subset of an OpenID Connect discovery document that
// OAuth clients read. Only the members mcpgen uses are kept.
type AuthorizationServer struct {
	// Issuer is the authorization server's issuer identifier; it must equal
	// the issuer the document was looked up for (see CheckIssuer).
	Issuer string `json:"issuer"`
	// AuthorizationEndpoint is where the user authorizes the client.
	AuthorizationEndpoint string `json:"authorization_endpoint,omitempty"`
	// TokenEndpoint is where codes and refresh tokens become tokens.
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	// RegistrationEndpoint is the RFC 7591 dynamic client registration
	// endpoint, when the server offers it.
	RegistrationEndpoint string `json:"registration_endpoint,omitempty"`
	// JWKSURI is the server's JSON Web Key Set, whose keys sign its tokens.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// IntrospectionEndpoint is the RFC 7662 token introspection endpoint.
	IntrospectionEndpoint string `json:"introspection_endpoint,omitempty"`
	// RevocationEndpoint is the RFC 7009 token revocation endpoint.
	RevocationEndpoint string `json:"revocation_endpoint,omitempty"`
	// ScopesSupported lists the scopes the server knows.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// ResponseTypesSupported lists the response types it supports ("code").
	ResponseTypesSupported []string `json:"response_types_supported,omitempty"`
	// GrantTypesSupported lists the grant types it supports.
	GrantTypesSupported []string `json:"grant_types_supported,omitempty"`
	// TokenEndpointAuthMethodsSupported lists how clients may authenticate
	// at the token endpoint ("client_secret_basic", "client_secret_post",
	// "none", ...). RFC 8414 says an absent list means client_secret_basic.
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	// TokenEndpointAuthSigningAlgValuesSupported lists the JWS algorithms
	// of the client assertions (private_key_jwt) the token endpoint takes;
	// empty when the server does not say.
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	// CodeChallengeMethodsSupported lists the PKCE methods it supports; MCP
	// clients must refuse a server that does not list S256.
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says the server accepts an HTTPS
	// URL as client_id (OAuth Client ID Metadata Documents).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says the server adds iss to
	// its authorization responses (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// DecodeProtectedResource decodes a Protected Resource Metadata document
// and checks what RFC 9728 requires of it: a resource. It does not compare
// the resource with the one the client asked for: see CheckResource.
func DecodeProtectedResource(data []byte) (*ProtectedResource, error) {
	var m ProtectedResource
	if err := decode(data, &m); err != nil {
		return nil, fmt.Errorf("protected resource metadata: %w", err)
	}
	if m.Resource == "" {
		return nil, errors.New("protected resource metadata: member resource is missing or empty")
	}
	return &m, nil
}

// DecodeAuthorizationServer decodes authorization server metadata (RFC 8414
// or OpenID Connect discovery) and checks that it names an issuer. It does
// not compare the issuer with the expected one: see CheckIssuer.
func DecodeAuthorizationServer(data []byte) (*AuthorizationServer, error) {
	var m AuthorizationServer
	if err := decode(data, &m); err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if m.Issuer == "" {
		return nil, errors.New("authorization server metadata: member issuer is missing or empty")
	}
	return &m, nil
}

func decode(data []byte, v any) error {
	if len(data) > MaxDocument {
		return fmt.Errorf("document of %d bytes is larger than %d", len(data), MaxDocument)
	}
	return json.Unmarshal(data, v)
}

// CheckResource reports an error unless the metadata's resource is the
// resource the client asked for (RFC 9728 section 3.3), compared after
// normalization by CanonicalResource. A client must not use metadata that
// names another resource.
func (m *ProtectedResource) CheckResource(want string) error {
	got, err := CanonicalResource(m.Resource)
	if err != nil {
		return fmt.Errorf("protected resource metadata: resource: %w", err)
	}
	w, err := CanonicalResource(want)
	if err != nil {
		return err
	}
	if got != w {
		return fmt.Errorf("protected resource metadata names resource %q, not %q", m.Resource, want)
	}
	return nil
}

// CheckCovers reports an error unless the metadata's resource is the MCP
// server at serverURL or contains it: the same URI after normalization by
// CanonicalResource, or a URI of the same origin whose path is a whole-
// segment prefix of the server's (metadata served at the root well-known
// URI names the origin). A resource of another origin, or a sibling path,
// is refused: a client must not use metadata that names another resource.
func (m *ProtectedResource) CheckCovers(serverURL string) error {
	got, err := CanonicalResource(m.Resource)
	if err != nil {
		return fmt.Errorf("protected resource metadata: resource: %w", err)
	}
	want, err := CanonicalResource(serverURL)
	if err != nil {
		return err
	}
	if got == want {
		return nil
	}
	g, _ := url.Parse(got)
	w, _ := url.Parse(want)
	if g.RawQuery == "" && g.Scheme == w.Scheme && g.Host == w.Host &&
		(g.EscapedPath() == "" || g.EscapedPath() == "/" || strings.HasPrefix(w.EscapedPath(), g.EscapedPath()+"/")) {
		return nil
	}
	return fmt.Errorf("protected resource metadata names resource %q, which is not the server %q", m.Resource, serverURL)
}

// CheckIssuer reports an error unless the metadata's issuer is exactly
// want, character for character (RFC 8414 section 3.3: no normalization).
func (m *AuthorizationServer) CheckIssuer(want string) error {
	if m.Issuer != want {
		return fmt.Errorf("authorization server metadata names issuer %q, not %q", m.Issuer, want)
	}
	return nil
}

// SupportsPKCE reports whether the server lists the S256 code challenge
// method, which MCP requires.
func (m *AuthorizationServer) SupportsPKCE() bool {
	return slices.Contains(m.CodeChallengeMethodsSupported, "S256")
}

// CanonicalResource returns the canonical form of an MCP server URI used as
// an RFC 8707 resource indicator: an absolute http or https URL without a
// fragment, scheme and host in lower case, default ports dropped, and no
// trailing slash on a path other than "/" (an empty path becomes "").
// The query is kept.
func CanonicalResource(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("resource %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("resource %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("resource %q: no host", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "", fmt.Errorf("resource %q: a resource indicator has no fragment", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("resource %q: a resource indicator has no user information", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "https" && p == "443") || (u.Scheme == "http" && p == "80") {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u.String(), nil
}

// Well-known URI suffixes (RFC 8615 registrations).
const (
	// WellKnownProtectedResource is RFC 9728's well-known suffix.
	WellKnownProtectedResource = "/.well-known/oauth-protected-resource"
	// WellKnownAuthorizationServer is RFC 8414's well-known suffix.
	WellKnownAuthorizationServer = "/.well-known/oauth-authorization-server"
	// WellKnownOpenIDConfiguration is OpenID Connect discovery's suffix.
	WellKnownOpenIDConfiguration = "/.well-known/openid-configuration"
)

// ProtectedResourcePath returns the path at which the metadata of a
// resource whose URL path is resourcePath is served: the well-known suffix
// with the resource's path inserted after it (RFC 9728 section 3.1), or the
// suffix alone for a resource at the root.
func ProtectedResourcePath(resourcePath string) string {
	p := strings.TrimSuffix(resourcePath, "/")
	if p == "" {
		return WellKnownProtectedResource
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return WellKnownProtectedResource + p
}

// ProtectedResourceURLs returns where a client looks for the metadata of
// the MCP server at serverURL when the server's challenge did not say: the
// path-specific well-known URI first, then the root one (MCP 2025-11-25
// onward). A server at the root has only the root URI. The query of
// serverURL is dropped.
func ProtectedResourceURLs(serverURL string) ([]string, error) {
	u, err := absolute(serverURL)
	if err != nil {
		return nil, err
	}
	root := u.Scheme + "://" + u.Host + WellKnownProtectedResource
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		return []string{u.Scheme + "://" + u.Host + WellKnownProtectedResource + p, root}, nil
	}
	return []string{root}, nil
}

// AuthorizationServerURLs returns the URLs at which a client looks for the
// metadata of the authorization server whose issuer identifier is issuer,
// in the order MCP 2025-11-25 fixes: for an issuer with a path, OAuth 2.0
// metadata with the path inserted, OpenID Connect discovery with the path
// inserted, then OpenID Connect discovery with the path appended; for an
// issuer without one, OAuth 2.0 metadata then OpenID Connect discovery.
func AuthorizationServerURLs(issuer string) ([]string, error) {
	u, err := absolute(issuer)
	if err != nil {
		return nil, err
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("issuer %q: an issuer identifier has no query or fragment", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{origin + WellKnownAuthorizationServer, origin + WellKnownOpenIDConfiguration}, nil
	}
	return []string{
		origin + WellKnownAuthorizationServer + p,
		origin + WellKnownOpenIDConfiguration + p,
		origin + p + WellKnownOpenIDConfiguration,
	}, nil
}

// absolute parses an absolute http or https URL with a host.
func absolute(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("URL %q: no host", raw)
	}
	return u, nil
}
