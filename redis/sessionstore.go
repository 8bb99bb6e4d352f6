package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/fleet"
	goredis "github.com/redis/go-redis/v9"
)

// DefaultMaxStateBytes is the largest session state a SessionStore writes
// unless SessionStoreOptions.MaxStateBytes says otherwise.
const DefaultMaxStateBytes = 4 << 20

// SessionStoreOptions configures a SessionStore. The zero value gives the
// defaults.
type SessionStoreOptions struct {
	// MaxStateBytes is the largest Record.State that Create and Save
	// write; 0 means DefaultMaxStateBytes. A larger one fails and nothing
	// is written.
	MaxStateBytes int
}

// SessionStore is a fleet.SessionStore on Redis, shared by the instances
// of a fleet.
//
// Each record is a hash under the key prefix + ":session:" + the SHA-256
// of the session id in hex, with the fields owner, principal and state:
// the session id itself is stored nowhere, and appears in no key, error
// or log. Create, Save and Claim are Lua scripts, so that each is atomic:
// Create writes only a key that is absent, Save only while the given
// instance owns the record, Claim only while the record's owner is the
// one the caller saw (a compare-and-set: of racing claims one wins, and
// all get the record with the winner as its owner). The time to live is
// the key's (PEXPIRE), renewed by every successful Save and Claim; Redis
// deletes the record when it runs out.
//
// When Redis cannot be reached, every method fails with an error that
// wraps the client's, as fast as the client's dial and read timeouts and
// retries allow, and never later than its context (fleet.Node.Timeout
// bounds it); once Redis is back the store works again by itself.
//
// With Redis Cluster every key of the store is on its own, so any prefix
// works.
type SessionStore struct {
	client   goredis.UniversalClient
	prefix   string
	maxState int
}

var _ fleet.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns the SessionStore of the fleet named prefix on
// client. It does not contact Redis. The client stays the caller's.
func NewSessionStore(client goredis.UniversalClient, prefix string, opts SessionStoreOptions) (*SessionStore, error) {
	switch {
	case client == nil:
		return nil, errors.New("redis.NewSessionStore: the client is nil")
	case prefix == "":
		return nil, errors.New("redis.NewSessionStore: the prefix is empty; give the fleet a name, shared by its instances")
	case opts.MaxStateBytes < 0:
		return nil, fmt.Errorf("redis.NewSessionStore: SessionStoreOptions.MaxStateBytes is %d; want 0 (the default, %d) or more", opts.MaxStateBytes, DefaultMaxStateBytes)
	}
	if opts.MaxStateBytes == 0 {
		opts.MaxStateBytes = DefaultMaxStateBytes
	}
	return &SessionStore{client: client, prefix: prefix, maxState: opts.MaxStateBytes}, nil
}

// idHash returns the SHA-256 of a session or stream id in hex: what keys
// and logs show in its place.
func idHash(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

// key returns the key of the record of session id.
func (s *SessionStore) key(id string) string { return s.prefix + ":session:" + idHash(id) }

// ttlArg returns the PEXPIRE argument of ttl: milliseconds, rounded up,
// or "0" for none.
func ttlArg(ttl time.Duration) string {
	if ttl <= 0 {
		return "0"
	}
	ms := (ttl + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(ms), 10)
}

// sessionCreateScript writes a new record if the key is absent. KEYS:
// record. ARGV: owner, principal, state, ttl ms ("0": none). Returns 1, or
// 0 when the key is taken.
var sessionCreateScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'principal', ARGV[2], 'state', ARGV[3])
if ARGV[4] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
`)

// sessionSaveScript replaces the state if the owner is ARGV[1]. KEYS:
// record. ARGV: owner, state, ttl ms ("0": none). Returns 1, or 0 when
// another owns the record or it is gone.
var sessionSaveScript = goredis.NewScript(`
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
return 1
`)

// sessionClaimScript makes ARGV[2] the owner if the owner is ARGV[1].
// KEYS: record. ARGV: from, owner, ttl ms ("0": none). Returns the
// record's owner, principal and state after the call, or false when it is
// gone.
var sessionClaimScript = goredis.NewScript(`
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return false end
if owner == ARGV[1] then
  redis.call('HSET', KEYS[1], 'owner', ARGV[2])
  if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
end
return redis.call('HMGET', KEYS[1], 'owner', 'principal', 'state')
`)

// checkState refuses a state larger than MaxStateBytes.
func (s *SessionStore) checkState(state []byte) error {
	if len(state) > s.maxState {
		return fmt.Errorf("the session state is %d bytes, more than SessionStoreOptions.MaxStateBytes (%d); raise the limit", len(state), s.maxState)
	}
	return nil
}

// Create implements fleet.SessionStore.
func (s *SessionStore) Create(ctx context.Context, id string, rec fleet.Record, ttl time.Duration) (bool, error) {
	if err := s.checkState(rec.State); err != nil {
		return false, fmt.Errorf("redis.SessionStore: create: %w", err)
	}
	n, err := sessionCreateScript.Run(ctx, s.client, []string{s.key(id)}, rec.Owner, rec.Principal, rec.State, ttlArg(ttl)).Int64()
	if err != nil {
		return false, fmt.Errorf("redis.SessionStore: create: %w", err)
	}
	return n == 1, nil
}

// Load implements fleet.SessionStore.
func (s *SessionStore) Load(ctx context.Context, id string) (fleet.Record, error) {
	vals, err := s.client.HMGet(ctx, s.key(id), "owner", "principal", "state").Result()
	if err != nil {
		return fleet.Record{}, fmt.Errorf("redis.SessionStore: load: %w", err)
	}
	rec, err := record(vals)
	if err != nil {
		return fleet.Record{}, fmt.Errorf("redis.SessionStore: load: %w", err)
	}
	return rec, nil
}

// record returns the record of the values of the fields owner, principal
// and state, or an error wrapping fleet.ErrNotFound when the owner is
// missing (so is the key).
func record(vals []any) (fleet.Record, error) {
	if len(vals) != 3 || vals[0] == nil {
		return fleet.Record{}, fleet.ErrNotFound
	}
	var f [3]string
	for i, v := range vals {
		s, ok := v.(string)
		if !ok && v != nil {
			return fleet.Record{}, fmt.Errorf("the stored record is malformed (written by something else than a SessionStore?): field %d is a %T", i, v)
		}
		f[i] = s
	}
	rec := fleet.Record{Owner: f[0], Principal: f[1]}
	if f[2] != "" {
		rec.State = []byte(f[2])
	}
	return rec, nil
}

// Save implements fleet.SessionStore.
func (s *SessionStore) Save(ctx context.Context, id, owner string, state []byte, ttl time.Duration) (bool, error) {
	if err := s.checkState(state); err != nil {
		return false, fmt.Errorf("redis.SessionStore: save: %w", err)
	}
	n, err := sessionSaveScript.Run(ctx, s.client, []string{s.key(id)}, owner, state, ttlArg(ttl)).Int64()
	if err != nil {
		return false, fmt.Errorf("redis.SessionStore: save: %w", err)
	}
	return n == 1, nil
}

// Claim implements fleet.SessionStore.
func (s *SessionStore) Claim(ctx context.Context, id, from, owner string, ttl time.Duration) (fleet.Record, error) {
	vals, err := sessionClaimScript.Run(ctx, s.client, []string{s.key(id)}, from, owner, ttlArg(ttl)).Slice()
	if errors.Is(err, goredis.Nil) {
		return fleet.Record{}, fmt.Errorf("redis.SessionStore: claim: %w", fleet.ErrNotFound)
	}
	if err != nil {
		return fleet.Record{}, fmt.Errorf("redis.SessionStore: claim: %w", err)
	}
	rec, err := record(vals)
	if err != nil {
		return fleet.Record{}, fmt.Errorf("redis.SessionStore: claim: %w", err)
	}
	return rec, nil
}

// Delete implements fleet.SessionStore.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.client.Del(ctx, s.key(id)).Err(); err != nil {
		return fmt.Errorf("redis.SessionStore: delete: %w", err)
	}
	return nil
}
