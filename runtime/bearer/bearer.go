// Package bearer makes an MCP server an OAuth 2.1 resource server, as MCP
// authorization asks of HTTP servers from 2025-06-18 on: it serves the
// RFC 9728 Protected Resource Metadata that tells clients where to get
// tokens, takes a bearer token from the Authorization header of every
// request (never from the query string or the body), has a TokenVerifier
// check it, and refuses what it cannot accept with the challenge a client
// acts on:
//
//   - 401 with WWW-Authenticate: Bearer resource_metadata="…" (and the
//     scopes needed) when there is no token or it is not valid;
//   - 403 with error="insufficient_scope", the scopes needed and the
//     metadata URL, when the token lacks a scope the request needs, so that
//     the client can step up.
//
// With Options.DPoP it also takes DPoP-bound tokens (RFC 9449): sent as
// "Authorization: DPoP <token>" with a proof of the client's key in a DPoP
// header, checked by runtime/dpop; a bound token sent as a bearer token is
// refused, and challenges name the DPoP scheme too.
//
// The scopes a request needs are set for every request, per MCP method and
// per tool (Options). What the verifier learned of the token, a TokenInfo,
// travels in the request's context to the MCP handlers (TokenInfoFrom).
// The token itself is never passed on, nor logged.
//
//	p, err := bearer.New(bearer.Options{
//		Resource:             "https://mcp.example.com/mcp",
//		AuthorizationServers: []string{"https://auth.example.com"},
//		Verifier:             verifier, // bearer.NewJWTVerifier(...), or your own
//	})
//	mux.Handle("/mcp", p.Protect(streamhttp.NewServer(...)))
//	p.HandleMetadata(mux) // the two well-known URIs of the metadata
//
// The defaults are strict:
//
//   - Every request needs a token, OPTIONS included. Only a CORS preflight
//     (OPTIONS with Origin and Access-Control-Request-Method) passes
//     without one, since browsers send preflights without credentials; a
//     handler that must answer other OPTIONS requests without a token is
//     to be routed around Protect.
//   - A token must have a subject ("sub", RFC 9068 section 2.2), so that
//     each token speaks for someone and sessions are bound to that
//     someone. JWTOptions.AllowMissingSubject and
//     IntrospectionOptions.AllowMissingSubject accept client tokens
//     without one, each client then being its own principal.
//   - A JWT access token must be typed at+jwt (RFC 9068 section 2.1), so
//     that the issuer's other JWTs (ID tokens) are not taken for access
//     tokens. JWTOptions.AcceptedTypes widens that.
//   - The JWKS is fetched again for an unknown key at most once per
//     JWTOptions.RefreshInterval, a failed fetch is retried after a
//     backoff, concurrent tokens share one fetch, and a fetch does not
//     depend on the request that started it: a client that hangs up
//     cannot cancel it. A token whose key is in the cached set never waits
//     for a fetch, even once the set is stale: it is checked with the
//     cached keys while the set is fetched again in the background. A
//     token whose key is unknown while the set may not be fetched yet gets
//     503 with Retry-After, not 401: only a fetch that the token's request
//     waited for and that still lacks the key makes it invalid, so that a
//     forged token cannot use up the refresh and lock out a key published
//     just after.
package bearer

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"
)

// TokenInfo is what a TokenVerifier learned of a valid token.
type TokenInfo struct {
	// Subject is the token's subject (the "sub" claim): the user, or the
	// client for a client's own token. It is empty only for a token
	// accepted under the AllowMissingSubject opt-out of JWTOptions or
	// IntrospectionOptions; ClientID then names the client.
	Subject string
	// Issuer is the authorization server that issued the token.
	Issuer string
	// ClientID is the OAuth client the token was issued to, when known.
	ClientID string
	// Audience are the resources the token is for.
	Audience []string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Expiry is when the token expires; zero when it does not say.
	Expiry time.Time
	// JKT is, for a DPoP-bound token, the thumbprint of the key it is
	// bound to: its confirmation claim cnf.jkt (RFC 9449 section 6,
	// https://www.rfc-editor.org/rfc/rfc9449#section-6). With
	// Options.DPoP, Protect takes such a token only with the DPoP scheme
	// and a proof made with that key. A verifier that leaves it empty has
	// it read from Claims.
	JKT string
	// Claims are the token's claims as decoded JSON (a JWT's payload, an
	// introspection response), for what the fields above leave out.
	Claims map[string]any
}

// HasScope reports whether the token grants scope.
func (t *TokenInfo) HasScope(scope string) bool {
	return slices.Contains(t.Scopes, scope)
}

// Principal identifies who the token speaks for: its issuer and subject,
// or for a token without a subject its issuer and client, kept apart from
// every subject. A session opened with one principal's token is refused to
// another's. Protect refuses a TokenInfo that names neither a subject nor
// a client, which would make all such tokens one principal.
func (t *TokenInfo) Principal() string {
	if t.Subject == "" && t.ClientID != "" {
		return t.Issuer + "\x01" + t.ClientID
	}
	return t.Issuer + "\x00" + t.Subject
}

// TokenVerifier checks a bearer token. It returns ErrInvalidToken (or an
// error wrapping it) for a token that is not valid for this resource: a bad
// signature, another issuer or audience, expired, not yet valid, revoked;
// the client then gets 401. Any other error means the token could not be
// checked (the authorization server cannot be reached, say): the client
// gets 503 and may try again, after the Retry-After that the error's
// RetryAfter() time.Duration method gives (found with errors.As; rounded
// up to whole seconds, at least one), or five seconds for an error without
// one. A TokenInfo must name a Subject or, for a client's own token, a
// ClientID: Protect refuses one that names neither.
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// ErrInvalidToken is the error of a token that is not valid.
var ErrInvalidToken = errors.New("invalid token")

type tokenKey struct{}

// NewContext returns ctx carrying info.
func NewContext(ctx context.Context, info *TokenInfo) context.Context {
	return context.WithValue(ctx, tokenKey{}, info)
}

// TokenInfoFrom returns the TokenInfo of the request being handled, and
// whether there is one. It works on the context of an http.Handler behind
// Protect, and on the context of an MCP handler (a tool's, a prompt's...)
// of a request that came through Protect, since the HTTP transports give
// handlers the values of their HTTP request's context (see
// session.WithHTTPRequest): on a legacy session, the token of the POST
// that carried the request.
func TokenInfoFrom(ctx context.Context) (*TokenInfo, bool) {
	info, ok := ctx.Value(tokenKey{}).(*TokenInfo)
	return info, ok
}

// PrincipalOf returns the Principal of the token that Protect found for
// r, or "" without one. The HTTP transports need not be given it: behind
// Protect they bind each legacy session to the principal of the request
// that opened it by default (streamhttp and ssehttp ServerOptions.Principal,
// UnboundSessions).
func PrincipalOf(r *http.Request) string {
	if info, ok := TokenInfoFrom(r.Context()); ok {
		return info.Principal()
	}
	return ""
}
