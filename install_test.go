package readme_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The markers of the README's first server and first client: complete
// programs that TestREADMEInstall builds in a module of their own and runs,
// the client with the server's command as its arguments.
const (
	serverMarker = "run: server"
	clientMarker = "run: client"
)

// clientTimeout bounds the run of the README's client against its server.
const clientTimeout = time.Minute

// markedProgram returns the one go block of blocks marked marker, failing the
// test if there is none or more than one, or if it is not a program.
func markedProgram(t *testing.T, blocks []block, marker string) block {
	t.Helper()
	var found []block
	for _, b := range blocks {
		if b.marker == marker {
			found = append(found, b)
		}
	}
	switch {
	case len(found) == 0:
		t.Fatalf("README.md has no go block marked <!-- %s -->", marker)
	case len(found) > 1:
		t.Fatalf("README.md has %d go blocks marked <!-- %s --> (lines %d and %d), want one", len(found), marker, found[0].line, found[1].line)
	case !isProgram(found[0].code):
		t.Fatalf("%s:%d: the go block marked <!-- %s --> is not a program (package main)", found[0].file, found[0].line, marker)
	}
	return found[0]
}

// numbered returns b's code with the README line number before each line,
// for failure messages.
func numbered(b block) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s, the block marked <!-- %s -->:\n", b.file, b.marker)
	for i, line := range strings.Split(strings.TrimSuffix(b.code, "\n"), "\n") {
		fmt.Fprintf(&s, "%5d\t%s\n", b.line+i, line)
	}
	return s.String()
}

// stringLiterals returns the values of the string literals of the Go
// program code, but for import paths and struct tags.
func stringLiterals(code string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", code, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	skip := map[*ast.BasicLit]bool{}
	var lits []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			skip[n.Path] = true
		case *ast.Field:
			if n.Tag != nil {
				skip[n.Tag] = true
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && !skip[n] {
				if v, err := strconv.Unquote(n.Value); err == nil {
					lits = append(lits, v)
				}
			}
		}
		return true
	})
	return lits, nil
}

// formatVerb matches a verb of a fmt format string, such as %s or %3d.
var formatVerb = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z%]`)

// serverWords returns the string literals of the server program that are
// not in the client program's: what the client can print only by having
// had it from the server, such as the text its tool answers. A literal
// with format verbs counts by its pieces between them ("Sunny in %s for
// %d days." gives "Sunny in", "for" and "days.").
func serverWords(server, client string) ([]string, error) {
	slits, err := stringLiterals(server)
	if err != nil {
		return nil, fmt.Errorf("the server: %w", err)
	}
	clits, err := stringLiterals(client)
	if err != nil {
		return nil, fmt.Errorf("the client: %w", err)
	}
	var pieces []string
	for _, s := range slits {
		pieces = append(pieces, formatVerb.Split(s, -1)...)
	}
	var words []string
	for _, s := range pieces {
		s = strings.TrimSpace(s)
		if len(s) < 3 {
			continue
		}
		inClient := false
		for _, c := range clits {
			if strings.Contains(c, s) {
				inClient = true
				break
			}
		}
		if !inClient {
			words = append(words, s)
		}
	}
	return words, nil
}

func TestServerWords(t *testing.T) {
	server := "package main\n\nimport \"fmt\"\n\ntype Args struct {\n\tCity string `json:\"city\"`\n}\n\nfunc main() {\n\tfmt.Println(\"weather\", \"forecast\", \"Sunny in \" + \"x\", `raw`, \"ok\", fmt.Sprintf(\"%s for %d days.\", \"a\", 1))\n}\n"
	client := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"forecast\", \"the weather client\")\n}\n"
	got, err := serverWords(server, client)
	if err != nil {
		t.Fatal(err)
	}
	// Not "fmt" (an import), nor the tag, nor "forecast" and "weather"
	// (the client has them), nor "x" and "ok" (too short to tell); a
	// format string by its pieces ("for" is in the client's "forecast").
	if want := []string{"Sunny in", "raw", "days."}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("serverWords = %q, want %q", got, want)
	}
	if _, err := serverWords("package main\nfunc {", client); err == nil {
		t.Error("a server that does not parse gave no error")
	}
}

// TestREADMEInstall takes the README's two routes to mcpgen from a local
// clone, as a new user would, in an empty module outside the repository and
// without the network (GOPROXY=off, the module cache shared):
//
//   - replace: go mod init; go mod edit -replace
//     github.com/mcpgen/mcpgen=<clone>; go mod tidy (with the clone's go.sum,
//     which stands in for the checksum database);
//   - workspace: go mod init; go work init .; go work use <clone>.
//
// In each it writes the README's server and client programs (the go blocks
// marked <!-- run: server --> and <!-- run: client -->), builds them, and
// runs the client with the server binary as its argument: the client must
// succeed and print what only the server could have told it, such as its
// tool's text.
func TestREADMEInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two modules with the go command (about 30 s)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := goBlocks(string(data))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	for i := range blocks {
		blocks[i].file = "README.md"
	}
	server := markedProgram(t, blocks, serverMarker)
	client := markedProgram(t, blocks, clientMarker)
	words, err := serverWords(server.code, client.code)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) == 0 {
		t.Fatalf("the README's server has no string literal (of 3 characters or more) that its client lacks, by which to tell that the client heard from it\n%s\n%s", numbered(server), numbered(client))
	}
	goSum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		env   func(dir string) []string
		setup [][]string // go commands before the programs are written
		build [][]string // go commands after
	}{
		{
			name: "replace",
			env: func(dir string) []string {
				return []string{"GOWORK=off", "GOFLAGS=-mod=mod"}
			},
			setup: [][]string{
				{"mod", "init", "example.com/weather"},
				{"mod", "edit", "-replace=github.com/mcpgen/mcpgen=" + filepath.ToSlash(root)},
			},
			build: [][]string{
				{"mod", "tidy"},
				{"vet", "./..."},
				{"build", "-o", "bin" + string(filepath.Separator), "./..."},
			},
		},
		{
			name: "workspace",
			env: func(dir string) []string {
				return []string{"GOWORK=" + filepath.Join(dir, "go.work"), "GOFLAGS=-mod=readonly"}
			},
			setup: [][]string{
				{"mod", "init", "example.com/weather"},
				{"work", "init", "."},
				{"work", "use", root},
			},
			build: [][]string{
				{"vet", "./..."},
				{"build", "-o", "bin" + string(filepath.Separator), "./..."},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the programs run:\n%s\n%s", numbered(server), numbered(client))
				}
			})
			dir := t.TempDir()
			if rel, err := filepath.Rel(root, dir); err == nil && filepath.IsLocal(rel) {
				t.Fatalf("the new module %s is inside the checkout %s; set TMPDIR outside it", dir, root)
			}
			// The module cache and build cache are the user's; nothing is
			// downloaded. GOFLAGS and GOWORK replace the user's.
			env := append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local")
			env = append(env, tt.env(dir)...)
			goCmd := func(args ...string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(t.Context(), goCmdTimeout)
				defer cancel()
				cmd := exec.CommandContext(ctx, goBin, args...)
				cmd.Dir = dir
				cmd.Env = env
				cmd.WaitDelay = 10 * time.Second
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
				}
			}
			for _, args := range tt.setup {
				goCmd(args...)
			}
			files := map[string]string{
				filepath.Join("server", "main.go"): server.code,
				filepath.Join("client", "main.go"): client.code,
			}
			if tt.name == "replace" {
				files["go.sum"] = string(goSum)
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
			for _, args := range tt.build {
				goCmd(args...)
			}

			bin := filepath.Join(dir, "bin")
			ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, "client"), filepath.Join(bin, "server"))
			cmd.Dir = dir
			cmd.WaitDelay = 10 * time.Second
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("./bin/client ./bin/server: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			heard := false
			for _, w := range words {
				if strings.Contains(stdout.String(), w) {
					heard = true
					break
				}
			}
			if !heard {
				t.Errorf("./bin/client ./bin/server printed:\n%s\nwhich has none of the server's words %q: it did not show the tool's answer\nstderr:\n%s", stdout.String(), words, stderr.String())
			}
		})
	}
}
