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
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/schema"
)

// TestMain clears $MCPGEN_SCHEMA_MIRROR, which the commands read, so that
// they see only what each test sets up, whatever the environment go test
// runs in; schematest read it when the test binary started, and the tests
// that want a mirror set the variable themselves.
func TestMain(m *testing.M) {
	os.Unsetenv(mirrorEnv)
	os.Exit(m.Run())
}

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
	schemaFile := filepath.Join(tmp, "s.json")
	if err := os.WriteFile(schemaFile, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(tmp, "absent")
	out := filepath.Join(tmp, "out")
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
		{"help init", []string{"help", "init"}, 0, "go get -tool github.com/mcpgen/mcpgen/cmd/mcpgen", ""},
		{"help unknown", []string{"help", "nope"}, 2, "", `unknown command "nope"`},
		{"help too many", []string{"help", "a", "b"}, 2, "", "too many arguments"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"version", []string{"version"}, 0, "mcpgen ", ""},
		{"version extra", []string{"version", "x"}, 2, "", "unexpected arguments"},
		{"version bad flag", []string{"version", "--nope"}, 2, "", "unknown flag: --nope"},
		{"generate help", []string{"generate", "--help"}, 0, "--check", ""},
		{"generate bad flag", []string{"generate", "--nope"}, 2, "", "unknown flag: --nope"},
		{"generate flag without value", []string{"generate", "--revision"}, 2, "", "flag needs an argument: --revision"},
		{"generate missing revision", []string{"generate", "--out", out}, 2, "", "--revision is required"},
		{"generate missing out", []string{"generate", "--revision", "2025-06-18"}, 2, "", "--out is required"},
		{"generate bad revision", []string{"generate", "--revision", "june", "--out", out}, 2, "", "YYYY-MM-DD"},
		{"generate unpinned", []string{"generate", "--revision", "2001-01-01", "--out", out}, 2, "", "--schema FILE"},
		{"generate bad package", []string{"generate", "--revision", "2025-06-18", "--out", out, "--package", "a-b"}, 2, "", "not a valid Go package name"},
		{"generate out not a package name", []string{"generate", "--revision", "2025-06-18", "--out", filepath.Join(tmp, "a-b")}, 2, "", `directory name "a-b" is not a Go package name; pass --package NAME`},
		{"generate positional", []string{"generate", "--revision", "2025-06-18", "--out", out, "x"}, 2, "", "unexpected arguments"},
		{"generate empty schema", []string{"generate", "--revision", "2025-06-18", "--out", out, "--schema", ""}, 2, "", "--schema is empty"},
		{"generate missing schema file", []string{"generate", "--revision", "2001-01-01", "--schema", absent, "--out", out}, 2, "", "--schema: "},
		{"generate missing templates", []string{"generate", "--revision", "2001-01-01", "--schema", schemaFile, "--out", out, "--templates", absent}, 2, "", "--templates: "},
		{"generate templates not a directory", []string{"generate", "--revision", "2001-01-01", "--schema", schemaFile, "--out", out, "--templates", schemaFile}, 2, "", "is not a directory"},
		{"generate error", []string{"generate", "--revision", "2001-01-01", "--schema", schemaFile, "--out", out}, 1, "", "mcpgen generate: boom"},
		{"generate extension unpinned", []string{"generate", "--extension", "ext-nope", "--out", out}, 2, "", `unknown extension "ext-nope"`},
		{"generate extension with revision", []string{"generate", "--extension", "ext-tasks", "--revision", "2026-07-28", "--out", out}, 2, "", "name the core revision with --core"},
		{"generate extension other core", []string{"generate", "--extension", "ext-tasks", "--core", "2025-11-25", "--out", out}, 2, "", "bound to 2026-07-28"},
		{"generate extension other id", []string{"generate", "--extension", "ext-tasks", "--id", "x/y", "--out", out}, 2, "", "has the id io.modelcontextprotocol/tasks"},
		{"generate extension file without core", []string{"generate", "--extension", schemaFile, "--id", "x/y", "--out", out}, 2, "", "--core is required"},
		{"generate extension file without id", []string{"generate", "--extension", schemaFile, "--core", "2026-07-28", "--out", out}, 2, "", "--id is required"},
		{"generate extension missing file", []string{"generate", "--extension", absent + ".json", "--out", out}, 2, "", "--extension: "},
		{"generate extension templates", []string{"generate", "--extension", "ext-tasks", "--templates", tmp, "--out", out}, 2, "", "--templates does not go with --extension"},
		{"generate core without extension", []string{"generate", "--revision", "2025-06-18", "--core", "2026-07-28", "--out", out}, 2, "", "--core and --id go with --extension"},
		{"generate extension error", []string{"generate", "--extension", schemaFile, "--core", "2001-01-01", "--id", "x/y", "--schema", schemaFile, "--out", out}, 1, "", "mcpgen generate: boom"},
		{"schema unknown extension", []string{"schema", "--extension", "ext-nope"}, 2, "", "unknown extension"},
		{"init bad flag", []string{"init", "--nope"}, 2, "", "unknown flag: --nope"},
		{"init bad revision", []string{"init", "--revision", "june"}, 2, "", "YYYY-MM-DD"},
		{"init unpinned", []string{"init", "--revision", "2001-01-01"}, 2, "", "unknown revision"},
		{"init empty out", []string{"init", "--out", ""}, 2, "", "--out is empty"},
		{"init out not a package name", []string{"init", "--out", filepath.Join(tmp, "a-b")}, 2, "", "pass --package NAME"},
		{"init bad package", []string{"init", "--package", "1x"}, 2, "", "not a valid Go package name"},
		{"init missing templates", []string{"init", "--out", filepath.Join(tmp, "p"), "--templates", absent}, 2, "", "--templates: "},
		{"init positional", []string{"init", "x"}, 2, "", "unexpected arguments"},
		{"methods bad flag", []string{"methods", "--nope"}, 2, "", "unknown flag: --nope"},
		{"methods missing schema file", []string{"methods", "--revision", "2025-06-18", "--schema", absent}, 2, "", "--schema: "},
		{"diff bad flag", []string{"diff", "--nope"}, 2, "", "unknown flag: --nope"},
		{"diff missing file", []string{"diff", absent, "2025-06-18"}, 2, "", "schema file: "},
		{"validate bad flag", []string{"validate", "--nope"}, 2, "", "unknown flag: --nope"},
		{"validate missing schema file", []string{"validate", "--revision", "2025-06-18", "--schema", absent}, 2, "", "--schema: "},
		{"validate bad from", []string{"validate", "--revision", "2025-06-18", "--from", "x"}, 2, "", `--from "x"`},
		{"schema bad flag", []string{"schema", "--nope"}, 2, "", "unknown flag: --nope"},
		{"schema unknown revision", []string{"schema", "--revision", "2001-01-01"}, 2, "", "unknown revision"},
		{"schema positional", []string{"schema", "x"}, 2, "", "unexpected arguments"},
		{"schema bad mirror", []string{"schema", "--mirror", absent}, 2, "", "--mirror: "},
		{"schema mirror not a directory", []string{"schema", "--mirror", schemaFile}, 2, "", "is not a directory"},
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
			if tt.wantCode == 2 && len(tt.args) > 0 {
				cmd := tt.args[0]
				if lookup(cmd) == nil {
					cmd = "" // help, or an unknown command
				}
				checkUsageError(t, got, cmd)
			}
		})
	}
}

// checkUsageError checks that got is the report of a usage error of the
// command cmd ("" for mcpgen itself): nothing on stdout, and on stderr one
// line of error, then a line saying where the help is, not the help itself.
func checkUsageError(t *testing.T, got result, cmd string) {
	t.Helper()
	if got.stdout != "" {
		t.Errorf("usage error with output on stdout:\n%s", got.stdout)
	}
	see := "see 'mcpgen help'"
	prefix := "mcpgen"
	if cmd != "" {
		see = "see 'mcpgen " + cmd + " --help'"
		prefix = "mcpgen " + cmd + ": "
	}
	lines := strings.Split(strings.TrimSuffix(got.stderr, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], prefix) || lines[1] != see || !strings.HasSuffix(got.stderr, "\n") {
		t.Errorf("usage error is not one line starting %q and then %q:\n%s", prefix, see, got.stderr)
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

func TestSchemaCommand(t *testing.T) {
	mirror := schematest.Mirror(t, "2025-06-18", "2025-11-25")
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

// TestSchemaCommandMirror checks where mcpgen schema takes the files from:
// --mirror, else $MCPGEN_SCHEMA_MIRROR, else ../shared/schema beside the
// repository; and that a failure says how to give it the files.
func TestSchemaCommandMirror(t *testing.T) {
	const rev = "2025-06-18"
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	tests := []struct {
		name       string
		flag       string // --mirror, "" for none
		env        string // $MCPGEN_SCHEMA_MIRROR, "" for unset
		sibling    bool   // ../shared/schema beside the root has the file
		wantCode   int
		wantStdout string
		wantStderr []string
	}{
		{name: "env", env: "mirror", wantStdout: "(sha256 ok, from mirror)"},
		{name: "flag over env", flag: "mirror", env: empty, wantStdout: "(sha256 ok, from mirror)"},
		{name: "env over sibling", env: empty, sibling: true, wantCode: 1, wantStderr: []string{"offline", "set MCPGEN_SCHEMA_MIRROR (or pass --mirror DIR) to a directory holding " + filepath.Join(rev, "schema.json")}},
		{name: "sibling", sibling: true, wantStdout: "(sha256 ok, from mirror)"},
		{name: "nowhere", wantCode: 1, wantStderr: []string{"no mirror given", "offline", "set MCPGEN_SCHEMA_MIRROR (or pass --mirror DIR) to a directory holding " + filepath.Join(rev, "schema.json")}},
		{name: "env not a directory", env: file, wantCode: 2, wantStderr: []string{"MCPGEN_SCHEMA_MIRROR: " + file + " is not a directory"}},
		{name: "env absent", env: filepath.Join(empty, "absent"), wantCode: 2, wantStderr: []string{"MCPGEN_SCHEMA_MIRROR: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			root := filepath.Join(tmp, "repo")
			setRoot(t, root)
			mirror := schematest.Mirror(t, rev)
			if tt.sibling { // root/../shared/schema, the default mirror
				if err := os.MkdirAll(filepath.Join(tmp, "shared"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(mirror, filepath.Join(tmp, "shared", "schema")); err != nil {
					t.Fatal(err)
				}
			}
			pick := func(v string) string {
				if v == "mirror" {
					return mirror
				}
				return v
			}
			args := []string{"schema", "--offline", "--revision", rev}
			if tt.flag != "" {
				args = append(args, "--mirror", pick(tt.flag))
			}
			t.Setenv(mirrorEnv, pick(tt.env))
			got := runMcpgen(args...)
			if got.code != tt.wantCode || !strings.Contains(got.stdout, tt.wantStdout) {
				t.Errorf("mcpgen %s = %+v, want exit %d and stdout with %q", strings.Join(args, " "), got, tt.wantCode, tt.wantStdout)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(got.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, got.stderr)
				}
			}
		})
	}
}

func TestGenerateMaterializesSchema(t *testing.T) {
	mirror := schematest.Mirror(t, "2025-06-18")
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
	// Without --package, the package is named after the --out directory.
	wantCfg := generator.Config{Revision: "2025-06-18", SchemaPath: schema.Path(root, "2025-06-18"), Package: "out"}
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
	schemaFile := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(schemaFile, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"generate", "--revision", "2099-01-01", "--schema", schemaFile, "--package", "p", "--out", out}
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
	if diff := cmp.Diff(generator.Config{Revision: "2099-01-01", SchemaPath: schemaFile, Package: "p"}, gotCfg); diff != "" {
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
			schemaFile := filepath.Join(t.TempDir(), "x.json")
			if err := os.WriteFile(schemaFile, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			got := runMcpgen("generate", "--revision", "2099-01-01", "--schema", schemaFile, "--out", out, "--package", "p")
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
	mirror := schematest.Mirror(t, "2025-06-18")
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

// TestGenerateExtension generates the Tasks extension's package with
// mcpgen generate --extension, from the pin and from the schema file, then
// checks it with --check, and sees a redefinition that differs refused.
func TestGenerateExtension(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv(mirrorEnv, schematest.Mirror(t, "2026-07-28"))
	out := filepath.Join(tmp, "tasks")
	extFile := schematest.Extension(t, "ext-tasks")
	coreFile := schematest.File(t, "2026-07-28")
	got := runMcpgen("generate", "--extension", extFile, "--core", "2026-07-28", "--id", "io.modelcontextprotocol/tasks", "--schema", coreFile, "--out", out, "-v")
	if got.code != 0 {
		t.Fatalf("generate: exit %d\n%s", got.code, got.stderr)
	}
	types, err := os.ReadFile(filepath.Join(out, "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"package tasks", `const ID = "io.modelcontextprotocol/tasks"`, "type GetTaskResult struct", "Error mcp20260728.Error"} {
		if !strings.Contains(string(types), want) {
			t.Errorf("types.go lacks %q", want)
		}
	}
	if got := runMcpgen("generate", "--extension", extFile, "--core", "2026-07-28", "--id", "io.modelcontextprotocol/tasks", "--schema", coreFile, "--out", out, "--check"); got.code != 0 {
		t.Errorf("--check after generate: exit %d\n%s", got.code, got.stderr)
	}

	// A copy whose Error differs from the core's.
	data, err := os.ReadFile(extFile)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"The error type that occurred.",
          "type": "integer"`, `"The error type that occurred.",
          "type": "string"`, 1)
	if bad == string(data) {
		t.Fatal("the mutation changed nothing")
	}
	badFile := filepath.Join(tmp, "mutated.json")
	if err := os.WriteFile(badFile, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runMcpgen("generate", "--extension", badFile, "--core", "2026-07-28", "--id", "io.modelcontextprotocol/tasks", "--schema", coreFile, "--out", out, "--check")
	for _, want := range []string{"#/$defs/Error", "/properties/code/type", `extension {"type":"string"}`, `core {"type":"integer"}`} {
		if got.code != 1 || !strings.Contains(got.stderr, want) {
			t.Errorf("mutated Error: exit %d, stderr lacks %q:\n%s", got.code, want, got.stderr)
		}
	}
}
