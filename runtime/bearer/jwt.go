package bearer

import (
	"context"
	stdjson "encoding/json" // go-jose's keys decode with it
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// JWTOptions configure a JWTVerifier.
type JWTOptions struct {
	// Issuer is the "iss" every token must carry. Required.
	Issuer string
	// Audience is the resource every token must name in "aud": the
	// canonical URI of the MCP server (RFC 8707). Required.
	Audience string
	// JWKSURL is where the issuer's JSON Web Key Set is fetched. Required.
	JWKSURL string
	// Algorithms are the signature algorithms accepted; default RS256,
	// PS256, ES256 and EdDSA. "none" and the HMAC algorithms are refused:
	// a resource server has no shared secret with the issuer.
	Algorithms []jose.SignatureAlgorithm
	// Leeway is the clock skew allowed on exp, nbf and iat (default one
	// minute).
	Leeway time.Duration
	// HTTPClient fetches the key set; default one with a 10 s timeout.
	HTTPClient *http.Client
	// RefreshInterval is the shortest time between two fetches of the key
	// set that succeeded (default one minute): a token signed with an
	// unknown key makes the verifier fetch the set again, at most that
	// often. A failed fetch (an error, a status other than 200, a set that
	// does not parse, no answer within 10 s) is retried no sooner than
	// one second after it ended, then two, four, and so on, doubling up to
	// RefreshInterval. Meanwhile the keys already fetched stay in use.
	//
	// A token whose key ("kid") is in the cached set is checked with it at
	// once, even past the set's expiry (MaxAge): a stale set is fetched
	// again in the background, if allowed, and no token whose key is known
	// waits for that fetch, however slow the key set endpoint is.
	//
	// A token whose key is not in the set waits for a fetch: the one under
	// way, or one it starts. It is invalid (Verify's error wraps
	// ErrInvalidToken, Protect answers 401) only when that fetch succeeded
	// and the set still lacks its key. When no fetch is allowed yet (one
	// succeeded less than RefreshInterval ago, or one failed and the
	// backoff runs), or the fetch failed, or no set was ever fetched, the
	// key may be new: Verify's error does not wrap ErrInvalidToken and has
	// a RetryAfter method giving the time until the next fetch is allowed,
	// and Protect answers 503 with that Retry-After (at least one second),
	// so that clients retry rather than ask for new tokens, and a forged
	// token that used up the refresh does not lock out a key published
	// just after it. A token refused by its claims whatever key signed it
	// (expired, another issuer or audience, read without checking the
	// signature, which is only ever used to refuse) is invalid without a
	// fetch.
	//
	// Only one fetch runs at a time: concurrent tokens wait for it
	// together. The fetch does not run on the context of the token's
	// request, nor carry its values (an httptrace.ClientTrace, a tracing
	// span): it runs on context.Background with a 10 s timeout, so a
	// request that ends (a client that hangs up) stops waiting, but the
	// fetch goes on and its keys are kept.
	RefreshInterval time.Duration
	// MaxAge is how long a fetched key set is used before it is fetched
	// again (default one hour); a Cache-Control max-age of the JWKS
	// response shortens it, down to RefreshInterval. A token whose key is
	// in a set past its MaxAge is still checked with it, while the set is
	// fetched again in the background (see RefreshInterval).
	MaxAge time.Duration
	// AcceptedTypes are the values of the JWT "typ" header accepted, as
	// media types (RFC 7515 section 4.1.9): compared case-insensitively,
	// with or without "application/". Default: "at+jwt", the type RFC 9068
	// (section 2.1) gives JWT access tokens, so that other JWTs of the
	// issuer whose audience names this resource (an OpenID Connect ID
	// token, say) are not taken for access tokens. For an issuer that does
	// not type its access tokens, list "" (no typ header) or the type it
	// uses, such as "JWT": its other JWTs then pass as access tokens too.
	AcceptedTypes []string
	// AllowMissingSubject accepts tokens without a subject ("sub"), which
	// RFC 9068 requires and which are refused by default; set it for an
	// issuer whose client-credentials tokens have none. Such a token must
	// name its client ("client_id", else "azp"), or it is refused: its
	// TokenInfo has an empty Subject, and its Principal is the client's,
	// never that of a user or of another client.
	AllowMissingSubject bool
}

// JWTVerifier verifies JWT access tokens (RFC 9068) against the key set of
// their issuer, with github.com/go-jose/go-jose/v4: the "typ" header
// (at+jwt), the signature with a key of the set and an allowed algorithm,
// then iss, aud, exp, nbf, iat and sub. Keys rotate: a token whose key
// ("kid") is not in the cached set makes it fetch the set again
// (rate-limited, see JWTOptions.RefreshInterval), so a new key is picked
// up without a restart, and a stale set is fetched again in the
// background while its keys stay in use. It is safe for concurrent use.
type JWTVerifier struct {
	opts         JWTOptions
	types        []string // AcceptedTypes, normalised by mediaType
	fetchTimeout time.Duration
	now          func() time.Time

	mu       sync.Mutex
	keys     *jose.JSONWebKeySet // nil until a fetch succeeded
	expires  time.Time           // when keys must be fetched again
	next     time.Time           // no fetch starts before then
	failures int                 // failed fetches since the last success
	lastErr  error               // the error of the last fetch, nil after a success
	fetching *keyFetch           // the fetch under way, or nil
}

// keyFetch is one fetch of the key set, which the tokens that need it wait
// for together.
type keyFetch struct {
	done chan struct{} // closed when the fetch ended
	err  error         // its error; set before done is closed
}

// MaxJWKSBytes bounds the size of a fetched key set.
const MaxJWKSBytes = 1 << 20

const (
	// jwksFetchTimeout bounds one fetch of the key set, whatever the
	// HTTPClient's own timeout.
	jwksFetchTimeout = 10 * time.Second
	// jwksFirstBackoff is the wait after a failed fetch, doubled after
	// each further failure up to RefreshInterval.
	jwksFirstBackoff = time.Second
)

// NewJWTVerifier returns a JWTVerifier, or an error naming the option
// that is wrong. It fetches nothing until the first token.
func NewJWTVerifier(opts JWTOptions) (*JWTVerifier, error) {
	if opts.Issuer == "" {
		return nil, errors.New("bearer: JWTOptions.Issuer is empty")
	}
	aud, err := oauthmeta.CanonicalResource(opts.Audience)
	if err != nil {
		return nil, fmt.Errorf("bearer: JWTOptions.Audience: %w", err)
	}
	opts.Audience = aud
	if opts.JWKSURL == "" {
		return nil, errors.New("bearer: JWTOptions.JWKSURL is empty")
	}
	if opts.Algorithms == nil {
		opts.Algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.PS256, jose.ES256, jose.EdDSA}
	}
	for _, a := range opts.Algorithms {
		switch a {
		case jose.HS256, jose.HS384, jose.HS512, "none", "":
			return nil, fmt.Errorf("bearer: JWTOptions.Algorithms: %q is not allowed for access tokens", a)
		}
	}
	if opts.Leeway == 0 {
		opts.Leeway = time.Minute
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = time.Minute
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = time.Hour
	}
	if len(opts.AcceptedTypes) == 0 {
		opts.AcceptedTypes = []string{"at+jwt"}
	}
	opts.AcceptedTypes = slices.Clone(opts.AcceptedTypes)
	types := make([]string, len(opts.AcceptedTypes))
	for i, t := range opts.AcceptedTypes {
		types[i] = mediaType(t)
	}
	return &JWTVerifier{opts: opts, types: types, fetchTimeout: jwksFetchTimeout, now: time.Now}, nil
}

// mediaType normalises a "typ" value: lower case, without "application/"
// (RFC 7515 section 4.1.9).
func mediaType(t string) string {
	t = strings.ToLower(t)
	return strings.TrimPrefix(t, "application/")
}

// accessClaims are the claims of an access token beyond the registered
// ones.
type accessClaims struct {
	Scope    string `json:"scope"`
	ClientID string `json:"client_id"`
	AZP      string `json:"azp"`
}

// Verify checks token and returns what it says. Errors of the token wrap
// ErrInvalidToken; failing to fetch the key set does not, nor does a key
// missing from the set while the set may not be fetched again yet (see
// JWTOptions.RefreshInterval), nor ctx ending while the key set is being
// fetched.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, v.opts.Algorithms)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: %d signatures", ErrInvalidToken, len(tok.Headers))
	}
	if err := v.checkType(tok.Headers[0]); err != nil {
		return nil, err
	}
	kid := tok.Headers[0].KeyID
	keys, err := v.keysFor(ctx, kid, func() error { return v.refusedWhateverKey(tok, kid) })
	if err != nil {
		return nil, err
	}
	var reg jwt.Claims
	var extra accessClaims
	var all map[string]any
	verified := false
	for _, k := range keys {
		if err := tok.Claims(k.Key, &reg, &extra, &all); err == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, fmt.Errorf("%w: no key of the issuer's key set verifies the signature (kid %q)", ErrInvalidToken, kid)
	}
	if err := v.checkClaims(&reg, v.now()); err != nil {
		return nil, err
	}
	info := &TokenInfo{
		Subject:  reg.Subject,
		Issuer:   reg.Issuer,
		ClientID: extra.ClientID,
		Audience: reg.Audience,
		Scopes:   strings.Fields(extra.Scope),
		Expiry:   reg.Expiry.Time(),
		Claims:   all,
	}
	if info.ClientID == "" {
		info.ClientID = extra.AZP
	}
	if err := checkSubject(info, v.opts.AllowMissingSubject, "client_id or azp"); err != nil {
		return nil, err
	}
	// A malformed cnf leaves JKT empty: Protect refuses the token when it
	// takes DPoP (boundKey reads Claims), and ignores cnf as before when
	// it does not.
	info.JKT, _ = confirmationKey(all)
	return info, nil
}

// checkClaims checks iss, exp, nbf, iat and aud of reg at now.
func (v *JWTVerifier) checkClaims(reg *jwt.Claims, now time.Time) error {
	if err := reg.ValidateWithLeeway(jwt.Expected{Issuer: v.opts.Issuer, Time: now}, v.opts.Leeway); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if reg.Expiry == nil {
		return fmt.Errorf("%w: the token has no expiry (exp)", ErrInvalidToken)
	}
	if !audienceHas(reg.Audience, v.opts.Audience) {
		return fmt.Errorf("%w: the token's audience %q does not name this resource %q", ErrInvalidToken, []string(reg.Audience), v.opts.Audience)
	}
	return nil
}

// refusedWhateverKey returns the error of a token whose key kid is not in
// the key set when its claims, read without checking the signature, would
// refuse it whatever key signed it (expired, another issuer or audience),
// and nil otherwise. The claims only ever refuse: such a token is invalid
// without fetching the key set, and a token signed with a key that was
// dropped from the set once its tokens expired gets 401, not 503.
func (v *JWTVerifier) refusedWhateverKey(tok *jwt.JSONWebToken, kid string) error {
	var reg jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&reg); err != nil {
		return fmt.Errorf("%w: the token's claims do not decode: %v", ErrInvalidToken, err)
	}
	if err := v.checkClaims(&reg, v.now()); err != nil {
		return fmt.Errorf("%w (whatever key signed it: its key %q is not in the issuer's key set)", err, kid)
	}
	return nil
}

// checkType checks the "typ" header of h against AcceptedTypes.
func (v *JWTVerifier) checkType(h jose.Header) error {
	typ := ""
	if raw, ok := h.ExtraHeaders[jose.HeaderType]; ok {
		s, ok := raw.(string)
		if !ok {
			return fmt.Errorf("%w: the token's type (typ header) is not a string", ErrInvalidToken)
		}
		typ = s
	}
	if slices.Contains(v.types, mediaType(typ)) {
		return nil
	}
	if typ == "" {
		return fmt.Errorf("%w: the token has no type (typ header); accepted: %q (JWT access tokens are at+jwt, RFC 9068 section 2.1)", ErrInvalidToken, v.opts.AcceptedTypes)
	}
	return fmt.Errorf("%w: the token's type (typ header) is %q; accepted: %q (JWT access tokens are at+jwt, RFC 9068 section 2.1)", ErrInvalidToken, typ, v.opts.AcceptedTypes)
}

// checkSubject refuses a token that names no subject, unless allowed and
// it names its client (claim is where). Principal keeps each client's
// tokens apart from every other principal.
func checkSubject(info *TokenInfo, allowMissing bool, claim string) error {
	switch {
	case info.Subject != "":
		return nil
	case !allowMissing:
		return fmt.Errorf("%w: the token has no subject (sub)", ErrInvalidToken)
	case info.ClientID == "":
		return fmt.Errorf("%w: the token has neither a subject (sub) nor a client (%s)", ErrInvalidToken, claim)
	}
	return nil
}

// audienceHas reports whether aud names resource, compared canonically.
func audienceHas(aud []string, resource string) bool {
	return slices.ContainsFunc(aud, func(a string) bool {
		c, err := oauthmeta.CanonicalResource(a)
		return err == nil && c == resource
	})
}

// keysFor returns the keys that may have signed a token with key id kid:
// the ones with that id ("" matches every key).
//
// When the cached set has such keys it returns them at once, even past
// the set's expiry: a stale set is then fetched again in the background
// (stale-while-revalidate) if no fetch runs and one is allowed (the last
// one ended RefreshInterval ago after a success, the backoff after a
// failure), so that a slow or hanging key set endpoint never holds up a
// token whose key is known.
//
// Otherwise, unless hopeless refuses the token whatever its key, it waits
// for the fetch under way, or starts one if allowed, or until ctx ends.
// The token is invalid (ErrInvalidToken) only when a fetch it waited for
// succeeded and the set still lacks kid. When no fetch is allowed yet, or
// the one it waited for failed, its key may be new: the error does not
// wrap ErrInvalidToken, and says (RetryAfter) when the set will be fetched
// again.
func (v *JWTVerifier) keysFor(ctx context.Context, kid string, hopeless func() error) ([]jose.JSONWebKey, error) {
	v.mu.Lock()
	keys := v.cachedLocked(kid)
	v.mu.Unlock()
	if len(keys) > 0 {
		return keys, nil
	}
	if err := hopeless(); err != nil {
		return nil, err
	}
	v.mu.Lock()
	if keys := v.cachedLocked(kid); len(keys) > 0 { // a fetch ended meanwhile
		v.mu.Unlock()
		return keys, nil
	}
	f := v.fetching
	if f == nil {
		if now := v.now(); now.Before(v.next) {
			err := v.notYetLocked(kid, now)
			v.mu.Unlock()
			return nil, err
		}
		f = v.startFetchLocked()
	}
	v.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("bearer: gave up waiting for the key set at %s: %w", v.opts.JWKSURL, context.Cause(ctx))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if keys := v.matchLocked(kid); len(keys) > 0 {
		// Fetched, or kept from before while the set cannot be fetched.
		return keys, nil
	}
	if f.err != nil {
		return nil, v.notYetLocked(kid, v.now())
	}
	return nil, fmt.Errorf("%w: no key %q in the issuer's key set, fetched just now", ErrInvalidToken, kid)
}

// cachedLocked returns the keys of the cached set with key id kid (see
// matchLocked), and when there are some and the set is stale, starts
// fetching it again if no fetch runs and one is allowed. v.mu is held.
func (v *JWTVerifier) cachedLocked(kid string) []jose.JSONWebKey {
	keys := v.matchLocked(kid)
	if len(keys) == 0 {
		return nil
	}
	if now := v.now(); !now.Before(v.expires) && v.fetching == nil && !now.Before(v.next) {
		v.startFetchLocked()
	}
	return keys
}

// notYetLocked is the error of a token whose key kid is not in the set
// while the set cannot be fetched again before v.next: the key may be new,
// so the token is not checkable yet rather than invalid. v.mu is held.
func (v *JWTVerifier) notYetLocked(kid string, now time.Time) error {
	wait := max(v.next.Sub(now), 0)
	var err error
	switch {
	case v.keys == nil && v.lastErr != nil:
		err = fmt.Errorf("bearer: no key set yet (next attempt in %s): %w", wait.Round(time.Millisecond), v.lastErr)
	case v.keys == nil:
		// Cannot happen: a fetch either loads keys or records an error.
		err = fmt.Errorf("bearer: the key set at %s was not fetched", v.opts.JWKSURL)
	case v.lastErr != nil:
		// That the set lacks the key says nothing while the set cannot be
		// fetched again.
		err = fmt.Errorf("bearer: no key %q in the key set fetched before, and fetching it again failed (next attempt in %s): %w", kid, wait.Round(time.Millisecond), v.lastErr)
	default:
		err = fmt.Errorf("bearer: the token's key %q is unknown: it is not in the issuer's key set, which is fetched again in %s at the earliest: %w", kid, wait.Round(time.Millisecond), errKeyMayBeNew)
	}
	return &retryError{err: err, after: wait}
}

// errKeyMayBeNew is wrapped by the error of a token whose key is not in
// the key set, fetched successfully less than RefreshInterval ago: any
// token with a made-up key id gets it, so Protect logs it at debug level,
// as it does invalid tokens.
var errKeyMayBeNew = errors.New("the key may be new, and the token cannot be checked until then")

// retryError is the error of a token that cannot be checked yet, and when
// it may be: Protect answers it with 503 and that Retry-After.
type retryError struct {
	err   error
	after time.Duration
}

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

// RetryAfter is how long the client should wait before sending the token
// again.
func (e *retryError) RetryAfter() time.Duration { return e.after }

// matchLocked returns the keys of the set with key id kid, all of them for
// "". v.mu is held.
func (v *JWTVerifier) matchLocked(kid string) []jose.JSONWebKey {
	switch {
	case v.keys == nil:
		return nil
	case kid == "":
		return v.keys.Keys
	}
	return v.keys.Key(kid)
}

// startFetchLocked starts fetching the key set, with a timeout of its own,
// on a context of its own: not the context of the request that needed it,
// whose cancellation must not end the fetch (what it brings is kept), and
// whose values (an httptrace.ClientTrace, a tracing span, a logger) are
// those of a request that may be forged and will likely have ended before
// the fetch does. v.mu is held.
func (v *JWTVerifier) startFetchLocked() *keyFetch {
	f := &keyFetch{done: make(chan struct{})}
	v.fetching = f
	ctx, cancel := context.WithTimeout(context.Background(), v.fetchTimeout)
	go func() {
		defer cancel()
		set, age, err := v.fetch(ctx)
		v.mu.Lock()
		now := v.now()
		if err == nil {
			v.keys, v.expires = set, now.Add(age)
			v.failures, v.lastErr = 0, nil
			v.next = now.Add(v.opts.RefreshInterval)
		} else {
			v.failures++
			v.lastErr = err
			v.next = now.Add(backoff(v.failures, v.opts.RefreshInterval))
		}
		v.fetching = nil
		f.err = err
		v.mu.Unlock()
		close(f.done)
	}()
	return f
}

// backoff is the wait after the n-th failed fetch in a row: one second,
// doubled after each further failure, at most limit.
func backoff(n int, limit time.Duration) time.Duration {
	d := jwksFirstBackoff
	for i := 1; i < n; i++ {
		if d > limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}

// fetch fetches the key set, and how long to use it.
func (v *JWTVerifier) fetch(ctx context.Context) (*jose.JSONWebKeySet, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.opts.JWKSURL, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("bearer: key set: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := v.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("bearer: fetching the key set: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("bearer: fetching the key set %s: %s", v.opts.JWKSURL, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxJWKSBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("bearer: reading the key set at %s: %w", v.opts.JWKSURL, err)
	}
	if len(body) > MaxJWKSBytes {
		return nil, 0, fmt.Errorf("bearer: the key set at %s is larger than %d bytes", v.opts.JWKSURL, MaxJWKSBytes)
	}
	set, err := ParseKeySet(body)
	if err != nil {
		return nil, 0, fmt.Errorf("bearer: the key set at %s: %w", v.opts.JWKSURL, err)
	}
	return set, cacheAge(res.Header.Get("Cache-Control"), v.opts.RefreshInterval, v.opts.MaxAge), nil
}

// ParseKeySet decodes a JSON Web Key Set, keeping only public signing keys:
// a private or symmetric key in a published set is refused.
func ParseKeySet(data []byte) (*jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	if err := stdjson.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	out := &jose.JSONWebKeySet{}
	for _, k := range set.Keys {
		if !k.IsPublic() {
			return nil, fmt.Errorf("key %q is not a public key", k.KeyID)
		}
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		out.Keys = append(out.Keys, k)
	}
	return out, nil
}

// cacheAge is how long a key set fetched with the Cache-Control value cc
// is used: its max-age, within [min, max]; max when it has none.
func cacheAge(cc string, min, max time.Duration) time.Duration {
	for d := range strings.SplitSeq(cc, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(d), "=")
		if !ok || !strings.EqualFold(name, "max-age") {
			continue
		}
		n, err := strconv.ParseInt(strings.Trim(val, `"`), 10, 64)
		if err != nil || n < 0 {
			break
		}
		age := time.Duration(n) * time.Second
		return time.Duration(clamp(int64(age), int64(min), int64(max)))
	}
	return max
}

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
