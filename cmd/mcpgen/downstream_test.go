package main

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/schema"
)

// downstreamRevision is the revision the downstream module generates.
const downstreamRevision = "2025-11-25"

// downstreamCmdTimeout bounds each go command run in the downstream module.
const downstreamCmdTimeout = 3 * time.Minute

// downstreamMain is the main.go of the downstream module: it uses the
// generated package the way a user of mcpgen would.
const downstreamMain = `package main

import (
	"fmt"
	"log"

	"example.com/downstream/mcp"
)

func main() {
	in := mcp.CallToolResult{
		Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "hi"}}},
	}
	data, err := in.AppendJSON(nil)
	if err != nil {
		log.Fatalf("marshal: %v", err)
	}
	var out mcp.CallToolResult
	if err := out.UnmarshalJSON(data); err != nil {
		log.Fatalf("unmarshal %s: %v", data, err)
	}
	if len(out.Content) != 1 {
		log.Fatalf("decoded %d content blocks from %s, want 1", len(out.Content), data)
	}
	text, ok := out.Content[0].Value.(*mcp.TextContent)
	if !ok {
		log.Fatalf("decoded content block %T from %s, want *mcp.TextContent", out.Content[0].Value, data)
	}
	if text.Text != "hi" {
		log.Fatalf("decoded text %q from %s, want %q", text.Text, data, "hi")
	}
	fmt.Printf("round trip ok: %s\n", data)
}
`

// TestDownstreamModule takes the README's "go generate" route, as a user
// would, in a module of its own outside the repository whose go.mod only
// replaces the mcpgen module by the checkout (and whose go.sum is the
// checkout's, so that nothing is fetched: GOPROXY=off):
//
//	go get -tool github.com/mcpgen/mcpgen/cmd/mcpgen
//	go tool mcpgen init --revision R
//	go generate ./...
//
// then vets, builds and runs a program using the generated package. The
// line that init writes passes no --schema, as a user's would: outside the
// mcpgen repository, mcpgen keeps the pinned schema in the user cache
// directory (here a temporary one), copied from $MCPGEN_SCHEMA_MIRROR (here
// a copy of the repository's materialized schema, see schematest) with its
// sha256 checked. Without a mirror
// that has it, and with no way to download it, generate fails naming
// --schema and the mirror variable.
func TestDownstreamModule(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the downstream module: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.FindRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	schemaPath := schematest.File(t, downstreamRevision)
	mirror := schematest.Mirror(t, downstreamRevision)
	gocache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	userCache := t.TempDir()
	env := []string{
		"MCPGEN_SCHEMA_MIRROR=" + mirror,
		"XDG_CACHE_HOME=" + userCache,
		"GOCACHE=" + strings.TrimSpace(string(gocache)),
		"GOPROXY=off",
		"GOFLAGS=",
	}

	dir := t.TempDir()
	if r, err := schema.FindRoot(dir); err == nil {
		t.Fatalf("the downstream module %s is inside the mcpgen repository %s; set TMPDIR outside it", dir, r)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/downstream\n\n" +
			"go 1.25\n\n" +
			"replace github.com/mcpgen/mcpgen => " + strconv.Quote(filepath.ToSlash(root)) + "\n",
		"go.sum": string(goSum),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	goCmd := func(args ...string) string {
		t.Helper()
		return runDownstreamGo(t, dir, goBin, env, args...)
	}
	goCmd("get", "-tool", "github.com/mcpgen/mcpgen/cmd/mcpgen")
	// mcpgen is a dependency replaced by a directory: its version is
	// (devel), and the downstream module's own build settings are not its.
	if out := goCmd("tool", "mcpgen", "version"); out != "mcpgen (devel)\n" {
		t.Errorf("go tool mcpgen version printed %q, want %q", out, "mcpgen (devel)\n")
	}
	goCmd("tool", "mcpgen", "init", "--revision", downstreamRevision)
	stub, err := os.ReadFile(filepath.Join(dir, "mcp", "generate.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "//go:generate go tool mcpgen generate --revision " + downstreamRevision + " --out .\n"; !strings.Contains(string(stub), want) {
		t.Errorf("mcp/generate.go has no line %q:\n%s", want, stub)
	}
	goCmd("generate", "./...")
	if _, err := os.Stat(filepath.Join(userCache, "mcpgen", "schema", downstreamRevision, "schema.json")); err != nil {
		t.Errorf("the schema was not materialized into the user cache directory: %v", err)
	}
	for _, name := range []string{"types.go", "json.go", "methods.go"} {
		if _, err := os.Stat(filepath.Join(dir, "mcp", name)); err != nil {
			t.Errorf("go generate did not write mcp/%s: %v", name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(downstreamMain), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd("mod", "tidy")
	goCmd("vet", "./...")
	goCmd("build", "./...")
	out := goCmd("run", ".")
	if want := `round trip ok: {"content":[{"type":"text","text":"hi"}]}`; !strings.Contains(out, want) {
		t.Errorf("go run . printed:\n%s\nwant a line %s", out, want)
	}

	// After go mod tidy, mcpgen still runs, and agrees that the generated
	// package (named after its directory, without --package) is up to date;
	// regenerating changes nothing.
	goCmd("tool", "mcpgen", "generate", "--check",
		"--revision", downstreamRevision, "--schema", schemaPath, "--out", "./mcp")
	before := downstreamFiles(t, filepath.Join(dir, "mcp"))
	goCmd("generate", "./...")
	if after := downstreamFiles(t, filepath.Join(dir, "mcp")); !maps.Equal(before, after) {
		t.Errorf("running go generate again changed the generated package")
	}

	// No mirror that has the schema, nothing cached, and downloads fail (an
	// HTTPS proxy on 127.0.0.1 that refuses every CONNECT): the error says
	// how to give mcpgen the schema.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no network in this test", http.StatusBadGateway)
	}))
	defer proxy.Close()
	offline := append(slices.Clone(env),
		"MCPGEN_SCHEMA_MIRROR="+t.TempDir(),
		"XDG_CACHE_HOME="+t.TempDir(),
		"HTTPS_PROXY="+proxy.URL, "https_proxy="+proxy.URL, "NO_PROXY=", "no_proxy=")
	out, err = tryDownstreamGo(t, dir, goBin, offline, "tool", "mcpgen", "generate", "--revision", "2025-06-18", "--out", "./old")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFail {
		t.Fatalf("generate without a schema to be had: %v, want exit status %d:\n%s", err, exitFail, out)
	}
	for _, want := range []string{"no schema of revision 2025-06-18", "pass --schema FILE", "set MCPGEN_SCHEMA_MIRROR to a directory holding " + filepath.Join("2025-06-18", "schema.json")} {
		if !strings.Contains(out, want) {
			t.Errorf("generate without a schema to be had printed:\n%s\nwant it to say %q", out, want)
		}
	}
	// With the core revision to be had but not the extension, the error
	// is about the extension, and names its flag.
	coreOnly := append(slices.Clone(offline), "MCPGEN_SCHEMA_MIRROR="+schematest.Mirror(t, "2026-07-28"))
	out, err = tryDownstreamGo(t, dir, goBin, coreOnly, "tool", "mcpgen", "generate", "--extension", "ext-tasks", "--out", "./tasks")
	if !errors.As(err, &exit) || exit.ExitCode() != exitFail {
		t.Fatalf("generate --extension without a schema to be had: %v, want exit status %d:\n%s", err, exitFail, out)
	}
	for _, want := range []string{"no schema of the extension ext-tasks", "pass --extension FILE", "set MCPGEN_SCHEMA_MIRROR to a directory holding " + filepath.Join("ext-tasks", "schema.json")} {
		if !strings.Contains(out, want) {
			t.Errorf("generate --extension without a schema to be had printed:\n%s\nwant it to say %q", out, want)
		}
	}
}

// runDownstreamGo runs the go command goBin with args in dir, adding env to
// the environment, and returns its combined output, failing the test with
// that output if it does not succeed within downstreamCmdTimeout.
func runDownstreamGo(t *testing.T, dir, goBin string, env []string, args ...string) string {
	t.Helper()
	out, err := tryDownstreamGo(t, dir, goBin, env, args...)
	if err != nil {
		t.Fatalf("go %s: %v in %s:\n%s", strings.Join(args, " "), err, dir, out)
	}
	return out
}

// tryDownstreamGo runs the go command goBin with args in dir, adding env to
// the environment, and returns its combined output and its error, failing
// the test if it does not end within downstreamCmdTimeout.
func tryDownstreamGo(t *testing.T, dir, goBin string, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), downstreamCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	// No go.work of an enclosing directory may change what is built.
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	line := "go " + strings.Join(args, " ")
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("%s: timed out after %v in %s:\n%s", line, downstreamCmdTimeout, dir, out.String())
	}
	t.Logf("%s (%v)", line, time.Since(start).Round(time.Millisecond))
	return out.String(), err
}

// downstreamFiles returns the contents of the regular files in dir by name.
func downstreamFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]string, len(entries))
	for _, ent := range entries {
		if !ent.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[ent.Name()] = string(data)
	}
	return m
}

// downstreamExtensionMain uses the Tasks extension's package generated into
// the downstream module, beside the core package it imports.
const downstreamExtensionMain = `package main

import (
	"fmt"
	"log"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"example.com/downstream/tasks"
)

func main() {
	raw := []byte(` + "`" + `{"resultType":"task","taskId":"t1","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}` + "`" + `)
	var res tasks.CallToolResults
	if err := res.UnmarshalJSON(raw); err != nil {
		log.Fatal(err)
	}
	task, ok := res.Value.(*tasks.CreateTaskResult)
	if !ok {
		log.Fatalf("decoded %T", res.Value)
	}
	out, err := task.AppendJSON(nil)
	if err != nil {
		log.Fatal(err)
	}
	var _ tasks.Caller = (*mcp.ClientSession)(nil)
	fmt.Printf("%s %s\n", tasks.ID, out)
}
`

// TestDownstreamExtension generates the Tasks extension's package from its
// schema into a fresh module (whose go.mod replaces the mcpgen module by the
// checkout, nothing fetched), then vets, builds and runs a program that
// uses it with the core package of mcpgen.
func TestDownstreamExtension(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the downstream module: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.FindRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	gocache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"GOCACHE=" + strings.TrimSpace(string(gocache)), "GOPROXY=off", "GOFLAGS="}
	dir := t.TempDir()
	if r, err := schema.FindRoot(dir); err == nil {
		t.Fatalf("the downstream module %s is inside the mcpgen repository %s; set TMPDIR outside it", dir, r)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goMod := "module example.com/downstream\n\ngo 1.25\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\n" +
		"replace github.com/mcpgen/mcpgen => " + strconv.Quote(filepath.ToSlash(root)) + "\n"
	for name, content := range map[string]string{"go.mod": goMod, "go.sum": string(goSum), "main.go": downstreamExtensionMain} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := runMcpgen("generate", "--extension", schematest.Extension(t, "ext-tasks"), "--core", "2026-07-28",
		"--id", "io.modelcontextprotocol/tasks", "--schema", schematest.File(t, "2026-07-28"), "--out", filepath.Join(dir, "tasks"))
	if got.code != 0 {
		t.Fatalf("generate: exit %d\n%s", got.code, got.stderr)
	}
	runDownstreamGo(t, dir, goBin, env, "mod", "tidy")
	runDownstreamGo(t, dir, goBin, env, "vet", "./...")
	runDownstreamGo(t, dir, goBin, env, "build", "./...")
	out := runDownstreamGo(t, dir, goBin, env, "run", ".")
	if want := `io.modelcontextprotocol/tasks {"resultType":"task","taskId":"t1","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`; !strings.Contains(out, want) {
		t.Errorf("go run . printed:\n%s\nwant a line %s", out, want)
	}
}
