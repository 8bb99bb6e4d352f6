package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseArgs(t *testing.T) {
	base := config{command: "list", args: []byte("{}"), header: http.Header{}, answers: map[string]string{}, timeout: 5 * time.Minute}
	with := func(f func(c *config)) config {
		c := base
		c.header, c.answers = http.Header{}, map[string]string{}
		f(&c)
		return c
	}
	tests := []struct {
		args    []string
		want    config
		wantErr string
	}{
		{args: []string{"--", "srv"}, want: with(func(c *config) { c.server = []string{"srv"} })},
		{args: []string{"list", "--", "go", "run", "./srv", "--flag"}, want: with(func(c *config) { c.server = []string{"go", "run", "./srv", "--flag"} })},
		{args: []string{"call", "echo", `{"text":"hi"}`, "--", "srv"}, want: with(func(c *config) {
			c.command, c.target, c.args, c.server = "call", "echo", []byte(`{"text":"hi"}`), []string{"srv"}
		})},
		{args: []string{"--url", "http://127.0.0.1:8080/mcp", "read", "mcpgen://readme"}, want: with(func(c *config) {
			c.command, c.target, c.url = "read", "mcpgen://readme", "http://127.0.0.1:8080/mcp"
		})},
		{args: []string{"prompt", "greet", `{"name":"Ada"}`, "--url=https://example.com/mcp", "--header", "X-API-Key: k1"}, want: with(func(c *config) {
			c.command, c.target, c.args, c.url = "prompt", "greet", []byte(`{"name":"Ada"}`), "https://example.com/mcp"
			c.header.Set("X-API-Key", "k1")
		})},
		{args: []string{"--revision", "2025-06-18", "--answer", "name=Ada", "--answer", "age=3", "--no-input", "--json", "--timeout", "10s", "call", "hello", "--", "srv"}, want: with(func(c *config) {
			c.command, c.target, c.server, c.revision, c.noInput, c.json, c.timeout = "call", "hello", []string{"srv"}, "2025-06-18", true, true, 10*time.Second
			c.answers = map[string]string{"name": "Ada", "age": "3"}
		})},
		{args: nil, wantErr: "no server: give its command after --, or --url URL"},
		{args: []string{"list", "--"}, wantErr: "no server command after --"},
		{args: []string{"--url", "http://x/mcp", "--", "srv"}, wantErr: "not both"},
		{args: []string{"--url", "127.0.0.1:8080"}, wantErr: "want an http:// or https:// URL"},
		{args: []string{"--header", "A: b", "--", "srv"}, wantErr: "--header needs --url"},
		{args: []string{"--url", "http://x/mcp", "--header", "nocolon"}, wantErr: `--header "nocolon": want NAME:VALUE`},
		{args: []string{"--answer", "name", "--", "srv"}, wantErr: `--answer "name": want KEY=VALUE`},
		{args: []string{"--revision", "bogus", "--", "srv"}, wantErr: "--revision bogus: unknown revision; this client speaks 2026-07-28, 2025-11-25"},
		{args: []string{"go", "run", "./srv"}, wantErr: `unknown command "go": want list, call, read or prompt (a server command goes after --)`},
		{args: []string{"call", "--", "srv"}, wantErr: "call: want TOOL [JSON]"},
		{args: []string{"read", "a", "b", "--", "srv"}, wantErr: "read: want URI"},
		{args: []string{"list", "x", "--", "srv"}, wantErr: "list: want no arguments"},
		{args: []string{"call", "echo", "[1]", "--", "srv"}, wantErr: "call echo: the arguments must be a JSON object"},
		{args: []string{"prompt", "greet", `{"n":1}`, "--", "srv"}, wantErr: "prompt greet: the arguments must be a JSON object of strings"},
		{args: []string{"--bogus", "--", "srv"}, wantErr: "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			got, done, err := parseArgs(tt.args, &out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || done {
				t.Fatalf("done %v, err %v", done, err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(config{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"call", "--help"}} {
		var out bytes.Buffer
		_, done, err := parseArgs(args, &out)
		if err != nil || !done {
			t.Fatalf("%q: done %v, err %v", args, done, err)
		}
		for _, want := range []string{"usage: stdio-client", "call TOOL [JSON]", "--url URL", "--answer KEY=VALUE", "--no-input"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: the help lacks %q:\n%s", args, want, out.String())
			}
		}
	}
}

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// syncBuffer is a bytes.Buffer that several goroutines may write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// server builds examples/stdio-server once per test binary and returns its
// path.
func server(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "stdio-client-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "stdio-server")
		out, err := exec.Command("go", "build", "-o", built.bin, "../stdio-server").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build -o %s ../stdio-server: %v\n%s", built.bin, err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// httpServer runs examples/stdio-server --http on a port of 127.0.0.1 for
// the test and returns its base URL.
func httpServer(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, server(t), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		cancel()
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("the server's first line %q, %v: want the address it serves", line, err)
	}
	return m[1]
}

// The client against examples/stdio-server, over stdio and HTTP, in both
// eras: what each command prints, and how a question is answered.
func TestRun(t *testing.T) {
	base := httpServer(t)
	srv := server(t)
	tests := []struct {
		name    string
		args    []string
		stdin   string
		want    []string // lines of stdout, in order
		wantErr string
	}{
		{name: "list", args: []string{"--", srv}, want: []string{
			"server mcpgen-example 1.0.0, revision 2026-07-28 (modern era)", "tools:", "  echo   Returns its text.", "  hello  Asks the user's name, then says hello.",
			"prompts (* marks a required argument):", "  greet  name*", "resources:", "  mcpgen://readme  readme  text/plain", "resource templates:", "  (none)",
		}},
		{name: "list 2025-03-26", args: []string{"--revision", "2025-03-26", "--", srv}, want: []string{"server mcpgen-example 1.0.0, revision 2025-03-26 (legacy era)"}},
		{name: "call", args: []string{"call", "echo", `{"text":"hi"}`, "--", srv}, want: []string{"hi"}},
		{name: "call json", args: []string{"--json", "call", "echo", `{"text":"hi"}`, "--", srv}, want: []string{
			`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpgen-example","version":"1.0.0"}},"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`,
		}},
		{name: "asked, stateless", args: []string{"call", "hello", "--", srv}, stdin: "Ada\n", want: []string{"Hello, Ada!"}},
		{name: "asked, 2025-06-18", args: []string{"--revision", "2025-06-18", "call", "hello", "--", srv}, stdin: "\nAda\n", want: []string{"Hello, Ada!"}},
		{name: "answered by flag", args: []string{"--no-input", "--answer", "name=Eve", "call", "hello", "--", srv}, want: []string{"Hello, Eve!"}},
		{name: "declined", args: []string{"--no-input", "call", "hello", "--", srv}, want: []string{"Hello, whoever you are."}},
		{name: "cancelled at end of input", args: []string{"call", "hello", "--", srv}, want: []string{"Hello, whoever you are."}},
		{name: "2025-03-26 cannot ask", args: []string{"--revision", "2025-03-26", "call", "hello", "--", srv}, want: []string{"Hello, whoever you are."}},
		{name: "read", args: []string{"read", "mcpgen://readme", "--", srv}, want: []string{"mcpgen generates typed Go for the Model Context Protocol."}},
		{name: "prompt", args: []string{"prompt", "greet", `{"name":"Ada"}`, "--", srv}, want: []string{"user: Say hello to Ada."}},
		{name: "unknown tool", args: []string{"call", "nope", "--", srv}, wantErr: `unknown tool "nope"`},
		{name: "no such server", args: []string{"--", filepath.Join(t.TempDir(), "missing")}, wantErr: string(filepath.Separator) + "missing: "}, // Connect names the command
		{name: "Streamable HTTP", args: []string{"--url", base + "/mcp", "call", "echo", `{"text":"over HTTP"}`}, want: []string{"over HTTP"}},
		{name: "HTTP+SSE", args: []string{"--url", base + "/sse", "list"}, want: []string{"server mcpgen-example 1.0.0, revision 2025-11-25 (legacy era)"}},
		{name: "HTTP asked", args: []string{"--url", base + "/mcp", "call", "hello"}, stdin: "Ada\n", want: []string{"Hello, Ada!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, _, err := parseArgs(append([]string{"--timeout", "30s"}, tt.args...), nil)
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			var stderr syncBuffer // the server's stderr and the questions
			err = run(context.Background(), c, strings.NewReader(tt.stdin), &stdout, &stderr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q\nstdout:\n%s", err, tt.wantErr, stdout.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
			}
			got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(got) > len(tt.want) {
				got = got[:len(tt.want)]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stdout (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
			}
		})
	}
}

// A tool's error result is printed and fails the run.
func TestToolErrorFails(t *testing.T) {
	c, _, err := parseArgs([]string{"--timeout", "30s", "call", "echo", `{"text":1}`, "--", server(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	var stderr syncBuffer
	err = run(context.Background(), c, strings.NewReader(""), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "tool echo returned an error result") {
		t.Fatalf("err = %v, want the tool's error; stdout %q", err, stdout.String())
	}
	if stdout.Len() == 0 {
		t.Error("the error result's text was not printed")
	}
}
