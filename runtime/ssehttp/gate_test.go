package ssehttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// An API key gate refuses a GET or a POST without the key with 401, a
// challenge and, for a POST, a JSON-RPC error for each of its request ids;
// with the key, the session is opened and served.
func TestGate(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{Gate: ssehttp.RequireHeader("X-API-Key", "s3cret")})
	s := openStream(t, hs.URL+"/sse", "X-API-Key", "s3cret")
	if code, body := post(t, s.endpoint, initBody, "X-API-Key", "s3cret"); code != http.StatusAccepted {
		t.Fatalf("POST with the key: %d %s", code, body)
	}
	if m := s.answer(); m["result"] == nil {
		t.Fatalf("initialize answer %v", m)
	}
	for _, tt := range []struct {
		name   string
		method string
		url    string
		body   string
		key    string
		ids    []string // "-": an error without an id
		says   string
	}{
		{"GET without a key", http.MethodGet, hs.URL + "/sse", "", "", []string{"-"}, "the X-API-Key header is missing"},
		{"GET with a wrong key", http.MethodGet, hs.URL + "/sse", "", "guess", []string{"-"}, "does not hold a valid key"},
		{"POST without a key", http.MethodPost, s.endpoint, toolsList, "", []string{"3"}, "is missing"},
		{"a batch", http.MethodPost, s.endpoint, "[" + echoCall + "," + inited + "," + toolsList + "]", "guess", []string{"1", "3"}, "does not hold a valid key"},
		{"notifications only", http.MethodPost, s.endpoint, inited, "", []string{"-"}, "is missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, tt.url, strings.NewReader(tt.body))
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Content-Type", "application/json")
			if tt.key != "" {
				req.Header.Set("X-API-Key", tt.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401: %s", resp.StatusCode, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != `APIKey header="X-API-Key"` {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			var list []map[string]any
			if err := json.Unmarshal(body, &list); err != nil {
				var one map[string]any
				if err := json.Unmarshal(body, &one); err != nil {
					t.Fatalf("body %s: %v", body, err)
				}
				list = []map[string]any{one}
			}
			var ids []string
			for _, m := range list {
				id := "-"
				if v, ok := m["id"]; ok {
					id = fmt.Sprint(v)
				}
				ids = append(ids, id)
				e, _ := m["error"].(map[string]any)
				if msg, _ := e["message"].(string); !strings.Contains(msg, tt.says) || e["code"] != -32600.0 {
					t.Errorf("error %v, want -32600 saying %q", e, tt.says)
				}
			}
			if diff := cmp.Diff(tt.ids, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if strings.Contains(string(body), "s3cret") || strings.Contains(string(body), "guess") {
				t.Errorf("the refusal holds a key: %s", body)
			}
		})
	}
	// The session let in is still served.
	if code, body := post(t, s.endpoint, echoCall, "X-API-Key", "s3cret"); code != http.StatusAccepted {
		t.Fatalf("POST with the key: %d %s", code, body)
	}
	if m := s.answer(); m["result"] == nil {
		t.Errorf("echo answer %v", m)
	}
}

// A Server whose session options name a revision not linked in refuses
// every request, saying which.
func TestUnknownRevisionRefused(t *testing.T) {
	_, hs := serve(t, newTestServer(t), ssehttp.ServerOptions{Session: session.Options{Revisions: []string{"bogus"}}})
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), `unknown protocol revision \"bogus\"`) {
		t.Errorf("status %d, body %s; want 500 naming the revision", resp.StatusCode, body)
	}
}

// The same gate for HTTP+SSE: a GET without the key opens no session.
func ExampleRequireHeader() {
	srv := newExampleServer()
	h := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{Gate: ssehttp.RequireHeader("X-API-Key", "s3cret")})
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()
	res, err := http.Get(hs.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	fmt.Printf("%d %s %s\n", res.StatusCode, res.Header.Get("WWW-Authenticate"), b)
	// Output:
	// 401 APIKey header="X-API-Key" {"jsonrpc":"2.0","error":{"code":-32600,"message":"unauthorized: the X-API-Key header is missing"}}
}

func newExampleServer() *mcp.StandardServer {
	return mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
}

// A Server whose revisions are wrong says so once, at ERROR level, when it
// is made: to its Logger, or to slog.Default() without one.
func TestUnknownRevisionLogged(t *testing.T) {
	for _, own := range []bool{true, false} {
		t.Run(fmt.Sprintf("own logger %v", own), func(t *testing.T) {
			var logged strings.Builder
			log := slog.New(slog.NewTextHandler(&logged, nil))
			opts := ssehttp.ServerOptions{Session: session.Options{Revisions: []string{"bogus"}}}
			if own {
				opts.Logger = log
			} else {
				defer slog.SetDefault(slog.Default())
				slog.SetDefault(log)
			}
			h := ssehttp.NewServer(newExampleServer().Handler, opts)
			defer h.Close()
			if n := strings.Count(logged.String(), "level=ERROR"); n != 1 || !strings.Contains(logged.String(), `bogus`) {
				t.Errorf("logged %q at start-up, want the fault once at ERROR", logged.String())
			}
		})
	}
}
