package compare

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
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
)

// Time bounds: building one pair, one client run (its own bound is 30 s),
// and the server's start.
const (
	buildTimeout = 5 * time.Minute
	runTimeout   = 60 * time.Second
	startTimeout = 30 * time.Second
)

// programs are the two programs every pair has, each a main package in
// <library>/<program>.
var programs = []string{"notes-server", "notes-client"}

// requiredPairs must be present: the test fails rather than pass with
// nothing to compare.
var requiredPairs = []string{"gosdk", "mcpgo"}

// findPairs returns the libraries that have a pair: every directory here
// with notes-server/main.go and notes-client/main.go. A directory with only
// one of them is an error.
func findPairs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var libs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		var have []string
		for _, p := range programs {
			if _, err := os.Stat(filepath.Join(e.Name(), p, "main.go")); err == nil {
				have = append(have, p)
			}
		}
		switch len(have) {
		case len(programs):
			libs = append(libs, e.Name())
		case 0:
		default:
			t.Errorf("%s has %v but not all of %v: write both programs of the pair", e.Name(), have, programs)
		}
	}
	for _, want := range requiredPairs {
		found := false
		for _, lib := range libs {
			found = found || lib == want
		}
		if !found {
			t.Errorf("no pair in %s/: want %s/notes-server/main.go and %s/notes-client/main.go", want, want, want)
		}
	}
	return libs
}

// build builds the pair of lib into a temporary directory and returns the
// paths of the server and the client.
func build(t *testing.T, lib string) (server, client string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "./"+lib+"/"+p)
	}
	if out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return filepath.Join(dir, "notes-server"), filepath.Join(dir, "notes-client")
}

// wantOutput is what every client prints, line by line: the line starts
// with prefix and, when contains is set, contains it (ignoring case);
// otherwise the line is exactly prefix.
var wantOutput = []struct{ prefix, contains string }{
	{"added note 1", ""},
	{"search: [{1 groceries}]", ""},
	{"refused: ", "limit"},
	{"resource: milk, eggs", ""},
	{"missing: ", "not found"},
	{`prompt: "`, "milk, eggs"},
	{`elicitation: Delete note 1 "groceries"?`, ""},
	{"deleted: true", ""},
	{"search: []", ""},
}

// checkOutput fails the test with every way out differs from wantOutput.
func checkOutput(t *testing.T, out string) {
	t.Helper()
	for _, p := range outputProblems(out) {
		t.Error(p)
	}
}

// outputProblems lists every way out differs from wantOutput.
func outputProblems(out string) []string {
	var problems []string
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(wantOutput) {
		problems = append(problems, fmt.Sprintf("client printed %d lines, want %d:\n%s", len(lines), len(wantOutput), out))
	}
	for i, w := range wantOutput {
		if i >= len(lines) {
			break
		}
		line := lines[i]
		ok := line == w.prefix
		if w.contains != "" {
			ok = strings.HasPrefix(line, w.prefix) && strings.Contains(strings.ToLower(line), strings.ToLower(w.contains))
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("line %d: got %q, want %q followed by text containing %q", i+1, line, w.prefix, w.contains))
		}
	}
	return problems
}

// env returns the environment of the test without NOTES_API_KEY, plus extra.
func env(extra ...string) []string {
	var e []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NOTES_API_KEY=") {
			e = append(e, kv)
		}
	}
	return append(e, extra...)
}

// runClient runs the client with args and returns what it printed on
// stdout; it fails the test if the client fails or outlives runTimeout.
func runClient(t *testing.T, client string, environ []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, client, args...)
	cmd.Env = environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(client), args, err, out, stderr.String())
	}
	return string(out)
}

// lockedBuffer collects a process's stderr while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:[0-9]+/mcp)`)

// startHTTPServer starts the server on a port of 127.0.0.1 chosen at run
// time and returns its URL and its stderr. The server is stopped when the
// test ends.
func startHTTPServer(t *testing.T, server, key string) (string, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, server, "--http", "127.0.0.1:0")
	cmd.Env = env("NOTES_API_KEY=" + key)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	urls := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.mu.Lock()
			logs.buf.WriteString(sc.Text() + "\n")
			logs.mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = cmd.Wait()
	})
	select {
	case u := <-urls:
		return u, logs
	case <-done:
		t.Fatalf("server exited before it listened; stderr:\n%s", logs.String())
	case <-time.After(startTimeout):
		t.Fatalf("server printed no %q within %v; stderr:\n%s", listening, startTimeout, logs.String())
	}
	return "", nil
}

func randomKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// TestNotesPairs runs every pair's client against its own server, over
// stdio and over Streamable HTTP, and checks what the client prints, that
// HTTP refuses requests without the right X-API-Key, and that the server's
// middleware logged the methods it received.
func TestNotesPairs(t *testing.T) {
	for _, lib := range findPairs(t) {
		t.Run(lib, func(t *testing.T) {
			server, client := build(t, lib)

			t.Run("stdio", func(t *testing.T) {
				checkOutput(t, runClient(t, client, env(), server))
			})

			t.Run("http", func(t *testing.T) {
				key := randomKey(t)
				url, logs := startHTTPServer(t, server, key)
				for _, tc := range []struct {
					name   string
					header map[string]string
				}{
					{"no key", nil},
					{"wrong key", map[string]string{"X-API-Key": key + "x"}},
					{"empty key", map[string]string{"X-API-Key": ""}},
				} {
					req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
					if err != nil {
						t.Fatal(err)
					}
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					for k, v := range tc.header {
						req.Header.Set(k, v)
					}
					ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
					resp, err := http.DefaultClient.Do(req.WithContext(ctx))
					if err != nil {
						cancel()
						t.Fatalf("%s: %v", tc.name, err)
					}
					_ = resp.Body.Close()
					cancel()
					if resp.StatusCode != http.StatusUnauthorized {
						t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, http.StatusUnauthorized)
					}
				}

				checkOutput(t, runClient(t, client, env("NOTES_API_KEY="+key), url))

				got := logs.String()
				for _, method := range []string{"tools/call", "resources/read", "prompts/get"} {
					if !strings.Contains(got, "method: "+method+"\n") {
						t.Errorf("server stderr has no line ending in %q:\n%s", "method: "+method, got)
					}
				}
				if strings.Contains(got, key) {
					t.Errorf("server stderr shows the API key:\n%s", got)
				}
			})

			t.Run("http without key", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
				defer cancel()
				cmd := exec.CommandContext(ctx, server, "--http", "127.0.0.1:0")
				cmd.Env = env()
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				if ctx.Err() != nil || !errors.As(err, &exit) {
					t.Fatalf("server with --http and no NOTES_API_KEY: %v (want it to exit with an error)\n%s", err, out)
				}
				if !strings.Contains(string(out), "NOTES_API_KEY") {
					t.Errorf("server's error does not name NOTES_API_KEY:\n%s", out)
				}
			})
		})
	}
}

// TestOutputProblems makes sure outputs that miss the spec are caught, so a
// pair cannot pass by printing less.
func TestOutputProblems(t *testing.T) {
	good := "added note 1\nsearch: [{1 groceries}]\nrefused: /limit: must be <= 50\nresource: milk, eggs\n" +
		"missing: Resource not found\nprompt: \"Summarize milk, eggs\"\n" +
		"elicitation: Delete note 1 \"groceries\"?\ndeleted: true\nsearch: []\n"
	for _, tc := range []struct {
		name, out string
		fails     bool
	}{
		{"good", good, false},
		{"refusal missing", strings.Replace(good, "refused: /limit: must be <= 50", "refused: <nil>", 1), true},
		{"not deleted", strings.Replace(good, "deleted: true", "deleted: false", 1), true},
		{"line missing", strings.Replace(good, "resource: milk, eggs\n", "", 1), true},
		{"extra line", good + "more\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems := outputProblems(tc.out)
			if (len(problems) > 0) != tc.fails {
				t.Errorf("problems = %q, want failure %v", problems, tc.fails)
			}
		})
	}
}
