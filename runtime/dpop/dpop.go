// Package dpop creates and verifies DPoP proofs (RFC 9449,
// https://www.rfc-editor.org/rfc/rfc9449): short JWTs, signed with a key
// the client holds, that bind an access token to that key, so that a
// stolen token is useless without the key.
//
// A client makes one proof per HTTP request with NewProof. A server checks
// it with a Verifier: the proof's form (typ dpop+jwt, an allowed
// algorithm, a public jwk in the header), its signature with that jwk, that
// it was made for this request (htm, htu), recently (iat), once (jti, with
// a ReplayCache), for this token (ath) and with the key the token is bound
// to (the token's cnf.jkt, a Thumbprint), and optionally with a nonce the
// server issued (a NonceSource). runtime/bearer uses it on the resource
// server.
//
// A fleet of servers shares its ReplayCache, so that a proof used at one
// instance is refused at the others, and its NonceSource: HMACNonces with
// one secret on every instance needs no shared state. The module
// github.com/mcpgen/mcpgen/redis has a ReplayCache on Redis (one SET with
// NX and an expiry per proof).
package dpop

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// The error codes of RFC 9449 (section 12.2,
// https://www.rfc-editor.org/rfc/rfc9449#section-12.2).
const (
	// CodeInvalidProof is the code of a proof that is missing or not
	// valid.
	CodeInvalidProof = "invalid_dpop_proof"
	// CodeUseNonce is the code of a proof without the server's current
	// nonce: the client must make a new proof with the nonce the
	// DPoP-Nonce response header gives.
	CodeUseNonce = "use_dpop_nonce"
)

// Error is why a proof was refused. Code is CodeInvalidProof or
// CodeUseNonce; Description says what was wrong, and may be sent to the
// client (it never holds the access token); Err is the underlying error,
// for logs, or nil.
type Error struct {
	Code        string
	Description string
	Err         error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return "dpop: " + e.Code + ": " + e.Description + ": " + e.Err.Error()
	}
	return "dpop: " + e.Code + ": " + e.Description
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

func invalid(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidProof, Description: fmt.Sprintf(format, args...)}
}

// Thumbprint returns the JWK SHA-256 thumbprint of a public key (RFC 7638,
// https://www.rfc-editor.org/rfc/rfc7638), base64url-encoded without
// padding: the value of the jkt confirmation claim of a token bound to the
// key (RFC 9449 section 6, https://www.rfc-editor.org/rfc/rfc9449#section-6).
// key is an *ecdsa.PublicKey, an *rsa.PublicKey or an ed25519.PublicKey;
// a private key yields the thumbprint of its public key.
func Thumbprint(key crypto.PublicKey) (string, error) {
	jwk := jose.JSONWebKey{Key: key}
	if s, ok := key.(crypto.Signer); ok {
		jwk.Key = s.Public()
	}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("dpop: thumbprint of a %T: %w", key, err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// ATH returns the access token hash of a proof for token: the base64url
// encoding, without padding, of the SHA-256 of its ASCII bytes (RFC 9449
// section 4.2, https://www.rfc-editor.org/rfc/rfc9449#section-4.2).
func ATH(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
