package generator_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The golden corpus lives in golden/ at the repository root:
//
//	golden/cases/<name>/schema.json       a schema exercising one construct
//	golden/cases/<name>/revision.txt      optional: the revision, else defaultRevision
//	golden/cases/<name>/plan.txt          the plan's String()
//	golden/cases/<name>/<file>.go.golden  each emitted file
//	golden/cases/<name>/<file>_test.go.txt  optional: a test of the generated
//	                                      package, run by the compile check
//	golden/errors/<name>/schema.json      a schema the pipeline must reject
//	golden/errors/<name>/error.txt        the exact error, followed by a newline
//
// A case (of either kind) with an extension.txt is an extension's schema,
// bound to a core revision (see readBinding): it goes through
// model.BuildExtension with the pinned schema of that revision (see
// internal/schematest), and its package refers to the core package mcpgen
// ships for it. Its plan.txt is a summary of the binding (the redefinitions
// and the core types they are, the methods, the widened core methods)
// followed by the String() of the plan's own declarations.
//
// Run "go test ./generator -update" to rewrite the goldens, then read the diff.
const (
	repoRoot        = ".."
	goldenPackage   = "golden"
	defaultRevision = "2025-06-18"
)

// run is the whole pipeline: load → model → plan → emit. src is the schema's
// slash-separated path from the repository root; it names the schema in
// errors and in the generated headers.
func run(rev, src string, data []byte) (*plan.Plan, []emit.File, error) {
	doc, err := load.Bytes(src, data)
	if err != nil {
		return nil, nil, err
	}
	m, err := model.Build(rev, doc)
	if err != nil {
		return nil, nil, err
	}
	p, err := plan.Build(m)
	if err != nil {
		return nil, nil, err
	}
	files, err := emit.Emit(p, emit.Options{Package: goldenPackage, Source: src})
	if err != nil {
		return p, nil, err
	}
	return p, files, nil
}

// binding is what an extension case is bound to, read from its
// extension.txt: lines "id <extension id>" and "core <revision>".
type binding struct {
	id, core string
}

// readBinding returns the binding of the case golden/<kind>/<name>, or nil
// when it has no extension.txt (a core revision's schema).
func readBinding(t *testing.T, kind, name string) *binding {
	t.Helper()
	file := filepath.Join(repoRoot, "golden", kind, name, "extension.txt")
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	b := &binding{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		key, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch {
		case key == "id" && b.id == "":
			b.id = strings.TrimSpace(value)
		case key == "core" && b.core == "":
			b.core = strings.TrimSpace(value)
		default:
			t.Fatalf("%s:%d: %q is not \"id <extension id>\" or \"core <revision>\" (each once)", file, i+1, line)
		}
	}
	if b.id == "" || b.core == "" {
		t.Fatalf("%s: want the lines \"id <extension id>\" and \"core <revision>\"", file)
	}
	return b
}

// runExtension is the pipeline of an extension case: the extension's
// schema src (data) bound to the pinned schema of b.core, load →
// model.BuildExtension → plan → emit, the package referring to the core
// package mcpgen ships for b.core.
func runExtension(t *testing.T, b *binding, src string, data []byte) (*plan.Plan, []emit.File, error) {
	t.Helper()
	core, err := load.Bytes("schema/"+b.core+"/schema.json", schematest.Data(t, b.core))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := load.Bytes(src, data)
	if err != nil {
		return nil, nil, err
	}
	m, err := model.BuildExtension(b.core, core, doc, b.id)
	if err != nil {
		return nil, nil, err
	}
	p, err := plan.Build(m)
	if err != nil {
		return nil, nil, err
	}
	files, err := emit.Emit(p, emit.Options{Package: goldenPackage, Source: src, Core: corePackage(b.core)})
	if err != nil {
		return p, nil, err
	}
	return p, files, nil
}

// corePackage is the import path of the package mcpgen ships for the
// revision rev.
func corePackage(rev string) string {
	return schema.ModulePath + "/protocol/mcp" + strings.ReplaceAll(rev, "-", "")
}

// extensionPlan is the plan.txt of an extension case: its binding (each
// redefinition and the core type it is, each method with its results, each
// widened core method with the union of its answers), then the String() of
// the plan restricted to the extension's own declarations, so that the
// core's unions do not drown them.
func extensionPlan(p *plan.Plan) string {
	x := p.Rev.Extension
	var b strings.Builder
	fmt.Fprintf(&b, "extension %s bound to %s\n", x.ID, x.Core)
	for _, d := range x.Redefined {
		fmt.Fprintf(&b, "  redefines %s: the core's %s\n", d.Name, p.Names[d])
	}
	for _, m := range p.Rev.Methods {
		var results []string
		for _, r := range m.Results {
			results = append(results, r.Name)
		}
		fmt.Fprintf(&b, "  method %s: %s %s, %s", m.Name, m.Kind, m.Direction, m.Message.Name)
		if len(results) > 0 {
			fmt.Fprintf(&b, " → %s", strings.Join(results, " | "))
		}
		b.WriteString("\n")
	}
	for _, m := range x.Augmented {
		var results []string
		for _, r := range m.Results {
			results = append(results, r.Name)
		}
		fmt.Fprintf(&b, "  widens the core %s: %s, any of them a %s\n", m.Name, strings.Join(results, " | "), p.Names[m.AnyResult])
	}
	own := *p
	rev := *p.Rev
	rev.Decls = slices.DeleteFunc(slices.Clone(p.Rev.Decls), func(d *model.Decl) bool { return x.External[d] })
	own.Rev = &rev
	b.WriteString(own.String())
	return b.String()
}

// caseDirs returns the names of the case directories under golden/<kind>.
func caseDirs(t *testing.T, kind string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot, "golden", kind))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatalf("no cases in golden/%s", kind)
	}
	return names
}

// readCase returns the schema of a case, its slash path from the repository
// root, and its revision.
func readCase(t *testing.T, kind, name string) (src string, data []byte, rev string) {
	t.Helper()
	src = path.Join("golden", kind, name, "schema.json")
	data, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(src)))
	if err != nil {
		t.Fatal(err)
	}
	rev = defaultRevision
	b, err := os.ReadFile(filepath.Join(repoRoot, "golden", kind, name, "revision.txt"))
	switch {
	case err == nil:
		rev = strings.TrimSpace(string(b))
	case !errors.Is(err, os.ErrNotExist):
		t.Fatal(err)
	}
	return src, data, rev
}

// compare checks got against the golden file, or rewrites it under -update.
// name is the golden's slash-separated path from the repository root.
func compare(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join(repoRoot, filepath.FromSlash(name))
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("%v (run go test ./generator -update to create it)", err)
		return
	}
	// Compared line by line, so that the diff reads like one.
	if diff := cmp.Diff(strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n")); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s\nrun go test ./generator -update to rewrite the goldens", name, diff)
	}
}

// generated is one positive case's output, for the compile check, with
// the case's tests of the generated package (<file>_test.go.txt).
type generated struct {
	name  string
	files []emit.File
	tests []emit.File
}

func TestGoldenCases(t *testing.T) {
	var out []generated
	for _, name := range caseDirs(t, "cases") {
		t.Run(name, func(t *testing.T) {
			src, data, rev := readCase(t, "cases", name)
			var p *plan.Plan
			var files []emit.File
			var err error
			text := func() string { return p.String() }
			if b := readBinding(t, "cases", name); b != nil {
				p, files, err = runExtension(t, b, src, data)
				text = func() string { return extensionPlan(p) }
			} else {
				p, files, err = run(rev, src, data)
			}
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			dir := path.Join("golden", "cases", name)
			compare(t, path.Join(dir, "plan.txt"), []byte(text()))
			want := []string{"plan.txt", "schema.json", "revision.txt", "extension.txt"}
			for _, f := range files {
				if formatted, err := format.Source(f.Content); err != nil {
					t.Errorf("%s does not parse: %v", f.Name, err)
				} else if !bytes.Equal(formatted, f.Content) {
					t.Errorf("%s is not gofmt-clean:\n%s", f.Name, cmp.Diff(string(formatted), string(f.Content)))
				}
				compare(t, path.Join(dir, f.Name+".golden"), f.Content)
				want = append(want, f.Name+".golden")
			}
			// A golden for a file the emitter no longer writes is stale.
			entries, err := os.ReadDir(filepath.Join(repoRoot, filepath.FromSlash(dir)))
			if err != nil {
				t.Fatal(err)
			}
			var tests []emit.File
			for _, e := range entries {
				if slices.Contains(want, e.Name()) {
					continue
				}
				if test, ok := strings.CutSuffix(e.Name(), "_test.go.txt"); ok {
					b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(dir), e.Name()))
					if err != nil {
						t.Fatal(err)
					}
					tests = append(tests, emit.File{Name: test + "_test.go", Content: b})
					continue
				}
				if *update && strings.HasSuffix(e.Name(), ".go.golden") {
					if err := os.Remove(filepath.Join(repoRoot, filepath.FromSlash(dir), e.Name())); err != nil {
						t.Fatal(err)
					}
					continue
				}
				t.Errorf("unexpected file %s/%s", dir, e.Name())
			}
			out = append(out, generated{name, files, tests})
		})
	}
	if len(out) == 0 {
		return
	}
	t.Run("vet", func(t *testing.T) { vet(t, out) })
}

// vet writes every case's output into its own package of a throwaway module
// that uses this repository, and runs go vet over all of them at once: a
// golden that does not compile, or that vet rejects, fails the suite. Then
// it runs the tests of the cases that have some: they check what the
// generated code does, not only that it builds.
func vet(t *testing.T, cases []generated) {
	if testing.Short() {
		t.Skip("compiling the generated packages is skipped in -short mode")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mod := "module goldencheck\n\ngo 1.25\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + strconv.Quote(root) + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	var tested []string
	for _, c := range cases {
		dir := filepath.Join(tmp, c.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if len(c.tests) > 0 {
			tested = append(tested, "./"+c.name)
		}
		for _, f := range append(slices.Clip(c.files), c.tests...) {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated packages: %v\n%s", err, out)
	}
	if len(tested) == 0 {
		return
	}
	cmd = exec.Command(goTool, append([]string{"test", "-count=1"}, tested...)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the generated packages: %v\n%s", err, out)
	}
}

func TestGoldenErrors(t *testing.T) {
	for _, name := range caseDirs(t, "errors") {
		t.Run(name, func(t *testing.T) {
			src, data, rev := readCase(t, "errors", name)
			var err error
			if b := readBinding(t, "errors", name); b != nil {
				_, _, err = runExtension(t, b, src, data)
			} else {
				_, _, err = run(rev, src, data)
			}
			if err == nil {
				t.Fatalf("generate succeeded; want an error")
			}
			compare(t, path.Join("golden", "errors", name, "error.txt"), []byte(err.Error()+"\n"))
		})
	}
}
