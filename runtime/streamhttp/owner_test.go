package streamhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// whisperCall calls whisper with a text to put in.
const whisperCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whisper","arguments":{"text":"%s"}}}`

// holdCall calls whisper with a text to put in, held at a gate (see holds).
const holdCall = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"whisper","arguments":{"text":"%s","hold":"%s"}}}`

// An intruder with a valid token of their own who learns another user's
// session id can do nothing with it, with the default options: a POST of a
// request, a GET that resumes the user's stream with Last-Event-ID (which
// would replay the user's answers), a GET of the session's stream, a
// DELETE and a request with no token at all (through an endpoint left
// unprotected) are each answered exactly as for a session that does not
// exist, and the session goes on serving its user, another token of the
// same user included. Nothing logged names the session id or a token.
func TestSessionBoundToPrincipal(t *testing.T) {
	url, logs, h := protectedServerOf(t, streamhttp.ServerOptions{})
	const secret = "alice-secret-5f3a"
	sid := openSession(t, url+"/mcp", tokenAlice)
	// Alice's connection breaks before her answer: the server keeps her
	// stream, answer included, for her to resume.
	gate := make(chan struct{})
	holds.Store(t.Name(), gate)
	defer holds.Delete(t.Name())
	ctx, cancel := context.WithCancel(context.Background())
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/mcp", strings.NewReader(fmt.Sprintf(holdCall, secret, t.Name())))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	hr.Header.Set("Authorization", "Bearer "+tokenAlice)
	hr.Header.Set("Mcp-Session-Id", sid)
	hr.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	first := events(t, resp, 1) // the priming event
	cancel()
	resp.Body.Close()
	if len(first) != 1 || first[0].id == "" {
		t.Fatalf("alice's call: %d, first events %+v", resp.StatusCode, first)
	}
	priming := first[0].id // resuming after it replays the answer
	if !waitFor(10*time.Second, func() bool { return heldBy(t, h, sid).Attached == 0 }) {
		t.Fatal("the server did not notice alice's cut connection")
	}
	close(gate)
	if !waitFor(10*time.Second, func() bool { return heldBy(t, h, sid).Retained == 1 }) {
		t.Fatalf("alice's answer is not retained: %+v", heldBy(t, h, sid))
	}

	// What a session that does not exist gets, for each method.
	const unknown = "0123456789abcdef0123456789abcdef"
	attempts := []struct {
		name, method, url, token, body string
		header                         []string
	}{
		{"POST tools/call", http.MethodPost, url + "/mcp", tokenBob, fmt.Sprintf(whisperCall, "bob"), nil},
		{"POST notification", http.MethodPost, url + "/mcp", tokenBob, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, nil},
		{"GET Last-Event-ID", http.MethodGet, url + "/mcp", tokenBob, "", []string{"Last-Event-ID", priming}},
		{"GET stream", http.MethodGet, url + "/mcp", tokenBob, "", nil},
		{"DELETE", http.MethodDelete, url + "/mcp", tokenBob, "", nil},
		{"POST without a principal", http.MethodPost, url + "/open", "", fmt.Sprintf(whisperCall, "nobody"), nil},
		{"GET Last-Event-ID without a principal", http.MethodGet, url + "/open", "", "", []string{"Last-Event-ID", priming}},
		{"DELETE without a principal", http.MethodDelete, url + "/open", "", "", nil},
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			got := send(t, a.method, a.url, a.token, sid, a.body, a.header...)
			header := a.header
			if len(header) == 2 {
				header = []string{header[0], strings.Replace(header[1], sid, unknown, 1)}
			}
			none := send(t, a.method, a.url, a.token, unknown, a.body, header...)
			if got.status != http.StatusNotFound || strings.Contains(got.body, secret) {
				t.Errorf("%s in alice's session: %d %s; want 404 and nothing of hers", a.name, got.status, got.body)
			}
			if got.status != none.status || got.body != none.body {
				t.Errorf("%s in alice's session: %d %s; a session that does not exist: %d %s; want the same answer", a.name, got.status, got.body, none.status, none.body)
			}
		})
	}

	// Alice's session is intact: her stream resumes with her answer, a
	// call goes through, with her other token too, and she ends it.
	if x := send(t, http.MethodGet, url+"/mcp", tokenAlice, sid, "", "Last-Event-ID", priming); x.status != http.StatusOK || !strings.Contains(x.body, secret) {
		t.Errorf("alice resumes her stream: %d %s; want her answer", x.status, x.body)
	}
	if x := send(t, http.MethodPost, url+"/mcp", tokenAlice2, sid, fmt.Sprintf(whisperCall, "again")); x.status != http.StatusOK || !strings.Contains(x.body, `"again"`) {
		t.Errorf("alice's call with her second token: %d %s", x.status, x.body)
	}
	if x := send(t, http.MethodDelete, url+"/mcp", tokenAlice, sid, ""); x.status != http.StatusNoContent {
		t.Errorf("alice's DELETE: %d %s", x.status, x.body)
	}

	// Every attempt was logged, by the session's tag, never its id.
	out := logs.String()
	for _, s := range []string{sid, tokenAlice, tokenAlice2, tokenBob} {
		if strings.Contains(out, s) {
			t.Errorf("the log holds %q:\n%s", s, out)
		}
	}
	if n := strings.Count(out, "another principal"); n != len(attempts) {
		t.Errorf("%d warnings of a request in another principal's session, want %d:\n%s", n, len(attempts), out)
	}
	if !strings.Contains(out, "sessionTag="+httpmsg.Tag(sid)) {
		t.Errorf("the log does not name the session by its tag %s:\n%s", httpmsg.Tag(sid), out)
	}
}

// A request with the session's id is served whoever it speaks for when
// ServerOptions.UnboundSessions turns the binding off.
func TestUnboundSessions(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{UnboundSessions: true})
	sid := openSession(t, url+"/mcp", tokenAlice)
	if x := send(t, http.MethodPost, url+"/mcp", tokenBob, sid, fmt.Sprintf(whisperCall, "bob")); x.status != http.StatusOK || !strings.Contains(x.body, `"bob"`) {
		t.Errorf("bob's call in alice's session with UnboundSessions: %d %s; want it served", x.status, x.body)
	}
}

// An application that names principals itself (ServerOptions.Principal)
// binds sessions to them, not to the context's.
func TestPrincipalOption(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{Principal: func(r *http.Request) string { return r.Header.Get("X-Tenant") }})
	sid := send(t, http.MethodPost, url+"/mcp", tokenAlice, "", initBody, "X-Tenant", "t1").header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session")
	}
	if x := send(t, http.MethodPost, url+"/mcp", tokenBob, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "X-Tenant", "t1"); x.status != http.StatusOK {
		t.Errorf("ping of the same tenant: %d %s", x.status, x.body)
	}
	if x := send(t, http.MethodPost, url+"/mcp", tokenAlice, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "X-Tenant", "t2"); x.status != http.StatusNotFound {
		t.Errorf("ping of another tenant: %d %s; want 404", x.status, x.body)
	}
}
