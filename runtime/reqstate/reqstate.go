// Package reqstate seals the requestState of MCP multi round-trip requests
// (protocol revision 2026-07-28).
//
// A server that needs input from the client answers a tools/call,
// prompts/get or resources/read with an InputRequiredResult that may carry
// an opaque requestState string; the client retries the request with the
// answers and echoes requestState byte for byte. The server keeps nothing
// between the two requests, and the retry may reach another instance, so
// what the handler needs to resume travels in the state. A [Sealer] turns
// that payload into the string and back.
//
// # Threat model
//
// The client is an attacker and the state is in its hands. Sealing
// (AES-256-GCM under a shared [Ring] of keys) protects:
//   - integrity: a state that was changed, truncated or made up does not
//     open;
//   - confidentiality: the client cannot read the payload (its length and
//     the ID of the key that sealed it are visible, nothing else);
//   - freshness: a state opens only until its expiry (the Sealer's TTL,
//     ten minutes by default), checked after authentication;
//   - binding: a state opens only for the [Binding] it was sealed for, the
//     same audience (the endpoint that issued it), the same method, the
//     same params (see [ParamsDigest]) and the same principal, so it cannot
//     be moved to another server, request, tool, argument or user, even
//     between servers that share keys.
//
// Not protected: replay. Within the TTL, the same state can be presented
// again with the same request, any number of times, and opens each time.
// The protocol tolerates this: a retry only supplies input to a request
// that the client may send again anyway, so a handler must treat a retry
// as idempotent input, not as a one-time grant. A handler that must act at
// most once needs its own record (a nonce in the payload, remembered
// until the state expires).
//
// Every failure to open is an [ErrInvalid], together with one of
// [ErrMalformed], [ErrUnknownKey], [ErrTampered] or [ErrExpired]. Opening
// never panics and its cost is bounded: input longer than [MaxStateLen] is
// refused before it is decoded.
//
// # Keys that are gone
//
// [ErrUnknownKey] is the one failure that says nothing about the client: the
// state was sealed by a key this server does not have (a previous process
// with an ephemeral key, an instance with other keys, a retired key) or in
// the format of an earlier release. Such a state can be neither trusted nor
// blamed, and a server may treat it as absent: the request then starts over
// (runtime/session does so), which gives the client nothing it could not
// get by leaving the state out. Every other failure concerns a state sealed
// under a key the server has: it was changed, moved or is too old, and the
// request fails.
package reqstate

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// MaxStateLen is the longest state, in bytes of its text form, that Seal
// produces and Open accepts.
const MaxStateLen = 64 << 10

// MaxPayloadLen is the largest payload Seal accepts, 49098 bytes: what
// fits in MaxStateLen with the longest key ID.
const MaxPayloadLen = MaxStateLen/4*3 - headerLen - MaxKeyIDLen - nonceLen - expiryLen - tagLen

// DefaultTTL is how long a state opens when the Sealer's TTL is not set.
const DefaultTTL = 10 * time.Minute

// The sealed form, before base64url:
//
//	version   1 byte, 2 (1 was the format before Binding had an Audience;
//	          Open reports it as ErrUnknownKey)
//	n         1 byte, the key ID's length, 1 to MaxKeyIDLen
//	key ID    n bytes
//	nonce     12 random bytes
//	sealed    AES-GCM of (expiry, 8 bytes: Unix milliseconds, big endian;
//	          payload), with a 16-byte tag
//
// The additional data is version, n and key ID followed by the hash of the
// Binding.
const (
	version = 2
	// version1 is the format of earlier releases, whose binding named no
	// audience.
	version1  = 1
	headerLen = 2
	nonceLen  = 12
	expiryLen = 8
	tagLen    = 16
	minLen    = headerLen + 1 + nonceLen + expiryLen + tagLen
)

// ErrInvalid is wrapped by every error of [Sealer.Open] about the state
// itself: the client sent a state this server will not accept. The other
// errors say why.
var ErrInvalid = errors.New("invalid requestState")

// Errors wrapped alongside ErrInvalid, so that callers can tell failures
// apart with errors.Is.
var (
	// ErrMalformed: the state is not a state this package writes (not
	// base64url, too short or too long, another format version).
	ErrMalformed = errors.New("requestState is malformed")
	// ErrUnknownKey: the state names a key that is not in the ring: it was
	// retired, or the state was sealed by an instance with other keys (such
	// as an earlier process with an ephemeral ring), or by an earlier
	// release, in a format this one does not open. Nothing in it can be
	// checked; see "Keys that are gone" in the package documentation.
	ErrUnknownKey = errors.New("requestState was sealed by a key this server does not have")
	// ErrTampered: the state does not authenticate: it was changed, or it
	// was sealed for another Binding (audience, method, params or
	// principal), or with another secret under the same key ID.
	ErrTampered = errors.New("requestState was tampered with, or issued for another request")
	// ErrExpired: the state authenticated but its expiry has passed.
	ErrExpired = errors.New("requestState has expired")
)

// stateError is an error of Open: ErrInvalid and one of the specific
// errors, with a message that says what exactly was wrong.
type stateError struct {
	kind error
	msg  string
}

func (e *stateError) Error() string   { return "invalid requestState: " + e.msg }
func (e *stateError) Unwrap() []error { return []error{ErrInvalid, e.kind} }

func invalid(kind error, format string, args ...any) error {
	return &stateError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Sealer seals and opens request states with the keys of a [Ring]. Its
// fields are read, never written, by Seal and Open, which may be called
// concurrently (so Now must be safe for concurrent use).
//
// The expiry is the sealing instance's clock plus TTL, compared with the
// opening instance's clock: instances that share keys should keep their
// clocks in step to well within the TTL.
type Sealer struct {
	// Ring holds the keys. Seal and Open fail if it is nil.
	Ring *Ring
	// TTL is how long a state opens after Seal; DefaultTTL if zero or
	// negative. Open honours the expiry written at Seal, not the current
	// TTL.
	TTL time.Duration
	// Now returns the current time; time.Now if nil. Tests set it.
	Now func() time.Time
}

func (s *Sealer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sealer) ttl() time.Duration {
	if s.TTL > 0 {
		return s.TTL
	}
	return DefaultTTL
}

// Seal encrypts payload with the ring's primary key, bound to b and
// expiring after the TTL, and returns the state, in unpadded base64url, at
// most MaxStateLen bytes long. It fails if b has no Audience, if the payload
// is longer than MaxPayloadLen or if the Sealer has no key.
func (s *Sealer) Seal(b Binding, payload []byte) (string, error) {
	if s.Ring == nil {
		return "", errors.New("reqstate: Seal: the Sealer has no Ring")
	}
	if b.Audience == "" {
		return "", errors.New("reqstate: Seal: the Binding has no Audience (the endpoint the state is for)")
	}
	if len(payload) > MaxPayloadLen {
		return "", fmt.Errorf("reqstate: Seal: payload is %d bytes, more than MaxPayloadLen (%d)", len(payload), MaxPayloadLen)
	}
	rk := s.Ring.primary()
	if rk == nil {
		return "", errNoKey
	}
	id := rk.key.ID
	prefix := headerLen + len(id)
	out := make([]byte, prefix, prefix+nonceLen+expiryLen+len(payload)+tagLen)
	out[0] = version
	out[1] = byte(len(id))
	copy(out[headerLen:], id)

	plain := make([]byte, expiryLen, expiryLen+len(payload))
	binary.BigEndian.PutUint64(plain, uint64(s.now().Add(s.ttl()).UnixMilli()))
	plain = append(plain, payload...)

	out = rk.aead.Seal(out, nil, plain, additionalData(out, b))
	return base64.RawURLEncoding.EncodeToString(out), nil
}

// Open returns the payload of a state that Seal produced for the same
// Binding (audience included), under a key that is still in the ring, and
// that has not expired.
// Every other input fails with an error that wraps ErrInvalid and one of
// ErrMalformed, ErrUnknownKey, ErrTampered and ErrExpired. The only other
// error is a Sealer without a Ring.
func (s *Sealer) Open(state string, b Binding) ([]byte, error) {
	if s.Ring == nil {
		return nil, errors.New("reqstate: Open: the Sealer has no Ring")
	}
	if len(state) > MaxStateLen {
		return nil, invalid(ErrMalformed, "malformed: %d bytes long, more than the %d a state can be", len(state), MaxStateLen)
	}
	for i := 0; i < len(state); i++ {
		if !isBase64URLByte(state[i]) {
			return nil, invalid(ErrMalformed, "malformed: not base64url: byte %#02x at offset %d", state[i], i)
		}
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(state)
	if err != nil {
		// The alphabet is right, so the length or the unused bits of the
		// last character are wrong.
		return nil, invalid(ErrMalformed, "malformed: not canonical base64url: %v", err)
	}
	if len(raw) == 0 {
		return nil, invalid(ErrMalformed, "malformed: empty")
	}
	if raw[0] == version1 {
		return nil, invalid(ErrUnknownKey, "sealed in format version %d, by an earlier release whose states named no audience: this server does not open that format", version1)
	}
	if raw[0] != version {
		return nil, invalid(ErrMalformed, "malformed: format version %d, want %d", raw[0], version)
	}
	if len(raw) < minLen {
		return nil, invalid(ErrMalformed, "malformed: too short: %d bytes, want at least %d", len(raw), minLen)
	}
	n := int(raw[1])
	if n < 1 || n > MaxKeyIDLen {
		return nil, invalid(ErrMalformed, "malformed: key ID length %d, want 1 to %d", n, MaxKeyIDLen)
	}
	prefix := headerLen + n
	if len(raw) < prefix+nonceLen+expiryLen+tagLen {
		return nil, invalid(ErrMalformed, "malformed: too short: %d bytes, want at least %d with a key ID of %d", len(raw), prefix+nonceLen+expiryLen+tagLen, n)
	}
	id := raw[headerLen:prefix]
	if !isBase64URL(string(id)) {
		return nil, invalid(ErrMalformed, "malformed: the key ID has a character other than A-Z a-z 0-9 - _")
	}
	now := s.now()
	rk := s.Ring.find(id, now)
	if rk == nil {
		return nil, invalid(ErrUnknownKey, "sealed by a key this server does not have (key ID %q): the key was retired, or the state comes from a server with other keys", id)
	}
	plain, err := rk.aead.Open(nil, nil, raw[prefix:], additionalData(raw[:prefix], b))
	if err != nil {
		return nil, invalid(ErrTampered, "tampered, or issued for another request (another method, params or principal) or by another endpoint (another audience), or sealed by another server under the same key ID %q", id)
	}
	// The length check above guarantees len(plain) >= expiryLen.
	exp := time.UnixMilli(int64(binary.BigEndian.Uint64(plain)))
	if !now.Before(exp) {
		return nil, invalid(ErrExpired, "expired at %s, %s ago", exp.UTC().Format("2006-01-02T15:04:05.000Z07:00"), now.Sub(exp).Round(time.Millisecond))
	}
	return plain[expiryLen:], nil
}

// additionalData returns the AEAD's additional data: the header (version,
// key ID length and key ID) and the hash of the binding.
func additionalData(header []byte, b Binding) []byte {
	h := b.hash()
	ad := make([]byte, 0, len(header)+len(h))
	ad = append(ad, header...)
	return append(ad, h[:]...)
}
