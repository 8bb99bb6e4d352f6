package ssehttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// getStream GETs url with header: the response when it is a stream (its
// body closed when the test ends), else the status and body.
func getStream(t *testing.T, url string, header ...string) (*http.Response, int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		t.Cleanup(func() { resp.Body.Close() })
		return resp, resp.StatusCode, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return nil, resp.StatusCode, string(b)
}

// One user cannot take every stream from the others: past
// MaxSessionsPerPrincipal (by default MaxSessions/100, at least 10), their
// GET is refused with 429 and a JSON-RPC error (without an id: a GET
// carries no request) that names the limit, while another user still gets
// in; a stream the user closes frees a place. Streams without a principal
// are not counted per principal.
func TestSessionsPerPrincipal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  ssehttp.ServerOptions
		limit int
	}{
		{"default", ssehttp.ServerOptions{MaxSessions: 1500}, 15},
		{"floor", ssehttp.ServerOptions{MaxSessions: 200}, 10},
		{"set", ssehttp.ServerOptions{MaxSessionsPerPrincipal: 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, url, logs := protectedServer(t, tc.opts)
			var alice []*stream
			for range tc.limit {
				alice = append(alice, openStream(t, url+"/sse", bearerOf(tokenAlice)...))
			}
			_, code, body := getStream(t, url+"/sse", bearerOf(tokenAlice2)...) // the same principal
			if code != http.StatusTooManyRequests {
				t.Fatalf("alice's GET past her %d streams: %d %s; want 429", tc.limit, code, body)
			}
			var e map[string]any
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("refusal body %s: %v", body, err)
			}
			errObj, _ := e["error"].(map[string]any)
			msg, _ := errObj["message"].(string)
			if _, hasID := e["id"]; hasID || e["jsonrpc"] != "2.0" || errObj["code"] != float64(session.Busy) ||
				!strings.Contains(msg, fmt.Sprintf("limit of %d sessions", tc.limit)) {
				t.Errorf("refusal body %s; want a -32000 error without an id naming the limit", body)
			}
			openStream(t, url+"/sse", bearerOf(tokenBob)...)
			for range 2 {
				openStream(t, url+"/open") // no principal: not counted per principal
			}
			n := ssehttp.Sessions(h)
			alice[0].resp.Body.Close()
			eventually(t, "alice's stream closed", func() bool { return ssehttp.Sessions(h) == n-1 })
			openStream(t, url+"/sse", bearerOf(tokenAlice2)...) // the place is free
			if _, code, body := getStream(t, url+"/sse", bearerOf(tokenAlice)...); code != http.StatusTooManyRequests {
				t.Errorf("alice's GET past her limit again: %d %s; want 429", code, body)
			}
			if strings.Contains(logs.String(), "alice") {
				t.Errorf("the log names the principal:\n%s", logs)
			}
		})
	}
}

// MaxSessionsPerPrincipal negative: one principal may hold every stream.
func TestSessionsPerPrincipalOff(t *testing.T) {
	_, url, _ := protectedServer(t, ssehttp.ServerOptions{MaxSessions: 200, MaxSessionsPerPrincipal: -1})
	for range 12 { // past the default of 10
		openStream(t, url+"/sse", bearerOf(tokenAlice)...)
	}
}
