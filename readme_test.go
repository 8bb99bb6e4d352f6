// Package readme_test checks the Go code in README.md and in the guides of
// docs/: every ```go block is either a complete program, which must pass go
// vet and build against this checkout, or is marked as a fragment by the
// line <!-- fragment --> just before it, and must then parse as Go
// declarations followed by statements.
// The README's program marked <!-- run: server --> is also run, and must
// answer tools/call of its tool "forecast" over stdio; the one marked
// <!-- run: client --> is run with that server's command line, and must
// print the tool's text. The server must also build against a package that
// mcpgen generates, as the README says.
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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
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
		case b.marker != "" && b.marker != "run: server" && b.marker != "run: client":
			t.Errorf("%s:%d: unknown marker <!-- %s -->", b.file, b.line, b.marker)
		}
	}
}

// runMarkers are the markers of the programs TestREADMEPrograms runs.
var runMarkers = []string{"run: server", "run: client"}

// TestREADMEPrograms builds every program of the README and the guides in a
// module of its own that replaces mcpgen by this checkout (GOPROXY=off:
// nothing is fetched), vets it, and runs the README's server and client.
// It also builds the README's server against a package generated from the
// 2026-07-28 schema, as "Generate a package of your own" says it compiles.
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
	run := map[string]string{} // marker → program directory
	for _, b := range readme(t) {
		if b.marker == "fragment" || !isProgram(b.code) {
			continue
		}
		name := fmt.Sprintf("%s_line%d", strings.NewReplacer("/", "_", ".", "_").Replace(b.file), b.line)
		files[filepath.Join(name, "main.go")] = b.code
		if slices.Contains(runMarkers, b.marker) {
			if b.file != "README.md" || run[b.marker] != "" {
				t.Fatalf("%s:%d: <!-- %s --> must mark one program of README.md", b.file, b.line, b.marker)
			}
			run[b.marker] = name
		}
	}
	for _, m := range runMarkers {
		if run[m] == "" {
			t.Fatalf("README.md has no program marked <!-- %s -->", m)
		}
	}
	// The server again, against the package "mcpgen generate" writes from
	// the schema that protocol/mcp20260728 was generated from.
	const generated = "example.com/readme/generated/mcp"
	server := files[filepath.Join(run["run: server"], "main.go")]
	swapped := strings.Replace(server, `"github.com/mcpgen/mcpgen/protocol/mcp20260728"`, strconv.Quote(generated), 1)
	if swapped == server {
		t.Fatal("the README's server does not import protocol/mcp20260728, which the generated package stands in for")
	}
	files[filepath.Join("generated", "server", "main.go")] = swapped
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, mcp20260728.Schema(), 0o644); err != nil {
		t.Fatal(err)
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
	goRun := func(wd, stdin string, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), goCmdTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = wd
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
	goRun(root, "", goBin, "run", "./cmd/mcpgen", "generate", "--revision", mcp20260728.Revision,
		"--schema", schemaFile, "--out", filepath.Join(dir, "generated", "mcp"), "--package", "mcp")
	goRun(dir, "", goBin, "mod", "tidy")
	goRun(dir, "", goBin, "vet", "./...")
	bin := filepath.Join(dir, "bin")
	goRun(dir, "", goBin, "build", "-o", bin+string(filepath.Separator), "./...")

	// The stdio server: initialize, then call its tool; the end of its
	// standard input ends it, after it answered. The same for the one built
	// on the generated package.
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Paris"}}}
`
	want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Sunny in Paris for 3 days."}]}}`
	for _, server := range []string{run["run: server"], "server"} {
		if out := goRun(dir, in, filepath.Join(bin, server)); !strings.Contains(out, want+"\n") {
			t.Errorf("the README's stdio server (%s) answered:\n%s\nwant a line %s", server, out, want)
		}
	}

	// The client, given the server's command line as the README runs it.
	out := goRun(dir, "", filepath.Join(bin, run["run: client"]), filepath.Join(bin, run["run: server"]))
	if want := "Sunny in Paris for 3 days.\n"; out != want {
		t.Errorf("the README's client printed %q, want %q", out, want)
	}
}

// guideNav is the start of the line of links every guide of docs/ has
// near its top, back to the README.
const guideNav = "[README](../README.md)"

// TestDocsPages checks the shape of every guide the README's
// "Documentation" section lists: a title, then a paragraph that says what
// the page covers, then the line of links back to the README and to every
// other guide.
func TestDocsPages(t *testing.T) {
	readmeText, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readmeText), "\n## Documentation\n")
	if !ok {
		t.Fatal(`README.md has no "## Documentation" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var guides []string
	for _, m := range regexp.MustCompile(`\]\((docs/[a-z0-9-]+\.md)\)`).FindAllStringSubmatch(section, -1) {
		guides = append(guides, m[1])
	}
	if len(guides) < 10 {
		t.Fatalf("the README's Documentation section lists %d guides, want at least 10: %q", len(guides), guides)
	}
	for _, page := range guides {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("README.md lists %s: %v", page, err)
			continue
		}
		paras := strings.Split(strings.TrimSpace(string(data)), "\n\n")
		switch {
		case len(paras) < 3 || !strings.HasPrefix(paras[0], "# ") || strings.Contains(paras[0], "\n"):
			t.Errorf("%s: does not start with a one-line title", page)
			continue
		case strings.HasPrefix(paras[1], "#") || strings.HasPrefix(paras[1], "```") || strings.HasPrefix(paras[1], "- ") || strings.HasPrefix(paras[1], "["):
			t.Errorf("%s: the title is not followed by a paragraph saying what the page covers", page)
		case !strings.HasPrefix(paras[2], guideNav):
			t.Errorf("%s: the opening paragraph is not followed by the links, starting %s", page, guideNav)
			continue
		}
		for _, other := range guides {
			if other != page && !strings.Contains(paras[2], "("+filepath.Base(other)+")") {
				t.Errorf("%s: its links do not include %s", page, filepath.Base(other))
			}
		}
	}
}

// mdLink matches a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks checks every link from the README or a guide to the README
// or a guide: the page exists and, for a link with a #fragment, has a
// heading of that slug.
func TestDocsLinks(t *testing.T) {
	slugs := map[string]map[string]bool{} // page → its headings' slugs
	for _, name := range markdownFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.ToSlash(name)
		slugs[page] = map[string]bool{}
		inFence := false
		for line := range strings.Lines(string(data)) {
			if strings.HasPrefix(line, "```") {
				inFence = !inFence
			}
			if h, ok := strings.CutPrefix(line, "#"); ok && !inFence {
				slugs[page][slug(strings.TrimLeft(h, "#"))] = true
			}
		}
	}
	for _, name := range markdownFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		from := filepath.ToSlash(name)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			page := from
			if file != "" {
				page = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), file)))
			}
			headings, ok := slugs[page]
			if !ok {
				if page == "README.md" || strings.HasPrefix(page, "docs/") && strings.HasSuffix(page, ".md") {
					t.Errorf("%s: the link %s names no page", from, target)
				}
				continue // another file of the repository
			}
			if frag != "" && !headings[frag] {
				t.Errorf("%s: the link %s names no heading of %s", from, target, page)
			}
		}
	}
}

// slug returns the anchor a heading gets: lower case, spaces to hyphens,
// other punctuation dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{" Sealed `requestState` (2026-07-28)\n", "sealed-requeststate-2026-07-28"},
		{" The OAuth client's address policy", "the-oauth-clients-address-policy"},
		{" Try it by hand", "try-it-by-hand"},
	} {
		if got := slug(tt.in); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
