package reqstate_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

// writeKeyFile writes text to path with mode perm, as an operator does:
// into a temporary file renamed over the old one, so that a reader sees
// the old file or the new, never half of one.
func writeKeyFile(t testing.TB, path, text string, perm os.FileMode) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// WriteFile's mode passes through the umask; Chmod does not.
	if err := os.Chmod(tmp, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// keyLines returns the key file text of keys, one per line.
func keyLines(keys ...reqstate.Key) string {
	var b strings.Builder
	b.WriteString("# requestState keys: the first seals\n")
	for _, k := range keys {
		b.WriteString(reqstate.FormatKeys(k) + "\n")
	}
	return b.String()
}

// mustOpenKeyFile opens path, failing the test on error.
func mustOpenKeyFile(t testing.TB, path string, opts reqstate.KeyFileOptions) *reqstate.KeyFile {
	t.Helper()
	f, err := reqstate.OpenKeyFile(path, opts)
	if err != nil {
		t.Fatalf("OpenKeyFile: %v", err)
	}
	return f
}

// Two instances that read the same file open each other's states.
func TestKeyFileSharedByInstances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	writeKeyFile(t, path, keyLines(testKey("k2", 2), testKey("k1", 1)), 0o600)
	a := &reqstate.Sealer{Ring: mustOpenKeyFile(t, path, reqstate.KeyFileOptions{}).Ring()}
	b := &reqstate.Sealer{Ring: mustOpenKeyFile(t, path, reqstate.KeyFileOptions{}).Ring()}
	bind := binding(t, "tools/call", `{"name":"deploy"}`, "alice")
	tests := []struct {
		name       string
		seal, open *reqstate.Sealer
	}{
		{"A to B", a, b},
		{"B to A", b, a},
		{"A to A", a, a},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, err := tt.seal.Seal(bind, []byte("step 2"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tt.open.Open(state, bind)
			if err != nil || string(got) != "step 2" {
				t.Fatalf("Open = %q, %v; want step 2", got, err)
			}
		})
	}
	// The first line seals: a ring of k2 alone opens what A seals.
	state, err := a.Seal(bind, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&reqstate.Sealer{Ring: mustRing(t, testKey("k2", 2))}).Open(state, bind); err != nil {
		t.Errorf("the first key of the file does not seal: %v", err)
	}
}

// A rotation written in two steps: every state opens on both instances
// until its key's grace ends, TTL plus Interval after the reload that saw
// the key go, and then fails as sealed by an unknown key.
func TestKeyFileRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	oldKey, newKey := testKey("old", 1), testKey("new", 2)
	writeKeyFile(t, path, keyLines(oldKey), 0o600)
	c := &clock{t: t0}
	const ttl, interval = 10 * time.Minute, time.Minute
	opts := reqstate.KeyFileOptions{TTL: ttl, Interval: interval, Now: c.Now}
	fa, fb := mustOpenKeyFile(t, path, opts), mustOpenKeyFile(t, path, opts)
	a := &reqstate.Sealer{Ring: fa.Ring(), TTL: ttl, Now: c.Now}
	b := &reqstate.Sealer{Ring: fb.Ring(), TTL: ttl, Now: c.Now}
	bind := binding(t, "tools/call", `{"name":"deploy"}`, "alice")
	seal := func(s *reqstate.Sealer) string {
		t.Helper()
		state, err := s.Seal(bind, []byte("p"))
		if err != nil {
			t.Fatal(err)
		}
		return state
	}
	reload := func(f *reqstate.KeyFile) {
		t.Helper()
		if err := f.Reload(); err != nil {
			t.Fatalf("Reload: %v", err)
		}
	}

	// Step 1: the new key on the second line, read by both.
	writeKeyFile(t, path, keyLines(oldKey, newKey), 0o600)
	reload(fa)
	reload(fb)
	if got, want := fa.Ring().IDs(), []string{"old", "new"}; !slices.Equal(got, want) {
		t.Fatalf("after step 1, IDs = %v, want %v", got, want)
	}
	// Step 2, at t0+1m: the new key alone. A reads it at once, B a poll
	// later, and seals with the old key just before.
	c.Set(t0.Add(time.Minute))
	writeKeyFile(t, path, keyLines(newKey), 0o600)
	reload(fa)
	sealedNew := seal(a)
	c.Set(t0.Add(2*time.Minute - time.Second))
	sealedOld := seal(b)
	c.Set(t0.Add(2 * time.Minute))
	reload(fb)
	if got, want := fb.Ring().IDs(), []string{"new", "old"}; !slices.Equal(got, want) {
		t.Fatalf("after step 2, IDs = %v, want %v (the old key leaving)", got, want)
	}

	// A's grace for the old key ends at t0+1m+TTL+Interval = t0+12m, just
	// after the last state B sealed with it expires.
	graceEnd := t0.Add(time.Minute + ttl + interval)
	tests := []struct {
		name  string
		at    time.Time
		state string
		open  *reqstate.Sealer
		want  string // kindOf the error
	}{
		{"old key, on A, before the grace ends", graceEnd.Add(-2 * time.Second), sealedOld, a, "<nil>"},
		{"old key, on B, before the grace ends", graceEnd.Add(-2 * time.Second), sealedOld, b, "<nil>"},
		{"new key, on B, within the TTL", t0.Add(ttl), sealedNew, b, "<nil>"},
		{"old key, on A, when the grace ends", graceEnd, sealedOld, a, "ErrUnknownKey"},
		{"old key, on B, after its grace", graceEnd.Add(time.Minute), sealedOld, b, "ErrUnknownKey"},
		{"new key, on A, expired", t0.Add(time.Minute + ttl), sealedNew, a, "ErrExpired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Set(tt.at)
			_, err := tt.open.Open(tt.state, bind)
			if got := kindOf(err); got != tt.want {
				t.Errorf("Open at %v = %s, want %s", tt.at.Sub(t0), got, tt.want)
			}
		})
	}
	// A fresh state under the new key opens on the other instance after
	// the old key is gone, and the next reload drops the old key.
	c.Set(graceEnd.Add(time.Hour))
	if _, err := b.Open(seal(a), bind); err != nil {
		t.Errorf("new key after the rotation: %v", err)
	}
	reload(fa)
	if got, want := fa.Ring().IDs(), []string{"new"}; !slices.Equal(got, want) {
		t.Errorf("after the grace, IDs = %v, want %v", got, want)
	}
}

// Reload makes the file's first key the primary, keeps a key that comes
// back while leaving, and refuses a known ID with another secret.
func TestKeyFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	c := &clock{t: t0}
	k1, k2, k3 := testKey("k1", 1), testKey("k2", 2), testKey("k3", 3)
	writeKeyFile(t, path, keyLines(k1), 0o600)
	f := mustOpenKeyFile(t, path, reqstate.KeyFileOptions{Now: c.Now})
	bind := binding(t, "tools/call", `{"name":"deploy"}`, "alice")
	steps := []struct {
		name    string
		text    string
		perm    os.FileMode
		wantIDs []string
		wantErr string // part of the error of Reload; "" for none
	}{
		{"a new primary", keyLines(k2, k1), 0o600, []string{"k2", "k1"}, ""},
		{"the old key removed", keyLines(k2), 0o400, []string{"k2", "k1"}, ""},
		{"it comes back first", keyLines(k1, k2), 0o440, []string{"k1", "k2"}, ""},
		{"its ID with another secret", keyLines(k3, reqstate.Key{ID: "k2", Secret: k3.Secret}), 0o600, []string{"k1", "k2"}, `key ID "k2" is in use with another secret`},
		{"readable by others", keyLines(k3), 0o644, []string{"k1", "k2"}, "can be read by other users (mode 0644)"},
		{"malformed", keyLines(k3) + "k4:short\n", 0o600, []string{"k1", "k2"}, "line 3: key list entry 1 (\"k4\"): secret is 5 characters, want 43"},
		{"the same file again", keyLines(k1, k2), 0o600, []string{"k1", "k2"}, ""},
	}
	for _, st := range steps {
		writeKeyFile(t, path, st.text, st.perm)
		err := f.Reload()
		switch {
		case st.wantErr == "" && err != nil:
			t.Errorf("%s: Reload: %v", st.name, err)
		case st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr)):
			t.Errorf("%s: Reload = %v, want an error with %q", st.name, err, st.wantErr)
		}
		if diff := cmp.Diff(st.wantIDs, f.Ring().IDs()); diff != "" {
			t.Errorf("%s: IDs (-want +got):\n%s", st.name, diff)
		}
		// The primary seals: a ring of it alone opens the state.
		state, err := (&reqstate.Sealer{Ring: f.Ring(), Now: c.Now}).Seal(bind, nil)
		if err != nil {
			t.Fatal(err)
		}
		primary := map[string]reqstate.Key{"k1": k1, "k2": k2}[st.wantIDs[0]]
		if _, err := (&reqstate.Sealer{Ring: mustRing(t, primary), Now: c.Now}).Open(state, bind); err != nil {
			t.Errorf("%s: the state is not sealed by %s: %v", st.name, primary.ID, err)
		}
	}
}

// OpenKeyFile refuses a file others can read, a malformed one (naming the
// line, never quoting a secret), and one that is not a small regular file.
func TestOpenKeyFileRefuses(t *testing.T) {
	dir := t.TempDir()
	good := reqstate.FormatKeys(testKey("k1", 1))
	secret := good[len("k1:"):]
	tests := []struct {
		name string
		text string
		perm os.FileMode
		want string // part of the error; "" for none
	}{
		{"owner only", good, 0o600, ""},
		{"owner and group", good, 0o640, ""},
		{"read only", good + "\n", 0o400, ""},
		{"CRLF and comments", "  # keys\r\n\r\n" + good + "\r\n", 0o600, ""},
		{"world-readable", good, 0o644, "can be read by other users (mode 0644)"},
		{"readable by others only", good, 0o604, "can be read by other users (mode 0604)"},
		{"no key", "# nothing yet\n\n", 0o600, "no key in the file"},
		{"empty", "", 0o600, "no key in the file"},
		{"no colon", "# keys\nk1" + secret + "\n", 0o600, "line 2: key list entry 1 has no ':'"},
		{"bad ID", good + "\nk.2:" + secret + "\n", 0o600, `line 2: key list entry 1: key ID "k.2" has a character`},
		{"ID twice across lines", good + "\n" + good + "\n", 0o600, `line 2: key list entry 1: key ID "k1" appears twice`},
		{"ID twice on a line", "\n\n" + good + "," + good, 0o600, `line 3: key list entry 2: key ID "k1" appears twice`},
		{"padded secret", good + "=", 0o600, "line 1: key list entry 1 (\"k1\"): secret is 44 characters, want 43"},
		{"zero secret", reqstate.FormatKeys(reqstate.Key{ID: "k0"}), 0o600, `line 1: key list entry 1: key "k0" has an all-zero secret`},
		{"too large", good + "\n" + strings.Repeat("#", 64<<10), 0o600, "larger than 65536 bytes"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "keys"+string(rune('a'+i)))
			writeKeyFile(t, path, tt.text, tt.perm)
			_, err := reqstate.OpenKeyFile(path, reqstate.KeyFileOptions{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("OpenKeyFile: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("OpenKeyFile = %v, want an error with %q", err, tt.want)
			}
			if err != nil && (!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), secret)) {
				t.Errorf("the error should name the file and not quote the secret: %v", err)
			}
		})
	}
	for _, path := range []string{dir, filepath.Join(dir, "missing")} {
		if _, err := reqstate.OpenKeyFile(path, reqstate.KeyFileOptions{}); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenKeyFile(%s) = %v, want an error naming it", path, err)
		}
	}
}

// Watch reports a bad file, keeps the keys meanwhile, applies the next
// good one, and returns when its context ends.
func TestKeyFileWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	writeKeyFile(t, path, keyLines(testKey("k1", 1)), 0o600)
	f := mustOpenKeyFile(t, path, reqstate.KeyFileOptions{Interval: time.Millisecond}) // raised to a second
	errs := make(chan error, 100)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.Watch(ctx, func(err error) {
			select {
			case errs <- err:
			default:
			}
		})
	}()
	defer func() {
		cancel()
		wg.Wait()
	}()

	writeKeyFile(t, path, "k2:nope\n", 0o600)
	select {
	case err := <-errs:
		if !strings.Contains(err.Error(), "line 1:") {
			t.Errorf("reported %v, want the line named", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Watch reported no error for a malformed file in 20s")
	}
	if got := f.Ring().IDs(); !slices.Equal(got, []string{"k1"}) {
		t.Errorf("after a bad file, IDs = %v, want [k1]", got)
	}

	writeKeyFile(t, path, keyLines(testKey("k2", 2), testKey("k1", 1)), 0o600)
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 2000 && !slices.Equal(f.Ring().IDs(), []string{"k2", "k1"}); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("Watch did not apply the new file in 20s: IDs = %v", f.Ring().IDs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := f.Ring().IDs(); !slices.Equal(got, []string{"k2", "k1"}) {
		t.Fatalf("IDs = %v, want [k2 k1]", got)
	}
}
