package bearer_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/bearer"
)

// issuer is a test token issuer whose key set endpoint can be made to
// fail or to hold a fetch until released, and which signs tokens with any
// "typ" header: what the verifier's tests need beyond oauthtest.
type issuer struct {
	URL     string
	fetches atomic.Int32 // requests for the key set
	failing atomic.Bool  // answer 500

	mu      sync.Mutex
	keys    []jose.JSONWebKey // private; the last one signs
	n       int
	held    chan struct{} // the next fetch waits until it is closed
	entered chan struct{} // receives when a held fetch has arrived
}

func newIssuer(t testing.TB) *issuer {
	t.Helper()
	is := &issuer{}
	is.rotate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		held, entered := is.held, is.entered
		is.held, is.entered = nil, nil
		is.mu.Unlock()
		if held != nil {
			entered <- struct{}{}
			select {
			case <-held:
			case <-r.Context().Done():
				return
			}
		}
		if is.failing.Load() {
			http.Error(w, "key set unavailable", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(is.jwks())
	}))
	t.Cleanup(srv.Close)
	is.URL = srv.URL
	return is
}

// hold makes the next fetch wait until release is called; entered
// receives when that fetch has reached the server.
func (is *issuer) hold() (entered <-chan struct{}, release func()) {
	held, ent := make(chan struct{}), make(chan struct{}, 1)
	is.mu.Lock()
	is.held, is.entered = held, ent
	is.mu.Unlock()
	var once sync.Once
	return ent, func() { once.Do(func() { close(held) }) }
}

// rotate makes a new signing key and drops the old ones from the set.
func (is *issuer) rotate(t testing.TB) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.n++
	is.keys = []jose.JSONWebKey{{Key: priv, KeyID: "key-" + strconv.Itoa(is.n), Algorithm: string(jose.ES256), Use: "sig"}}
}

func (is *issuer) jwks() jose.JSONWebKeySet {
	is.mu.Lock()
	defer is.mu.Unlock()
	var set jose.JSONWebKeySet
	for _, k := range is.keys {
		set.Keys = append(set.Keys, k.Public())
	}
	return set
}

func (is *issuer) signingKey() jose.JSONWebKey {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.keys[len(is.keys)-1]
}

// verifier returns a JWTVerifier of is's tokens for resource with opts
// (Issuer, Audience and JWKSURL filled in), reading the time from clk.
func (is *issuer) verifier(t testing.TB, clk *clock, opts bearer.JWTOptions) *bearer.JWTVerifier {
	t.Helper()
	opts.Issuer, opts.Audience, opts.JWKSURL = is.URL, resource, is.URL
	v, err := bearer.NewJWTVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	bearer.SetClock(v, clk.Now)
	return v
}

// token returns a token of is for resource with claims (iss, aud, iat and
// exp filled in when missing; nil deletes one), typed at+jwt.
func (is *issuer) token(t testing.TB, claims map[string]any) string {
	t.Helper()
	return is.tokenWith(t, is.signingKey(), "at+jwt", claims)
}

// tokenWith returns a token like token's, signed with key and typed typ
// (nil for no typ header).
func (is *issuer) tokenWith(t testing.TB, key jose.JSONWebKey, typ any, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != nil {
		opts = opts.WithHeader(jose.HeaderType, typ)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c := map[string]any{"iss": is.URL, "aud": resource, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	for k, v := range claims {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	tok, err := jwt.Signed(sig).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// forged returns a token that looks like is's but is signed with a key of
// the attacker's, named kid.
func (is *issuer) forged(t *testing.T, kid string) string {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return is.tokenWith(t, jose.JSONWebKey{Key: priv, KeyID: kid, Algorithm: string(jose.ES256)}, "at+jwt", map[string]any{"sub": "mallory"})
}

// clock is a clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// wait returns what ch delivers, failing t if nothing comes within 10 s
// (a guard against hanging, not a measure of speed).
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing after 10 s", what)
		var zero T
		return zero
	}
}
