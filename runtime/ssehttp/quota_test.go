package ssehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
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

// A session keeps its place, and its principal's, until it has really
// ended. A user loops: open a stream, start a call whose handler ignores
// its context, close the stream. The session is forgotten at once, but
// while the handler still runs, the user cannot open one more stream past
// MaxSessionsPerPrincipal, which would let them hold any number of running
// handlers. Once the handler returns, the place is free.
func TestSessionsPerPrincipalHeldUntilEnded(t *testing.T) {
	started, returned, gate := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	ts := newTestServer(t)
	err := ts.AddTool(mcp.Tool{Name: "stubborn", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			defer func() { returned <- struct{}{} }()
			select { // its context is not looked at
			case <-gate:
			case <-time.After(waitLimit): // a bound for a failing test
			}
			return &mcp.CallToolResult{}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	h, url, _ := protectedServerWith(t, ts, ssehttp.ServerOptions{MaxSessionsPerPrincipal: 1})
	t.Cleanup(release) // before the server closes

	s := openStream(t, url+"/sse", bearerOf(tokenAlice)...)
	s.initializeWith(bearerOf(tokenAlice)...)
	if code, body := post(t, s.endpoint, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stubborn"}}`, bearerOf(tokenAlice)...); code != http.StatusAccepted {
		t.Fatalf("POST the call: %d %s", code, body)
	}
	select {
	case <-started:
	case <-time.After(waitLimit):
		t.Fatal("the call's handler did not start")
	}
	s.resp.Body.Close()
	eventually(t, "the session forgotten", func() bool { return ssehttp.SessionOf(h, s.sid) == nil })
	if _, code, body := getStream(t, url+"/sse", bearerOf(tokenAlice)...); code != http.StatusTooManyRequests {
		t.Fatalf("alice's GET while her closed session's handler still runs: %d %s; want 429", code, body)
	}
	select {
	case <-returned:
		t.Fatal("the handler returned before its gate opened")
	default:
	}
	release()
	eventually(t, "alice's GET once the handler returned", func() bool {
		_, code, _ := getStream(t, url+"/sse", bearerOf(tokenAlice)...)
		return code == http.StatusOK
	})
}
