package schematest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	const rev = "2025-06-18"
	good := Data(t, rev)
	write := func(dir string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, rev), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rev, "schema.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := []byte(`{"not":"the pinned schema"}`)
	tests := []struct {
		name      string
		repo      []byte // the repository's schema/<rev>/schema.json, nil for none
		mirror    []byte // the mirror's <rev>/schema.json, nil for none
		noMirror  bool   // MCPGEN_SCHEMA_MIRROR not set
		want      string // "repo" or "mirror", "" for an error
		wantError []string
	}{
		{name: "repository", repo: good, mirror: good, want: "repo"},
		{name: "repository, no mirror", repo: good, noMirror: true, want: "repo"},
		{name: "mirror", mirror: good, want: "mirror"},
		{name: "repository stale, mirror", repo: bad, mirror: good, want: "mirror"},
		{name: "neither", wantError: []string{"no official schema of 2025-06-18", "does not exist", "go run ./cmd/mcpgen schema", "MCPGEN_SCHEMA_MIRROR"}},
		{name: "neither, no mirror", noMirror: true, wantError: []string{"MCPGEN_SCHEMA_MIRROR is not set", "go run ./cmd/mcpgen schema"}},
		{name: "both stale", repo: bad, mirror: bad, wantError: []string{"has sha256", "but schema/2025-06-18/pin.json says"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			mirror := filepath.Join(t.TempDir(), "mirror")
			if tt.repo != nil {
				write(filepath.Join(root, "schema"), tt.repo)
			}
			if tt.mirror != nil {
				write(mirror, tt.mirror)
			}
			if tt.noMirror {
				mirror = ""
			}
			got, err := find(root, mirror, rev)
			switch tt.want {
			case "repo":
				if want := filepath.Join(root, "schema", rev, "schema.json"); err != nil || got != want {
					t.Errorf("find = %q, %v; want %q", got, err, want)
				}
			case "mirror":
				if want := filepath.Join(mirror, rev, "schema.json"); err != nil || got != want {
					t.Errorf("find = %q, %v; want %q", got, err, want)
				}
			default:
				if err == nil {
					t.Fatalf("find = %q, want an error", got)
				}
				for _, want := range tt.wantError {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("the error does not say %q:\n%v", want, err)
					}
				}
			}
		})
	}
	if _, err := find(t.TempDir(), "", "2001-01-01"); err == nil || !strings.Contains(err.Error(), "unknown revision") {
		t.Errorf("an unpinned revision: %v, want an unknown revision error", err)
	}
}

func TestMirror(t *testing.T) {
	dir := Mirror(t, "2025-03-26", "2025-11-25")
	for _, rev := range []string{"2025-03-26", "2025-11-25"} {
		got, err := os.ReadFile(filepath.Join(dir, rev, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if want := Data(t, rev); string(got) != string(want) {
			t.Errorf("the mirror's %s differs from File's", rev)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("the mirror holds %d entries, want the 2 revisions asked for", len(entries))
	}
}

// TestFindExtension checks that the materialized extension schema is found
// before the mirror's, that one with another sha256 is passed over, and
// that a missing one is an error naming every place looked at.
func TestFindExtension(t *testing.T) {
	data, err := os.ReadFile(Extension(t, "ext-tasks"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(dir string, data []byte) string {
		path := filepath.Join(dir, "ext-tasks", "schema.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good, stale := t.TempDir(), t.TempDir()
	inRepo := put(filepath.Join(good, "schema"), data)
	put(filepath.Join(stale, "schema"), append([]byte(" "), data...))
	mirror := t.TempDir()
	inMirror := put(mirror, data)
	for _, tt := range []struct {
		name, root, mirror, want string
	}{
		{"materialized", good, mirror, inRepo},
		{"a stale copy in the repository, the mirror's", stale, mirror, inMirror},
	} {
		got, err := findExtension(tt.root, tt.mirror, "ext-tasks")
		if err != nil || got != tt.want {
			t.Errorf("%s: findExtension = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	root, empty := t.TempDir(), t.TempDir()
	for _, tt := range []struct{ mirror, want string }{
		{empty, filepath.Join(empty, "ext-tasks", "schema.json") + " does not exist"},
		{"", "MCPGEN_SCHEMA_MIRROR is not set"},
	} {
		_, err := findExtension(root, tt.mirror, "ext-tasks")
		if err == nil || !strings.Contains(err.Error(), tt.want) ||
			!strings.Contains(err.Error(), filepath.Join(root, "schema", "ext-tasks", "schema.json")) {
			t.Errorf("mirror %q: error %v, want one naming %q and the repository's copy", tt.mirror, err, tt.want)
		}
	}
	if _, err := findExtension(root, "", "ext-nothing"); err == nil {
		t.Error("an unpinned extension was found")
	}
}
