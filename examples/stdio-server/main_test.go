package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// binary builds this example once per test binary and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "stdio-server-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "stdio-server")
		out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build -o %s .: %v\n%s", built.bin, err, out)
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

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echoLine        = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"piped"}}}`
)

// Defect: `stdio-server < file` lost the answer to the file's tools/call in
// most runs, because the end of input cancelled the session while the tool
// ran. Every run must answer it, and exit cleanly.
func TestPipedFileAnswered(t *testing.T) {
	bin := binary(t)
	file := filepath.Join(t.TempDir(), "input.jsonl")
	if err := os.WriteFile(file, []byte(initLine+"\n"+initializedLine+"\n"+echoLine+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := 20
	if testing.Short() {
		runs = 5
	}
	for i := range runs {
		in, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin)
		cmd.Stdin = in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		in.Close()
		if err != nil {
			t.Fatalf("run %d: %v\nstderr: %s", i, err, stderr.Bytes())
		}
		var got []string
		for line := range strings.Lines(string(out)) {
			var m struct {
				ID     *int `json:"id"`
				Result struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("run %d: output line %q: %v", i, line, err)
			}
			if m.ID != nil && *m.ID == 1 {
				for _, c := range m.Result.Content {
					got = append(got, c.Text)
				}
			}
		}
		if diff := cmp.Diff([]string{"piped"}, got); diff != "" {
			t.Fatalf("run %d: the tools/call answer (-want +got):\n%s\noutput:\n%s", i, diff, out)
		}
	}
}
