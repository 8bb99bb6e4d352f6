package dpop_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime/dpop"
)

const target = "https://mcp.example.com/mcp"

var (
	keysOnce sync.Once
	ecKey    *ecdsa.PrivateKey
	ecKey2   *ecdsa.PrivateKey
	rsaKey   *rsa.PrivateKey
	edKey    ed25519.PrivateKey
)

func keys(t testing.TB) {
	t.Helper()
	keysOnce.Do(func() {
		var err error
		if ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		if ecKey2, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if _, edKey, err = ed25519.GenerateKey(rand.Reader); err != nil {
			panic(err)
		}
	})
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newVerifier(t testing.TB, opts dpop.VerifierOptions) *dpop.Verifier {
	t.Helper()
	v, err := dpop.NewVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func jsonOf(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func publicJWK(t testing.TB, key crypto.PublicKey) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(jsonOf(t, jose.JSONWebKey{Key: key}), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// forge returns a compact JWS of header and claims, signed by sign over
// its signing input.
func forge(t testing.TB, header, claims map[string]any, sign func(input []byte) []byte) string {
	t.Helper()
	input := b64(jsonOf(t, header)) + "." + b64(jsonOf(t, claims))
	return input + "." + b64(sign([]byte(input)))
}

// es256 signs as ES256 with key.
func es256(t testing.TB, key *ecdsa.PrivateKey) func([]byte) []byte {
	return func(input []byte) []byte {
		sum := sha256.Sum256(input)
		r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		s.FillBytes(out[32:])
		return out
	}
}

// goodParts are the header and claims of a valid ES256 proof of ecKey
// for a POST to target with token, at now.
func goodParts(t testing.TB, now time.Time, token string) (map[string]any, map[string]any) {
	h := map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": publicJWK(t, ecKey.Public())}
	c := map[string]any{"jti": "jti-" + b64(big.NewInt(now.UnixNano()).Bytes()), "htm": "POST", "htu": target, "iat": now.Unix()}
	if token != "" {
		c["ath"] = dpop.ATH(token)
	}
	return h, c
}

func errCode(err error) string {
	var e *dpop.Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func TestNewProofVerifies(t *testing.T) {
	keys(t)
	clk := &clock{t: time.Now()}
	tests := []struct {
		name string
		key  crypto.Signer
		alg  string
		want string
	}{
		{"ECDSA P-256", ecKey, "", "ES256"},
		{"RSA", rsaKey, "", "RS256"},
		{"RSA PSS", rsaKey, "PS256", "PS256"},
		{"Ed25519", edKey, "", "EdDSA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, dpop.VerifierOptions{Now: clk.Now})
			proof, err := dpop.NewProof(tt.key, "POST", target+"?q=1#frag", dpop.ProofOptions{AccessToken: "tok", Algorithm: tt.alg, Now: clk.Now(), Nonce: "n1"})
			if err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(proof, ".")
			raw, _ := base64.RawURLEncoding.DecodeString(head)
			var h map[string]any
			if err := json.Unmarshal(raw, &h); err != nil {
				t.Fatal(err)
			}
			if h["typ"] != "dpop+jwt" || h["alg"] != tt.want {
				t.Errorf("header %v, want typ dpop+jwt and alg %s", h, tt.want)
			}
			c, err := v.Verify(context.Background(), proof, dpop.Target{Method: "POST", URL: target, AccessToken: "tok"})
			if err != nil {
				t.Fatal(err)
			}
			jkt, err := dpop.Thumbprint(tt.key.Public())
			if err != nil {
				t.Fatal(err)
			}
			if c.JKT != jkt || c.Method != "POST" || c.URL != target || c.ATH != dpop.ATH("tok") || c.Nonce != "n1" || c.IssuedAt.Unix() != clk.Now().Unix() || c.JTI == "" {
				t.Errorf("claims %+v; want jkt %s, htm POST, htu %s without query, ath, nonce n1", c, jkt, target)
			}
		})
	}
}

func TestNewProofRefuses(t *testing.T) {
	keys(t)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		key    crypto.Signer
		method string
		url    string
		alg    string
	}{
		{"no key", nil, "POST", target, ""},
		{"no method", ecKey, "", target, ""},
		{"relative URL", ecKey, "POST", "/mcp", ""},
		{"P-384 key", p384, "POST", target, ""},
		{"PS256 with an EC key", ecKey, "POST", target, "PS256"},
		{"HS256 with an RSA key", rsaKey, "POST", target, "HS256"},
		{"ES256 with an Ed25519 key", edKey, "POST", target, "ES256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := dpop.NewProof(tt.key, tt.method, tt.url, dpop.ProofOptions{Algorithm: tt.alg}); err == nil {
				t.Errorf("NewProof = %q, want an error", p)
			}
		})
	}
}

// Every check of a proof, with the proof that fails it.
func TestVerifyRefuses(t *testing.T) {
	keys(t)
	now := time.Now()
	const token = "the-access-token"
	jkt, _ := dpop.Thumbprint(ecKey.Public())
	good := func() (map[string]any, map[string]any) { return goodParts(t, now, token) }
	tests := []struct {
		name   string
		proof  func() string
		target dpop.Target
		want   string // "" for valid
	}{
		{"valid", func() string { h, c := good(); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, ""},
		{"another method", func() string { h, c := good(); c["htm"] = "GET"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"method in lower case", func() string { h, c := good(); c["htm"] = "post"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"another path", func() string {
			h, c := good()
			c["htu"] = "https://mcp.example.com/other"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"another host", func() string {
			h, c := good()
			c["htu"] = "https://evil.example.com/mcp"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"another port", func() string {
			h, c := good()
			c["htu"] = "https://mcp.example.com:8443/mcp"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"another scheme", func() string {
			h, c := good()
			c["htu"] = "http://mcp.example.com/mcp"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"user information", func() string {
			h, c := good()
			c["htu"] = "https://u@mcp.example.com/mcp"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"query and fragment ignored", func() string { h, c := good(); c["htu"] = target + "?a=b#frag"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{URL: target + "?other=1"}, ""},
		{"case and default port ignored", func() string {
			h, c := good()
			c["htu"] = "HTTPS://MCP.Example.COM:443/mcp"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, ""},
		{"percent-encoding normalised", func() string {
			h, c := good()
			c["htu"] = "https://mcp.example.com/%6dcp"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, ""},
		{"path case matters", func() string {
			h, c := good()
			c["htu"] = "https://mcp.example.com/MCP"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"wrong ath", func() string {
			h, c := good()
			c["ath"] = dpop.ATH("another token")
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"no ath", func() string { h, c := good(); delete(c, "ath"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"signed by another key than its jwk", func() string { h, c := good(); return forge(t, h, c, es256(t, ecKey2)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"jwk not the token's cnf.jkt", func() string {
			h, c := good()
			h["jwk"] = publicJWK(t, ecKey2.Public())
			return forge(t, h, c, es256(t, ecKey2))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"old iat", func() string {
			h, c := good()
			c["iat"] = now.Add(-2 * time.Minute).Unix()
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"future iat", func() string {
			h, c := good()
			c["iat"] = now.Add(2 * time.Minute).Unix()
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"iat within the window", func() string {
			h, c := good()
			c["iat"] = now.Add(-50 * time.Second).Unix()
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, ""},
		{"iat a string", func() string { h, c := good(); c["iat"] = "now"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"iat huge", func() string { h, c := good(); c["iat"] = 1e300; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"no iat", func() string { h, c := good(); delete(c, "iat"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"no jti", func() string { h, c := good(); delete(c, "jti"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"jti too long", func() string {
			h, c := good()
			c["jti"] = strings.Repeat("j", 300)
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"no htm", func() string { h, c := good(); delete(c, "htm"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"no htu", func() string { h, c := good(); delete(c, "htu"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"alg none", func() string {
			h, c := good()
			h["alg"] = "none"
			return forge(t, h, c, func([]byte) []byte { return nil })
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"HS256 with the public key as secret", func() string {
			h, c := good()
			h["alg"] = "HS256"
			secret := jsonOf(t, h["jwk"])
			return forge(t, h, c, func(in []byte) []byte { m := hmac.New(sha256.New, secret); m.Write(in); return m.Sum(nil) })
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"HS256 with the x coordinate as secret", func() string {
			h, c := good()
			h["alg"] = "HS256"
			secret := ecKey.X.Bytes()
			return forge(t, h, c, func(in []byte) []byte { m := hmac.New(sha256.New, secret); m.Write(in); return m.Sum(nil) })
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"ES384 not in the allow-list", func() string { h, c := good(); h["alg"] = "ES384"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"RS256 header with an EC jwk", func() string { h, c := good(); h["alg"] = "RS256"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"private jwk", func() string {
			h, c := good()
			jwk := publicJWK(t, ecKey.Public())
			jwk["d"] = b64(ecKey.D.Bytes())
			h["jwk"] = jwk
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"symmetric jwk", func() string {
			h, c := good()
			h["jwk"] = map[string]any{"kty": "oct", "k": "c2VjcmV0"}
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"no jwk", func() string { h, c := good(); delete(h, "jwk"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"jwk a string", func() string { h, c := good(); h["jwk"] = "key"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"kid instead of jwk", func() string {
			h, c := good()
			delete(h, "jwk")
			h["kid"] = "k1"
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"missing typ", func() string { h, c := good(); delete(h, "typ"); return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"typ JWT", func() string { h, c := good(); h["typ"] = "JWT"; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"typ not a string", func() string { h, c := good(); h["typ"] = 1; return forge(t, h, c, es256(t, ecKey)) }, dpop.Target{}, dpop.CodeInvalidProof},
		{"unknown critical header", func() string {
			h, c := good()
			h["crit"] = []string{"x"}
			h["x"] = 1
			return forge(t, h, c, es256(t, ecKey))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"duplicate header member", func() string {
			_, c := good()
			head := `{"typ":"dpop+jwt","alg":"ES256","alg":"none","jwk":` + string(jsonOf(t, publicJWK(t, ecKey.Public()))) + `}`
			input := b64([]byte(head)) + "." + b64(jsonOf(t, c))
			return input + "." + b64(es256(t, ecKey)([]byte(input)))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"duplicate claim", func() string {
			h, c := good()
			body := strings.Replace(string(jsonOf(t, c)), `{`, `{"htm":"GET",`, 1)
			input := b64(jsonOf(t, h)) + "." + b64([]byte(body))
			return input + "." + b64(es256(t, ecKey)([]byte(input)))
		}, dpop.Target{}, dpop.CodeInvalidProof},
		{"JSON serialization", func() string { return `{"payload":"e30","protected":"e30","signature":""}` }, dpop.Target{}, dpop.CodeInvalidProof},
		{"four parts", func() string { h, c := good(); return forge(t, h, c, es256(t, ecKey)) + ".x" }, dpop.Target{}, dpop.CodeInvalidProof},
		{"empty", func() string { return "" }, dpop.Target{}, dpop.CodeInvalidProof},
		{"too long", func() string { return strings.Repeat("a", dpop.MaxProofBytes) + ".b.c" }, dpop.Target{}, dpop.CodeInvalidProof},
		{"header not base64url", func() string { return "!!!.e30.e30" }, dpop.Target{}, dpop.CodeInvalidProof},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, dpop.VerifierOptions{Now: func() time.Time { return now }})
			target := dpop.Target{Method: "POST", URL: "https://mcp.example.com/mcp", AccessToken: token, JKT: jkt}
			if tt.target.URL != "" {
				target.URL = tt.target.URL
			}
			c, err := v.Verify(context.Background(), tt.proof(), target)
			if got := errCode(err); got != tt.want {
				t.Fatalf("Verify: %v (code %q), want code %q", err, got, tt.want)
			}
			if (err == nil) != (c != nil) {
				t.Fatalf("Verify = %v, %v: want claims xor an error", c, err)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("the error %q holds the access token", err)
			}
		})
	}
}

// A proof is accepted once: again it is a replay, at the same URL or
// another, until its iat leaves the window; then it is refused as old.
func TestVerifyReplay(t *testing.T) {
	keys(t)
	clk := &clock{t: time.Now()}
	cache := dpop.NewMemoryReplayCache(10)
	dpop.SetCacheClock(cache, clk.Now)
	v := newVerifier(t, dpop.VerifierOptions{Now: clk.Now, Replay: cache})
	proof, err := dpop.NewProof(ecKey, "GET", target, dpop.ProofOptions{Now: clk.Now()})
	if err != nil {
		t.Fatal(err)
	}
	tgt := dpop.Target{Method: "GET", URL: target}
	steps := []struct {
		advance time.Duration
		want    string
	}{
		{0, ""},
		{0, dpop.CodeInvalidProof},
		{30 * time.Second, dpop.CodeInvalidProof},
		{31 * time.Second, dpop.CodeInvalidProof}, // past the window: too old
	}
	for i, s := range steps {
		clk.Add(s.advance)
		_, err := v.Verify(context.Background(), proof, tgt)
		if got := errCode(err); got != s.want {
			t.Fatalf("use %d: %v, want code %q", i+1, err, s.want)
		}
		if i == 1 && !strings.Contains(err.Error(), "used before") {
			t.Errorf("use 2: %v, want a replay", err)
		}
	}
	// Another proof with the same jti but another key is not a replay.
	p2, err := dpop.NewProof(ecKey2, "GET", target, dpop.ProofOptions{Now: clk.Now(), JTI: "same"})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := dpop.NewProof(ecKey, "GET", target, dpop.ProofOptions{Now: clk.Now(), JTI: "same"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{p1, p2} {
		if _, err := v.Verify(context.Background(), p, tgt); err != nil {
			t.Fatal(err)
		}
	}
}

// The in-memory cache is bounded: full of live proofs it refuses with
// ErrReplayCacheFull (never forgets one), and frees the expired ones.
func TestMemoryReplayCacheBounded(t *testing.T) {
	clk := &clock{t: time.Now()}
	c := dpop.NewMemoryReplayCache(3)
	dpop.SetCacheClock(c, clk.Now)
	ctx := context.Background()
	until := clk.Now().Add(time.Minute)
	for i, k := range []string{"a", "b", "c"} {
		if seen, err := c.Seen(ctx, k, until.Add(time.Duration(i)*time.Second)); seen || err != nil {
			t.Fatalf("Seen(%s) = %v, %v", k, seen, err)
		}
	}
	if seen, err := c.Seen(ctx, "a", until); !seen || err != nil {
		t.Fatalf("Seen(a) again = %v, %v; want a replay", seen, err)
	}
	if _, err := c.Seen(ctx, "d", until); !errors.Is(err, dpop.ErrReplayCacheFull) {
		t.Fatalf("Seen(d) on a full cache: %v, want ErrReplayCacheFull", err)
	}
	clk.Add(time.Minute) // a expires
	if seen, err := c.Seen(ctx, "d", clk.Now().Add(time.Minute)); seen || err != nil {
		t.Fatalf("Seen(d) after a expired = %v, %v", seen, err)
	}
	if c.Len() != 3 {
		t.Errorf("Len = %d, want 3", c.Len())
	}
	if seen, err := c.Seen(ctx, "b", clk.Now()); !seen || err != nil {
		t.Fatalf("Seen(b) = %v, %v; want a replay, b is live", seen, err)
	}
}

// failingCache stands for a shared cache that cannot be reached.
type failingCache struct{}

func (failingCache) Seen(context.Context, string, time.Time) (bool, error) {
	return false, errors.New("cache down")
}

func TestVerifyReplayCacheDown(t *testing.T) {
	keys(t)
	v := newVerifier(t, dpop.VerifierOptions{Replay: failingCache{}})
	proof, err := dpop.NewProof(ecKey, "GET", target, dpop.ProofOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), proof, dpop.Target{Method: "GET", URL: target})
	var e *dpop.Error
	if err == nil || errors.As(err, &e) {
		t.Fatalf("Verify with the cache down: %v, want an error that is not a proof's", err)
	}
}

func TestVerifyNonce(t *testing.T) {
	keys(t)
	clk := &clock{t: time.Now()}
	nonces, err := dpop.NewHMACNonces(dpop.NonceOptions{Now: clk.Now, Lifetime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	other, err := dpop.NewHMACNonces(dpop.NonceOptions{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	current, _ := nonces.Nonce(ctx)
	foreign, _ := other.Nonce(ctx)
	clk.Add(-2 * time.Minute)
	stale, _ := nonces.Nonce(ctx)
	clk.Add(90 * time.Second)
	previous, _ := nonces.Nonce(ctx) // of the step before current's
	clk.Add(30 * time.Second)
	tests := []struct {
		name  string
		nonce string
		want  string
	}{
		{"current", current, ""},
		{"previous step", previous, ""},
		{"missing", "", dpop.CodeUseNonce},
		{"stale", stale, dpop.CodeUseNonce},
		{"another secret's", foreign, dpop.CodeUseNonce},
		{"garbage", "not-a-nonce", dpop.CodeUseNonce},
		{"tampered", current[:len(current)-2] + "AA", dpop.CodeUseNonce},
	}
	v := newVerifier(t, dpop.VerifierOptions{Now: clk.Now, Nonces: nonces})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proof, err := dpop.NewProof(ecKey, "POST", target, dpop.ProofOptions{Now: clk.Now(), Nonce: tt.nonce})
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.Verify(ctx, proof, dpop.Target{Method: "POST", URL: target})
			if got := errCode(err); got != tt.want {
				t.Fatalf("Verify: %v, want code %q", err, tt.want)
			}
		})
	}
	if n, err := v.Nonce(ctx); err != nil || n == "" {
		t.Errorf("Verifier.Nonce = %q, %v", n, err)
	}
	if n, err := newVerifier(t, dpop.VerifierOptions{}).Nonce(ctx); err != nil || n != "" {
		t.Errorf("Nonce without a NonceSource = %q, %v; want none", n, err)
	}
	if _, err := dpop.NewHMACNonces(dpop.NonceOptions{Secret: []byte("short")}); err == nil {
		t.Error("NewHMACNonces with a 5-byte secret: no error")
	}
}

func TestVerifyRequest(t *testing.T) {
	keys(t)
	proof := func(url string) string {
		p, err := dpop.NewProof(ecKey, "POST", url, dpop.ProofOptions{AccessToken: "tok"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		external string
		host     string
		proofs   func() []string
		want     string
	}{
		{"one proof", "", "mcp.example.com", func() []string { return []string{proof("http://mcp.example.com/mcp")} }, ""},
		{"no DPoP header", "", "mcp.example.com", func() []string { return nil }, dpop.CodeInvalidProof},
		{"two DPoP headers", "", "mcp.example.com", func() []string {
			return []string{proof("http://mcp.example.com/mcp"), proof("http://mcp.example.com/mcp")}
		}, dpop.CodeInvalidProof},
		{"external URL", "https://mcp.example.com", "10.0.0.7:8080", func() []string { return []string{proof(target)} }, ""},
		{"external URL with a prefix", "https://mcp.example.com/api/", "10.0.0.7:8080", func() []string { return []string{proof("https://mcp.example.com/api/mcp")} }, ""},
		{"Host header not trusted with an external URL", "https://mcp.example.com", "evil.example.com", func() []string { return []string{proof("https://evil.example.com/mcp")} }, dpop.CodeInvalidProof},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, dpop.VerifierOptions{ExternalURL: tt.external})
			r := httptest.NewRequest(http.MethodPost, "http://"+tt.host+"/mcp?session=1", nil)
			for _, p := range tt.proofs() {
				r.Header.Add("DPoP", p)
			}
			_, err := v.VerifyRequest(r, "tok", "")
			if got := errCode(err); got != tt.want {
				t.Fatalf("VerifyRequest: %v, want code %q", err, tt.want)
			}
		})
	}
}

func TestNewVerifierRefuses(t *testing.T) {
	tests := []dpop.VerifierOptions{
		{Algorithms: []string{"none"}},
		{Algorithms: []string{"HS256"}},
		{Algorithms: []string{"ES256", ""}},
		{ExternalURL: "mcp.example.com"},
		{ExternalURL: "ftp://mcp.example.com"},
		{ExternalURL: "https://mcp.example.com/?q=1"},
	}
	for _, opts := range tests {
		if _, err := dpop.NewVerifier(opts); err == nil {
			t.Errorf("NewVerifier(%+v): no error", opts)
		}
	}
}

// The examples of RFC 9449: the thumbprint of the key of section 4.1 is
// the cnf.jkt of section 6.1, and the ath of section 7.1.
func TestRFCExamples(t *testing.T) {
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON([]byte(`{"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","crv":"P-256"}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := dpop.Thumbprint(jwk.Key); err != nil || got != "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" {
		t.Errorf("Thumbprint = %q, %v", got, err)
	}
	if got := dpop.ATH("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"); got != "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo" {
		t.Errorf("ATH = %q", got)
	}
	if _, err := dpop.Thumbprint("not a key"); err == nil {
		t.Error("Thumbprint of a string: no error")
	}
}
