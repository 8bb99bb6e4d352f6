// Package readme_test checks the Go code in README.md and in the guides of
// docs/: every ```go block is either a complete program, which must pass go
// vet and build against this checkout, or is marked as a fragment by the
// line <!-- fragment --> just before it, and must then parse as Go
// declarations followed by statements.
// A program marked <!-- run: server --> is also run, and must answer
// tools/call of its tool "forecast" over stdio; install_test.go builds it and
// the program marked <!-- run: client --> in a module of their own and runs
// the client against the server.
package readme_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// goCmdTimeout bounds each go command and the run of a program.
const goCmdTimeout = 3 * time.Minute

// block is one ```go block of the README or a guide.
type block struct {
	file   string // the Markdown file, such as "README.md" or "docs/security.md"
	line   int    // of its first code line, from 1
	marker string // the HTML comment just before its fence, such as "fragment", or ""
	code   string
}

// goBlocks returns the ```go blocks of the Markdown text md.
func goBlocks(md string) ([]block, error) {
	var blocks []block
	lines := strings.Split(md, "\n")
	prev := "" // the last non-blank line before the current one
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) != "```go" {
			if strings.TrimSpace(line) != "" {
				prev = strings.TrimSpace(line)
			}
			continue
		}
		b := block{line: i + 2}
		if m, ok := strings.CutPrefix(prev, "<!--"); ok {
			if m, ok := strings.CutSuffix(m, "-->"); ok {
				b.marker = strings.TrimSpace(m)
			}
		}
		var code []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			code = append(code, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("line %d: the go block does not end", b.line-1)
		}
		b.code = strings.Join(code, "\n") + "\n"
		blocks = append(blocks, b)
		prev = "```"
	}
	return blocks, nil
}

// isProgram reports whether code is a complete program.
func isProgram(code string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", code, parser.PackageClauseOnly)
	return err == nil && f.Name.Name == "main"
}

// parseFragment reports whether code parses as Go declarations (imports,
// types, functions) followed by statements, either part possibly empty.
func parseFragment(code string) error {
	lines := strings.Split(code, "\n")
	var firstErr error
	for i := 0; i <= len(lines); i++ {
		decls := "package p\n" + strings.Join(lines[:i], "\n")
		stmts := "package p\nfunc _() {\n" + strings.Join(lines[i:], "\n") + "\n}\n"
		fset := token.NewFileSet()
		_, errD := parser.ParseFile(fset, "decls.go", decls, parser.SkipObjectResolution)
		_, errS := parser.ParseFile(fset, "stmts.go", stmts, parser.SkipObjectResolution)
		if errD == nil && errS == nil {
			return nil
		}
		if firstErr == nil {
			firstErr = errors.Join(errD, errS)
		}
	}
	return firstErr
}

// markdownFiles are the files whose go blocks are checked: README.md and
// docs/*.md.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, docs...)
}

// readme returns the go blocks of README.md and docs/*.md, each naming its
// file.
func readme(t *testing.T) []block {
	t.Helper()
	var all []block
	for _, name := range markdownFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := goBlocks(string(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "README.md" && len(blocks) == 0 {
			t.Fatal("README.md has no go blocks")
		}
		for i := range blocks {
			blocks[i].file = filepath.ToSlash(name)
		}
		all = append(all, blocks...)
	}
	return all
}

func TestGoBlocks(t *testing.T) {
	md := "text\n\n<!-- fragment -->\n```go\nx := 1\n```\n\n```go\npackage main\n\nfunc main() {}\n```\n```sh\nls\n```\n"
	got, err := goBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	want := []block{{line: 5, marker: "fragment", code: "x := 1\n"}, {line: 9, code: "package main\n\nfunc main() {}\n"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("goBlocks = %+v, want %+v", got, want)
	}
	if _, err := goBlocks("```go\nx := 1\n"); err == nil {
		t.Error("an unterminated block gave no error")
	}
	for _, tt := range []struct {
		code string
		ok   bool
	}{
		{"x := 1\nfmt.Println(x)\n", true},
		{"import \"fmt\"\n\ntype T struct{}\n\nfmt.Println(T{})\n", true},
		{"//go:generate go tool mcpgen generate\n", true},
		{"for x := range xs { ... }\n", false},
		{"x := \n", false},
	} {
		if err := parseFragment(tt.code); (err == nil) != tt.ok {
			t.Errorf("parseFragment(%q) = %v, want ok %v", tt.code, err, tt.ok)
		}
	}
}

// TestREADMEFragments checks that every go block is marked as a fragment or
// is a program, and that fragments parse.
func TestREADMEFragments(t *testing.T) {
	for _, b := range readme(t) {
		switch {
		case b.marker == "fragment":
			if err := parseFragment(b.code); err != nil {
				t.Errorf("%s:%d: the fragment does not parse as declarations and statements: %v", b.file, b.line, err)
			}
		case !isProgram(b.code):
			t.Errorf("%s:%d: the go block is neither a program (package main) nor marked <!-- fragment -->", b.file, b.line)
		case b.marker != "" && b.marker != serverMarker && b.marker != clientMarker:
			t.Errorf("%s:%d: unknown marker <!-- %s -->", b.file, b.line, b.marker)
		}
	}
}

// TestREADMEPrograms builds every program of the README in a module of its
// own that replaces mcpgen by this checkout (GOPROXY=off: nothing is
// fetched), vets it, and runs the stdio server.
func TestREADMEPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/readme\n\ngo 1.25\n\n" +
			"require github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000\n\n" +
			"replace github.com/mcpgen/mcpgen => " + strconv.Quote(filepath.ToSlash(root)) + "\n",
		"go.sum": string(goSum),
	}
	var server string
	for _, b := range readme(t) {
		if b.marker == "fragment" || !isProgram(b.code) {
			continue
		}
		name := fmt.Sprintf("%s_line%d", strings.NewReplacer("/", "_", ".", "_").Replace(b.file), b.line)
		files[filepath.Join(name, "main.go")] = b.code
		if b.marker == serverMarker {
			server = name
		}
	}
	if server == "" {
		t.Fatal("README.md has no program marked <!-- " + serverMarker + " -->")
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod"}
	run := func(stdin string, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), goCmdTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.WaitDelay = 10 * time.Second
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	run("", goBin, "mod", "tidy")
	run("", goBin, "vet", "./...")
	bin := filepath.Join(dir, "bin")
	run("", goBin, "build", "-o", bin+string(filepath.Separator), "./...")

	// The stdio server: initialize, then call its tool; the end of its
	// standard input ends it, after it answered.
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{}}}
`
	out := run(in, filepath.Join(bin, server))
	want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"sunny"}]}}`
	if !strings.Contains(out, want+"\n") {
		t.Errorf("the README's stdio server answered:\n%s\nwant a line %s", out, want)
	}
}
