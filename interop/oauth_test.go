package interop_test

// TestTypeScriptOAuthClient: the official TypeScript SDK's OAuth client
// logs in at a test authorization server and calls a tool on an mcpgen
// resource server (runtime/bearer over streamhttp, package protected), as
// issue 14 item 3 asks.

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/internal/oauthtest/protected"
)

func TestTypeScriptOAuthClient(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	as := oauthtest.New(t)
	url := protected.Start(t, as, "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(interop, "ts-oauth-client.mjs"), url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var got struct {
		Tools  []string
		Whoami string
	}
	if jerr := json.Unmarshal(out, &got); err != nil || jerr != nil {
		t.Fatalf("ts-oauth-client.mjs: %v; output %q: %v\nstderr:\n%s", err, out, jerr, stderr.String())
	}
	if !slices.Contains(got.Tools, "whoami") || got.Whoami != "user-1 [mcp]" {
		t.Errorf("tools %v, whoami %q; want whoami listed and %q", got.Tools, got.Whoami, "user-1 [mcp]")
	}
	// What the SDK sent on the way: one registration, an authorization
	// request with PKCE and the resource, a code exchange for the resource.
	auths := as.AuthRequests()
	if len(auths) != 1 || auths[0].Resource != url || auths[0].CodeChallengeMethod != "S256" || auths[0].Scope != "mcp" {
		t.Errorf("authorization requests = %+v", auths)
	}
	if toks := as.TokenRequests(); len(toks) != 1 || toks[0].GrantType != "authorization_code" || toks[0].Resource != url {
		t.Errorf("token requests = %+v", toks)
	}
	if n := len(as.Registrations()); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
}
