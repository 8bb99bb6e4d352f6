package streamhttp_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// No log line, at any level, holds a session id or a token: not the
// warning of a request in another user's session (with an explicit
// ServerOptions.Principal too), not a session's opening, its end by
// DELETE, nor its reaping once idle. Lines name a session by its tag.
func TestLogsHoldNoSessionID(t *testing.T) {
	url, logs := protectedServer(t, streamhttp.ServerOptions{Principal: bearer.PrincipalOf, IdleTimeout: 50 * time.Millisecond})
	deleted := openSession(t, url+"/mcp", tokenAlice)
	if x := send(t, http.MethodPost, url+"/mcp", tokenBob, deleted, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); x.status != http.StatusNotFound {
		t.Errorf("bob's ping in alice's session: %d %s; want 404", x.status, x.body)
	}
	if x := send(t, http.MethodDelete, url+"/mcp", tokenAlice, deleted, ""); x.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", x.status, x.body)
	}
	reaped := openSession(t, url+"/mcp", tokenAlice)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "idle session ended") {
		if time.Now().After(deadline) {
			t.Fatalf("no idle session reaped within 20s:\n%s", logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := logs.String()
	for _, s := range []string{deleted, reaped, tokenAlice, tokenBob} {
		if strings.Contains(out, s) {
			t.Errorf("the log holds %q:\n%s", s, out)
		}
	}
	for _, want := range []string{
		"another principal; answered as if it did not exist\" sessionTag=" + httpmsg.Tag(deleted),
		"session opened\" sessionTag=" + httpmsg.Tag(deleted),
		"session ended by DELETE\" sessionTag=" + httpmsg.Tag(deleted),
		"idle session ended\" sessionTag=" + httpmsg.Tag(reaped),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log has no line with %s:\n%s", want, out)
		}
	}
}

// The Client logs no session id, at any level: not when the session
// starts, nor when the server has ended it (404); the log has its tag.
func TestClientLogsHoldNoSessionID(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{})
	logs := &syncBuffer{}
	c := streamhttp.NewClient(url+"/open", streamhttp.ClientOptions{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.Connect(ctx, c, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sid := c.SessionID()
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whisper", Arguments: []byte(`{"text":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	if x := send(t, http.MethodDelete, url+"/open", "", sid, ""); x.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", x.status, x.body)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whisper", Arguments: []byte(`{"text":"hi"}`)}); !errors.Is(err, streamhttp.ErrSessionExpired) {
		t.Fatalf("a call in the ended session: %v; want ErrSessionExpired", err)
	}
	out := logs.String()
	if sid == "" || strings.Contains(out, sid) {
		t.Errorf("the log holds the session id %q:\n%s", sid, out)
	}
	if !strings.Contains(out, "the server ended the session\" sessionTag="+httpmsg.Tag(sid)) {
		t.Errorf("the log does not name the session by its tag:\n%s", out)
	}
}
