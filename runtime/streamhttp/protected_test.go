package streamhttp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// tokens is a TokenVerifier that knows a fixed set of tokens, each of one
// subject of one issuer.
type tokens map[string]string

func (v tokens) Verify(ctx context.Context, token string) (*bearer.TokenInfo, error) {
	sub, ok := v[token]
	if !ok {
		return nil, bearer.ErrInvalidToken
	}
	return &bearer.TokenInfo{Subject: sub, Issuer: "https://as.test", Audience: []string{"https://mcp.test/mcp"}, Scopes: []string{"mcp"}}, nil
}

// The tokens of the tests: alice's, bob's (the intruder) and a second of
// alice's.
const (
	tokenAlice  = "token-of-alice-6b1f0e2c"
	tokenAlice2 = "second-token-of-alice-93d7"
	tokenBob    = "token-of-bob-c48a51d0"
)

var testTokens = tokens{tokenAlice: "alice", tokenAlice2: "alice", tokenBob: "bob"}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// holds are the gates a whisper call waits at, by the name in its argument
// hold: a test stores a channel and closes it to let the calls go on.
var holds sync.Map // string → chan struct{}

// whisperServer is an MCP server whose tool whisper answers with its
// argument text: what a user's answers reveal. With an argument hold, it
// first waits until the test closes the gate of that name (see holds).
func whisperServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "whisper", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "whisper", InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"},"hold":{"type":"string"}}}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			var args struct {
				Text string `json:"text"`
				Hold string `json:"hold"`
			}
			if err := wire.DecodeValue(p.Arguments, &args); err != nil {
				return nil, err
			}
			if gate, ok := holds.Load(args.Hold); ok {
				select {
				case <-gate.(chan struct{}):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: args.Text}}}}, nil
		})
	return srv
}

// protectedServer serves a streamhttp Server of opts (with a Logger at
// debug level writing to the returned buffer) at /mcp behind
// bearer.Protect with testTokens, and the same Server at /open without
// it (an endpoint left unprotected by mistake).
func protectedServer(t *testing.T, opts streamhttp.ServerOptions) (string, *syncBuffer) {
	t.Helper()
	url, logs, _ := protectedServerOf(t, opts)
	return url, logs
}

// protectedServerOf is protectedServer that also returns the Server.
func protectedServerOf(t *testing.T, opts streamhttp.ServerOptions) (string, *syncBuffer, *streamhttp.Server) {
	t.Helper()
	return protectedServerWith(t, whisperServer(), opts)
}

// protectedServerWith is protectedServerOf for the MCP server srv.
func protectedServerWith(t *testing.T, srv *mcp.StandardServer, opts streamhttp.ServerOptions) (string, *syncBuffer, *streamhttp.Server) {
	t.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, opts)
	p, err := bearer.New(bearer.Options{
		Resource:             "https://mcp.test/mcp",
		AuthorizationServers: []string{"https://as.test"},
		Verifier:             testTokens,
		Logger:               opts.Logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.Protect(h))
	mux.Handle("/open", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts.URL, logs, h
}

// exchange is one HTTP request of a test and its whole answer.
type exchange struct {
	status int
	header http.Header
	body   string
}

// send sends an MCP request over HTTP with token (none if "") in session
// sid (none if "") and reads the whole answer, within 10 seconds.
func send(t *testing.T, method, url, token, sid, body string, header ...string) exchange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	switch method {
	case http.MethodPost:
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		r.Header.Set("Accept", "text/event-stream")
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return exchange{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// openSession initializes a session at url with token and returns its id.
func openSession(t *testing.T, url, token string) string {
	t.Helper()
	x := send(t, http.MethodPost, url, token, "", initBody)
	sid := x.header.Get("Mcp-Session-Id")
	if x.status != http.StatusOK || sid == "" {
		t.Fatalf("initialize with %s: %d %s", token, x.status, x.body)
	}
	if x := send(t, http.MethodPost, url, token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); x.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", x.status, x.body)
	}
	return sid
}
