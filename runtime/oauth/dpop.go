package oauth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/mcpgen/mcpgen/runtime/dpop"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// DPoPOptions turn on DPoP (RFC 9449, https://www.rfc-editor.org/rfc/rfc9449)
// in a Client: its tokens are bound to a key it holds, so that a token
// that leaks is useless without the key.
//
// Every request to the authorization server's token endpoint
// (authorization code, refresh, client credentials, JWT bearer) and
// revocation request carries a DPoP proof of the key (htm POST, htu the
// endpoint); the token exchange at an enterprise identity provider does
// not. When the token response's token_type is DPoP, the token is
// sent as "Authorization: DPoP <token>" with a new proof for every request
// to the MCP server (htm and htu of that request, ath the token's hash);
// when it is Bearer (the authorization server did not bind the token), it
// is sent as a bearer token. A server that answers use_dpop_nonce with a
// DPoP-Nonce header (a 400 from the token endpoint, a 401 from the MCP
// server) gets the request once more, with a proof that carries the
// nonce; the latest nonce of each server is kept for the next proofs.
type DPoPOptions struct {
	// Key signs the proofs: an *ecdsa.PrivateKey on P-256 (ES256), an
	// *rsa.PrivateKey (RS256), an ed25519.PrivateKey (EdDSA), or a
	// crypto.Signer with one of their public keys (a key in a hardware
	// module, say). It is never saved in a Store. Default: an ECDSA P-256
	// key the Client generates for each MCP server and keeps in the Store
	// with the token bound to it (Token.DPoPKey), so that a token read
	// again or refreshed keeps its binding.
	Key crypto.Signer
}

// The token_type values a Client takes.
const (
	tokenTypeBearer = "Bearer"
	tokenTypeDPoP   = "DPoP"
)

// maxNonceBody bounds the error response read to see whether it asks for a
// DPoP nonce.
const maxNonceBody = 64 << 10

// dpopState is the DPoP state of one MCP server: its key and the latest
// nonces of its authorization server and of itself.
type dpopState struct {
	opts *DPoPOptions

	mu     sync.Mutex
	key    crypto.Signer     // generated, when opts.Key is nil
	nonces map[string]string // "as " or "rs " + origin → latest DPoP-Nonce
}

// checkDPoP checks Config.DPoP.
func checkDPoP(o *DPoPOptions) error {
	if o == nil || o.Key == nil {
		return nil
	}
	if _, err := dpop.NewProof(o.Key, http.MethodPost, "https://example.com/token", dpop.ProofOptions{}); err != nil {
		return fmt.Errorf("oauth: Config.DPoP.Key: %w", err)
	}
	return nil
}

// dpopKey returns the key of the server's proofs: Config.DPoP.Key, else the
// key of the DPoP-bound token held, else the one generated for the server
// (generating it the first time).
func (s *server) dpopKey() (crypto.Signer, error) {
	st := s.dpop
	if st.opts.Key != nil {
		return st.opts.Key, nil
	}
	s.mu.Lock()
	tok := s.tok
	s.mu.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if tok != nil && tok.DPoPKey != nil {
		st.key = tok.DPoPKey
	}
	if st.key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("oauth: generating the DPoP key: %w", err)
		}
		st.key = k
	}
	return st.key, nil
}

// bindToken attaches to tok, a DPoP-bound token the server just got, the
// generated key it is bound to, so that the Store keeps them together.
func (s *server) bindToken(tok *Token) {
	if s.dpop == nil || tok == nil || !strings.EqualFold(tok.TokenType, tokenTypeDPoP) || s.dpop.opts.Key != nil {
		return
	}
	s.dpop.mu.Lock()
	tok.DPoPKey = s.dpop.key
	s.dpop.mu.Unlock()
}

// nonce returns the latest nonce of a server ("as" or "rs") at origin.
func (st *dpopState) nonce(role, origin string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.nonces[role+" "+origin]
}

// maxNonce is the longest DPoP-Nonce the client keeps: servers' nonces
// are a few dozen characters.
const maxNonce = 1024

// validNonce reports whether n is a nonce as RFC 9449 section 8.1 writes
// it (1*NQCHAR: visible ASCII but the double quote and the backslash),
// of at most maxNonce bytes.
func validNonce(n string) bool {
	if n == "" || len(n) > maxNonce {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// noteNonce keeps the DPoP-Nonce of a response, when it has one that is
// valid (validNonce), and reports whether it did. A server that sends
// another gets no retry with it.
func (st *dpopState) noteNonce(role, origin string, h http.Header) bool {
	n := h.Get("DPoP-Nonce")
	if !validNonce(n) {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.nonces == nil {
		st.nonces = map[string]string{}
	}
	st.nonces[role+" "+origin] = n
	return true
}

// proof returns a DPoP proof of the server's key for a request.
func (s *server) proof(method, target, accessToken, nonce string) (string, error) {
	key, err := s.dpopKey()
	if err != nil {
		return "", err
	}
	p, err := dpop.NewProof(key, method, target, dpop.ProofOptions{AccessToken: accessToken, Nonce: nonce})
	if err != nil {
		return "", fmt.Errorf("oauth: DPoP proof: %w", err)
	}
	return p, nil
}

// setAuthorization puts tok on r: "Authorization: DPoP" and a proof for r
// when tok is DPoP-bound, else "Authorization: Bearer". A DPoP-bound token
// of the Store, when Config.DPoP is not set (any more), is not sent: the
// server's 401 leads to a new authorization, for a bearer token.
func (s *server) setAuthorization(r *http.Request, tok *Token) error {
	r.Header.Del("DPoP")
	if !strings.EqualFold(tok.TokenType, tokenTypeDPoP) {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		return nil
	}
	if s.dpop == nil {
		s.c.logger.Debug("oauth: the stored token is DPoP-bound and Config.DPoP is not set; not sending it", "server", s.url)
		return nil
	}
	p, err := s.proof(r.Method, r.URL.String(), tok.AccessToken, s.dpop.nonce("rs", s.origin))
	if err != nil {
		return s.wrap("DPoP", err)
	}
	r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
	r.Header.Set("DPoP", p)
	return nil
}

// challenge returns the challenge of a 401 or 403 response that the Client
// reacts to: the Bearer one, or the DPoP one when the request carried a
// DPoP-bound token or when there is no Bearer one (a server that takes
// DPoP-bound tokens only).
func (s *server) challenge(h http.Header, tok *Token) oauthmeta.Challenge {
	bearer, hasBearer := oauthmeta.BearerChallenge(h)
	if s.dpop == nil {
		return bearer
	}
	dp, hasDPoP := dpopChallenge(h)
	switch {
	case hasDPoP && tok != nil && strings.EqualFold(tok.TokenType, tokenTypeDPoP):
		return fill(dp, bearer)
	case hasBearer:
		return fill(bearer, dp)
	}
	return dp
}

// fill adds to ch the resource_metadata and scope of other that ch lacks.
func fill(ch, other oauthmeta.Challenge) oauthmeta.Challenge {
	for _, name := range []string{"resource_metadata", "scope"} {
		if _, ok := ch.Get(name); ok {
			continue
		}
		if v, ok := other.Get(name); ok {
			ch.Params = append(slices.Clone(ch.Params), oauthmeta.Param{Name: name, Value: v})
		}
	}
	return ch
}

// dpopChallenge returns the first DPoP challenge of h's WWW-Authenticate
// headers, and whether there was one.
func dpopChallenge(h http.Header) (oauthmeta.Challenge, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		cs, err := oauthmeta.ParseChallenges(v)
		if err != nil {
			continue
		}
		for _, c := range cs {
			if strings.EqualFold(c.Scheme, tokenTypeDPoP) {
				return c, true
			}
		}
	}
	return oauthmeta.Challenge{}, false
}

// resourceNonce keeps the MCP server's DPoP-Nonce from resp and reports
// whether resp asks for the request again with it: a 401 whose DPoP
// challenge says error="use_dpop_nonce" and that carries a DPoP-Nonce.
func (s *server) resourceNonce(resp *http.Response) bool {
	if s.dpop == nil {
		return false
	}
	got := s.dpop.noteNonce("rs", s.origin, resp.Header)
	if !got || resp.StatusCode != http.StatusUnauthorized {
		return false
	}
	ch, ok := dpopChallenge(resp.Header)
	if !ok || param(ch, "error") != dpop.CodeUseNonce {
		return false
	}
	s.c.logger.Debug("oauth: the MCP server asks for a DPoP nonce; sending the request again with it", "server", s.url)
	return true
}

// tokenClient returns the http.Client of the requests to the authorization
// server's token and revocation endpoints: the address policy's, whose
// POSTs carry a DPoP proof when Config.DPoP is set.
func (s *server) tokenClient() *http.Client {
	hc := s.g.oauth()
	if s.dpop == nil {
		return hc
	}
	c := *hc
	c.Transport = &dpopTransport{s: s, base: hc.Transport}
	return &c
}

// dpopTransport adds a DPoP proof to the POSTs to an authorization
// server, and sends a request once more, with the server's nonce, when it
// answers 400 use_dpop_nonce with a DPoP-Nonce (RFC 9449 section 8).
type dpopTransport struct {
	s    *server
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return t.base.RoundTrip(req)
	}
	st := t.s.dpop
	o := origin(req.URL)
	getBody := req.GetBody
	if getBody == nil && req.Body != nil && req.Body != http.NoBody {
		var err error
		if getBody, err = bufferBody(req); err != nil {
			return nil, err
		}
	}
	for attempt := 0; ; attempt++ {
		p, err := t.s.proof(http.MethodPost, req.URL.String(), "", st.nonce("as", o))
		if err != nil {
			return nil, err
		}
		r := req.Clone(req.Context())
		if getBody != nil {
			if r.Body, err = getBody(); err != nil {
				return nil, err
			}
		}
		r.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if !st.noteNonce("as", o, resp.Header) || resp.StatusCode != http.StatusBadRequest || attempt > 0 {
			return resp, nil
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxNonceBody))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error != dpop.CodeUseNonce {
			resp.Body = io.NopCloser(bytes.NewReader(data))
			return resp, nil
		}
		t.s.c.logger.Debug("oauth: the authorization server asks for a DPoP nonce; sending the request again with it", "url", urlWithoutQuery(req.URL))
	}
}

// tokenJSON is Token's JSON form: its fields, and the DPoP key as PKCS#8.
type tokenJSON struct {
	plainToken
	DPoPKey []byte `json:"dpop_key,omitempty"`
}

// plainToken is Token without its JSON methods.
type plainToken Token

// MarshalJSON encodes the token with its DPoPKey, in PKCS#8 (base64), so
// that a Store that saves tokens as JSON keeps the key with its token.
func (t Token) MarshalJSON() ([]byte, error) {
	w := tokenJSON{plainToken: plainToken(t)}
	if t.DPoPKey != nil {
		der, err := x509.MarshalPKCS8PrivateKey(t.DPoPKey)
		if err != nil {
			return nil, fmt.Errorf("oauth: the token's DPoP key (a %T) cannot be written as PKCS#8: %w", t.DPoPKey, err)
		}
		w.DPoPKey = der
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON encodes; a token without a DPoP
// key, as older stores hold, has none.
func (t *Token) UnmarshalJSON(data []byte) error {
	var w tokenJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Token(w.plainToken)
	if len(w.DPoPKey) > 0 {
		k, err := x509.ParsePKCS8PrivateKey(w.DPoPKey)
		if err != nil {
			return fmt.Errorf("oauth: the token's dpop_key is not a PKCS#8 private key: %w", err)
		}
		signer, ok := k.(crypto.Signer)
		if !ok {
			return errors.New("oauth: the token's dpop_key is not a signing key")
		}
		t.DPoPKey = signer
	}
	return nil
}

// urlWithoutQuery is u without its query and fragment, for logs.
func urlWithoutQuery(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.User = "", "", nil
	return c.String()
}
