package schema

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPins(t *testing.T) {
	if pinsErr != nil {
		t.Fatalf("loading pins: %v", pinsErr)
	}
	want := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	if diff := cmp.Diff(want, Revisions()); diff != "" {
		t.Fatalf("Revisions() mismatch (-want +got):\n%s", diff)
	}
	hexRE := regexp.MustCompile(`^[0-9a-f]{64}$`)
	commitRE := regexp.MustCompile(`^[0-9a-f]{40}$`)
	for _, rev := range want {
		t.Run(rev, func(t *testing.T) {
			pin, err := Lookup(rev)
			if err != nil {
				t.Fatal(err)
			}
			checks := []struct {
				name string
				ok   bool
			}{
				{"revision", pin.Revision == rev},
				{"sha256 is 64 hex", hexRE.MatchString(pin.SHA256)},
				{"commit is 40 hex", commitRE.MatchString(pin.Commit)},
				{"url is https", strings.HasPrefix(pin.URL, "https://")},
				{"url contains commit", strings.Contains(pin.URL, "/"+pin.Commit+"/")},
				{"url contains revision", strings.Contains(pin.URL, "/"+rev+"/")},
				{"url ends in schema.json", strings.HasSuffix(pin.URL, "/schema.json")},
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("pin %+v: %s: false", pin, c.name)
				}
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("2000-01-01")
	if err == nil {
		t.Fatal("Lookup(2000-01-01) succeeded")
	}
	for _, rev := range Revisions() {
		if !strings.Contains(err.Error(), rev) {
			t.Errorf("error %q does not list %s", err, rev)
		}
	}
}

func TestFindRoot(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "schema", "schema.go")); err != nil {
		t.Errorf("FindRoot(.) = %s, which has no schema/schema.go: %v", root, err)
	}

	// A nested module with another path is skipped.
	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "go.mod"), []byte("// c\nmodule "+ModulePath+" // x\n\ngo 1.25\n"))
	nested := filepath.Join(tmp, "bench", "sub")
	writeFile(t, filepath.Join(tmp, "bench", "go.mod"), []byte("module github.com/mcpgen/mcpgen/bench\n"))
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := FindRoot(nested)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tmp, got); diff != "" {
		t.Errorf("FindRoot(nested) mismatch (-want +got):\n%s", diff)
	}

	if got, err := FindRoot(filepath.Join(tmp, "bench")); err != nil || got != tmp {
		t.Errorf("FindRoot(bench) = %q, %v; want %q", got, err, tmp)
	}
}

func TestPathAndDefaultMirror(t *testing.T) {
	if got, want := Path("/r", "2025-06-18"), filepath.FromSlash("/r/schema/2025-06-18/schema.json"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	tmp := t.TempDir()
	root := filepath.Join(tmp, "main")
	if got := DefaultMirror(root); got != "" {
		t.Errorf("DefaultMirror without mirror = %q, want empty", got)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "shared", "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := DefaultMirror(root), filepath.Join(tmp, "shared", "schema"); got != want {
		t.Errorf("DefaultMirror = %q, want %q", got, want)
	}
}

// realMirror returns a mirror directory holding a copy of every pinned
// schema: the repository's materialized file, else $MCPGEN_SCHEMA_MIRROR's
// (as internal/schematest finds them for the other packages; it imports
// this one, so cannot serve its tests).
func realMirror(t *testing.T) string {
	t.Helper()
	repo, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	mirror := t.TempDir()
	for _, rev := range Revisions() {
		srcs := []string{Path(repo, rev)}
		if env := os.Getenv("MCPGEN_SCHEMA_MIRROR"); env != "" {
			srcs = append(srcs, filepath.Join(env, rev, "schema.json"))
		}
		var data []byte
		for _, src := range srcs {
			if data, err = os.ReadFile(src); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("no schema of %s in %s: materialize them with `go run ./cmd/mcpgen schema` in %s, or set MCPGEN_SCHEMA_MIRROR to a directory holding %s",
				rev, strings.Join(srcs, " or "), repo, filepath.Join(rev, "schema.json"))
		}
		writeFile(t, filepath.Join(mirror, rev, "schema.json"), data)
	}
	return mirror
}

// TestMaterializeRealMirror materializes every pinned revision from a
// mirror of the real schema files, into a temporary root, and checks their
// sha256 against the pins.
func TestMaterializeRealMirror(t *testing.T) {
	mirror := realMirror(t)
	root := t.TempDir()
	ctx := context.Background()
	for _, rev := range Revisions() {
		t.Run(rev, func(t *testing.T) {
			res, err := MaterializeResult(ctx, rev, Options{Root: root, Mirror: mirror, Offline: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Result{Path: Path(root, rev), Source: FromMirror}, res); diff != "" {
				t.Errorf("first run mismatch (-want +got):\n%s", diff)
			}
			path, err := Materialize(ctx, rev, Options{Root: root, Offline: true})
			if err != nil {
				t.Fatal(err)
			}
			if path != Path(root, rev) {
				t.Errorf("Materialize path = %q, want %q", path, Path(root, rev))
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			pin, _ := Lookup(rev)
			if got := sum(data); got != pin.SHA256 {
				t.Errorf("materialized sha256 %s, want %s", got, pin.SHA256)
			}
		})
	}
}

func TestMaterializeUnknownRevision(t *testing.T) {
	_, err := Materialize(context.Background(), "1999-01-01", Options{Root: t.TempDir(), Offline: true})
	if err == nil || !strings.Contains(err.Error(), "unknown revision") {
		t.Fatalf("err = %v, want unknown revision", err)
	}
}

func TestMaterializeWith(t *testing.T) {
	const rev = "2099-01-02"
	good := []byte(`{"good": true}`)
	bad := []byte(`{"good": false}`)
	huge := make([]byte, maxSchemaSize+1)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good":
			w.Write(good)
		case "/bad":
			w.Write(bad)
		case "/huge":
			w.Write(huge)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	tests := []struct {
		name    string
		mirror  []byte // nil: mirror lacks the file
		noMirr  bool   // no mirror directory at all
		cached  []byte // nil: destination absent
		urlPath string
		offline bool

		wantSource Source
		wantErr    []string // substrings; nil: success
	}{
		{name: "mirror", mirror: good, urlPath: "/bad", wantSource: FromMirror},
		{name: "mirror replaces bad cache", mirror: good, cached: bad, offline: true, wantSource: FromMirror},
		{name: "mirror over good cache", mirror: good, cached: good, offline: true, wantSource: FromMirror},
		{name: "bad mirror refused", mirror: bad, urlPath: "/good",
			wantErr: []string{"mirror", rev, "schema.json", sum(good), sum(bad)}},
		{name: "bad mirror keeps cache", mirror: bad, cached: good,
			wantErr: []string{sum(good), sum(bad)}},
		{name: "cache", cached: good, urlPath: "/bad", wantSource: FromCache},
		{name: "cache without mirror dir", noMirr: true, cached: good, offline: true, wantSource: FromCache},
		{name: "download", urlPath: "/good", wantSource: FromDownload},
		{name: "download replaces bad cache", cached: bad, urlPath: "/good", wantSource: FromDownload},
		{name: "bad download refused", urlPath: "/bad",
			wantErr: []string{"/bad", sum(good), sum(bad)}},
		{name: "bad download keeps bad cache", cached: bad, urlPath: "/bad",
			wantErr: []string{sum(good), sum(bad)}},
		{name: "download 404", urlPath: "/missing", wantErr: []string{"404"}},
		{name: "download too large", urlPath: "/huge", wantErr: []string{"larger than"}},
		{name: "offline with nothing", offline: true, urlPath: "/good",
			wantErr: []string{"offline", "does not exist", "not downloading"}},
		{name: "offline without mirror", noMirr: true, offline: true, urlPath: "/good",
			wantErr: []string{"offline", "no mirror given"}},
		{name: "offline with bad cache", cached: bad, offline: true, urlPath: "/good",
			wantErr: []string{"offline", sum(good), sum(bad)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			root := filepath.Join(tmp, "root")
			mirror := filepath.Join(tmp, "mirror")
			if err := os.MkdirAll(mirror, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.noMirr {
				mirror = ""
			}
			if tt.mirror != nil {
				writeFile(t, filepath.Join(mirror, rev, "schema.json"), tt.mirror)
			}
			dst := Path(root, rev)
			if tt.cached != nil {
				writeFile(t, dst, tt.cached)
			}
			pin := Pin{Revision: rev, URL: srv.URL + tt.urlPath, Commit: strings.Repeat("0", 40), SHA256: sum(good)}

			res, err := materializeWith(context.Background(), pin, Options{
				Root: root, Mirror: mirror, Offline: tt.offline, HTTPClient: srv.Client(),
			})

			got, readErr := os.ReadFile(dst)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("succeeded with %+v, want error", res)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				// The destination is untouched.
				if tt.cached == nil {
					if !errors.Is(readErr, fs.ErrNotExist) {
						t.Errorf("destination exists after error (read err %v)", readErr)
					}
				} else if diff := cmp.Diff(string(tt.cached), string(got)); diff != "" {
					t.Errorf("destination changed (-want +got):\n%s", diff)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(Result{Path: dst, Source: tt.wantSource}, res); diff != "" {
					t.Errorf("result mismatch (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(string(good), string(got)); diff != "" {
					t.Errorf("destination mismatch (-want +got):\n%s", diff)
				}
			}
			// No temporary files are left behind.
			entries, _ := os.ReadDir(filepath.Dir(dst))
			for _, e := range entries {
				if e.Name() != "schema.json" {
					t.Errorf("leftover file %s", e.Name())
				}
			}
		})
	}
}

func TestMaterializeWithBadPin(t *testing.T) {
	tests := []struct {
		name string
		pin  Pin
		want string
	}{
		{"path traversal", Pin{Revision: "../x", URL: "http://x", SHA256: strings.Repeat("a", 64)}, "YYYY-MM-DD"},
		{"short sha", Pin{Revision: "2099-01-01", URL: "http://x", SHA256: "abc"}, "sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := materializeWith(context.Background(), tt.pin, Options{Root: t.TempDir(), Offline: true})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
