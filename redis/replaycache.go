package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/dpop"
	goredis "github.com/redis/go-redis/v9"
)

// ReplayCacheOptions configures a ReplayCache. The zero value gives the
// defaults.
type ReplayCacheOptions struct {
	// Timeout bounds each call to Redis when the request's context has
	// no earlier deadline: while Redis is away, a request with a DPoP
	// proof is refused within it (503, to be tried again), never let
	// through. 0 means 5 seconds.
	Timeout time.Duration
}

// ReplayCache is a dpop.ReplayCache on Redis, shared by the instances of
// a fleet: a DPoP proof accepted by one instance is refused as a replay
// by every other one for as long as the Verifier asks (RFC 9449 section
// 11.1, https://www.rfc-editor.org/rfc/rfc9449#section-11.1). Give it to
// the resource server of every instance:
//
//	bearer.Options{..., DPoP: &bearer.DPoPOptions{Proofs: dpop.VerifierOptions{Replay: f.Replay}}}
//
// Each proof seen is one key, prefix + ":dpop:" + the Verifier's digest
// of the proof's key thumbprint and jti (64 hexadecimal digits), written
// with SET NX and an expiry (PX) of the time left until the Verifier's
// deadline: recording and testing is one atomic command, so of two
// instances that get the same proof at once exactly one accepts it, and
// Redis deletes the key when the proof could no longer be accepted
// anyway. The expiry is a duration measured on the instance, so the
// clocks of Redis and of the instances need not agree. Memory is bounded
// by the rate of valid proofs times the Verifier's window (two minutes
// by default): only a proof that passed every other check (its
// signature, its key bound to a valid token, its request, its time)
// reaches the cache.
//
// When Redis cannot be reached, Seen fails with an error that wraps the
// client's: the Verifier refuses the proof as one it cannot check now.
// Once Redis is back the cache works again by itself.
type ReplayCache struct {
	client  goredis.UniversalClient
	prefix  string
	timeout time.Duration
}

var _ dpop.ReplayCache = (*ReplayCache)(nil)

// NewReplayCache returns the ReplayCache of the fleet named prefix on
// client. It does not contact Redis. The client stays the caller's.
func NewReplayCache(client goredis.UniversalClient, prefix string, opts ReplayCacheOptions) (*ReplayCache, error) {
	switch {
	case client == nil:
		return nil, errors.New("redis.NewReplayCache: the client is nil")
	case prefix == "":
		return nil, errors.New("redis.NewReplayCache: the prefix is empty; give the fleet a name, shared by its instances")
	case opts.Timeout < 0:
		return nil, fmt.Errorf("redis.NewReplayCache: ReplayCacheOptions.Timeout is %v; want 0 (the default, 5s) or more", opts.Timeout)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	return &ReplayCache{client: client, prefix: prefix, timeout: opts.Timeout}, nil
}

// Seen implements dpop.ReplayCache: it records key until the time until
// and reports whether it was recorded already. A key that is not the
// Verifier's digest (64 lowercase hexadecimal digits) is stored as its
// SHA-256, so that no caller's text reaches a key. A deadline that has
// passed, or is less than a millisecond away, is kept for a millisecond:
// the key is still tested and set at once.
func (c *ReplayCache) Seen(ctx context.Context, key string, until time.Time) (bool, error) {
	if key == "" {
		return false, errors.New("redis ReplayCache: the key is empty")
	}
	ttl := time.Until(until).Round(time.Millisecond)
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > c.timeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	set, err := c.client.SetNX(ctx, c.key(key), "1", ttl).Result()
	if err != nil {
		return false, fmt.Errorf("redis ReplayCache: recording a DPoP proof: %w", err)
	}
	return !set, nil
}

// key returns the Redis key of a proof's key.
func (c *ReplayCache) key(key string) string {
	if !isDigest(key) {
		h := sha256.Sum256([]byte(key))
		key = hex.EncodeToString(h[:])
	}
	return c.prefix + ":dpop:" + key
}

// isDigest reports whether s is 64 lowercase hexadecimal digits.
func isDigest(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < '0' || b > '9') && (b < 'a' || b > 'f') {
			return false
		}
	}
	return true
}
