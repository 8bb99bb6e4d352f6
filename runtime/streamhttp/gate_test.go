package streamhttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// refusedIDs returns the ids of the JSON-RPC errors of a refusal's body
// ("-" for an error without one) and their messages; each error's code
// must be -32600.
func refusedIDs(t *testing.T, body []byte) (ids, msgs []string) {
	t.Helper()
	var list []map[string]any
	if len(body) > 0 && body[0] == '[' {
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
	} else {
		var one map[string]any
		if err := json.Unmarshal(body, &one); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		list = []map[string]any{one}
	}
	for _, m := range list {
		id := "-"
		if v, ok := m["id"]; ok {
			id = fmt.Sprint(v)
		}
		ids = append(ids, id)
		e, _ := m["error"].(map[string]any)
		if code, _ := e["code"].(float64); code != -32600 {
			t.Errorf("error %v: code %v, want -32600", e, e["code"])
		}
		msg, _ := e["message"].(string)
		msgs = append(msgs, msg)
	}
	return ids, msgs
}

// An API key gate refuses a request without the key with 401, a challenge
// and a JSON-RPC error for each request id of the POST, whatever the
// request (initialize, one in a session, a stateless one, a batch, a GET),
// and lets the right keys through.
func TestGate(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{Gate: streamhttp.RequireHeader("X-API-Key", "old-key", "s3cret")})
	const ping = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	const stateless = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, tt := range []struct {
		name    string
		r       req
		ids     []string // the ids of the refusal's errors; nil: let through
		message string
	}{
		{"initialize without a key", req{method: http.MethodPost, body: initBody}, []string{"1"}, "unauthorized: the X-API-Key header is missing"},
		{"a wrong key", req{method: http.MethodPost, body: initBody, header: map[string]string{"X-API-Key": "guess"}}, []string{"1"}, "unauthorized: the X-API-Key header does not hold a valid key"},
		{"an empty key", req{method: http.MethodPost, body: ping, header: map[string]string{"X-API-Key": " "}}, []string{"p"}, "does not hold a valid key"},
		{"a stateless request", req{method: http.MethodPost, body: stateless}, []string{"7"}, "is missing"},
		{"a batch: one error per request", req{method: http.MethodPost, body: `[` + ping + `,{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`}, []string{"p", "2"}, "is missing"},
		{"notifications only: no id", req{method: http.MethodPost, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}, []string{"-"}, "is missing"},
		{"a body that is not JSON: no id", req{method: http.MethodPost, body: `{"id":`}, []string{"-"}, "is missing"},
		{"GET: no id", req{method: http.MethodGet}, []string{"-"}, "is missing"},
		{"DELETE: no id", req{method: http.MethodDelete}, []string{"-"}, "is missing"},
		{"the key", req{method: http.MethodPost, body: initBody, header: map[string]string{"X-API-Key": "s3cret"}}, nil, ""},
		{"the other key", req{method: http.MethodPost, body: initBody, header: map[string]string{"X-API-Key": "old-key"}}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, ts.URL, tt.r)
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if tt.ids == nil {
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
					t.Fatalf("status %d, session %q, want 200 and a session: %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
				}
				return
			}
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.StatusCode, body)
			}
			if got, want := resp.Header.Get("WWW-Authenticate"), `APIKey header="X-API-Key"`; got != want {
				t.Errorf("WWW-Authenticate = %q, want %q", got, want)
			}
			ids, msgs := refusedIDs(t, body)
			if diff := cmp.Diff(tt.ids, ids); diff != "" {
				t.Errorf("ids of the errors (-want +got):\n%s", diff)
			}
			for _, m := range msgs {
				if !strings.Contains(m, tt.message) {
					t.Errorf("message %q does not say %q", m, tt.message)
				}
			}
			for _, secret := range []string{"s3cret", "old-key", "guess"} {
				if strings.Contains(string(body), secret) {
					t.Errorf("the refusal holds the key %q: %s", secret, body)
				}
			}
		})
	}
}

// A Server whose session options name a revision not linked in refuses
// every request, saying which.
func TestUnknownRevisionRefused(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{Session: session.Options{Revisions: []string{"2025-11-25", "2025-13-01"}}})
	for _, r := range []req{{method: http.MethodPost, body: initBody}, {method: http.MethodGet}} {
		resp := do(t, ts.URL, r)
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), `unknown protocol revision \"2025-13-01\"`) || !strings.Contains(string(body), `mcpgen ships no revision \"2025-13-01\"`) {
			t.Errorf("%s: status %d, body %s; want 500 naming the revision", r.method, resp.StatusCode, body)
		}
	}
}

// A Server whose revisions are wrong says so once, at ERROR level, when it
// is made: to its Logger, or to slog.Default() without one.
func TestUnknownRevisionLogged(t *testing.T) {
	for _, own := range []bool{true, false} {
		t.Run(fmt.Sprintf("own logger %v", own), func(t *testing.T) {
			var logged strings.Builder
			log := slog.New(slog.NewTextHandler(&logged, nil))
			opts := streamhttp.ServerOptions{Session: session.Options{Revisions: []string{"2025-13-01"}}}
			if own {
				opts.Logger = log
			} else {
				defer slog.SetDefault(slog.Default())
				slog.SetDefault(log)
			}
			h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(testMCPServer()) }, opts)
			defer h.Close()
			if n := strings.Count(logged.String(), "level=ERROR"); n != 1 || !strings.Contains(logged.String(), `2025-13-01`) {
				t.Errorf("logged %q at start-up, want the fault once at ERROR", logged.String())
			}
		})
	}
}
