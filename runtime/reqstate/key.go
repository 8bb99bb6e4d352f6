package reqstate

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// MaxKeyIDLen is the longest key ID, in bytes. Every state carries the ID of
// the key that sealed it, so IDs are kept short.
const MaxKeyIDLen = 16

// Key is one secret of a [Ring]. The Secret is the AES-256-GCM key; anyone
// who has it can read and forge request states, so it must be kept like a
// password: out of source control and logs.
//
// String and GoString print the ID only. The text form with the secret, for
// configuration shared by server instances, is written by [FormatKeys] and
// read by [ParseKeys].
type Key struct {
	// ID names the key inside the states it seals: 1 to 16 characters of
	// [A-Za-z0-9_-]. IDs are not secret.
	ID string
	// Secret is the 256-bit AES key. It must not be all zeros.
	Secret [32]byte
}

// GenerateKey returns a key with the given ID and a secret from crypto/rand.
// It fails only if id is not a valid key ID.
func GenerateKey(id string) (Key, error) {
	if err := checkID(id); err != nil {
		return Key{}, fmt.Errorf("reqstate: %w", err)
	}
	k := Key{ID: id}
	if _, err := rand.Read(k.Secret[:]); err != nil {
		return Key{}, fmt.Errorf("reqstate: generating key %q: %w", id, err)
	}
	return k, nil
}

// String returns "reqstate.Key(ID)". It never prints the secret, so a Key
// that reaches a log line or an error message by accident does not leak it;
// use [FormatKeys] to write the secret.
func (k Key) String() string { return "reqstate.Key(" + k.ID + ")" }

// GoString is String, for the %#v verb, so that it does not print the secret
// either.
func (k Key) GoString() string { return k.String() }

// check reports whether k can be used in a ring.
func (k Key) check() error {
	if err := checkID(k.ID); err != nil {
		return err
	}
	if k.Secret == ([32]byte{}) {
		return fmt.Errorf("key %q has an all-zero secret (an unset key?)", k.ID)
	}
	return nil
}

// FormatKeys writes keys in the text form that [ParseKeys] reads:
// "id1:secret1,id2:secret2", each secret in unpadded base64url. The result
// contains the secrets: treat it as a secret (an environment variable or a
// secret store, never a log or a repository).
func FormatKeys(keys ...Key) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k.ID)
		b.WriteByte(':')
		b.WriteString(base64.RawURLEncoding.EncodeToString(k.Secret[:]))
	}
	return b.String()
}

// ParseKeys reads keys written by [FormatKeys]: comma-separated entries
// "id:secret", each secret 32 bytes in unpadded base64url. Spaces, tabs and
// line breaks around entries are ignored. The keys come back in the order
// written, so the first can be the primary key of [NewRing]. It fails if
// there is no key, if an ID is invalid or repeated, or if a secret is not 32
// bytes of base64url or is all zeros. Errors name the entry by position and
// ID and never quote a secret.
func ParseKeys(s string) ([]Key, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("reqstate: no keys in the key list")
	}
	keys, err := parseKeys(s, make(map[string]bool))
	if err != nil {
		return nil, fmt.Errorf("reqstate: %w", err)
	}
	return keys, nil
}

// parseKeys is ParseKeys without the check for an empty list, and with the
// IDs seen before (in other lines of a key file) in seen, to which it adds
// its own.
func parseKeys(s string, seen map[string]bool) ([]Key, error) {
	var keys []Key
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		id, secret, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("key list entry %d has no ':' between ID and secret", i+1)
		}
		if err := checkID(id); err != nil {
			return nil, fmt.Errorf("key list entry %d: %w", i+1, err)
		}
		if seen[id] {
			return nil, fmt.Errorf("key list entry %d: key ID %q appears twice", i+1, id)
		}
		seen[id] = true
		k := Key{ID: id}
		if len(secret) != base64.RawURLEncoding.EncodedLen(len(k.Secret)) {
			return nil, fmt.Errorf("key list entry %d (%q): secret is %d characters, want %d (32 bytes in unpadded base64url)",
				i+1, id, len(secret), base64.RawURLEncoding.EncodedLen(len(k.Secret)))
		}
		if !isBase64URL(secret) {
			return nil, fmt.Errorf("key list entry %d (%q): secret is not unpadded base64url (only A-Z a-z 0-9 - _)", i+1, id)
		}
		if _, err := base64.RawURLEncoding.Strict().Decode(k.Secret[:], []byte(secret)); err != nil {
			// With 43 characters of the alphabet, only the last can be
			// wrong: it has 2 bits past the 32 bytes, which must be zero.
			return nil, fmt.Errorf("key list entry %d (%q): secret is not the canonical base64url of 32 bytes (its last character has bits set past the end)", i+1, id)
		}
		if err := k.check(); err != nil {
			return nil, fmt.Errorf("key list entry %d: %w", i+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// checkID checks a key ID: 1 to MaxKeyIDLen bytes of [A-Za-z0-9_-]. The
// error quotes the ID only if it is short: a long one may be a secret
// written in the wrong place.
func checkID(id string) error {
	switch {
	case id == "":
		return errors.New("key ID is empty")
	case len(id) > MaxKeyIDLen:
		return fmt.Errorf("key ID is %d bytes long, want at most %d", len(id), MaxKeyIDLen)
	case !isBase64URL(id):
		return fmt.Errorf("key ID %q has a character other than A-Z a-z 0-9 - _", id)
	}
	return nil
}

// isBase64URL reports whether s has only characters of the base64url
// alphabet, without padding.
func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isBase64URLByte(s[i]) {
			return false
		}
	}
	return true
}

// isBase64URLByte reports whether c is in the base64url alphabet.
func isBase64URLByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}
