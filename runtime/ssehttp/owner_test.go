package ssehttp_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// An intruder with a valid token of their own who learns another user's
// sessionId can do nothing with it, with the default options: their POST
// (and one with no token at all, through an endpoint left unprotected) is
// answered exactly as for a session that does not exist, nothing of it
// reaches the user's stream, and the session goes on serving its user,
// another token of the same user included. Nothing logged names the
// session id or a token.
func TestSessionBoundToPrincipal(t *testing.T) {
	_, url, logs := protectedServer(t, ssehttp.ServerOptions{})
	s := openStream(t, url+"/sse", bearerOf(tokenAlice)...)
	s.initializeWith(bearerOf(tokenAlice)...)
	const unknown = "0123456789abcdef0123456789abcdef"

	attempts := []struct {
		name, path string
		header     []string
	}{
		{"another user's token", "/sse", bearerOf(tokenBob)},
		{"no principal", "/open", nil},
	}
	for _, a := range attempts {
		code, body := post(t, url+a.path+"?sessionId="+s.sid, bobCall, a.header...)
		noneCode, noneBody := post(t, url+a.path+"?sessionId="+unknown, bobCall, a.header...)
		if code != http.StatusNotFound || code != noneCode || body != noneBody {
			t.Errorf("POST with %s in alice's session: %d %s; a session that does not exist: %d %s; want the same 404", a.name, code, body, noneCode, noneBody)
		}
	}

	// Alice's stream carries her answers only: her call with her other
	// token is the next answer on it, not bob's.
	if code, body := post(t, s.endpoint, strings.Replace(echoCall, `"id":1`, `"id":"alice-after"`, 1), bearerOf(tokenAlice2)...); code != http.StatusAccepted {
		t.Fatalf("alice's call with her second token: %d %s", code, body)
	}
	if m := s.answer(); m["id"] != "alice-after" {
		t.Errorf("the next answer on alice's stream is %v; want that of her call", m)
	}

	out := logs.String()
	for _, v := range []string{s.sid, tokenAlice, tokenAlice2, tokenBob} {
		if strings.Contains(out, v) {
			t.Errorf("the log holds %q:\n%s", v, out)
		}
	}
	if n := strings.Count(out, "another principal"); n != len(attempts) {
		t.Errorf("%d warnings of a POST in another principal's session, want %d:\n%s", n, len(attempts), out)
	}
	if !strings.Contains(out, "sessionTag="+httpmsg.Tag(s.sid)) {
		t.Errorf("the log does not name the session by its tag %s:\n%s", httpmsg.Tag(s.sid), out)
	}
	// The session's end is logged by its tag too.
	s.resp.Body.Close()
	eventually(t, "the session's end logged", func() bool { return strings.Contains(logs.String(), "session ended") })
	if strings.Contains(logs.String(), s.sid) {
		t.Errorf("the log holds the session id:\n%s", logs)
	}
}

// A POST with the sessionId is delivered whoever it speaks for when
// ServerOptions.UnboundSessions turns the binding off.
func TestUnboundSessions(t *testing.T) {
	_, url, _ := protectedServer(t, ssehttp.ServerOptions{UnboundSessions: true})
	s := openStream(t, url+"/sse", bearerOf(tokenAlice)...)
	s.initializeWith(bearerOf(tokenAlice)...)
	if code, body := post(t, s.endpoint, bobCall, bearerOf(tokenBob)...); code != http.StatusAccepted {
		t.Fatalf("bob's call in alice's session with UnboundSessions: %d %s; want 202", code, body)
	}
	if m := s.answer(); !strings.Contains(fmt.Sprint(m), "from-bob") {
		t.Errorf("answer %v; want bob's", m)
	}
}
