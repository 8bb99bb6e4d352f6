package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func TestAuthorizedServer(t *testing.T) {
	as := oauthtest.New(t)
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	defer ts.Close()
	resource := ts.URL + "/mcp"
	h, done, err := newHandler(config{resource: resource, issuer: as.URL, jwks: as.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ts.Config.Handler = h

	ctx := context.Background()
	info := mcp.Implementation{Name: "c", Version: "1"}
	if _, err := mcp.Connect(ctx, streamhttp.NewClient(resource, streamhttp.ClientOptions{}), info, mcp.ClientCapabilities{}, nil, session.Options{}); err == nil {
		t.Fatal("Connect without a token succeeded")
	}
	tok := as.Token(t, oauthtest.Claims{"sub": "alice", "aud": resource, "scope": "mcp", "client_id": "app"})
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(resource, streamhttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + tok}}}), info, mcp.ClientCapabilities{}, nil, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Value.(*mcp.TextContent).Text; got != "alice (client app, scopes [mcp])" {
		t.Errorf("whoami = %q", got)
	}
}
