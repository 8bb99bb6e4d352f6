package interop_test

// TestTypeScriptOAuthClient: the official TypeScript SDK's OAuth client
// logs in at a test authorization server and calls a tool on an mcpgen
// resource server (runtime/bearer over streamhttp), as issue 14 item 3
// asks.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// authorizedServer starts an MCP server on 127.0.0.1 that accepts tokens
// of as with scope mcp, with a tool whoami, and returns its URL.
func authorizedServer(t *testing.T, as *oauthtest.Server) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	url := "http://" + srv.Listener.Addr().String() + "/mcp"
	v, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: url, JWKSURL: as.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bearer.New(bearer.Options{Resource: url, AuthorizationServers: []string{as.URL}, Verifier: v, Scopes: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	mcp := m26.NewServer(m26.Implementation{Name: "authorized", Version: "1.0.0"})
	err = mcp.AddTool(m26.NewTool("whoami", "Who the token names"), func(ctx context.Context, _ *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		info, ok := bearer.TokenInfoFrom(ctx)
		if !ok {
			return nil, fmt.Errorf("no token info")
		}
		return m26.TextResult(info.Subject + " " + fmt.Sprint(info.Scopes)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := streamhttp.NewServer(mcp.Handler, streamhttp.ServerOptions{Principal: bearer.PrincipalOf})
	t.Cleanup(h.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.Protect(h))
	p.HandleMetadata(mux)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return url
}

func TestTypeScriptOAuthClient(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	as := oauthtest.New(t)
	url := authorizedServer(t, as)
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
