package session_test

import (
	"context"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// A sealed requestState opens only for the principal it was sealed for.
func TestSealWithBindsPrincipal(t *testing.T) {
	s := session.SealWith(&reqstate.Sealer{Ring: reqstate.NewEphemeralRing()})
	params := jsontext.Value(`{"name":"deploy","arguments":{"env":"prod"}}`)
	// Outside a server, the test names the audience a server would.
	endpoint := session.WithStateAudience(context.Background(), "https://mcp.example.com/mcp")
	alice := session.WithPrincipal(endpoint, "issuer\x00alice")
	state, err := s.Seal(alice, "tools/call", params, []byte("step 2"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Open(alice, state, "tools/call", params); err != nil || string(got) != "step 2" {
		t.Errorf("Open by alice = %q, %v", got, err)
	}
	for name, ctx := range map[string]context.Context{
		"mallory":      session.WithPrincipal(endpoint, "issuer\x00mallory"),
		"no principal": endpoint,
	} {
		if _, err := s.Open(ctx, state, "tools/call", params); err == nil {
			t.Errorf("Open by %s: no error", name)
		}
	}
	if got := session.PrincipalOf(alice); got != "issuer\x00alice" {
		t.Errorf("PrincipalOf = %q", got)
	}
}
