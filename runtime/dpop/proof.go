package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ProofType is the "typ" header of a DPoP proof.
const ProofType = "dpop+jwt"

// ProofOptions are the optional parts of a proof.
type ProofOptions struct {
	// AccessToken, when set, is the token the proof goes with: the proof
	// carries its hash (ath), as a request to a resource server needs.
	AccessToken string
	// Nonce is the server's latest DPoP-Nonce, when it gave one.
	Nonce string
	// Algorithm picks the algorithm for an RSA key: "RS256" (the default)
	// or "PS256". Other keys have one: ES256 for ECDSA P-256, EdDSA for
	// Ed25519.
	Algorithm string
	// Now is the proof's iat; default time.Now().
	Now time.Time
	// JTI is the proof's unique identifier; default 128 random bits. Set it
	// only to reproduce a proof in a test.
	JTI string
}

// proofHeader is the JOSE header of a proof.
type proofHeader struct {
	Type      string         `json:"typ"`
	Algorithm string         `json:"alg"`
	JWK       jsontext.Value `json:"jwk"`
}

// proofClaims are the claims of a proof.
type proofClaims struct {
	JTI    string `json:"jti"`
	Method string `json:"htm"`
	URL    string `json:"htu"`
	IAT    int64  `json:"iat"`
	ATH    string `json:"ath,omitempty"`
	Nonce  string `json:"nonce,omitempty"`
}

// NewProof returns a DPoP proof (RFC 9449 section 4,
// https://www.rfc-editor.org/rfc/rfc9449#section-4) of key for an HTTP
// request with method and target URL: a JWS in compact form whose header
// has typ dpop+jwt, the algorithm and the public key as a jwk, and whose
// claims are a random jti, htm, htu (url without its query and fragment),
// iat, and ath and nonce when opts set them.
//
// key is an *ecdsa.PrivateKey on P-256 (ES256), an *rsa.PrivateKey (RS256
// or PS256) or an ed25519.PrivateKey (EdDSA), or any crypto.Signer whose
// public key is one of those (a key in a hardware module, say).
func NewProof(key crypto.Signer, method, target string, opts ProofOptions) (string, error) {
	if key == nil {
		return "", errors.New("dpop: NewProof: no key")
	}
	if method == "" {
		return "", errors.New("dpop: NewProof: no HTTP method")
	}
	htu, err := stripURL(target)
	if err != nil {
		return "", fmt.Errorf("dpop: NewProof: %w", err)
	}
	pub := key.Public()
	alg, err := algorithmFor(pub, opts.Algorithm)
	if err != nil {
		return "", fmt.Errorf("dpop: NewProof: %w", err)
	}
	jwk, err := jose.JSONWebKey{Key: pub}.MarshalJSON()
	if err != nil {
		return "", fmt.Errorf("dpop: NewProof: the public key as a JWK: %w", err)
	}
	jti := opts.JTI
	if jti == "" {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("dpop: NewProof: jti: %w", err)
		}
		jti = base64.RawURLEncoding.EncodeToString(b)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	claims := proofClaims{JTI: jti, Method: method, URL: htu, IAT: now.Unix(), Nonce: opts.Nonce}
	if opts.AccessToken != "" {
		claims.ATH = ATH(opts.AccessToken)
	}
	h, err := json.Marshal(proofHeader{Type: ProofType, Algorithm: alg, JWK: jwk})
	if err != nil {
		return "", fmt.Errorf("dpop: NewProof: header: %w", err)
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("dpop: NewProof: claims: %w", err)
	}
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sig, err := sign(key, pub, alg, []byte(input))
	if err != nil {
		return "", fmt.Errorf("dpop: NewProof: signing with %s: %w", alg, err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// algorithmFor returns the JWS algorithm of a proof signed with the
// private key of pub; want chooses for RSA.
func algorithmFor(pub crypto.PublicKey, want string) (string, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", fmt.Errorf("ECDSA key on %s: only P-256 (ES256) is supported", k.Curve.Params().Name)
		}
		if want != "" && want != string(jose.ES256) {
			return "", fmt.Errorf("algorithm %q does not go with an ECDSA P-256 key (ES256)", want)
		}
		return string(jose.ES256), nil
	case *rsa.PublicKey:
		switch want {
		case "", string(jose.RS256):
			return string(jose.RS256), nil
		case string(jose.PS256):
			return string(jose.PS256), nil
		}
		return "", fmt.Errorf("algorithm %q does not go with an RSA key (RS256 or PS256)", want)
	case ed25519.PublicKey:
		if want != "" && want != string(jose.EdDSA) {
			return "", fmt.Errorf("algorithm %q does not go with an Ed25519 key (EdDSA)", want)
		}
		return string(jose.EdDSA), nil
	}
	return "", fmt.Errorf("unsupported key type %T: use ECDSA P-256, RSA or Ed25519", pub)
}

// sign signs input with key under alg, giving the JWS signature bytes.
func sign(key crypto.Signer, pub crypto.PublicKey, alg string, input []byte) ([]byte, error) {
	switch alg {
	case string(jose.EdDSA):
		return key.Sign(rand.Reader, input, crypto.Hash(0))
	case string(jose.PS256):
		sum := sha256.Sum256(input)
		return key.Sign(rand.Reader, sum[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256})
	case string(jose.RS256):
		sum := sha256.Sum256(input)
		return key.Sign(rand.Reader, sum[:], crypto.SHA256)
	}
	// ES256: the signer gives ASN.1 DER; JWS wants R and S, 32 bytes each.
	sum := sha256.Sum256(input)
	der, err := key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return nil, err
	}
	var rs struct{ R, S *big.Int }
	if rest, err := asn1.Unmarshal(der, &rs); err != nil || len(rest) > 0 {
		return nil, errors.New("the ECDSA signer's signature is not ASN.1 DER")
	}
	if rs.R.Sign() <= 0 || rs.S.Sign() <= 0 || rs.R.BitLen() > 256 || rs.S.BitLen() > 256 {
		return nil, errors.New("the ECDSA signer's signature is out of range for P-256")
	}
	out := make([]byte, 64)
	rs.R.FillBytes(out[:32])
	rs.S.FillBytes(out[32:])
	return out, nil
}

// stripURL returns target without its query and fragment, as htu holds
// it (RFC 9449 section 4.2).
func stripURL(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("htu: %w", err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("htu: %q is not an absolute URL", target)
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u.String(), nil
}
