package ssehttp_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// tokens is a TokenVerifier that knows a fixed set of tokens, each of one
// subject of one issuer.
type tokens map[string]string

func (v tokens) Verify(ctx context.Context, token string) (*bearer.TokenInfo, error) {
	sub, ok := v[token]
	if !ok {
		return nil, bearer.ErrInvalidToken
	}
	return &bearer.TokenInfo{Subject: sub, Issuer: "https://as.test", Audience: []string{"https://mcp.test/sse"}}, nil
}

// The tokens of the tests: alice's, a second of alice's, and bob's (the
// intruder).
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

// bearerOf returns the header arguments of a request with token.
func bearerOf(token string) []string { return []string{"Authorization", "Bearer " + token} }

// protectedServer serves an ssehttp Server of opts (with a Logger at
// debug level writing to the returned buffer) at /sse behind
// bearer.Protect with testTokens, and the same Server at /open without
// it (an endpoint left unprotected by mistake).
func protectedServer(t *testing.T, opts ssehttp.ServerOptions) (*ssehttp.Server, string, *syncBuffer) {
	t.Helper()
	return protectedServerWith(t, newTestServer(t), opts)
}

// protectedServerWith is protectedServer for the MCP server srv.
func protectedServerWith(t *testing.T, srv *testServer, opts ssehttp.ServerOptions) (*ssehttp.Server, string, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := ssehttp.NewServer(srv.Handler, opts)
	p, err := bearer.New(bearer.Options{
		Resource:             "https://mcp.test/sse",
		AuthorizationServers: []string{"https://as.test"},
		Verifier:             testTokens,
		Logger:               opts.Logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/sse", p.Protect(h))
	mux.Handle("/open", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		hs.Close()
	})
	return h, hs.URL, logs
}

// initializeWith runs the handshake on s, POSTing with header.
func (s *stream) initializeWith(header ...string) {
	s.t.Helper()
	if code, body := post(s.t, s.endpoint, initBody, header...); code != http.StatusAccepted {
		s.t.Fatalf("POST initialize: %d %s", code, body)
	}
	if m := s.answer(); m["id"] != 0.0 || m["result"] == nil {
		s.t.Fatalf("initialize answer %v", m)
	}
	if code, body := post(s.t, s.endpoint, inited, header...); code != http.StatusAccepted {
		s.t.Fatalf("POST initialized: %d %s", code, body)
	}
}

// bobCall is the intruder's call.
const bobCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"from-bob"}}}`
