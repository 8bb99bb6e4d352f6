package bearer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// IntrospectionOptions configure an Introspector.
type IntrospectionOptions struct {
	// Endpoint is the authorization server's RFC 7662 introspection
	// endpoint. Required.
	Endpoint string
	// ClientID and ClientSecret authenticate the resource server to the
	// endpoint (HTTP Basic, client_secret_basic). Required.
	ClientID, ClientSecret string
	// Issuer, when set, must be the "iss" of an active token.
	Issuer string
	// Audience is the canonical URI of the MCP server: an active token
	// must name it in "aud". Required.
	Audience string
	// Leeway is the clock skew allowed on exp and nbf (default one minute).
	Leeway time.Duration
	// CacheTTL is how long an active answer is reused for the same token
	// (default 30 s; never past the token's expiry); negative disables the
	// cache. Inactive answers are not cached.
	CacheTTL time.Duration
	// CacheSize bounds the tokens cached (default 1024).
	CacheSize int
	// HTTPClient calls the endpoint; default one with a 10 s timeout.
	HTTPClient *http.Client
	// AllowMissingSubject accepts active tokens whose introspection answer
	// has no subject ("sub"), which are refused by default so that every
	// token speaks for someone; set it for an authorization server that
	// leaves sub out of its client-credentials tokens. Such an answer must
	// name the client ("client_id"), or the token is refused: its TokenInfo
	// has an empty Subject, and its Principal is the client's, never that
	// of a user or of another client.
	AllowMissingSubject bool
}

// Introspector verifies opaque access tokens by asking the authorization
// server (RFC 7662 token introspection): "active" must be true, and the
// token must name this resource in "aud", be within exp and nbf, have a
// subject ("sub"; see AllowMissingSubject), and come from Issuer when set. Answers are cached briefly, keyed by the token's
// SHA-256, never the token itself. It is safe for concurrent use.
type Introspector struct {
	opts IntrospectionOptions
	now  func() time.Time

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cached
}

type cached struct {
	info  *TokenInfo
	until time.Time
}

// MaxIntrospectionBytes bounds an introspection response.
const MaxIntrospectionBytes = 64 << 10

// NewIntrospector returns an Introspector, or an error naming the option
// that is wrong.
func NewIntrospector(opts IntrospectionOptions) (*Introspector, error) {
	if opts.Endpoint == "" || opts.ClientID == "" {
		return nil, errors.New("bearer: IntrospectionOptions.Endpoint and ClientID are required")
	}
	aud, err := oauthmeta.CanonicalResource(opts.Audience)
	if err != nil {
		return nil, fmt.Errorf("bearer: IntrospectionOptions.Audience: %w", err)
	}
	opts.Audience = aud
	if opts.Leeway == 0 {
		opts.Leeway = time.Minute
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = 30 * time.Second
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 1024
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &Introspector{opts: opts, now: time.Now, cache: map[[sha256.Size]byte]cached{}}, nil
}

// introspection is the part of an RFC 7662 response read here.
type introspection struct {
	Active    bool     `json:"active"`
	Scope     string   `json:"scope"`
	ClientID  string   `json:"client_id"`
	Subject   string   `json:"sub"`
	Issuer    string   `json:"iss"`
	Audience  audience `json:"aud"`
	Expiry    int64    `json:"exp"`
	NotBefore int64    `json:"nbf"`
}

// audience is "aud": one string or an array of them.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New(`"aud" is neither a string nor an array of strings`)
	}
	*a = many
	return nil
}

// Verify asks the endpoint about token. An inactive or unsuitable token is
// an error wrapping ErrInvalidToken; failing to ask is not.
func (in *Introspector) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	now := in.now()
	if in.opts.CacheTTL > 0 {
		in.mu.Lock()
		c, ok := in.cache[key]
		in.mu.Unlock()
		if ok && now.Before(c.until) {
			return c.info, nil
		}
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.opts.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("bearer: introspection: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(in.opts.ClientID), url.QueryEscape(in.opts.ClientSecret))
	res, err := in.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("bearer: introspection: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("bearer: introspection at %s: %s", in.opts.Endpoint, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxIntrospectionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("bearer: introspection: %w", err)
	}
	info, err := in.decide(body, now)
	if err != nil {
		return nil, err
	}
	if in.opts.CacheTTL > 0 {
		until := now.Add(in.opts.CacheTTL)
		if !info.Expiry.IsZero() && info.Expiry.Before(until) {
			until = info.Expiry
		}
		in.mu.Lock()
		in.makeRoomLocked(now)
		in.cache[key] = cached{info: info, until: until}
		in.mu.Unlock()
	}
	return info, nil
}

// makeRoomLocked keeps the cache under CacheSize: when full, it drops the
// expired entries, then others (in map order) until half is free. in.mu
// is held.
func (in *Introspector) makeRoomLocked(now time.Time) {
	if len(in.cache) < in.opts.CacheSize {
		return
	}
	for k, c := range in.cache {
		if !now.Before(c.until) {
			delete(in.cache, k)
		}
	}
	for k := range in.cache {
		if len(in.cache) <= in.opts.CacheSize/2 {
			break
		}
		delete(in.cache, k)
	}
}

// decide turns an introspection response into a TokenInfo, or the reason
// the token is not accepted.
func (in *Introspector) decide(body []byte, now time.Time) (*TokenInfo, error) {
	if len(body) > MaxIntrospectionBytes {
		return nil, fmt.Errorf("bearer: introspection response larger than %d bytes", MaxIntrospectionBytes)
	}
	var r introspection
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("bearer: introspection response: %w", err)
	}
	var all map[string]any
	_ = json.Unmarshal(body, &all)
	if !r.Active {
		return nil, fmt.Errorf("%w: the authorization server says it is not active", ErrInvalidToken)
	}
	if in.opts.Issuer != "" && r.Issuer != in.opts.Issuer {
		return nil, fmt.Errorf("%w: issuer %q, not %q", ErrInvalidToken, r.Issuer, in.opts.Issuer)
	}
	if !audienceHas(r.Audience, in.opts.Audience) {
		return nil, fmt.Errorf("%w: the token's audience %q does not name this resource %q", ErrInvalidToken, []string(r.Audience), in.opts.Audience)
	}
	if r.Expiry != 0 && now.After(time.Unix(r.Expiry, 0).Add(in.opts.Leeway)) {
		return nil, fmt.Errorf("%w: expired", ErrInvalidToken)
	}
	if r.NotBefore != 0 && now.Add(in.opts.Leeway).Before(time.Unix(r.NotBefore, 0)) {
		return nil, fmt.Errorf("%w: not valid yet", ErrInvalidToken)
	}
	info := &TokenInfo{Subject: r.Subject, Issuer: r.Issuer, ClientID: r.ClientID, Audience: r.Audience, Scopes: strings.Fields(r.Scope), Claims: all}
	if err := checkSubject(info, in.opts.AllowMissingSubject, "client_id"); err != nil {
		return nil, err
	}
	info.JKT, _ = confirmationKey(all) // see JWTVerifier.Verify
	if r.Expiry != 0 {
		info.Expiry = time.Unix(r.Expiry, 0)
	}
	return info, nil
}
