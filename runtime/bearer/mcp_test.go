package bearer_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/internal/oauthtest/protected"
	legacy "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// An MCP server behind Protect: a tool sees the token's subject in either
// era, and a legacy session is refused to another user's token.
func TestProtectedMCPServer(t *testing.T) {
	as := oauthtest.New(t)
	res := protected.Start(t, as, "mcp")

	token := func(sub string) http.Header {
		return http.Header{"Authorization": {"Bearer " + as.Token(t, oauthtest.Claims{"sub": sub, "aud": res, "scope": "mcp"})}}
	}
	ctx := context.Background()

	// The stateless era.
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(res, streamhttp.ClientOptions{Header: token("alice")}), &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r0, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
	if got := callText(t, r0, err); got != "alice [mcp]" {
		t.Errorf("modern whoami = %q, want alice [mcp]", got)
	}

	// A legacy session, bound to bob.
	tr := &sessionSpy{rt: http.DefaultTransport}
	lc, err := legacy.Connect(ctx, streamhttp.NewClient(res, streamhttp.ClientOptions{Header: token("bob"), HTTPClient: &http.Client{Transport: tr}}), &legacy.ClientOptions{Info: legacy.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	r, err := lc.CallTool(ctx, &legacy.CallToolRequestParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Content[0].Value.(*legacy.TextContent).Text; got != "bob [mcp]" {
		t.Errorf("legacy whoami = %q, want bob [mcp]", got)
	}
	if tr.sid == "" {
		t.Fatal("no Mcp-Session-Id seen")
	}
	for sub, want := range map[string]int{"mallory": http.StatusNotFound, "bob": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodPost, res, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
		for k, v := range token(sub) {
			req.Header[k] = v
		}
		req.Header.Set("Mcp-Session-Id", tr.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s's token on bob's session: status %d, want %d", sub, resp.StatusCode, want)
		}
	}
}

// sessionSpy records the Mcp-Session-Id a server gives.
type sessionSpy struct {
	rt  http.RoundTripper
	sid string
}

func (s *sessionSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := s.rt.RoundTrip(r)
	if err == nil && res.Header.Get("Mcp-Session-Id") != "" {
		s.sid = res.Header.Get("Mcp-Session-Id")
	}
	return res, err
}

func callText(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].Value.(*mcp.TextContent).Text
}
