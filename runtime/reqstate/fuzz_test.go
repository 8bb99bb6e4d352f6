package reqstate_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

// FuzzOpen checks that Open never panics, that it fails with exactly one
// specific error next to ErrInvalid, and that it opens nothing but states
// Seal produced. The keys and the clock are fixed, so that the seeds (sealed
// by the process that runs the fuzzer) open in its workers too and the
// fuzzer mutates states that authenticate. A state that opens must
// therefore be one this process sealed, or carry a payload of the seeds
// (sealed by an earlier run into the corpus) and be the only text form of
// its bytes.
func FuzzOpen(f *testing.F) {
	ring := mustRing(f, testKey("k1", 1), testKey("k0", 2))
	c := &clock{t: t0}
	s := &reqstate.Sealer{Ring: ring, Now: c.Now}
	b := binding(f, "tools/call", `{"name":"t","arguments":{"x":1}}`, "alice")
	elsewhere := binding(f, "tools/call", `{"name":"t","arguments":{"x":2}}`, "alice")

	payloads := map[reqstate.Binding]map[string]bool{
		b:         {"": true, "p": true, strings.Repeat("x", 200): true, "\x00\xff": true, "sealed by k0": true},
		elsewhere: {"other binding": true},
	}
	sealed := map[string]string{} // state → payload, for b
	seal := func(bind reqstate.Binding, payload string) {
		state, err := s.Seal(bind, []byte(payload))
		if err != nil {
			f.Fatal(err)
		}
		if bind == b {
			sealed[state] = payload
		}
		f.Add(state)
	}
	for _, p := range []string{"", "p", strings.Repeat("x", 200), "\x00\xff"} {
		seal(b, p)
	}
	seal(elsewhere, "other binding")
	if err := ring.Rotate(testKey("k0", 2)); err != nil {
		f.Fatal(err)
	}
	seal(b, "sealed by k0")
	for _, in := range []string{"", "A", "AQ", "AQJrMQ", "AQJrMQ==", "AQJrMQ\n", "AQJrMQ AAAA",
		raw([]byte{2, 2}, []byte("k1"), make([]byte, 36)),
		raw([]byte{2, 2}, []byte("k2"), make([]byte, 36)),
		raw([]byte{2, 16}, bytes.Repeat([]byte("k"), 16), make([]byte, 36)),
		raw([]byte{3, 2}, []byte("k1"), make([]byte, 36)),
		raw([]byte{1, 2}, []byte("k1"), make([]byte, 36)), // the format of an earlier release
	} {
		f.Add(in)
	}

	f.Fuzz(func(t *testing.T, state string) {
		for _, bind := range []reqstate.Binding{b, elsewhere} {
			got, err := s.Open(state, bind)
			if err != nil {
				if kind := kindOf(err); !strings.HasPrefix(kind, "Err") {
					t.Fatalf("Open(%q): %s", state, kind)
				}
				if len(state) > reqstate.MaxStateLen && !errors.Is(err, reqstate.ErrMalformed) {
					t.Fatalf("Open of %d bytes = %v, want ErrMalformed", len(state), err)
				}
				continue
			}
			if want, ok := sealed[state]; ok && bind == b {
				if string(got) != want {
					t.Fatalf("Open(%q) = %q, want %q", state, got, want)
				}
				continue
			}
			if !payloads[bind][string(got)] {
				t.Fatalf("Open(%q) = %q: a state Seal did not produce opened", state, got)
			}
			dec, err := base64.RawURLEncoding.DecodeString(state)
			if err != nil || base64.RawURLEncoding.EncodeToString(dec) != state {
				t.Fatalf("Open(%q) = %q: opened a text that is not the canonical base64url of its bytes", state, got)
			}
		}
	})
}

// FuzzParseKeys checks that ParseKeys never panics and that what it accepts
// is a valid ring that FormatKeys writes back to the same keys.
func FuzzParseKeys(f *testing.F) {
	k1, k2 := testKey("k1", 1), testKey("old_2", 2)
	for _, s := range []string{
		reqstate.FormatKeys(k1),
		reqstate.FormatKeys(k1, k2),
		" " + reqstate.FormatKeys(k1) + " ,\n" + reqstate.FormatKeys(k2) + "\n",
		reqstate.FormatKeys(k1, k1),
		"", ",", ":", "k1:", ":AAAA", "k1:AQ", "k.1:" + reqstate.FormatKeys(k1)[3:],
		"k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"k1:AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQB",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := reqstate.ParseKeys(s)
		if err != nil {
			if keys != nil {
				t.Fatalf("ParseKeys(%q) = %v and error %v", s, keys, err)
			}
			return
		}
		if len(keys) == 0 {
			t.Fatalf("ParseKeys(%q) = no keys, no error", s)
		}
		if _, err := reqstate.NewRing(keys[0], keys[1:]...); err != nil {
			t.Fatalf("ParseKeys(%q) accepted keys NewRing refuses: %v", s, err)
		}
		back, err := reqstate.ParseKeys(reqstate.FormatKeys(keys...))
		if err != nil {
			t.Fatalf("ParseKeys(FormatKeys(ParseKeys(%q))): %v", s, err)
		}
		if diff := cmp.Diff(keys, back); diff != "" {
			t.Fatalf("FormatKeys does not round-trip ParseKeys(%q) (-first +second):\n%s", s, diff)
		}
	})
}

// FuzzParamsDigest checks that ParamsDigest never panics and that the
// digest does not change when the params are re-serialized: indented, or
// in canonical member order.
func FuzzParamsDigest(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `1`, `"s"`, `}`, `{"a":1,"a":2}`, "{\"a\":\"\xff\"}",
		`{"name":"add","arguments":{"a":1,"b":[1,2.5,{"x":"y"}]}}`,
		`{"_meta":{"progressToken":1},"inputResponses":{},"requestState":"x","z":[{"b":1,"a":2}]}`,
		`{"n\u0061me":"\u00e9\u2028","n":1e2,"m":-0,"big":1234567890123456789}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		d, err := reqstate.ParamsDigest(params)
		if err != nil {
			return
		}
		indented := jsontext.Value(bytes.Clone(params))
		if len(bytes.TrimSpace(params)) > 0 {
			if err := indented.Indent(); err != nil {
				t.Fatalf("ParamsDigest accepted %q that jsontext cannot indent: %v", params, err)
			}
		}
		if d2, err := reqstate.ParamsDigest(indented); err != nil || d2 != d {
			t.Fatalf("indented %q: digest %x, %v; want %x", indented, d2, err, d)
		}
		reordered := jsontext.Value(bytes.Clone(params))
		if len(bytes.TrimSpace(params)) > 0 {
			if err := reordered.Canonicalize(jsontext.CanonicalizeRawInts(false), jsontext.CanonicalizeRawFloats(false)); err != nil {
				t.Fatalf("ParamsDigest accepted %q that jsontext cannot canonicalize: %v", params, err)
			}
		}
		if d2, err := reqstate.ParamsDigest(reordered); err != nil || d2 != d {
			t.Fatalf("reordered %q: digest %x, %v; want %x", reordered, d2, err, d)
		}
	})
}
