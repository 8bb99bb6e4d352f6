package reqstate

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Ring is the set of keys a [Sealer] uses: the primary key seals new
// states, and every key in the ring opens them. It is safe for concurrent
// use; Seal and Open never wait for Rotate or Retire.
//
// Server instances that serve the same clients must share their keys (see
// [ParseKeys]), or a state sealed by one cannot be opened by another. To
// change keys without failing states in flight:
//
//  1. add the new key to every instance as an older key, so that all of
//     them can open what it seals;
//  2. make it the primary everywhere ([Ring.Rotate]);
//  3. once the old primary's last states have expired (the Sealer's TTL),
//     retire it ([Ring.Retire]).
//
// A [KeyFile] does this from a file that every instance reads again on an
// interval: the operator rotates by editing the file, and a key that
// leaves it is retired by itself once its last states have expired.
//
// A state sealed by a key that is not in the ring (retired too early, or
// never shared) fails with [ErrUnknownKey]: a server that treats such a
// state as absent, as runtime/session does, makes the client start that
// request over rather than fail it.
//
// Instances that share keys also share the Audience of their [Binding]s;
// endpoints that share keys but must not accept each other's states use
// different audiences.
//
// Nonces are random (96 bits), so one key should seal fewer than 2³²
// states; rotate well before that.
//
// The zero Ring has no key: Seal fails and Open reports every state as
// sealed by an unknown key until [Ring.Rotate] gives it one.
type Ring struct {
	mu  sync.Mutex // serializes Rotate and Retire
	set atomic.Pointer[keySet]
}

// keySet is one immutable state of a Ring. keys[0] is the primary.
type keySet struct {
	keys []ringKey
}

// ringKey is a key with its cipher, made once.
type ringKey struct {
	key  Key
	aead cipher.AEAD
	// until, if not zero, is when a key that left its KeyFile stops
	// opening states: from then on it is as if not in the ring.
	until time.Time
}

// opens reports whether rk still opens states at now.
func (rk *ringKey) opens(now time.Time) bool {
	return rk.until.IsZero() || now.Before(rk.until)
}

// NewRing returns a ring that seals with primary and opens with primary and
// every older key. It fails if a key has an invalid ID or an all-zero
// secret, or if two keys have the same ID.
func NewRing(primary Key, older ...Key) (*Ring, error) {
	all := append([]Key{primary}, older...)
	set := &keySet{}
	for _, k := range all {
		rk, err := newRingKey(k)
		if err != nil {
			return nil, fmt.Errorf("reqstate: NewRing: %w", err)
		}
		if set.find(k.ID) != nil {
			return nil, fmt.Errorf("reqstate: NewRing: key ID %q appears twice", k.ID)
		}
		set.keys = append(set.keys, rk)
	}
	r := &Ring{}
	r.set.Store(set)
	return r, nil
}

// NewEphemeralRing returns a ring with one random key that exists only in
// this process. States it seals do not survive a restart and cannot be
// opened by another server instance: use it for a single process (tests,
// stdio servers), and a shared ring from [ParseKeys] behind a load balancer.
// Its key ID is random too, so a state that reaches another instance, or
// this server after a restart, fails as sealed by an unknown key
// ([ErrUnknownKey]) rather than as tampered.
func NewEphemeralRing() *Ring {
	// crypto/rand.Read and Text never fail (Go 1.24 and later): on a broken
	// random source the program crashes rather than return an error.
	k := Key{ID: "e" + rand.Text()[:12]}
	_, _ = rand.Read(k.Secret[:])
	rk, err := newRingKey(k)
	if err != nil {
		// The ID is valid by construction, and a 32-byte key is always a
		// valid AES-256 key; crypto/rand does not produce a zero secret.
		panic("reqstate: NewEphemeralRing: " + err.Error())
	}
	r := &Ring{}
	r.set.Store(&keySet{keys: []ringKey{rk}})
	return r
}

// Rotate makes newPrimary the key that seals. The previous primary stays in
// the ring and keeps opening the states it sealed until it is retired. If
// newPrimary is already in the ring as an older key with the same secret, it
// is promoted. Rotate fails, changing nothing, if newPrimary is invalid or
// if its ID is in the ring with another secret.
func (r *Ring) Rotate(newPrimary Key) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.set.Load()
	if old == nil {
		old = &keySet{}
	}
	next := &keySet{keys: make([]ringKey, 0, len(old.keys)+1)}
	if rk := old.find(newPrimary.ID); rk != nil {
		if rk.key.Secret != newPrimary.Secret {
			return fmt.Errorf("reqstate: Rotate: key ID %q is already in the ring with another secret", newPrimary.ID)
		}
		promoted := *rk
		promoted.until = time.Time{} // the primary does not leave
		next.keys = append(next.keys, promoted)
	} else {
		rk, err := newRingKey(newPrimary)
		if err != nil {
			return fmt.Errorf("reqstate: Rotate: %w", err)
		}
		next.keys = append(next.keys, rk)
	}
	for _, rk := range old.keys {
		if rk.key.ID != newPrimary.ID {
			next.keys = append(next.keys, rk)
		}
	}
	r.set.Store(next)
	return nil
}

// Retire removes the key with the given ID: the states it sealed no longer
// open. The primary key cannot be retired (rotate to another first), and
// retiring an ID that is not in the ring is an error, to catch typos.
func (r *Ring) Retire(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.set.Load()
	if old == nil || old.find(id) == nil {
		return fmt.Errorf("reqstate: Retire: no key %q in the ring", id)
	}
	if old.keys[0].key.ID == id {
		return fmt.Errorf("reqstate: Retire: %q is the primary key; rotate to another key first", id)
	}
	next := &keySet{keys: slices.DeleteFunc(slices.Clone(old.keys), func(rk ringKey) bool { return rk.key.ID == id })}
	r.set.Store(next)
	return nil
}

// IDs returns the IDs of the ring's keys, the primary first. Rotate puts
// the new primary first and keeps the others in order: after NewRing(a, b)
// and Rotate(c), the IDs are c, a, b. A key that left a [KeyFile] is listed
// until a reload of the file drops it, even once it no longer opens.
func (r *Ring) IDs() []string {
	set := r.set.Load()
	if set == nil {
		return nil
	}
	ids := make([]string, len(set.keys))
	for i, rk := range set.keys {
		ids[i] = rk.key.ID
	}
	return ids
}

// primary returns the key that seals, or nil if the ring has none.
func (r *Ring) primary() *ringKey {
	set := r.set.Load()
	if set == nil || len(set.keys) == 0 {
		return nil
	}
	return &set.keys[0]
}

// find returns the key with the given ID that opens states at now, or nil.
func (r *Ring) find(id []byte, now time.Time) *ringKey {
	set := r.set.Load()
	if set == nil {
		return nil
	}
	rk := set.find(string(id))
	if rk == nil || !rk.opens(now) {
		return nil
	}
	return rk
}

// find returns the key with the given ID, or nil. Rings hold a handful of
// keys, so a linear search is the fastest.
func (s *keySet) find(id string) *ringKey {
	for i := range s.keys {
		if s.keys[i].key.ID == id {
			return &s.keys[i]
		}
	}
	return nil
}

// newRingKey checks k and makes its AES-256-GCM cipher, with random nonces
// that the cipher writes in front of the ciphertext.
func newRingKey(k Key) (ringKey, error) {
	if err := k.check(); err != nil {
		return ringKey{}, err
	}
	block, err := aes.NewCipher(k.Secret[:])
	if err != nil {
		return ringKey{}, fmt.Errorf("key %q: %w", k.ID, err)
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return ringKey{}, fmt.Errorf("key %q: %w", k.ID, err)
	}
	return ringKey{key: k, aead: aead}, nil
}

// errNoKey is returned by Seal on a ring without keys.
var errNoKey = errors.New("reqstate: the key ring has no key to seal with")
