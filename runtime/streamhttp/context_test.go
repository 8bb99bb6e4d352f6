package streamhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// principalKey is the context key an http.Handler in front of the MCP
// server uses for what it authenticated (a stand-in for authorization).
type principalKey struct{}

// TestHandlerSeesHTTPRequest checks that a handler sees the HTTP request
// that carried its request (headers, remote address) and the values an
// http.Handler in front of the server put in its context, in both eras,
// over a real loopback server; and that middleware sees them too.
func TestHandlerSeesHTTPRequest(t *testing.T) {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "whoami", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			hr, ok := session.HTTPRequestOf(ctx)
			if !ok {
				return nil, errorString("no HTTP request in the handler's context")
			}
			principal, _ := ctx.Value(principalKey{}).(string)
			text := strings.Join([]string{hr.Header.Get("X-Caller"), principal, strings.Split(hr.RemoteAddr, ":")[0], session.RevisionOf(ctx).Name}, "|")
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: text}}}}, nil
		})
	seen := make(chan string, 16)
	mw := func(next session.HandlerFunc) session.HandlerFunc {
		return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
			if r.Method == "tools/call" && !r.Outgoing {
				hr, ok := session.HTTPRequestOf(ctx)
				if ok {
					seen <- r.Era.String() + " " + hr.Header.Get("X-Caller")
				} else {
					seen <- r.Era.String() + " no HTTP request"
				}
			}
			return next(ctx, r)
		}
	}
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{Session: session.Options{Middleware: []session.Middleware{mw}}})
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, user)))
	})
	ts := httptest.NewServer(auth) // 127.0.0.1, a port chosen now
	t.Cleanup(func() { h.Close(); ts.Close() })

	for _, tc := range []struct {
		name    string
		revs    []string // the client's Options.Revisions
		want    string
		wantEra string
	}{
		{"stateless", nil, "ada|token-a|127.0.0.1|2026-07-28", "modern ada"},
		{"legacy session", []string{m25.Revision}, "ada|token-a|127.0.0.1|2025-11-25", "legacy ada"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			client := streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{Header: http.Header{"X-Caller": {"ada"}, "Authorization": {"Bearer token-a"}}})
			cs, err := m26.Connect(ctx, client, &m26.ClientOptions{Info: m26.Implementation{Name: "c", Version: "1"}, Session: session.Options{Revisions: tc.revs}})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "whoami"})
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if res.IsError != nil && *res.IsError {
				t.Fatalf("CallTool: error result %v", res.Content[0].Value)
			}
			if diff := cmp.Diff(tc.want, res.Content[0].Value.(*m26.TextContent).Text); diff != "" {
				t.Errorf("what the handler saw (-want +got):\n%s", diff)
			}
			select {
			case got := <-seen:
				if diff := cmp.Diff(tc.wantEra, got); diff != "" {
					t.Errorf("what the middleware saw (-want +got):\n%s", diff)
				}
			case <-ctx.Done():
				t.Fatal("the middleware saw no tools/call")
			}
		})
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
