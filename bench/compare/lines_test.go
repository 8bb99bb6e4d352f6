package compare

import (
	"bytes"
	"flag"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the table of line counts in README.md")

// count is what TestLineCounts measures of one program.
type count struct {
	// lines is the number of lines that hold code: not blank, not only
	// comment.
	lines int
	// imports are the distinct non-standard-library import paths.
	imports []string
}

// countSource counts src, the text of one Go file named name. A line holds
// code when a token other than a comment starts on it or a multi-line raw
// string runs through it; the semicolons Go inserts at line ends are not
// tokens of the text and do not count.
func countSource(name string, src []byte) (count, error) {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	code := map[int]bool{}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		first, last := file.Line(pos), file.Line(pos)
		if tok == token.STRING && len(lit) > 1 {
			last = file.Line(pos + token.Pos(len(lit)-1))
		}
		for l := first; l <= last; l++ {
			code[l] = true
		}
	}
	if err := errs.Err(); err != nil {
		return count{}, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return count{}, err
	}
	var c count
	c.lines = len(code)
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return count{}, err
		}
		// A standard library path has no dot in its first element.
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && !contains(c.imports, p) {
			c.imports = append(c.imports, p)
		}
	}
	sort.Strings(c.imports)
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// countProgram counts every non-test Go file of the program in dir.
func countProgram(dir string) (count, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return count{}, err
	}
	var total count
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return count{}, err
		}
		c, err := countSource(name, src)
		if err != nil {
			return count{}, fmt.Errorf("counting %s: %w", name, err)
		}
		total.lines += c.lines
		for _, p := range c.imports {
			if !contains(total.imports, p) {
				total.imports = append(total.imports, p)
			}
		}
	}
	if len(files) == 0 {
		return count{}, fmt.Errorf("%s has no Go files", dir)
	}
	sort.Strings(total.imports)
	return total, nil
}

// Markers of the table in README.md that TestLineCounts checks.
const (
	tableBegin = "<!-- counts:begin -->\n"
	tableEnd   = "<!-- counts:end -->\n"
)

// countsTable is the Markdown table of the line counts of every pair.
func countsTable(t *testing.T, libs []string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("| library | program | lines | non-std imports |\n")
	b.WriteString("|---|---|---:|---|\n")
	for _, lib := range libs {
		sum := 0
		var all []string
		for _, p := range programs {
			c, err := countProgram(filepath.Join(lib, p))
			if err != nil {
				t.Fatal(err)
			}
			sum += c.lines
			for _, imp := range c.imports {
				if !contains(all, imp) {
					all = append(all, imp)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d: %s |\n", lib, p, c.lines, len(c.imports), backquoted(c.imports))
		}
		fmt.Fprintf(&b, "| %s | **both** | **%d** | %d distinct |\n", lib, sum, len(all))
	}
	return b.String()
}

func backquoted(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "`" + p + "`"
	}
	return strings.Join(q, ", ")
}

// TestLineCounts logs the lines and imports of every program and checks
// that README.md shows the same table; -update rewrites it there.
func TestLineCounts(t *testing.T) {
	table := countsTable(t, findPairs(t))
	t.Logf("lines that hold code, and non-standard-library imports:\n%s", table)

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := bytes.Cut(readme, []byte(tableBegin))
	old, after, ok2 := bytes.Cut(rest, []byte(tableEnd))
	if !ok1 || !ok2 {
		t.Fatalf("README.md has no table between %q and %q", tableBegin, tableEnd)
	}
	if string(old) == table {
		return
	}
	if !*update {
		t.Fatalf("README.md's table of line counts is out of date; run go test ./compare -run TestLineCounts -update from bench/, or paste:\n%s", table)
	}
	// A new slice: appending to before would write over after, which
	// shares readme's array.
	out := slices.Concat(before, []byte(tableBegin), []byte(table), []byte(tableEnd), after)
	if err := os.WriteFile("README.md", out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("README.md updated")
}

// TestCountSource checks the line counter on the cases it has to tell
// apart.
func TestCountSource(t *testing.T) {
	for _, tc := range []struct {
		name    string
		src     string
		lines   int
		imports []string
	}{
		{"blank and comment lines", "package p\n\n// doc\n/* a\n b */\nvar x = 1 // trailing\n", 2, nil},
		{"comment between tokens", "package p\nvar /* c */ x = 1\n", 2, nil},
		{"raw string over lines", "package p\nvar s = `a\n\nb`\n", 4, nil},
		{"imports", "package p\nimport (\n\t\"fmt\"\n\t\"github.com/a/b\"\n\tc \"example.com/c/d\"\n\t_ \"github.com/a/b\"\n)\n", 7,
			[]string{"example.com/c/d", "github.com/a/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := countSource("x.go", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if c.lines != tc.lines || strings.Join(c.imports, ",") != strings.Join(tc.imports, ",") {
				t.Errorf("countSource = %d lines, imports %q; want %d, %q", c.lines, c.imports, tc.lines, tc.imports)
			}
		})
	}
}
