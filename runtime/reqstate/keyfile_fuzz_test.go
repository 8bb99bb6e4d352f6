package reqstate

import (
	"strings"
	"testing"
)

// FuzzParseKeyFile checks that parseKeyFile never panics, that what it
// accepts is a non-empty list of valid keys with distinct IDs, that the
// keys written back one per line read the same, and that its errors name a
// line or say that there is no key.
func FuzzParseKeyFile(f *testing.F) {
	k1 := Key{ID: "k1"}
	k2 := Key{ID: "2026-07_b"}
	for i := range k1.Secret {
		k1.Secret[i], k2.Secret[i] = byte(i+1), byte(255-i)
	}
	for _, seed := range []string{
		FormatKeys(k1),
		FormatKeys(k1, k2),
		"# keys\n" + FormatKeys(k2) + "\r\n\n" + FormatKeys(k1) + "\n",
		FormatKeys(k1) + "\n" + FormatKeys(k1),
		"k1:\n",
		"\n#\n",
		"k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		":,:\n,",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := parseKeyFile(data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "line ") && !strings.HasPrefix(msg, "no key") {
				t.Fatalf("error names no line: %v", err)
			}
			return
		}
		if len(keys) == 0 {
			t.Fatal("no error and no key")
		}
		seen := make(map[string]bool)
		var lines []string
		for _, k := range keys {
			if err := k.check(); err != nil {
				t.Fatalf("accepted an invalid key: %v", err)
			}
			if seen[k.ID] {
				t.Fatalf("accepted key ID %q twice", k.ID)
			}
			seen[k.ID] = true
			lines = append(lines, FormatKeys(k))
		}
		again, err := parseKeyFile([]byte(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatalf("the keys written back do not read: %v", err)
		}
		if len(again) != len(keys) {
			t.Fatalf("read back %d keys, want %d", len(again), len(keys))
		}
		for i := range keys {
			if again[i] != keys[i] {
				t.Fatalf("key %d read back as %v, want %v", i, again[i], keys[i])
			}
		}
	})
}
