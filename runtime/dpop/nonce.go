package dpop

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"
)

// NonceSource issues the nonces a server asks DPoP proofs to carry, and
// checks them (RFC 9449 section 8 and 9,
// https://www.rfc-editor.org/rfc/rfc9449#section-9).
type NonceSource interface {
	// Nonce returns a nonce to give the client in a DPoP-Nonce header.
	Nonce(ctx context.Context) (string, error)
	// Check reports whether nonce is one it issued and still accepts. An
	// error means it could not tell.
	Check(ctx context.Context, nonce string) (bool, error)
}

// DefaultNonceLifetime is the default of NonceOptions.Lifetime.
const DefaultNonceLifetime = 5 * time.Minute

// NonceOptions configure HMACNonces.
type NonceOptions struct {
	// Secret keys the nonces' MAC: give every server of a fleet the same
	// one, at least 32 bytes. Default: 32 random bytes, for a single
	// server.
	Secret []byte
	// Lifetime is the length of the time step a nonce belongs to (default
	// DefaultNonceLifetime): a nonce is accepted in its step and the next,
	// so for one to two Lifetimes.
	Lifetime time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// HMACNonces is a NonceSource without state: a nonce is the number of the
// current time step and its HMAC-SHA256, so every server with the secret
// issues and accepts the same nonces. It is safe for concurrent use.
type HMACNonces struct {
	secret   []byte
	lifetime time.Duration
	now      func() time.Time
}

// NewHMACNonces returns the HMACNonces of opts, or an error naming the
// option that is wrong.
func NewHMACNonces(opts NonceOptions) (*HMACNonces, error) {
	n := &HMACNonces{secret: opts.Secret, lifetime: opts.Lifetime, now: opts.Now}
	if n.secret == nil {
		n.secret = make([]byte, 32)
		if _, err := rand.Read(n.secret); err != nil {
			return nil, fmt.Errorf("dpop: nonce secret: %w", err)
		}
	} else if len(n.secret) < 32 {
		return nil, fmt.Errorf("dpop: NonceOptions.Secret has %d bytes; give at least 32", len(n.secret))
	}
	if n.lifetime <= 0 {
		n.lifetime = DefaultNonceLifetime
	}
	if n.now == nil {
		n.now = time.Now
	}
	return n, nil
}

const nonceMAC = 16 // bytes of the MAC kept in a nonce

func (n *HMACNonces) step() uint64 {
	return uint64(n.now().UnixNano() / int64(n.lifetime))
}

func (n *HMACNonces) mac(step uint64) []byte {
	m := hmac.New(sha256.New, n.secret)
	m.Write([]byte("dpop-nonce\x00"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], step)
	m.Write(b[:])
	return m.Sum(nil)[:nonceMAC]
}

// Nonce implements NonceSource.
func (n *HMACNonces) Nonce(context.Context) (string, error) {
	s := n.step()
	b := binary.BigEndian.AppendUint64(nil, s)
	return base64.RawURLEncoding.EncodeToString(append(b, n.mac(s)...)), nil
}

// Check implements NonceSource.
func (n *HMACNonces) Check(_ context.Context, nonce string) (bool, error) {
	b, err := base64.RawURLEncoding.DecodeString(nonce)
	if err != nil || len(b) != 8+nonceMAC {
		return false, nil
	}
	s := binary.BigEndian.Uint64(b[:8])
	if cur := n.step(); s != cur && s+1 != cur {
		return false, nil
	}
	return hmac.Equal(b[8:], n.mac(s)), nil
}
