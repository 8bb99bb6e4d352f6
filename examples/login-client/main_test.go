package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/internal/oauthtest/protected"
)

// TestLogin: the client logs in at the test authorization server, lists
// the tools and calls whoami; a second run uses the stored token.
func TestLogin(t *testing.T) {
	as := oauthtest.New(t)
	url := protected.Start(t, as, "mcp")
	store := filepath.Join(t.TempDir(), "tokens.json")
	for i := range 2 {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"--headless", "--store", store, "--tool", "whoami", "--url", url}, &stdout, &stderr); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, code, stderr.String())
		}
		if got := stdout.String(); !strings.Contains(got, "tool whoami\n") || !strings.Contains(got, "whoami: user-1 [mcp]\n") {
			t.Errorf("run %d: stdout %q", i, got)
		}
	}
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations for two runs, want 1 (the second uses the stored token)", n)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--logout", "--store", store, "--url", url}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "logged out") {
		t.Fatalf("--logout: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := len(as.Revocations()); n != 1 {
		t.Errorf("%d revocations after --logout, want 1", n)
	}
	if code := run(context.Background(), []string{"--headless", "--store", store, "--url", url}, &stdout, &stderr); code != 0 {
		t.Fatalf("run after logout: exit %d\n%s", code, stderr.String())
	}
	if n := len(as.AuthRequests()); n != 2 {
		t.Errorf("%d authorizations, want 2: the run after --logout logs in again", n)
	}
}

// TestUsage: usage errors are one line and exit 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--bogus", "--url", "http://x"}, {"http://x"}, {"--url", "http://x", "b"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if s := stderr.String(); strings.Count(s, "\n") != 1 || !strings.Contains(s, "see --help") {
			t.Errorf("%q: stderr %q, want one line pointing to --help", args, s)
		}
	}
}
