package bearer_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime/bearer"
)

// retryAfter returns what err's RetryAfter method says, and whether it
// has one.
func retryAfter(err error) (time.Duration, bool) {
	var r interface{ RetryAfter() time.Duration }
	if !errors.As(err, &r) {
		return 0, false
	}
	return r.RetryAfter(), true
}

// An unauthenticated request with an unknown kid, dropped while the key
// set is being fetched, neither cancels the fetch nor uses up the refresh:
// a token signed with the issuer's new key is accepted at once, not a
// RefreshInterval later.
func TestJWKSFetchOutlivesDroppedRequest(t *testing.T) {
	is := newIssuer(t)
	clk := newClock()
	v := is.verifier(t, clk, bearer.JWTOptions{})
	ctx := context.Background()
	if _, err := v.Verify(ctx, is.token(t, map[string]any{"sub": "alice"})); err != nil {
		t.Fatalf("before the rotation: %v", err)
	}
	clk.Add(time.Minute) // the refresh is due again
	is.rotate(t)
	entered, release := is.hold()
	defer release()
	forged := is.forged(t, "attacker")
	dropped, hangUp := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := v.Verify(dropped, forged)
		errc <- err
	}()
	wait(t, entered, "the key set fetch for the unknown kid")
	hangUp()
	if err := wait(t, errc, "Verify of the dropped request"); err == nil {
		t.Fatal("the forged token was accepted")
	}
	release()
	// The clock has not moved since the dropped request.
	info, err := v.Verify(ctx, is.token(t, map[string]any{"sub": "bob"}))
	if err != nil {
		t.Fatalf("a token of the new key, after a dropped request with an unknown kid: %v", err)
	}
	if info.Subject != "bob" {
		t.Errorf("Subject = %q, want bob", info.Subject)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches of the key set, want 2 (the first, and the one the dropped request started)", n)
	}
}

// A request whose client has hung up stops waiting for a slow key set
// fetch at once; it does not queue behind it.
func TestJWKSWaitEndsWithRequest(t *testing.T) {
	is := newIssuer(t)
	v := is.verifier(t, newClock(), bearer.JWTOptions{})
	entered, release := is.hold()
	defer release()
	ctx := context.Background()
	first := make(chan error, 1)
	tok := is.token(t, map[string]any{"sub": "alice"})
	go func() {
		_, err := v.Verify(ctx, tok)
		first <- err
	}()
	wait(t, entered, "the first key set fetch")
	gone, hangUp := context.WithCancel(ctx)
	hangUp()
	second := make(chan error, 1)
	go func() {
		_, err := v.Verify(gone, tok)
		second <- err
	}()
	// The fetch is still held: the second Verify must end on its own.
	if err := wait(t, second, "Verify of a request that ended, while the key set fetch is held"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
	release()
	if err := wait(t, first, "Verify of the request that started the fetch"); err != nil {
		t.Errorf("the request that waited for the fetch: %v", err)
	}
	if n := is.fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

// While no key set was ever loaded, a flood of forged tokens against a
// failing key set endpoint makes one fetch, then one more per backoff
// step: one second, doubling up to RefreshInterval.
func TestJWKSFailuresBackOff(t *testing.T) {
	is := newIssuer(t)
	is.failing.Store(true)
	clk := newClock()
	v := is.verifier(t, clk, bearer.JWTOptions{}) // RefreshInterval one minute
	ctx := context.Background()
	forged := make([]string, 25)
	for i := range forged {
		forged[i] = is.forged(t, "forged-"+strconv.Itoa(i))
	}
	flood := func(when string) {
		t.Helper()
		for i, tok := range forged {
			_, err := v.Verify(ctx, tok)
			if err == nil || errors.Is(err, bearer.ErrInvalidToken) {
				t.Fatalf("%s: forged token %d: err = %v, want an error saying the key set could not be fetched", when, i, err)
			}
			if d, ok := retryAfter(err); !ok || d <= 0 || d > time.Minute {
				t.Fatalf("%s: forged token %d: RetryAfter %s (%t), want one within the backoff", when, i, d, ok)
			}
		}
	}
	flood("first flood")
	want := int32(1)
	if n := is.fetches.Load(); n != want {
		t.Fatalf("%d forged tokens made %d fetches of a failing key set, want %d", len(forged), n, want)
	}
	for _, step := range []time.Duration{1, 2, 4, 8, 16, 32, 60, 60} {
		step *= time.Second
		clk.Add(step - time.Millisecond)
		flood("just before the backoff of " + step.String())
		if n := is.fetches.Load(); n != want {
			t.Fatalf("%d fetches before the backoff of %s ended, want %d", n, step, want)
		}
		clk.Add(time.Millisecond)
		flood("after the backoff of " + step.String())
		want++
		if n := is.fetches.Load(); n != want {
			t.Fatalf("%d fetches once the backoff of %s ended, want %d", n, step, want)
		}
	}
	// The endpoint recovers: once the backoff ends the set is loaded, and
	// for RefreshInterval unknown kids make no fetch: they are not
	// checkable yet (their key may be new), with the time until the next
	// fetch. Then the first one fetches the set, and is invalid since it
	// waited for a set that lacks its key.
	is.failing.Store(false)
	clk.Add(time.Minute)
	if _, err := v.Verify(ctx, is.token(t, map[string]any{"sub": "alice"})); err != nil {
		t.Fatalf("after the endpoint recovered: %v", err)
	}
	want++
	clk.Add(10 * time.Second)
	for i, tok := range forged {
		if _, err := v.Verify(ctx, tok); err == nil || errors.Is(err, bearer.ErrInvalidToken) {
			t.Fatalf("forged token %d once the set is loaded: err = %v, want one saying its key may be new", i, err)
		} else if d, _ := retryAfter(err); d != 50*time.Second {
			t.Fatalf("forged token %d, 10 s after the set was loaded: RetryAfter %s, want 50s (RefreshInterval after the fetch)", i, d)
		}
	}
	if n := is.fetches.Load(); n != want {
		t.Errorf("%d fetches within RefreshInterval of the set's loading, want %d", n, want)
	}
	clk.Add(50 * time.Second)
	if _, err := v.Verify(ctx, forged[0]); !errors.Is(err, bearer.ErrInvalidToken) {
		t.Fatalf("a forged token that waited for the fetch it started: err = %v, want ErrInvalidToken", err)
	}
	want++
	if n := is.fetches.Load(); n != want {
		t.Errorf("%d fetches, want %d", n, want)
	}
}

// Concurrent forged tokens share the one fetch under way, slow as it is,
// and none starts another at its end, whether it failed or not.
func TestJWKSConcurrentTokensShareOneFetch(t *testing.T) {
	for _, failing := range []bool{true, false} {
		t.Run("failing="+strconv.FormatBool(failing), func(t *testing.T) {
			is := newIssuer(t)
			is.failing.Store(failing)
			v := is.verifier(t, newClock(), bearer.JWTOptions{})
			entered, release := is.hold()
			defer release()
			const n = 25
			errs := make(chan error, n)
			for i := range n {
				tok := is.forged(t, "forged-"+strconv.Itoa(i))
				go func() {
					_, err := v.Verify(context.Background(), tok)
					errs <- err
				}()
			}
			wait(t, entered, "the first key set fetch")
			release()
			for i := range n {
				if err := wait(t, errs, "Verify of forged token "+strconv.Itoa(i)); err == nil {
					t.Fatal("a forged token was accepted")
				}
			}
			if got := is.fetches.Load(); got != 1 {
				t.Errorf("%d concurrent forged tokens made %d fetches, want 1", n, got)
			}
		})
	}
}

// A stale key set whose refresh fails stays in use for the keys it holds;
// a kid it lacks is then not checkable rather than invalid, since the set
// that would name it could not be fetched.
func TestJWKSStaleSetKeptWhileFetchFails(t *testing.T) {
	is := newIssuer(t)
	clk := newClock()
	v := is.verifier(t, clk, bearer.JWTOptions{MaxAge: time.Hour})
	ctx := context.Background()
	tok := is.token(t, map[string]any{"sub": "alice", "exp": time.Now().Add(3 * time.Hour).Unix()})
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	is.failing.Store(true)
	clk.Add(time.Hour + time.Second)
	entered, release := is.hold()
	defer release()
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("a known key while the stale set cannot be refreshed: %v", err)
	}
	wait(t, entered, "the refresh of the stale set")
	release()
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2 (the first, the failed refresh)", n)
	}
	// Whether or not the failed refresh has ended yet.
	_, err := v.Verify(ctx, is.forged(t, "new-key"))
	if err == nil || errors.Is(err, bearer.ErrInvalidToken) {
		t.Errorf("an unknown kid while the set cannot be fetched: err = %v, want one that is not ErrInvalidToken", err)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches within the backoff, want 2", n)
	}
}

// While the refresh of a stale key set hangs (a slow or attacked key set
// endpoint), a token whose key the set holds is checked with the cached
// keys at once, not after the fetch; the fetch runs in the background and
// its keys are used once it ends.
func TestJWKSStaleSetServedWhileFetchHangs(t *testing.T) {
	is := newIssuer(t)
	clk := newClock()
	// No timeout but the test's gate: a Verify that waited for the fetch
	// would return only once the test gives up.
	v := is.verifier(t, clk, bearer.JWTOptions{HTTPClient: &http.Client{}})
	bearer.SetFetchTimeout(v, time.Hour)
	ctx := context.Background()
	known := is.token(t, map[string]any{"sub": "alice", "exp": time.Now().Add(3 * time.Hour).Unix()})
	if _, err := v.Verify(ctx, known); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Hour + time.Second) // past MaxAge: the set is stale
	is.rotate(t)
	entered, release := is.hold()
	defer release()
	errc := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, known)
		errc <- err
	}()
	wait(t, entered, "the refresh of the stale set")
	// The fetch is held until release: this Verify returns while it is.
	if err := wait(t, errc, "Verify of a token whose key is cached, while the refresh of the stale set hangs"); err != nil {
		t.Fatalf("a cached key while the refresh hangs: %v", err)
	}
	if _, err := v.Verify(ctx, known); err != nil { // the fetch is still held
		t.Fatalf("a cached key while a refresh is under way: %v", err)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2 (the first, the one refresh)", n)
	}
	release()
	// The token of the new key waits for the background fetch if it has not
	// ended yet, and is checked with the set it brought.
	info, err := v.Verify(ctx, is.token(t, map[string]any{"sub": "bob"}))
	if err != nil {
		t.Fatalf("a token of the key the background fetch brought: %v", err)
	}
	if info.Subject != "bob" {
		t.Errorf("Subject = %q, want bob", info.Subject)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2: the background fetch brought the new key", n)
	}
}

// A forged token with an unknown kid makes the verifier fetch the key set,
// and is invalid since the set it waited for lacks its key. A genuine
// token signed with a key the issuer published just after is then not
// invalid (401, which makes clients drop their tokens) until the set may be
// fetched again: Protect answers 503 with a Retry-After of the time until
// then, and the retry is accepted.
func TestJWKSForgedKidDoesNotLockOutNewKey(t *testing.T) {
	is := newIssuer(t)
	clk := newClock()
	v := is.verifier(t, clk, bearer.JWTOptions{}) // RefreshInterval one minute
	ctx := context.Background()
	if _, err := v.Verify(ctx, is.token(t, map[string]any{"sub": "alice"})); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Minute) // the set may be fetched again
	if _, err := v.Verify(ctx, is.forged(t, "forged")); !errors.Is(err, bearer.ErrInvalidToken) {
		t.Fatalf("a forged token that waited for the fetch it started: err = %v, want ErrInvalidToken", err)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
	is.rotate(t) // the issuer publishes a new key, and signs with it
	genuine := is.token(t, map[string]any{"sub": "bob"})
	clk.Add(20*time.Second + 500*time.Millisecond)
	_, err := v.Verify(ctx, genuine)
	if err == nil || errors.Is(err, bearer.ErrInvalidToken) {
		t.Fatalf("a genuine token of a key published after the last fetch: err = %v, want one saying its key may be new", err)
	}
	if d, ok := retryAfter(err); d != 39*time.Second+500*time.Millisecond {
		t.Errorf("RetryAfter = %s (%t), want 39.5s: the time until the set may be fetched again", d, ok)
	}
	for _, want := range []string{`"key-2"`, "unknown", "39.5s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to say %s", err, want)
		}
	}
	var log lockedBuffer // at Info: a key that may be new is no warning
	p, err := bearer.New(bearer.Options{Resource: resource, AuthorizationServers: []string{is.URL}, Verifier: v,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.Protect(http.NotFoundHandler()))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+genuine)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "40" {
		t.Errorf("Protect: status %d, Retry-After %q; want 503 and 40 (seconds, rounded up)", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if out := log.String(); out != "" {
		t.Errorf("Protect logged, at Info or above, a token whose key may be new:\n%s", out)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches within RefreshInterval, want 2", n)
	}
	clk.Add(39*time.Second + 500*time.Millisecond) // the client retries when told
	info, err := v.Verify(ctx, genuine)
	if err != nil {
		t.Fatalf("the genuine token, retried after Retry-After: %v", err)
	}
	if info.Subject != "bob" {
		t.Errorf("Subject = %q, want bob", info.Subject)
	}
	if n := is.fetches.Load(); n != 3 {
		t.Errorf("%d fetches, want 3", n)
	}
}

// A token whose key is not in the set but whose claims refuse it whatever
// key signed it (one of a key the issuer dropped once its tokens expired,
// say) is invalid at once: it makes no fetch, and gets 401 rather than a
// retry within RefreshInterval.
func TestJWKSUnknownKeyRefusedByClaimsWithoutFetch(t *testing.T) {
	is := newIssuer(t)
	retired := is.signingKey()
	is.rotate(t) // the set holds only the new key
	clk := newClock()
	v := is.verifier(t, clk, bearer.JWTOptions{})
	ctx := context.Background()
	if _, err := v.Verify(ctx, is.token(t, map[string]any{"sub": "alice"})); err != nil {
		t.Fatal(err)
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	forger := jose.JSONWebKey{Key: priv, KeyID: "forged", Algorithm: string(jose.ES256)}
	now := clk.Now()
	hopeless := map[string]struct {
		key    jose.JSONWebKey
		claims map[string]any
	}{
		"retired key, expired":   {retired, map[string]any{"sub": "alice", "iat": now.Add(-3 * time.Hour).Unix(), "exp": now.Add(-2 * time.Hour).Unix()}},
		"forged, expired":        {forger, map[string]any{"sub": "mallory", "exp": now.Add(-time.Hour).Unix()}},
		"forged, no expiry":      {forger, map[string]any{"sub": "mallory", "exp": nil}},
		"forged, not yet valid":  {forger, map[string]any{"sub": "mallory", "nbf": now.Add(time.Hour).Unix()}},
		"forged, other issuer":   {forger, map[string]any{"sub": "mallory", "iss": "https://evil.example"}},
		"forged, other audience": {forger, map[string]any{"sub": "mallory", "aud": "https://other.example/mcp"}},
	}
	check := func(when string) {
		t.Helper()
		for name, tt := range hopeless {
			_, err := v.Verify(ctx, is.tokenWith(t, tt.key, "at+jwt", tt.claims))
			if !errors.Is(err, bearer.ErrInvalidToken) || !strings.Contains(err.Error(), "not in the issuer's key set") {
				t.Errorf("%s, %s: err = %v, want ErrInvalidToken saying the key is not in the set", when, name, err)
			}
		}
		if n := is.fetches.Load(); n != 1 {
			t.Fatalf("%s: %d fetches, want 1", when, n)
		}
	}
	check("within RefreshInterval")
	clk.Add(time.Minute)
	check("once the set may be fetched again")
	// A token of the retired key that could be valid fetches the set, and
	// is invalid since the set lacks its key.
	if _, err := v.Verify(ctx, is.tokenWith(t, retired, "at+jwt", map[string]any{"sub": "alice"})); !errors.Is(err, bearer.ErrInvalidToken) {
		t.Errorf("an unexpired token of the retired key: err = %v, want ErrInvalidToken", err)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

// The key set fetch carries none of the values of the request that
// started it: an httptrace.ClientTrace of that request, which may be
// forged and has likely ended by then, is not called by the fetch.
func TestJWKSFetchCarriesNoRequestValues(t *testing.T) {
	is := newIssuer(t)
	v := is.verifier(t, newClock(), bearer.JWTOptions{})
	var traced atomic.Int32
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GetConn: func(string) { traced.Add(1) },
	})
	if _, err := v.Verify(ctx, is.forged(t, "forged")); !errors.Is(err, bearer.ErrInvalidToken) {
		t.Fatalf("err = %v, want ErrInvalidToken", err)
	}
	if n := is.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
	if n := traced.Load(); n != 0 {
		t.Errorf("the request's ClientTrace was called %d times by the key set fetch, want 0", n)
	}
}
