package dpop

import (
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DefaultAlgorithms are the proof algorithms a Verifier accepts by default.
var DefaultAlgorithms = []string{"ES256", "PS256", "RS256", "EdDSA"}

// DefaultWindow is the default of VerifierOptions.Window.
const DefaultWindow = time.Minute

// MaxProofBytes bounds the size of a proof a Verifier reads.
const MaxProofBytes = 8 << 10

// maxJTI bounds the length of a proof's jti.
const maxJTI = 256

// VerifierOptions configure a Verifier.
type VerifierOptions struct {
	// Algorithms are the JWS algorithms accepted (default
	// DefaultAlgorithms). "none" and the HMAC algorithms are refused: a
	// proof is signed with the client's private key, checked with the
	// public one it carries.
	Algorithms []string
	// Window is how far a proof's iat may lie from now, in the past or in
	// the future (default DefaultWindow): older proofs are refused, and a
	// proof's jti is remembered that long (RFC 9449 section 11.1,
	// https://www.rfc-editor.org/rfc/rfc9449#section-11.1).
	Window time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Replay remembers the proofs seen, so that none is accepted twice;
	// default NewMemoryReplayCache(DefaultReplayCacheSize). A fleet of
	// servers shares one.
	Replay ReplayCache
	// Nonces, when set, makes every proof carry a nonce it issued (RFC 9449
	// section 9, https://www.rfc-editor.org/rfc/rfc9449#section-9): a proof
	// without one, or with one it no longer accepts, gets an Error with
	// CodeUseNonce, and the client is to be given Nonce's value in a
	// DPoP-Nonce header. Default: no nonce.
	Nonces NonceSource
	// ExternalURL is the scheme, host, port, and any path prefix at which
	// clients reach the server, such as "https://mcp.example.com": the URL
	// VerifyRequest checks htu against is ExternalURL followed by the
	// request's path. Set it behind a proxy, or the Host header decides.
	// Default: the scheme of the connection (https with TLS) and the
	// request's Host header.
	ExternalURL string
}

// Verifier checks DPoP proofs. It is safe for concurrent use.
type Verifier struct {
	algs     []jose.SignatureAlgorithm
	names    []string
	window   time.Duration
	now      func() time.Time
	replay   ReplayCache
	nonces   NonceSource
	external string
}

// NewVerifier returns a Verifier, or an error naming the option that is
// wrong.
func NewVerifier(opts VerifierOptions) (*Verifier, error) {
	names := opts.Algorithms
	if len(names) == 0 {
		names = DefaultAlgorithms
	}
	v := &Verifier{names: slices.Clone(names), window: opts.Window, now: opts.Now, replay: opts.Replay, nonces: opts.Nonces}
	for _, a := range names {
		switch jose.SignatureAlgorithm(a) {
		case jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.EdDSA:
			v.algs = append(v.algs, jose.SignatureAlgorithm(a))
		default:
			return nil, fmt.Errorf("dpop: VerifierOptions.Algorithms: %q is not an asymmetric JWS algorithm (none and HMAC are never allowed)", a)
		}
	}
	if v.window <= 0 {
		v.window = DefaultWindow
	}
	if v.now == nil {
		v.now = time.Now
	}
	if v.replay == nil {
		v.replay = NewMemoryReplayCache(DefaultReplayCacheSize)
	}
	if opts.ExternalURL != "" {
		u, err := url.Parse(opts.ExternalURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("dpop: VerifierOptions.ExternalURL %q: want an http or https URL with a host, no query and no fragment", opts.ExternalURL)
		}
		v.external = strings.TrimSuffix(opts.ExternalURL, "/")
	}
	return v, nil
}

// Algorithms are the algorithms the Verifier accepts, for the algs
// parameter of a DPoP challenge.
func (v *Verifier) Algorithms() []string { return slices.Clone(v.names) }

// Nonce returns a fresh nonce to give the client in a DPoP-Nonce header,
// or "" when the Verifier needs none (VerifierOptions.Nonces is nil).
func (v *Verifier) Nonce(ctx context.Context) (string, error) {
	if v.nonces == nil {
		return "", nil
	}
	return v.nonces.Nonce(ctx)
}

// Target is what a proof must have been made for.
type Target struct {
	// Method is the request's HTTP method: htm must be it.
	Method string
	// URL is the request's URL: htu must be it, both without query and
	// fragment, compared after normalising case, default ports and
	// percent-encoding (RFC 3986 section 6.2.2 and 6.2.3).
	URL string
	// AccessToken, when set, is the token sent with the proof: its ath
	// must be ATH(AccessToken).
	AccessToken string
	// JKT, when set, is the thumbprint of the key the token is bound to
	// (cnf.jkt): the proof's jwk must have it.
	JKT string
}

// Claims are what a valid proof says.
type Claims struct {
	// JTI is the proof's unique identifier.
	JTI string
	// Method and URL are its htm and htu.
	Method, URL string
	// IssuedAt is its iat.
	IssuedAt time.Time
	// ATH is its access token hash, when it has one.
	ATH string
	// Nonce is the nonce it carries, when it has one.
	Nonce string
	// Key is its public key (the jwk header), and JKT the key's
	// Thumbprint, which a token bound to it carries as cnf.jkt.
	Key crypto.PublicKey
	JKT string
}

// VerifyRequest checks the proof of r, its one DPoP header, made for r's
// method and URL (see VerifierOptions.ExternalURL), for accessToken and
// the key thumbprint jkt (either may be "", see Target).
func (v *Verifier) VerifyRequest(r *http.Request, accessToken, jkt string) (*Claims, error) {
	proofs := r.Header.Values("DPoP")
	switch len(proofs) {
	case 0:
		return nil, invalid("the request has no DPoP header; send one proof made for it (RFC 9449 section 4)")
	case 1:
	default:
		return nil, invalid("the request has %d DPoP headers; send exactly one", len(proofs))
	}
	return v.Verify(r.Context(), proofs[0], Target{Method: r.Method, URL: v.requestURL(r), AccessToken: accessToken, JKT: jkt})
}

// requestURL is the URL a proof for r must name.
func (v *Verifier) requestURL(r *http.Request) string {
	if v.external != "" {
		return v.external + r.URL.EscapedPath()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.EscapedPath()
}

// Verify checks proof against t, in the order of RFC 9449 section 4.3
// (https://www.rfc-editor.org/rfc/rfc9449#section-4.3), and returns what it
// says. A proof that is not valid gets an *Error (with CodeUseNonce when
// only its nonce is missing or stale); any other error means the proof
// could not be checked (the ReplayCache or the NonceSource failed), and the
// client may try again.
//
// The proof's jti is recorded only once every other check passed, so a
// refused proof does not use up a jti.
func (v *Verifier) Verify(ctx context.Context, proof string, t Target) (*Claims, error) {
	if proof == "" {
		return nil, invalid("the DPoP proof is empty")
	}
	if len(proof) > MaxProofBytes {
		return nil, invalid("the DPoP proof is longer than %d bytes", MaxProofBytes)
	}
	if strings.Count(proof, ".") != 2 {
		return nil, invalid("the DPoP proof is not a JWS in compact form (three base64url parts joined by dots)")
	}
	head, _, _ := strings.Cut(proof, ".")
	if err := v.checkHeader(head); err != nil {
		return nil, err
	}
	jws, err := jose.ParseSignedCompact(proof, v.algs)
	if err != nil {
		return nil, &Error{Code: CodeInvalidProof, Description: "the DPoP proof does not parse as a JWS with an accepted algorithm (" + strings.Join(v.names, ", ") + ")", Err: err}
	}
	if len(jws.Signatures) != 1 || jws.Signatures[0].Header.JSONWebKey == nil {
		return nil, invalid("the DPoP proof has no jwk header")
	}
	jwk := jws.Signatures[0].Header.JSONWebKey
	if !jwk.IsPublic() {
		return nil, invalid("the DPoP proof's jwk is not a public key")
	}
	payload, err := jws.Verify(jwk)
	if err != nil {
		return nil, &Error{Code: CodeInvalidProof, Description: "the DPoP proof's signature does not verify with its jwk", Err: err}
	}
	c, err := decodeClaims(payload)
	if err != nil {
		return nil, err
	}
	if c.Method != t.Method {
		return nil, invalid("the DPoP proof was made for another method (htm), not %s", t.Method)
	}
	want, err := normURL(t.URL)
	if err != nil {
		return nil, fmt.Errorf("dpop: the request's URL: %w", err)
	}
	got, err := normURL(c.URL)
	if err != nil || got != want {
		return nil, invalid("the DPoP proof was made for another URL (htu), not %s", want)
	}
	now := v.now()
	if d := c.IssuedAt.Sub(now); d > v.window {
		return nil, invalid("the DPoP proof's iat is more than %s in the future; check the client's clock", v.window)
	} else if d < -v.window {
		return nil, invalid("the DPoP proof's iat is more than %s old; make a new proof for every request", v.window)
	}
	if v.nonces != nil {
		if c.Nonce == "" {
			return nil, &Error{Code: CodeUseNonce, Description: "the server requires a nonce in DPoP proofs; make a new proof with the nonce of the DPoP-Nonce header"}
		}
		ok, err := v.nonces.Check(ctx, c.Nonce)
		if err != nil {
			return nil, fmt.Errorf("dpop: checking the proof's nonce: %w", err)
		}
		if !ok {
			return nil, &Error{Code: CodeUseNonce, Description: "the DPoP proof's nonce is not (or no longer) valid; make a new proof with the nonce of the DPoP-Nonce header"}
		}
	}
	if t.AccessToken != "" {
		if c.ATH == "" {
			return nil, invalid("the DPoP proof has no access token hash (ath), which a proof sent with an access token needs")
		}
		if subtle.ConstantTimeCompare([]byte(c.ATH), []byte(ATH(t.AccessToken))) != 1 {
			return nil, invalid("the DPoP proof's access token hash (ath) is not that of the access token sent with it")
		}
	}
	c.Key = jwk.Key
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, &Error{Code: CodeInvalidProof, Description: "the DPoP proof's jwk has no thumbprint", Err: err}
	}
	c.JKT = base64.RawURLEncoding.EncodeToString(sum)
	if t.JKT != "" && subtle.ConstantTimeCompare([]byte(c.JKT), []byte(t.JKT)) != 1 {
		return nil, invalid("the DPoP proof's key is not the one the access token is bound to (cnf.jkt)")
	}
	seen, err := v.replay.Seen(ctx, replayKey(c.JKT, c.JTI), c.IssuedAt.Add(v.window))
	if err != nil {
		return nil, fmt.Errorf("dpop: the replay cache: %w", err)
	}
	if seen {
		return nil, invalid("the DPoP proof was used before (its jti is not new); make a new proof for every request")
	}
	return c, nil
}

// replayKey is the key of a proof in the ReplayCache: a digest of its key
// thumbprint and jti, of fixed size whatever the jti.
func replayKey(jkt, jti string) string {
	h := sha256.New()
	h.Write([]byte(jkt))
	h.Write([]byte{0})
	h.Write([]byte(jti))
	return hex.EncodeToString(h.Sum(nil))
}

// privateMembers are the JWK members that hold private or secret key
// material (RFC 7518 section 6).
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// checkHeader checks the JOSE header of a proof before it is parsed as a
// JWS: a JSON object without duplicate members, typ dpop+jwt, an accepted
// alg, and a jwk that holds a public key only.
func (v *Verifier) checkHeader(b64 string) error {
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return &Error{Code: CodeInvalidProof, Description: "the DPoP proof's header is not base64url", Err: err}
	}
	var h map[string]jsontext.Value
	if err := json.Unmarshal(raw, &h); err != nil {
		return &Error{Code: CodeInvalidProof, Description: "the DPoP proof's header is not a JSON object", Err: err}
	}
	var typ, alg string
	if json.Unmarshal(h["typ"], &typ) != nil || typ == "" {
		return invalid("the DPoP proof has no typ header, or not a string; it must be %s", ProofType)
	}
	if !strings.EqualFold(typ, ProofType) {
		return invalid("the DPoP proof's typ is not %s", ProofType)
	}
	if json.Unmarshal(h["alg"], &alg) != nil || !slices.Contains(v.names, alg) {
		return invalid("the DPoP proof's alg is not accepted; accepted: %s", strings.Join(v.names, " "))
	}
	var jwk map[string]jsontext.Value
	if _, ok := h["jwk"]; !ok {
		return invalid("the DPoP proof has no jwk header")
	}
	if err := json.Unmarshal(h["jwk"], &jwk); err != nil || jwk == nil {
		return invalid("the DPoP proof's jwk header is not a JSON object")
	}
	for _, m := range privateMembers {
		if _, ok := jwk[m]; ok {
			return invalid("the DPoP proof's jwk holds private key material (%s); it must be the public key only", m)
		}
	}
	return nil
}

// wireClaims are a proof's claims as they come.
type wireClaims struct {
	JTI   *string  `json:"jti"`
	HTM   *string  `json:"htm"`
	HTU   *string  `json:"htu"`
	IAT   *float64 `json:"iat"`
	ATH   *string  `json:"ath"`
	Nonce *string  `json:"nonce"`
}

// decodeClaims decodes and checks the presence and types of a proof's
// claims.
func decodeClaims(payload []byte) (*Claims, error) {
	var w wireClaims
	if err := json.Unmarshal(payload, &w); err != nil {
		return nil, &Error{Code: CodeInvalidProof, Description: "the DPoP proof's claims are not a JSON object of the expected types", Err: err}
	}
	switch {
	case w.JTI == nil || *w.JTI == "":
		return nil, invalid("the DPoP proof has no jti")
	case len(*w.JTI) > maxJTI:
		return nil, invalid("the DPoP proof's jti is longer than %d bytes", maxJTI)
	case w.HTM == nil || *w.HTM == "":
		return nil, invalid("the DPoP proof has no htm")
	case w.HTU == nil || *w.HTU == "":
		return nil, invalid("the DPoP proof has no htu")
	case w.IAT == nil:
		return nil, invalid("the DPoP proof has no iat")
	case math.IsNaN(*w.IAT) || math.Abs(*w.IAT) > 1e11:
		return nil, invalid("the DPoP proof's iat is out of range")
	}
	sec, frac := math.Modf(*w.IAT)
	c := &Claims{JTI: *w.JTI, Method: *w.HTM, URL: *w.HTU, IssuedAt: time.Unix(int64(sec), int64(frac*1e9))}
	if w.ATH != nil {
		c.ATH = *w.ATH
	}
	if w.Nonce != nil {
		c.Nonce = *w.Nonce
	}
	return c, nil
}

// normURL returns an http or https URL without its query and fragment,
// normalised by RFC 3986 section 6.2.2 and 6.2.3: scheme and host in lower
// case, no default port, an empty path as "/", percent-encoding in upper
// case and unreserved characters decoded.
func normURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", errors.New("not an http or https URL")
	}
	if u.Host == "" || u.Opaque != "" {
		return "", errors.New("no host")
	}
	if u.User != nil {
		return "", errors.New("a URL with user information")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	path, err := normPath(u.EscapedPath())
	if err != nil {
		return "", err
	}
	return scheme + "://" + host + path, nil
}

// normPath normalises the percent-encoding of an escaped path.
func normPath(p string) (string, error) {
	if p == "" {
		return "/", nil
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", errors.New("a bad percent-encoding in the path")
		}
		d := unhex(p[i+1])<<4 | unhex(p[i+2])
		if isUnreserved(d) {
			b.WriteByte(d)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
