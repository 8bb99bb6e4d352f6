package reqstate_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

func TestGenerateKey(t *testing.T) {
	tests := []struct {
		id   string
		want string // substring of the error; "" for valid
	}{
		{"k", ""},
		{"2026-07_primary", ""},
		{"abcdefghijklmnop", ""},
		{"", "key ID is empty"},
		{"abcdefghijklmnopq", "17 bytes long, want at most 16"},
		{"k.1", `key ID "k.1" has a character other than`},
		{"k 1", "has a character other than"},
		{"k:1", "has a character other than"},
		{"ké", "has a character other than"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			k, err := reqstate.GenerateKey(tt.id)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("GenerateKey(%q) = %v", tt.id, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("GenerateKey(%q) = %v, want an error with %q", tt.id, err, tt.want)
			case tt.want == "":
				if k.ID != tt.id || k.Secret == ([32]byte{}) {
					t.Errorf("GenerateKey(%q) = ID %q, zero secret %v", tt.id, k.ID, k.Secret == ([32]byte{}))
				}
			}
		})
	}
	a, _ := reqstate.GenerateKey("a")
	b, _ := reqstate.GenerateKey("a")
	if a.Secret == b.Secret {
		t.Errorf("two generated keys have the same secret")
	}
}

// A Key printed by fmt, in any verb fmt applies String to, shows its ID and
// never its secret.
func TestKeyDoesNotPrintSecret(t *testing.T) {
	k := testKey("k1", 0xAB)
	secret := base64.RawURLEncoding.EncodeToString(k.Secret[:])
	type holder struct{ Key reqstate.Key }
	for _, s := range []string{
		k.String(),
		fmt.Sprint(k),
		fmt.Sprintf("%v %+v %#v %s %q %x", k, k, k, k, k, k),
		fmt.Sprintf("%v %+v %#v", []reqstate.Key{k}, holder{k}, &k),
	} {
		if !strings.Contains(s, "k1") {
			t.Errorf("%q does not name the key", s)
		}
		if strings.Contains(s, secret) || strings.Contains(strings.ToLower(s), "abab") || strings.Contains(s, "171") || strings.Contains(s, "0xab") {
			t.Errorf("%q shows the secret", s)
		}
	}
	if got, want := k.String(), "reqstate.Key(k1)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestParseKeys(t *testing.T) {
	k1, k2 := testKey("k1", 1), testKey("old-2", 2)
	s1 := base64.RawURLEncoding.EncodeToString(k1.Secret[:])
	s2 := base64.RawURLEncoding.EncodeToString(k2.Secret[:])
	zero := base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	tests := []struct {
		name string
		in   string
		want []reqstate.Key
		err  string // substring of the error
	}{
		{"one", "k1:" + s1, []reqstate.Key{k1}, ""},
		{"two, in order", "k1:" + s1 + ",old-2:" + s2, []reqstate.Key{k1, k2}, ""},
		{"other order", "old-2:" + s2 + ",k1:" + s1, []reqstate.Key{k2, k1}, ""},
		{"spaces and line breaks", "  k1:" + s1 + " ,\n\told-2:" + s2 + "\n", []reqstate.Key{k1, k2}, ""},
		{"empty", "", nil, "no keys"},
		{"blank", " \n\t", nil, "no keys"},
		{"no colon", "k1" + s1, nil, "entry 1 has no ':'"},
		{"secret only", s1, nil, "entry 1 has no ':'"},
		{"trailing comma", "k1:" + s1 + ",", nil, "entry 2 has no ':'"},
		{"empty ID", ":" + s1, nil, "entry 1: key ID is empty"},
		{"long ID", "abcdefghijklmnopq:" + s1, nil, "17 bytes long"},
		{"bad ID", "k.1:" + s1, nil, `key ID "k.1" has a character`},
		{"space in ID", "k 1:" + s1, nil, `key ID "k 1" has a character`},
		{"duplicate ID", "k1:" + s1 + ",k1:" + s2, nil, `entry 2: key ID "k1" appears twice`},
		{"short secret", "k1:" + s1[:42], nil, `entry 1 ("k1"): secret is 42 characters, want 43`},
		{"long secret", "k1:" + s1 + "A", nil, "secret is 44 characters, want 43"},
		{"padded secret", "k1:" + s1 + "=", nil, "secret is 44 characters"},
		{"standard base64", "k1:" + s1[:42] + "+", nil, "not unpadded base64url"},
		{"unused bits", "k1:" + s1[:42] + "B", nil, "not the canonical base64url of 32 bytes"},
		{"zero secret", "k1:" + zero, nil, "all-zero secret"},
		{"second entry bad", "k1:" + s1 + ",k2:xyz", nil, `entry 2 ("k2"): secret is 3 characters`},
		{"reversed", s1 + ":k1", nil, "entry 1: key ID is 43 bytes long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reqstate.ParseKeys(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseKeys = %v, %v; want an error with %q", got, err, tt.err)
				}
				// A secret, or 16 characters of one, never shows.
				for _, s := range []string{s1, s2} {
					for i := 0; i+16 <= len(s); i++ {
						if strings.Contains(err.Error(), s[i:i+16]) {
							t.Fatalf("error %q quotes a secret", err)
						}
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseKeys: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseKeys (-want +got):\n%s", diff)
			}
			if back := reqstate.FormatKeys(got...); back != strings.Join(strings.Fields(strings.ReplaceAll(tt.in, ",", " ")), ",") {
				t.Errorf("FormatKeys = %q, want the input without spaces", back)
			}
		})
	}
}

func TestFormatKeysRoundTrip(t *testing.T) {
	var keys []reqstate.Key
	for i := range 5 {
		k, err := reqstate.GenerateKey(fmt.Sprintf("key-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	got, err := reqstate.ParseKeys(reqstate.FormatKeys(keys...))
	if err != nil {
		t.Fatalf("ParseKeys(FormatKeys): %v", err)
	}
	if diff := cmp.Diff(keys, got); diff != "" {
		t.Errorf("ParseKeys(FormatKeys(keys)) (-keys +got):\n%s", diff)
	}
}

func TestNewRing(t *testing.T) {
	tests := []struct {
		name string
		keys []reqstate.Key
		ids  []string
		err  string
	}{
		{"one", []reqstate.Key{testKey("a", 1)}, []string{"a"}, ""},
		{"three", []reqstate.Key{testKey("a", 1), testKey("b", 2), testKey("c", 3)}, []string{"a", "b", "c"}, ""},
		{"zero key", []reqstate.Key{{}}, nil, "key ID is empty"},
		{"zero secret", []reqstate.Key{{ID: "a"}}, nil, `key "a" has an all-zero secret`},
		{"older zero secret", []reqstate.Key{testKey("a", 1), {ID: "b"}}, nil, `key "b" has an all-zero secret`},
		{"bad ID", []reqstate.Key{testKey("a/b", 1)}, nil, "has a character other than"},
		{"same ID", []reqstate.Key{testKey("a", 1), testKey("a", 2)}, nil, `key ID "a" appears twice`},
		{"same key twice", []reqstate.Key{testKey("a", 1), testKey("a", 1)}, nil, `key ID "a" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := reqstate.NewRing(tt.keys[0], tt.keys[1:]...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("NewRing = %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewRing: %v", err)
			}
			if diff := cmp.Diff(tt.ids, r.IDs()); diff != "" {
				t.Errorf("IDs (-want +got):\n%s", diff)
			}
		})
	}
}

// After Rotate, new states are sealed by the new key and old ones still
// open; after Retire, the old ones no longer do.
func TestRotateRetire(t *testing.T) {
	k1, k2 := testKey("k1", 1), testKey("k2", 2)
	ring := mustRing(t, k1)
	s := &reqstate.Sealer{Ring: ring}
	b := binding(t, "tools/call", `{"name":"t"}`, "")
	old, err := s.Seal(b, []byte("old"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.Rotate(k2); err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	if diff := cmp.Diff([]string{"k2", "k1"}, ring.IDs()); diff != "" {
		t.Errorf("IDs after Rotate (-want +got):\n%s", diff)
	}
	fresh, err := s.Seal(b, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	only2 := &reqstate.Sealer{Ring: mustRing(t, k2)}
	if got, err := only2.Open(fresh, b); err != nil || string(got) != "new" {
		t.Errorf("a ring of k2 alone opens the state sealed after Rotate: %q, %v; want it to, k2 is the primary", got, err)
	}
	if got, err := s.Open(old, b); err != nil || string(got) != "old" {
		t.Errorf("Open(old state) after Rotate = %q, %v; want it to open", got, err)
	}

	if err := ring.Retire("k2"); err == nil || !strings.Contains(err.Error(), `"k2" is the primary key`) {
		t.Errorf("Retire(primary) = %v, want an error", err)
	}
	if err := ring.Retire("k9"); err == nil || !strings.Contains(err.Error(), `no key "k9"`) {
		t.Errorf("Retire(unknown) = %v, want an error", err)
	}
	if err := ring.Retire("k1"); err != nil {
		t.Fatalf("Retire(k1): %v", err)
	}
	if diff := cmp.Diff([]string{"k2"}, ring.IDs()); diff != "" {
		t.Errorf("IDs after Retire (-want +got):\n%s", diff)
	}
	if _, err := s.Open(old, b); kindOf(err) != "ErrUnknownKey" || !strings.Contains(err.Error(), `"k1"`) {
		t.Errorf("Open(old state) after Retire = %v, want ErrUnknownKey naming k1", err)
	}
	if got, err := s.Open(fresh, b); err != nil || string(got) != "new" {
		t.Errorf("Open(new state) after Retire = %q, %v", got, err)
	}
	if err := ring.Retire("k1"); err == nil {
		t.Errorf("Retire(k1) twice succeeded")
	}
}

func TestRotateErrors(t *testing.T) {
	k1, k2, k3 := testKey("k1", 1), testKey("k2", 2), testKey("k3", 3)
	tests := []struct {
		name string
		key  reqstate.Key
		ids  []string // after Rotate
		err  string
	}{
		{"new key", k3, []string{"k3", "k1", "k2"}, ""},
		{"promote an older key", k2, []string{"k2", "k1"}, ""},
		{"primary again", k1, []string{"k1", "k2"}, ""},
		{"older ID, other secret", testKey("k2", 9), []string{"k1", "k2"}, `"k2" is already in the ring with another secret`},
		{"primary ID, other secret", testKey("k1", 9), []string{"k1", "k2"}, `"k1" is already in the ring with another secret`},
		{"zero secret", reqstate.Key{ID: "k4"}, []string{"k1", "k2"}, "all-zero secret"},
		{"bad ID", testKey("", 4), []string{"k1", "k2"}, "key ID is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ring := mustRing(t, k1, k2)
			err := ring.Rotate(tt.key)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Rotate: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("Rotate = %v, want an error with %q", err, tt.err)
			}
			if diff := cmp.Diff(tt.ids, ring.IDs()); diff != "" {
				t.Errorf("IDs (-want +got):\n%s", diff)
			}
		})
	}
}

// The zero Ring gets a key through Rotate.
func TestZeroRingRotate(t *testing.T) {
	var ring reqstate.Ring
	if ids := ring.IDs(); len(ids) != 0 {
		t.Errorf("zero Ring IDs = %v", ids)
	}
	if err := ring.Rotate(testKey("k1", 1)); err != nil {
		t.Fatal(err)
	}
	s := &reqstate.Sealer{Ring: &ring}
	b := binding(t, "tools/call", `{}`, "")
	state, err := s.Seal(b, []byte("p"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Open(state, b); err != nil || string(got) != "p" {
		t.Errorf("Open = %q, %v", got, err)
	}
}

// Two server instances configured with the same key list open each other's
// states; instances with other keys do not.
func TestInstancesShareKeys(t *testing.T) {
	k1, k2 := testKey("k1", 1), testKey("k2", 2)
	shared := reqstate.FormatKeys(k1, k2)
	instance := func(t *testing.T, text string) *reqstate.Sealer {
		keys, err := reqstate.ParseKeys(text)
		if err != nil {
			t.Fatal(err)
		}
		return &reqstate.Sealer{Ring: mustRing(t, keys...)}
	}
	a, b := instance(t, shared), instance(t, shared)
	// c is a step behind in a rotation: k2 is still its primary.
	c := instance(t, reqstate.FormatKeys(k2, k1))
	bind := binding(t, "tools/call", `{"name":"t"}`, "alice")
	for _, pair := range []struct {
		name     string
		from, to *reqstate.Sealer
	}{{"a to b", a, b}, {"b to a", b, a}, {"a to c", a, c}, {"c to a", c, a}} {
		state, err := pair.from.Seal(bind, []byte(pair.name))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := pair.to.Open(state, bind); err != nil || string(got) != pair.name {
			t.Errorf("%s: Open = %q, %v", pair.name, got, err)
		}
	}

	state, err := a.Seal(bind, []byte("p"))
	if err != nil {
		t.Fatal(err)
	}
	others := []struct {
		name string
		s    *reqstate.Sealer
		kind string
	}{
		{"same IDs, other secrets", instance(t, reqstate.FormatKeys(testKey("k1", 7), testKey("k2", 8))), "ErrTampered"},
		{"other IDs, same secrets", instance(t, reqstate.FormatKeys(testKey("x1", 1), testKey("x2", 2))), "ErrUnknownKey"},
		{"only the other key", instance(t, reqstate.FormatKeys(k2)), "ErrUnknownKey"},
		{"ephemeral", &reqstate.Sealer{Ring: reqstate.NewEphemeralRing()}, "ErrUnknownKey"},
	}
	for _, o := range others {
		if _, err := o.s.Open(state, bind); kindOf(err) != o.kind {
			t.Errorf("%s: Open = %s, want %s", o.name, kindOf(err), o.kind)
		}
	}
}

func TestEphemeralRing(t *testing.T) {
	r1, r2 := reqstate.NewEphemeralRing(), reqstate.NewEphemeralRing()
	ids1, ids2 := r1.IDs(), r2.IDs()
	if len(ids1) != 1 || len(ids2) != 1 || ids1[0] == ids2[0] {
		t.Fatalf("ephemeral ring IDs %v and %v, want one random ID each", ids1, ids2)
	}
	s1, s2 := &reqstate.Sealer{Ring: r1}, &reqstate.Sealer{Ring: r2}
	b := binding(t, "tools/call", `{}`, "")
	state, err := s1.Seal(b, []byte("p"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s1.Open(state, b); err != nil || string(got) != "p" {
		t.Errorf("same ring: Open = %q, %v", got, err)
	}
	if _, err := s2.Open(state, b); kindOf(err) != "ErrUnknownKey" {
		t.Errorf("other ephemeral ring: Open = %s, want ErrUnknownKey", kindOf(err))
	}
}

// Seal and Open run concurrently with Rotate and Retire (run with -race).
// A state opens, or fails only because its key was retired meanwhile.
func TestRingConcurrent(t *testing.T) {
	ring := mustRing(t, testKey("k0", 1))
	s := &reqstate.Sealer{Ring: ring}
	b := binding(t, "tools/call", `{}`, "")
	const workers, rounds, rotations = 4, 100, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds+rotations*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				p := fmt.Sprintf("%d/%d", w, i)
				state, err := s.Seal(b, []byte(p))
				if err != nil {
					errs <- err
					continue
				}
				got, err := s.Open(state, b)
				if kindOf(err) == "ErrUnknownKey" {
					continue
				}
				if err != nil || string(got) != p {
					errs <- fmt.Errorf("Open = %q, %v; want %q", got, err, p)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i <= rotations; i++ {
			if err := ring.Rotate(testKey(fmt.Sprintf("k%d", i), byte(i+1))); err != nil {
				errs <- err
			}
			if i >= 2 {
				if err := ring.Retire(fmt.Sprintf("k%d", i-2)); err != nil {
					errs <- err
				}
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := []string{fmt.Sprintf("k%d", rotations), fmt.Sprintf("k%d", rotations-1)}
	if diff := cmp.Diff(want, ring.IDs()); diff != "" {
		t.Errorf("IDs after the rotations (-want +got):\n%s", diff)
	}
}
