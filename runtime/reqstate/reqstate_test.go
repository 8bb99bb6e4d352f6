package reqstate_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

// testKey returns a key with a fixed secret: every byte is fill.
func testKey(id string, fill byte) reqstate.Key {
	k := reqstate.Key{ID: id}
	for i := range k.Secret {
		k.Secret[i] = fill
	}
	return k
}

// mustRing returns NewRing(keys[0], keys[1:]...), failing the test on error.
func mustRing(t testing.TB, keys ...reqstate.Key) *reqstate.Ring {
	t.Helper()
	r, err := reqstate.NewRing(keys[0], keys[1:]...)
	if err != nil {
		t.Fatalf("NewRing: %v", err)
	}
	return r
}

// clock is a settable time source for Sealer.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var t0 = time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)

// testAudience is the audience of the bindings of binding.
const testAudience = "https://mcp.example.com/mcp"

// binding returns a binding for method, params (JSON) and principal, at
// testAudience.
func binding(t testing.TB, method, params, principal string) reqstate.Binding {
	t.Helper()
	d, err := reqstate.ParamsDigest([]byte(params))
	if err != nil {
		t.Fatalf("ParamsDigest(%s): %v", params, err)
	}
	return reqstate.Binding{Audience: testAudience, Method: method, Params: d, Principal: principal}
}

// kinds lists the specific errors, for messages and checks.
var kinds = []struct {
	name string
	err  error
}{
	{"ErrMalformed", reqstate.ErrMalformed},
	{"ErrUnknownKey", reqstate.ErrUnknownKey},
	{"ErrTampered", reqstate.ErrTampered},
	{"ErrExpired", reqstate.ErrExpired},
}

// kindOf returns the name of the one specific error err wraps next to
// ErrInvalid, or a description of what is wrong with err.
func kindOf(err error) string {
	if err == nil {
		return "<nil>"
	}
	if !errors.Is(err, reqstate.ErrInvalid) {
		return "not ErrInvalid: " + err.Error()
	}
	var got []string
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			got = append(got, k.name)
		}
	}
	if len(got) != 1 {
		return fmt.Sprintf("kinds %v: %v", got, err)
	}
	return got[0]
}

func TestRoundTrip(t *testing.T) {
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}
	b := binding(t, "tools/call", `{"name":"deploy","arguments":{"env":"prod"}}`, "alice")
	tests := []struct {
		name    string
		payload []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"json", []byte(`{"step":2,"answers":["yes"]}`)},
		{"binary", []byte{0, 1, 2, 0xff, 0xfe}},
		{"200 bytes", bytes.Repeat([]byte("x"), 200)},
		{"max", bytes.Repeat([]byte("m"), reqstate.MaxPayloadLen)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, err := s.Seal(b, tt.payload)
			if err != nil {
				t.Fatalf("Seal: %v", err)
			}
			if len(state) > reqstate.MaxStateLen {
				t.Errorf("state is %d bytes, more than MaxStateLen", len(state))
			}
			for i := 0; i < len(state); i++ {
				c := state[i]
				if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
					t.Fatalf("state has %q at %d, not base64url without padding", c, i)
				}
			}
			if bytes.Contains([]byte(state), []byte("step")) {
				t.Errorf("state %q shows the payload", state)
			}
			got, err := s.Open(state, b)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if diff := cmp.Diff(string(tt.payload), string(got)); diff != "" {
				t.Errorf("Open payload (-sealed +opened):\n%s", diff)
			}
		})
	}
}

// Two seals of the same payload differ (random nonce), and both open.
func TestSealIsRandomized(t *testing.T) {
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}
	b := binding(t, "prompts/get", `{"name":"p"}`, "")
	a, err := s.Seal(b, []byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Seal(b, []byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	if a == c {
		t.Errorf("two seals gave the same state %q", a)
	}
	for _, st := range []string{a, c} {
		if _, err := s.Open(st, b); err != nil {
			t.Errorf("Open(%q): %v", st, err)
		}
	}
}

func TestSealLimits(t *testing.T) {
	// The longest key ID gives the longest state for a payload.
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("abcdefghijklmnop", 1))}
	b := binding(t, "tools/call", `{}`, "")
	state, err := s.Seal(b, make([]byte, reqstate.MaxPayloadLen))
	if err != nil {
		t.Fatalf("Seal(MaxPayloadLen bytes): %v", err)
	}
	if len(state) != reqstate.MaxStateLen {
		t.Errorf("state of MaxPayloadLen bytes with a 16-byte key ID is %d bytes, want exactly MaxStateLen %d", len(state), reqstate.MaxStateLen)
	}
	_, err = s.Seal(b, make([]byte, reqstate.MaxPayloadLen+1))
	if err == nil || !strings.Contains(err.Error(), "more than MaxPayloadLen") {
		t.Errorf("Seal(MaxPayloadLen+1 bytes) = %v, want an error about MaxPayloadLen", err)
	}
	if errors.Is(err, reqstate.ErrInvalid) {
		t.Errorf("Seal error %v wraps ErrInvalid, which is for states a client sent", err)
	}
}

// Every state names its audience: Seal refuses a Binding without one, so
// that two endpoints sharing keys cannot accept each other's states by
// leaving it out. The error is about the server, not the client.
func TestSealNeedsAudience(t *testing.T) {
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}
	b := withAudience(binding(t, "tools/call", `{}`, "alice"), "")
	state, err := s.Seal(b, []byte("p"))
	if err == nil || !strings.Contains(err.Error(), "no Audience") {
		t.Fatalf("Seal without an audience = %q, %v; want an error naming the Audience", state, err)
	}
	if errors.Is(err, reqstate.ErrInvalid) {
		t.Errorf("Seal error %v wraps ErrInvalid, which is for states a client sent", err)
	}
}

func TestNoRing(t *testing.T) {
	b := binding(t, "tools/call", `{}`, "")
	tests := []struct {
		name   string
		s      *reqstate.Sealer
		seal   string // substring of the Seal error
		openIs error  // the Open error, nil for "not ErrInvalid"
	}{
		{"nil Ring", &reqstate.Sealer{}, "has no Ring", nil},
		{"zero Ring", &reqstate.Sealer{Ring: &reqstate.Ring{}}, "has no key", reqstate.ErrUnknownKey},
	}
	valid, err := (&reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}).Seal(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.s.Seal(b, nil); err == nil || !strings.Contains(err.Error(), tt.seal) {
				t.Errorf("Seal = %v, want an error with %q", err, tt.seal)
			}
			_, err := tt.s.Open(valid, b)
			switch {
			case err == nil:
				t.Errorf("Open succeeded")
			case tt.openIs == nil && errors.Is(err, reqstate.ErrInvalid):
				t.Errorf("Open = %v, want a configuration error, not ErrInvalid", err)
			case tt.openIs != nil && !errors.Is(err, tt.openIs):
				t.Errorf("Open = %v, want %v", err, tt.openIs)
			}
		})
	}
}

// raw builds a state from its parts, for malformed inputs.
func raw(parts ...[]byte) string {
	return base64.RawURLEncoding.EncodeToString(bytes.Join(parts, nil))
}

func TestOpenMalformed(t *testing.T) {
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}
	b := binding(t, "tools/call", `{}`, "")
	body := make([]byte, 12+8+16)
	tests := []struct {
		name  string
		state string
		kind  string
		msg   string // substring of the error
	}{
		{"empty", "", "ErrMalformed", "malformed: empty"},
		{"space", "AQJrMQ AAAA", "ErrMalformed", "byte 0x20 at offset 6"},
		{"newline", "AQJr\nMQ", "ErrMalformed", "byte 0x0a at offset 4"},
		{"padding", "AQ==", "ErrMalformed", "byte 0x3d at offset 2"},
		{"standard base64", "AQ+/", "ErrMalformed", "byte 0x2b at offset 2"},
		{"non-ASCII", "AQé", "ErrMalformed", "byte 0xc3 at offset 2"},
		{"one character", "A", "ErrMalformed", "not canonical base64url"},
		{"unused bits set", "AR", "ErrMalformed", "not canonical base64url"},
		{"version 0", raw([]byte{0, 2}, []byte("k1"), body), "ErrMalformed", "format version 0, want 2"},
		{"version 3", raw([]byte{3, 2}, []byte("k1"), body), "ErrMalformed", "format version 3, want 2"},
		{"only version", raw([]byte{2}), "ErrMalformed", "too short: 1 bytes"},
		// Format 1 (an earlier release, no audience): nothing in it can be
		// checked, like a state of a key this server does not have.
		{"version 1", raw([]byte{1, 2}, []byte("k1"), body), "ErrUnknownKey", "format version 1, by an earlier release"},
		{"version 1, only version", raw([]byte{1}), "ErrUnknownKey", "format version 1"},
		{"too short", raw([]byte{2, 2}, []byte("k1"), body[:20]), "ErrMalformed", "too short"},
		{"too short for the key ID", raw([]byte{2, 16}, []byte("k1"), body), "ErrMalformed", "with a key ID of 16"},
		{"key ID length 0", raw([]byte{2, 0}, []byte("k1"), body), "ErrMalformed", "key ID length 0"},
		{"key ID length 17", raw([]byte{2, 17}, bytes.Repeat([]byte("k"), 17), body), "ErrMalformed", "key ID length 17"},
		{"key ID length 255", raw([]byte{2, 255}, body, body, body, body, body, body, body, body), "ErrMalformed", "key ID length 255"},
		{"key ID with a dot", raw([]byte{2, 2}, []byte("k."), body), "ErrMalformed", "key ID has a character"},
		{"key ID with NUL", raw([]byte{2, 2}, []byte("k\x00"), body), "ErrMalformed", "key ID has a character"},
		{"unknown key", raw([]byte{2, 2}, []byte("k2"), body), "ErrUnknownKey", `sealed by a key this server does not have (key ID "k2")`},
		{"known key, garbage", raw([]byte{2, 2}, []byte("k1"), body), "ErrTampered", "tampered, or issued for another request"},
		{"too long", strings.Repeat("A", reqstate.MaxStateLen+1), "ErrMalformed", "65537 bytes long, more than the 65536"},
		{"too long garbage", strings.Repeat("\xff", reqstate.MaxStateLen+1), "ErrMalformed", "more than the 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Open(tt.state, b)
			if kind := kindOf(err); kind != tt.kind {
				t.Fatalf("Open = %q, %v; want %s", got, kind, tt.kind)
			}
			if !strings.HasPrefix(err.Error(), "invalid requestState: ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Open error %q, want one starting \"invalid requestState: \" with %q", err, tt.msg)
			}
		})
	}
}

// Every change to a state fails to open: each bit of the decoded state, each
// character of the text, and every truncation or extension. Changes to the
// version or key ID are malformed or name another key; all others fail
// authentication.
func TestTamper(t *testing.T) {
	// k0 differs from k1 by one bit of the ID, so that some flips of the ID
	// name a key the ring has (with another secret).
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1), testKey("k0", 2))}
	b := binding(t, "tools/call", `{"name":"t"}`, "alice")
	state, err := s.Seal(b, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	rawState, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil {
		t.Fatal(err)
	}
	const idEnd = 2 + len("k1")
	want := func(pos int) map[string]bool {
		switch {
		case pos == 0:
			return map[string]bool{"ErrMalformed": true}
		case pos < idEnd:
			return map[string]bool{"ErrMalformed": true, "ErrUnknownKey": true, "ErrTampered": true}
		}
		return map[string]bool{"ErrTampered": true}
	}
	seen := map[string]bool{}
	t.Run("bits", func(t *testing.T) {
		for pos := range rawState {
			for bit := range 8 {
				m := bytes.Clone(rawState)
				m[pos] ^= 1 << bit
				_, err := s.Open(base64.RawURLEncoding.EncodeToString(m), b)
				kind := kindOf(err)
				seen[kind] = true
				if !want(pos)[kind] {
					t.Errorf("byte %d bit %d flipped: %s, want one of %v", pos, bit, kind, want(pos))
				}
			}
		}
	})
	for _, k := range []string{"ErrMalformed", "ErrUnknownKey", "ErrTampered"} {
		if !seen[k] {
			t.Errorf("no bit flip gave %s: the test does not reach it", k)
		}
	}
	t.Run("characters", func(t *testing.T) {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		for pos := range len(state) {
			for _, c := range []byte(alphabet) {
				if c == state[pos] {
					continue
				}
				m := []byte(state)
				m[pos] = c
				if _, err := s.Open(string(m), b); err == nil || !errors.Is(err, reqstate.ErrInvalid) {
					t.Fatalf("character %d set to %q: Open = %v, want ErrInvalid", pos, c, err)
				}
			}
		}
	})
	t.Run("length", func(t *testing.T) {
		for n := range len(state) {
			if _, err := s.Open(state[:n], b); kindOf(err) != "ErrMalformed" && kindOf(err) != "ErrTampered" {
				t.Errorf("first %d characters: %s, want ErrMalformed or ErrTampered", n, kindOf(err))
			}
		}
		for _, extra := range []string{"A", "AA", "AAA", "AAAA", "_", "=", "\n", " "} {
			if _, err := s.Open(state+extra, b); kindOf(err) != "ErrMalformed" && kindOf(err) != "ErrTampered" {
				t.Errorf("state + %q: %s, want ErrMalformed or ErrTampered", extra, kindOf(err))
			}
		}
	})
	if _, err := s.Open(state, b); err != nil {
		t.Errorf("the untouched state does not open: %v", err)
	}
}

// A state opens only for the Binding it was sealed for.
func TestBinding(t *testing.T) {
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}
	const params = `{"name":"transfer","arguments":{"to":"bob","amount":10}}`
	sealed := binding(t, "tools/call", params, "alice")
	state, err := s.Seal(sealed, []byte("p"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		b    reqstate.Binding
		kind string
	}{
		{"same", binding(t, "tools/call", params, "alice"), "<nil>"},
		{"same, re-serialized", binding(t, "tools/call", `{ "arguments": {"amount":10, "to":"bob"}, "name":"transfer",
			"_meta": {"io.modelcontextprotocol/protocolVersion":"2026-07-28"}, "inputResponses": {"q": {}}, "requestState": "x"}`, "alice"), "<nil>"},
		{"other method", binding(t, "prompts/get", params, "alice"), "ErrTampered"},
		{"other params", binding(t, "tools/call", `{"name":"transfer","arguments":{"to":"mallory","amount":10}}`, "alice"), "ErrTampered"},
		{"other amount", binding(t, "tools/call", `{"name":"transfer","arguments":{"to":"bob","amount":1000}}`, "alice"), "ErrTampered"},
		{"no params", binding(t, "tools/call", ``, "alice"), "ErrTampered"},
		{"other method, same length", binding(t, "tools/list", params, "alice"), "ErrTampered"},
		{"other principal", binding(t, "tools/call", params, "mallory"), "ErrTampered"},
		{"other principal, same length", binding(t, "tools/call", params, "alicf"), "ErrTampered"},
		{"no principal", binding(t, "tools/call", params, ""), "ErrTampered"},
		{"other audience", withAudience(binding(t, "tools/call", params, "alice"), "https://other.example.com/mcp"), "ErrTampered"},
		{"other audience, same length", withAudience(binding(t, "tools/call", params, "alice"), "https://mcp.example.com/mcq"), "ErrTampered"},
		{"no audience", withAudience(binding(t, "tools/call", params, "alice"), ""), "ErrTampered"},
		{"zero Binding", reqstate.Binding{}, "ErrTampered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Open(state, tt.b)
			if kind := kindOf(err); kind != tt.kind {
				t.Errorf("Open = %q, %s; want %s", got, kind, tt.kind)
			}
		})
	}
}

// withAudience returns b with the audience aud.
func withAudience(b reqstate.Binding, aud string) reqstate.Binding {
	b.Audience = aud
	return b
}

// Fields are delimited in the binding: moving bytes from one field to the
// next gives another binding.
func TestBindingFieldBoundaries(t *testing.T) {
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1))}
	var d [32]byte
	pairs := []struct {
		name string
		a, b reqstate.Binding
	}{
		{"method/principal", reqstate.Binding{Audience: "e", Method: "ab", Principal: "c"}, reqstate.Binding{Audience: "e", Method: "a", Principal: "bc"}},
		{"empty method", reqstate.Binding{Audience: "e", Method: "", Principal: "x"}, reqstate.Binding{Audience: "e", Method: "x", Principal: ""}},
		{"params", reqstate.Binding{Audience: "e", Method: "m", Params: d}, reqstate.Binding{Audience: "e", Method: "m", Params: [32]byte{31: 1}}},
		{"audience/method", reqstate.Binding{Audience: "ab", Method: "c"}, reqstate.Binding{Audience: "a", Method: "bc"}},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			state, err := s.Seal(p.a, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Open(state, p.b); kindOf(err) != "ErrTampered" {
				t.Errorf("sealed for %+v, opened for %+v: %s, want ErrTampered", p.a, p.b, kindOf(err))
			}
			if _, err := s.Open(state, p.a); err != nil {
				t.Errorf("sealed and opened for %+v: %v", p.a, err)
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	b := binding(t, "resources/read", `{"uri":"file:///x"}`, "")
	tests := []struct {
		name string
		ttl  time.Duration
		at   time.Duration // after t0
		want string        // "" opens, else a substring of the error
	}{
		{"default TTL, fresh", 0, 0, ""},
		{"default TTL, last millisecond", 0, 10*time.Minute - time.Millisecond, ""},
		{"default TTL, at expiry", 0, 10 * time.Minute, "expired at 2026-07-28T10:10:00.000Z, 0s ago"},
		{"default TTL, later", 0, time.Hour, "expired at 2026-07-28T10:10:00.000Z, 50m0s ago"},
		{"negative TTL is the default", -time.Second, 9 * time.Minute, ""},
		{"30s TTL, in time", 30 * time.Second, 29 * time.Second, ""},
		{"30s TTL, late", 30 * time.Second, 31500 * time.Millisecond, "expired at 2026-07-28T10:00:30.000Z, 1.5s ago"},
		// The clock of the instance that opens may be behind the one that
		// sealed: the state is still fresh.
		{"opened before sealed", 0, -time.Hour, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: t0}
			s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1)), TTL: tt.ttl, Now: c.Now}
			state, err := s.Seal(b, []byte("p"))
			if err != nil {
				t.Fatal(err)
			}
			c.Set(t0.Add(tt.at))
			got, err := s.Open(state, b)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Open = %v, want the payload", err)
			case tt.want == "" && string(got) != "p":
				t.Errorf("Open = %q, want %q", got, "p")
			case tt.want != "" && kindOf(err) != "ErrExpired":
				t.Errorf("Open = %q, %s; want ErrExpired", got, kindOf(err))
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Open error %q, want %q in it", err, tt.want)
			}
		})
	}
}

// Expiry is checked after authentication: an expired state that does not
// authenticate is tampered, not expired, so that the expiry it shows can be
// trusted.
func TestExpiryAfterAuthentication(t *testing.T) {
	c := &clock{t: t0}
	s := &reqstate.Sealer{Ring: mustRing(t, testKey("k1", 1)), Now: c.Now}
	b := binding(t, "tools/call", `{}`, "")
	state, err := s.Seal(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Set(t0.Add(24 * time.Hour))
	if _, err := s.Open(state, binding(t, "tools/call", `{"x":1}`, "")); kindOf(err) != "ErrTampered" {
		t.Errorf("expired state for another binding: %s, want ErrTampered", kindOf(err))
	}
	if _, err := s.Open(state, b); kindOf(err) != "ErrExpired" {
		t.Errorf("expired state: %s, want ErrExpired", kindOf(err))
	}
}

func BenchmarkSeal(b *testing.B) {
	s := &reqstate.Sealer{Ring: mustRing(b, testKey("k1", 1))}
	bind := binding(b, "tools/call", `{"name":"deploy","arguments":{"env":"prod"}}`, "alice")
	payload := bytes.Repeat([]byte("p"), 200)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Seal(bind, payload); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	s := &reqstate.Sealer{Ring: mustRing(b, testKey("k1", 1))}
	bind := binding(b, "tools/call", `{"name":"deploy","arguments":{"env":"prod"}}`, "alice")
	state, err := s.Seal(bind, bytes.Repeat([]byte("p"), 200))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Open(state, bind); err != nil {
			b.Fatal(err)
		}
	}
}
