// Package protected starts an MCP server that is an OAuth resource server
// of a test authorization server (package oauthtest), for the tests of
// OAuth clients: runtime/bearer in front of a 2026-07-28 StandardServer
// over streamhttp, with a tool whoami that answers the token's subject and
// scopes ("user-1 [mcp]"). It is for tests only.
package protected

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Start starts the server on 127.0.0.1, accepting tokens of as that hold
// scopes, and returns the URL of its MCP endpoint (/mcp). It is closed
// when t ends.
func Start(t testing.TB, as *oauthtest.Server, scopes ...string) string {
	t.Helper()
	return start(t, as, nil, scopes)
}

// StartDPoP is Start with DPoP-bound tokens taken as dp says
// (bearer.Options.DPoP).
func StartDPoP(t testing.TB, as *oauthtest.Server, dp bearer.DPoPOptions, scopes ...string) string {
	t.Helper()
	return start(t, as, &dp, scopes)
}

func start(t testing.TB, as *oauthtest.Server, dp *bearer.DPoPOptions, scopes []string) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	url := "http://" + srv.Listener.Addr().String() + "/mcp"
	v, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: url, JWKSURL: as.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bearer.New(bearer.Options{Resource: url, AuthorizationServers: []string{as.URL}, Verifier: v, Scopes: scopes, DPoP: dp})
	if err != nil {
		t.Fatal(err)
	}
	mcp := m26.NewServer(m26.Implementation{Name: "protected", Version: "1.0.0"})
	err = mcp.AddTool(m26.NewTool("whoami", "Who the access token names"), func(ctx context.Context, _ *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		info, ok := bearer.TokenInfoFrom(ctx)
		if !ok {
			return nil, errors.New("no token info")
		}
		return m26.TextResult(info.Subject + " " + fmt.Sprint(info.Scopes)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := streamhttp.NewServer(mcp.Handler, streamhttp.ServerOptions{})
	t.Cleanup(h.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.Protect(h))
	p.HandleMetadata(mux)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	return url
}
