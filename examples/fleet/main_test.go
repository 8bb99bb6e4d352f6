package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/redis/redistest"
)

// testTimeout bounds each test's waits.
const testTimeout = 60 * time.Second

var servingLine = regexp.MustCompile(`^fleet "([^"]+)": (\d+) instances on (\S+), behind (http://127\.0\.0\.1:\d+/mcp)\n$`)

// startFleet runs "fleet serve" with args on a redis-server of its own,
// the proxy on a port of 127.0.0.1 chosen now, and returns its URL. At the
// end of the test its context ends, and it must stop without an error.
func startFleet(t *testing.T, args ...string) string {
	t.Helper()
	rs := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--redis", "redis://" + rs.Addr() + "/0", "--addr", "127.0.0.1:0"}, args...), pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("serve did not return once its context ended")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	m := servingLine.FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("serve wrote %q (%v), want the line saying where it serves", line, err)
	}
	return m[4]
}

// TestServeAndClient runs the fleet and the client as docs/fleet.md does:
// the output is the story, compared whole.
func TestServeAndClient(t *testing.T) {
	url := startFleet(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, []string{"client", "--url", url}, &out); err != nil {
		t.Fatalf("client: %v\n%s", err, out.String())
	}
	want := `2026-07-28, stateless: 3 calls answered by 3 instances
2026-07-28, a question and its answer: "Hello, Ada"
2025-11-25, a session: 3 calls answered by 1 instance, its owner, whichever took them
2025-11-25, the server asks the client: "Hello, Ada"
2025-11-25, a resource subscription: told of the change to fleet://counter made through another instance
HTTP+SSE, a session: 3 calls answered by 1 instance, the one holding its stream
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("client output (-want +got):\n%s", diff)
	}
}

// One instance behind the proxy answers everything itself: the counts
// the client prints are what the fleet did, not fixed text.
func TestOneInstance(t *testing.T) {
	url := startFleet(t, "--instances", "1")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, []string{"client", "--url", url}, &out); err != nil {
		t.Fatalf("client: %v\n%s", err, out.String())
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); first != "2026-07-28, stateless: 3 calls answered by 1 instance" {
		t.Errorf("first line %q", first)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string // in the error, or the output for --help
	}{
		{[]string{"--help"}, "usage: fleet serve"},
		{nil, "want one command, serve or client"},
		{[]string{"dance"}, `unknown command "dance"`},
		{[]string{"serve", "--redis", "http://x"}, `--redis "http://x"`},
		{[]string{"serve", "--instances", "0", "--redis", "redis://127.0.0.1:1/0"}, "--instances 0: want at least 1"},
		{[]string{"--nope"}, "unknown flag: --nope; see --help"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := run(context.Background(), tt.args, &out)
		got := out.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("fleet %q: %q, want it to contain %q", tt.args, got, tt.want)
		}
	}
}
