package redis_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/redis"
	"github.com/mcpgen/mcpgen/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/dpop"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	goredis "github.com/redis/go-redis/v9"
)

func newReplayCache(t *testing.T, client goredis.UniversalClient, prefix string) *redis.ReplayCache {
	t.Helper()
	c, err := redis.NewReplayCache(client, prefix, redis.ReplayCacheOptions{})
	if err != nil {
		t.Fatalf("NewReplayCache: %v", err)
	}
	return c
}

const digestA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// The cache of two instances, each with its own client: what one saw,
// the other reports as seen; other keys and other fleets are apart; a
// key is new again once its time has passed.
func TestReplayCache(t *testing.T) {
	srv := redistest.Start(t)
	prefix := "test-" + tasks.NewID()
	a := newReplayCache(t, srv.Client(), prefix)
	b := newReplayCache(t, srv.Client(), prefix)
	other := newReplayCache(t, srv.Client(), "test-"+tasks.NewID())
	ctx := context.Background()
	later := time.Now().Add(time.Minute)

	steps := []struct {
		name  string
		cache *redis.ReplayCache
		key   string
		until time.Time
		seen  bool
	}{
		{"first use", a, digestA, later, false},
		{"again on the same instance", a, digestA, later, true},
		{"again on another instance", b, digestA, later, true},
		{"another fleet", other, digestA, later, false},
		{"another key", b, strings.Repeat("b", 64), later, false},
		{"a key that is no digest", a, "jti with spaces", later, false},
		{"that key again", b, "jti with spaces", later, true},
		{"a deadline already passed", a, strings.Repeat("c", 64), time.Now().Add(-time.Second), false},
	}
	for _, s := range steps {
		seen, err := s.cache.Seen(ctx, s.key, s.until)
		if err != nil {
			t.Fatalf("%s: Seen: %v", s.name, err)
		}
		if seen != s.seen {
			t.Fatalf("%s: Seen = %v, want %v", s.name, seen, s.seen)
		}
	}

	// The keys hold no caller text and expire.
	keys, err := srv.Client().Keys(ctx, prefix+":*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(k, "jti") || !strings.HasPrefix(k, prefix+":dpop:") || len(k) != len(prefix)+len(":dpop:")+64 {
			t.Errorf("key %q: want %s:dpop: and 64 hexadecimal digits", k, prefix)
		}
		ttl, err := srv.Client().PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(k, strings.Repeat("c", 64)) && ttl == -2*time.Nanosecond {
			continue // the passed deadline's key, kept a millisecond, is gone already
		}
		if ttl <= 0 || ttl > time.Minute {
			t.Errorf("key %q: PTTL %v, want within (0, 1m]", k, ttl)
		}
	}

	// A key kept for a short while is new again after it.
	short := strings.Repeat("d", 64)
	if seen, err := a.Seen(ctx, short, time.Now().Add(50*time.Millisecond)); err != nil || seen {
		t.Fatalf("short key: %v, %v", seen, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := srv.Client().Exists(ctx, prefix+":dpop:"+short).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the short key did not expire within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if seen, err := b.Seen(ctx, short, later); err != nil || seen {
		t.Fatalf("short key after expiry: %v, %v; want new", seen, err)
	}
}

// Of many instances that get the same proof at once, exactly one takes it.
func TestReplayCacheRace(t *testing.T) {
	srv := redistest.Start(t)
	prefix := "test-" + tasks.NewID()
	const n = 16
	var wg sync.WaitGroup
	fresh := make(chan int, n)
	errs := make(chan error, n)
	for i := range n {
		c := newReplayCache(t, srv.Client(), prefix)
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen, err := c.Seen(context.Background(), digestA, time.Now().Add(time.Minute))
			if err != nil {
				errs <- err
				return
			}
			if !seen {
				fresh <- i
			}
		}()
	}
	wg.Wait()
	close(fresh)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := len(fresh); got != 1 {
		t.Fatalf("%d instances took the proof, want exactly 1", got)
	}
}

// Without Redis the cache fails, so the Verifier refuses the proof: a
// replay is never let through. Once Redis is back it works again.
func TestReplayCacheFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { client.Close() })
	c, err := redis.NewReplayCache(client, "test-"+tasks.NewID(), redis.ReplayCacheOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := newProofSetup(t)
	v := s.verifier(t, c)
	srv.Stop()
	_, err = v.Verify(context.Background(), s.proof(t), s.target)
	var de *dpop.Error
	if err == nil || errors.As(err, &de) {
		t.Fatalf("Verify without Redis: %v; want an error that is not a refused proof (the proof could not be checked)", err)
	}
	if !strings.Contains(err.Error(), "replay") {
		t.Errorf("Verify without Redis: %v; want it to name the replay cache", err)
	}
	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err = v.Verify(context.Background(), s.proof(t), s.target)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Verify after Redis came back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Two instances' Verifiers on one Redis: a proof accepted by one is
// refused by the other as used before, and a new proof is accepted.
func TestReplayCacheAcrossVerifiers(t *testing.T) {
	srv := redistest.Start(t)
	prefix := "test-" + tasks.NewID()
	s := newProofSetup(t)
	one := s.verifier(t, newReplayCache(t, srv.Client(), prefix))
	two := s.verifier(t, newReplayCache(t, srv.Client(), prefix))
	ctx := context.Background()

	p := s.proof(t)
	if _, err := one.Verify(ctx, p, s.target); err != nil {
		t.Fatalf("first use at instance one: %v", err)
	}
	_, err := two.Verify(ctx, p, s.target)
	var de *dpop.Error
	if !errors.As(err, &de) || de.Code != dpop.CodeInvalidProof || !strings.Contains(de.Description, "used before") {
		t.Fatalf("replay at instance two: %v; want invalid_dpop_proof, used before", err)
	}
	if _, err := two.Verify(ctx, s.proof(t), s.target); err != nil {
		t.Fatalf("a new proof at instance two: %v", err)
	}
}

// proofSetup is a client key and the request its proofs are made for.
type proofSetup struct {
	key    *ecdsa.PrivateKey
	token  string
	target dpop.Target
}

func newProofSetup(t *testing.T) *proofSetup {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jkt, err := dpop.Thumbprint(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://mcp.example.com/mcp"
	return &proofSetup{key: key, token: "token-1", target: dpop.Target{Method: "POST", URL: url, AccessToken: "token-1", JKT: jkt}}
}

func (s *proofSetup) proof(t *testing.T) string {
	t.Helper()
	p, err := dpop.NewProof(s.key, s.target.Method, s.target.URL, dpop.ProofOptions{AccessToken: s.token})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (s *proofSetup) verifier(t *testing.T, replay dpop.ReplayCache) *dpop.Verifier {
	t.Helper()
	v, err := dpop.NewVerifier(dpop.VerifierOptions{Replay: replay})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNewReplayCacheRefuses(t *testing.T) {
	client := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { client.Close() })
	for _, tc := range []struct {
		name   string
		client goredis.UniversalClient
		prefix string
		opts   redis.ReplayCacheOptions
		want   string
	}{
		{"no client", nil, "p", redis.ReplayCacheOptions{}, "client is nil"},
		{"no prefix", client, "", redis.ReplayCacheOptions{}, "prefix is empty"},
		{"negative timeout", client, "p", redis.ReplayCacheOptions{Timeout: -time.Second}, "Timeout is -1s"},
	} {
		if _, err := redis.NewReplayCache(tc.client, tc.prefix, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
