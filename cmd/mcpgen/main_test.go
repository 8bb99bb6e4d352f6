package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/schema"
)

// result is what one run of mcpgen gave.
type result struct {
	code           int
	stdout, stderr string
}

func runMcpgen(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// setRoot makes the commands use root as the repository root.
func setRoot(t *testing.T, root string) {
	t.Helper()
	old := findRoot
	findRoot = func() (string, error) { return root, nil }
	t.Cleanup(func() { findRoot = old })
}

// setGenerate replaces the generator with fn.
func setGenerate(t *testing.T, fn func(generator.Config) ([]generator.File, error)) {
	t.Helper()
	old := generateFiles
	generateFiles = fn
	t.Cleanup(func() { generateFiles = old })
}

func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	setRoot(t, filepath.Join(tmp, "noroot"))
	setGenerate(t, func(generator.Config) ([]generator.File, error) {
		return nil, errors.New("boom")
	})
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}{
		{"no args", nil, 2, "", "Commands:"},
		{"help", []string{"help"}, 0, "Commands:", ""},
		{"-h", []string{"-h"}, 0, "generate", ""},
		{"--help", []string{"--help"}, 0, "schema", ""},
		{"help command", []string{"help", "generate"}, 0, "--revision", ""},
		{"help unknown", []string{"help", "nope"}, 2, "", `unknown command "nope"`},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"version", []string{"version"}, 0, "mcpgen ", ""},
		{"version extra", []string{"version", "x"}, 2, "", "unexpected arguments"},
		{"generate help", []string{"generate", "--help"}, 0, "--check", ""},
		{"generate bad flag", []string{"generate", "--nope"}, 2, "", "unknown flag: --nope"},
		{"generate missing revision", []string{"generate", "--out", tmp}, 2, "", "--revision is required"},
		{"generate missing out", []string{"generate", "--revision", "2025-06-18"}, 2, "", "--out is required"},
		{"generate bad revision", []string{"generate", "--revision", "june", "--out", tmp}, 2, "", "YYYY-MM-DD"},
		{"generate unpinned", []string{"generate", "--revision", "2001-01-01", "--out", tmp}, 2, "", "--schema FILE"},
		{"generate bad package", []string{"generate", "--revision", "2025-06-18", "--out", tmp, "--package", "a-b"}, 2, "", "not a valid Go package name"},
		{"generate positional", []string{"generate", "--revision", "2025-06-18", "--out", tmp, "x"}, 2, "", "unexpected arguments"},
		{"generate error", []string{"generate", "--revision", "2001-01-01", "--schema", "s.json", "--out", tmp}, 1, "", "mcpgen generate: boom"},
		{"schema bad flag", []string{"schema", "--nope"}, 2, "", "Usage:"},
		{"schema unknown revision", []string{"schema", "--revision", "2001-01-01"}, 2, "", "unknown revision"},
		{"schema bad mirror", []string{"schema", "--mirror", filepath.Join(tmp, "absent")}, 1, "", "--mirror"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMcpgen(tt.args...)
			if got.code != tt.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got.code, tt.wantCode, got.stdout, got.stderr)
			}
			if !strings.Contains(got.stdout, tt.wantStdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.wantStdout, got.stdout)
			}
			if !strings.Contains(got.stderr, tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, got.stderr)
			}
			if tt.wantCode == 2 && !strings.Contains(got.stderr, "Usage:") {
				t.Errorf("usage error without usage on stderr:\n%s", got.stderr)
			}
		})
	}
}

func TestUsageListsCommands(t *testing.T) {
	got := runMcpgen("help")
	for _, c := range append(commands, &command{name: "help"}) {
		if !strings.Contains(got.stdout, "\t"+c.name+" ") {
			t.Errorf("usage does not list %s:\n%s", c.name, got.stdout)
		}
	}
}

func TestGenerateHelpMentionsEveryFlag(t *testing.T) {
	got := runMcpgen("generate", "--help")
	for _, flag := range []string{"--revision", "--schema", "--out", "--package", "--check", "--verbose", "-v"} {
		if !strings.Contains(got.stdout, flag) {
			t.Errorf("generate --help does not mention %s:\n%s", flag, got.stdout)
		}
	}
}

// realMirror returns the schema mirror beside the checkout, or skips.
func realMirror(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo, err := schema.FindRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	m := schema.DefaultMirror(repo)
	if m == "" {
		t.Skip("no schema mirror beside the checkout")
	}
	return m
}

// copyMirror makes a mirror directory holding the real schema of revs.
func copyMirror(t *testing.T, revs ...string) string {
	t.Helper()
	src := realMirror(t)
	dst := filepath.Join(t.TempDir(), "mirror")
	for _, rev := range revs {
		data, err := os.ReadFile(filepath.Join(src, rev, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, rev), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, rev, "schema.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestSchemaCommand(t *testing.T) {
	mirror := copyMirror(t, "2025-06-18", "2025-11-25")
	root := t.TempDir()
	setRoot(t, root)

	got := runMcpgen("schema", "--mirror", mirror, "--offline", "--revision", "2025-06-18,2025-11-25", "--revision", "2025-06-18")
	want := result{0, "2025-06-18: " + filepath.FromSlash("schema/2025-06-18/schema.json") + " (sha256 ok, from mirror)\n" +
		"2025-11-25: " + filepath.FromSlash("schema/2025-11-25/schema.json") + " (sha256 ok, from mirror)\n", ""}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Fatalf("mismatch (-want +got):\n%s", diff)
	}
	for _, rev := range []string{"2025-06-18", "2025-11-25"} {
		if _, err := os.Stat(schema.Path(root, rev)); err != nil {
			t.Errorf("not materialized: %v", err)
		}
	}

	// Again, offline and without a mirror: the files are already there.
	got = runMcpgen("schema", "--offline", "--revision", "2025-06-18")
	want = result{0, "2025-06-18: " + filepath.FromSlash("schema/2025-06-18/schema.json") + " (sha256 ok, from cache)\n", ""}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Fatalf("cached run mismatch (-want +got):\n%s", diff)
	}

	// A revision neither the mirror nor the root has fails, offline.
	got = runMcpgen("schema", "--mirror", mirror, "--offline", "--revision", "2025-03-26,2025-06-18")
	if got.code != 1 || !strings.Contains(got.stderr, "2025-03-26") || !strings.Contains(got.stderr, "offline") {
		t.Errorf("got %+v, want exit 1 naming 2025-03-26 and offline", got)
	}
	if !strings.Contains(got.stdout, "2025-06-18: ") {
		t.Errorf("the other revision was not materialized: %+v", got)
	}
}

func TestGenerateMaterializesSchema(t *testing.T) {
	mirror := copyMirror(t, "2025-06-18")
	tmp := t.TempDir()
	root := filepath.Join(tmp, "main")
	// Lay out root/../shared/schema so that the default mirror finds it.
	if err := os.MkdirAll(filepath.Join(tmp, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(mirror, filepath.Join(tmp, "shared", "schema")); err != nil {
		t.Fatal(err)
	}
	setRoot(t, root)
	var gotCfg generator.Config
	setGenerate(t, func(cfg generator.Config) ([]generator.File, error) {
		gotCfg = cfg
		return nil, nil
	})
	out := filepath.Join(tmp, "out")
	got := runMcpgen("generate", "--revision", "2025-06-18", "--out", out)
	if diff := cmp.Diff(result{}, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Fatalf("mismatch (-want +got):\n%s", diff)
	}
	wantCfg := generator.Config{Revision: "2025-06-18", SchemaPath: schema.Path(root, "2025-06-18"), Package: "mcp20250618"}
	if diff := cmp.Diff(wantCfg, gotCfg); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(wantCfg.SchemaPath); err != nil {
		t.Errorf("schema not materialized: %v", err)
	}
}

func TestGenerateWrite(t *testing.T) {
	setRoot(t, filepath.Join(t.TempDir(), "noroot"))
	header := generatedPrefix + " from revision 2099-01-01. DO NOT EDIT.\n\n"
	files := []generator.File{
		{Name: "a.go", Content: []byte(header + "package p\n\nconst A = 1\n")},
		{Name: "b.go", Content: []byte(header + "package p\n\nconst B = 2\n")},
	}
	var gotCfg generator.Config
	setGenerate(t, func(cfg generator.Config) ([]generator.File, error) {
		gotCfg = cfg
		return files, nil
	})
	out := filepath.Join(t.TempDir(), "out", "p")
	args := []string{"generate", "--revision", "2099-01-01", "--schema", "x.json", "--package", "p", "--out", out}
	check := append(slices.Clone(args), "--check")

	// Not generated yet: check reports every file.
	got := runMcpgen(check...)
	if got.code != 1 || !strings.Contains(got.stderr, "stale: "+filepath.Join(out, "a.go")) || !strings.Contains(got.stderr, "stale: "+filepath.Join(out, "b.go")) {
		t.Fatalf("check before generating: %+v", got)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--check created the output directory: %v", err)
	}

	// Generate.
	if got := runMcpgen(args...); got != (result{}) {
		t.Fatalf("generate: %+v", got)
	}
	if diff := cmp.Diff(generator.Config{Revision: "2099-01-01", SchemaPath: "x.json", Package: "p"}, gotCfg); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
	}
	assertDir(t, out, map[string]string{"a.go": string(files[0].Content), "b.go": string(files[1].Content)})

	// Up to date: check passes, and a second run leaves the files alone.
	if got := runMcpgen(check...); got != (result{}) {
		t.Fatalf("check when up to date: %+v", got)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, n := range []string{"a.go", "b.go"} {
		if err := os.Chtimes(filepath.Join(out, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if got := runMcpgen(args...); got != (result{}) {
		t.Fatalf("second generate: %+v", got)
	}
	for _, n := range []string{"a.go", "b.go"} {
		fi, err := os.Stat(filepath.Join(out, n))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(old) {
			t.Errorf("%s was rewritten although unchanged", n)
		}
	}

	// A file differs: check fails naming only it.
	if err := os.WriteFile(filepath.Join(out, "b.go"), []byte(header+"package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runMcpgen(check...)
	if got.code != 1 || !strings.Contains(got.stderr, "stale: "+filepath.Join(out, "b.go")+"\n") || strings.Contains(got.stderr, "a.go") {
		t.Fatalf("check with a changed file: %+v", got)
	}

	// The generator stops producing b.go: it is stale and removed, while a
	// hand-written file and a non-Go file are kept.
	files = files[:1]
	hand := "// Hand-written helpers.\n\npackage p\n\n// Code generated by mcpgen? No: after the package clause.\n"
	if err := os.WriteFile(filepath.Join(out, "hand.go"), []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte(generatedPrefix+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runMcpgen(check...)
	want := result{1, "", "stale: " + filepath.Join(out, "b.go") + "\n"}
	if got.code != want.code || !strings.HasPrefix(got.stderr, want.stderr) || strings.Count(got.stderr, "stale:") != 1 {
		t.Fatalf("check with a stale file: %+v", got)
	}
	if got := runMcpgen(append(slices.Clone(args), "-v")...); got.code != 0 || !strings.Contains(got.stderr, "removed "+filepath.Join(out, "b.go")) {
		t.Fatalf("generate removing a stale file: %+v", got)
	}
	assertDir(t, out, map[string]string{
		"a.go":      string(files[0].Content),
		"hand.go":   hand,
		"notes.txt": generatedPrefix + "\n",
	})
	if got := runMcpgen(check...); got != (result{}) {
		t.Fatalf("check after removal: %+v", got)
	}
}

func TestGenerateRejectsBadFileNames(t *testing.T) {
	for _, name := range []string{"", "../x.go", "sub/x.go", "..", "a.go"} {
		t.Run(name, func(t *testing.T) {
			files := []generator.File{{Name: name}}
			if name == "a.go" {
				files = append(files, generator.File{Name: "a.go"}) // duplicate
			}
			setGenerate(t, func(generator.Config) ([]generator.File, error) { return files, nil })
			out := t.TempDir()
			got := runMcpgen("generate", "--revision", "2099-01-01", "--schema", "x.json", "--out", out)
			if got.code != 1 || !strings.HasPrefix(got.stderr, "mcpgen generate: generator produced") {
				t.Fatalf("got %+v, want exit 1 naming the bad file", got)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("files written: %v", entries)
			}
		})
	}
}

// assertDir checks that dir holds exactly want, by name and content.
func assertDir(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = string(data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("directory %s mismatch (-want +got):\n%s", dir, diff)
	}
}

// TestGenerateOutsideRepository checks that generate without --schema works
// where there is no mcpgen repository (a downstream go generate): the
// pinned schema is materialized into the user cache directory from
// $MCPGEN_SCHEMA_MIRROR.
func TestGenerateOutsideRepository(t *testing.T) {
	root, err := schema.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	mirror := schema.DefaultMirror(root)
	if mirror == "" {
		t.Fatalf("no schema mirror beside %s (../shared/schema)", root)
	}
	old := findRoot
	findRoot = func() (string, error) { return "", errors.New("not in the repository") }
	t.Cleanup(func() { findRoot = old })
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("MCPGEN_SCHEMA_MIRROR", mirror)
	out := filepath.Join(t.TempDir(), "mcp")
	var stdout, stderr bytes.Buffer
	code := run([]string{"generate", "--revision", "2025-06-18", "--out", out, "--package", "mcp"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(cache, "mcpgen", "schema", "2025-06-18", "schema.json")); err != nil {
		t.Errorf("schema not cached: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "types.go")); err != nil {
		t.Errorf("nothing generated: %v", err)
	}
}
