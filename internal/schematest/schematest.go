// Package schematest gives the tests of this repository the pinned official
// schema files, without the network and without any directory beside the
// checkout: from the repository, where "go run ./cmd/mcpgen schema" (which
// scripts/test runs first) materializes them as schema/<rev>/schema.json,
// or else from the directory that $MCPGEN_SCHEMA_MIRROR names, laid out
// <rev>/schema.json. Every file is checked against its pin's sha256.
package schematest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

// mirrorEnv names the environment variable of the mirror directory, as the
// mcpgen command reads it.
const mirrorEnv = "MCPGEN_SCHEMA_MIRROR"

// envMirror is $MCPGEN_SCHEMA_MIRROR as the test binary started with it, so
// that a test may clear the variable for the code it tests and still find
// the schemas here.
var envMirror = os.Getenv(mirrorEnv)

// File returns the absolute path of the official schema of the pinned
// revision rev: schema/<rev>/schema.json in the repository if it has the
// pinned sha256, else <$MCPGEN_SCHEMA_MIRROR>/<rev>/schema.json if that one
// has. It fails the test naming the places it looked at and how to fill one.
func File(t testing.TB, rev string) string {
	t.Helper()
	path, err := find(repoRoot(t), envMirror, rev)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Data returns the bytes of File(t, rev).
func Data(t testing.TB, rev string) []byte {
	t.Helper()
	data, err := os.ReadFile(File(t, rev))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Mirror returns a new directory, laid out <rev>/schema.json as a mirror,
// holding a copy of the official schema of each of revs (every pinned
// revision when revs is empty), each found as File finds it. The directory
// is removed when the test ends.
func Mirror(t testing.TB, revs ...string) string {
	t.Helper()
	if len(revs) == 0 {
		revs = schema.Revisions()
	}
	dir := filepath.Join(t.TempDir(), "mirror")
	for _, rev := range revs {
		data := Data(t, rev)
		if err := os.MkdirAll(filepath.Join(dir, rev), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rev, "schema.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// find returns the first of the file of rev in the repository rooted at
// root and the one in the mirror directory mirror ("" for none) that has the
// pinned sha256 of rev.
func find(root, mirror, rev string) (string, error) {
	pin, err := schema.Lookup(rev)
	if err != nil {
		return "", err
	}
	candidates := []string{schema.Path(root, rev)}
	if mirror != "" {
		candidates = append(candidates, filepath.Join(mirror, rev, "schema.json"))
	}
	path, problems, err := firstPinned(candidates, pin.SHA256, "schema/"+rev+"/pin.json says")
	if path != "" || err != nil {
		return path, err
	}
	if mirror == "" {
		problems = append(problems, mirrorEnv+" is not set")
	}
	return "", fmt.Errorf("no official schema of %s with its pinned sha256:\n\t%s\n"+
		"materialize the schemas with `go run ./cmd/mcpgen schema` in %s "+
		"(it downloads them, or copies them from the directory %s names, laid out <rev>/schema.json), "+
		"or set %s for the tests",
		rev, strings.Join(problems, "\n\t"), root, mirrorEnv, mirrorEnv)
}

// Extension returns the absolute path of the schema of the extension name
// (such as "ext-tasks"), checked against its pin
// (schema/<name>/pin.json): schema/<name>/schema.json in the repository
// (written by `go run ./cmd/mcpgen schema`), or else
// <$MCPGEN_SCHEMA_MIRROR>/<name>/schema.json. It fails the test naming the
// places it looked at.
func Extension(t testing.TB, name string) string {
	t.Helper()
	path, err := findExtension(repoRoot(t), envMirror, name)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// findExtension is find for the extension name.
func findExtension(root, mirror, name string) (string, error) {
	pin, err := schema.LookupExtension(name)
	if err != nil {
		return "", err
	}
	candidates := []string{schema.Path(root, name)}
	if mirror != "" {
		candidates = append(candidates, filepath.Join(mirror, name, "schema.json"))
	}
	path, problems, err := firstPinned(candidates, pin.SHA256, "schema/"+name+"/pin.json says")
	if path != "" || err != nil {
		return path, err
	}
	if mirror == "" {
		problems = append(problems, mirrorEnv+" is not set")
	}
	return "", fmt.Errorf("no schema of the extension %s with its pinned sha256:\n\t%s\n"+
		"materialize the schemas with `go run ./cmd/mcpgen schema` in %s, "+
		"or set %s to a directory laid out <name>/schema.json that holds it",
		name, strings.Join(problems, "\n\t"), root, mirrorEnv)
}

// repoRoot returns the root of the repository the test runs in.
func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.FindRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// firstPinned returns the absolute path of the first of candidates whose
// sha256 is want, or "" and a line per candidate saying why it is not
// (pinSays introduces the wanted sum in that line). Only an error other
// than a missing file is returned as an error.
func firstPinned(candidates []string, want, pinSays string) (string, []string, error) {
	var problems []string
	for _, path := range candidates {
		path, err := filepath.Abs(path)
		if err != nil {
			return "", nil, err
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, path+" does not exist")
			continue
		}
		if err != nil {
			return "", nil, err
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			problems = append(problems, fmt.Sprintf("%s has sha256 %s, but %s %s", path, got, pinSays, want))
			continue
		}
		return filepath.Clean(path), nil, nil
	}
	return "", problems, nil
}
