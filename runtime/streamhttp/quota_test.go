package streamhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// One user cannot take every session from the others: past
// MaxSessionsPerPrincipal (by default MaxSessions/100), their initialize
// is refused with 429 and a JSON-RPC error that carries its id and names
// the limit, while another user still gets in; a session the user ends
// frees a place. Sessions without a principal are not counted per
// principal.
func TestSessionsPerPrincipal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  streamhttp.ServerOptions
		limit int
	}{
		{"default", streamhttp.ServerOptions{MaxSessions: 1500}, 15},
		{"floor", streamhttp.ServerOptions{MaxSessions: 200}, 10},
		{"set", streamhttp.ServerOptions{MaxSessionsPerPrincipal: 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, logs := protectedServer(t, tc.opts)
			var alice []string
			for range tc.limit {
				alice = append(alice, openSession(t, url+"/mcp", tokenAlice))
			}
			// Her other token is the same principal.
			x := send(t, http.MethodPost, url+"/mcp", tokenAlice2, "", strings.Replace(initBody, `"id":1`, `"id":"init-over"`, 1))
			if x.status != http.StatusTooManyRequests || x.header.Get("Mcp-Session-Id") != "" {
				t.Fatalf("alice's initialize past her %d sessions: %d %q %s; want 429 and no session", tc.limit, x.status, x.header.Get("Mcp-Session-Id"), x.body)
			}
			var e struct {
				ID    string
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal([]byte(x.body), &e); err != nil || e.ID != "init-over" || e.Error.Code != session.Busy ||
				!strings.Contains(e.Error.Message, fmt.Sprintf("limit of %d sessions", tc.limit)) {
				t.Errorf("refusal body %s (%v); want a -32000 error with id \"init-over\" naming the limit", x.body, err)
			}
			openSession(t, url+"/mcp", tokenBob)
			for range 2 {
				openSession(t, url+"/open", "") // no principal: not counted per principal
			}
			if x := send(t, http.MethodDelete, url+"/mcp", tokenAlice, alice[0], ""); x.status != http.StatusNoContent {
				t.Fatalf("DELETE: %d %s", x.status, x.body)
			}
			openSession(t, url+"/mcp", tokenAlice2) // the place is free
			if x := send(t, http.MethodPost, url+"/mcp", tokenAlice, "", initBody); x.status != http.StatusTooManyRequests {
				t.Errorf("alice's initialize past her limit again: %d %s; want 429", x.status, x.body)
			}
			if strings.Contains(logs.String(), "alice") {
				t.Errorf("the log names the principal:\n%s", logs)
			}
		})
	}
}

// MaxSessionsPerPrincipal negative: one principal may hold every session.
func TestSessionsPerPrincipalOff(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{MaxSessions: 200, MaxSessionsPerPrincipal: -1})
	for range 12 { // past the default of 10
		openSession(t, url+"/mcp", tokenAlice)
	}
}

// A session's place, and its principal's, is freed however it ends: here
// it is reaped once idle.
func TestSessionsPerPrincipalIdle(t *testing.T) {
	url, _ := protectedServer(t, streamhttp.ServerOptions{MaxSessionsPerPrincipal: 1, IdleTimeout: 50 * time.Millisecond})
	openSession(t, url+"/mcp", tokenAlice)
	deadline := time.Now().Add(20 * time.Second)
	for {
		x := send(t, http.MethodPost, url+"/mcp", tokenAlice, "", initBody)
		if x.status == http.StatusOK {
			return
		}
		if x.status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("initialize after the session was reaped: %d %s", x.status, x.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
