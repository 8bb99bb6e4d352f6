package mcp20260728_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	legacy "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// serveStdioEnv makes the test binary, started by TestServeStdio, a
// server on its standard input and output.
const serveStdioEnv = "MCPGEN_TEST_SERVE_STDIO"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" { // a server of client_test.go
		os.Exit(serverMain(mode))
	}
	if os.Getenv(serveStdioEnv) != "" {
		srv := mcp.NewServer(mcp.Implementation{Name: "stdio", Version: "1"})
		srv.MustAddTool(mcp.NewTool("echo", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return mcp.TextResult("echo"), nil
		})
		if err := srv.ServeStdio(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// seen records what a middleware saw: "method era" for each message.
type seen struct {
	mu  sync.Mutex
	all []string
}

func (s *seen) add(m *mcp.Message, tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, fmt.Sprintf("%s %s %s", tag, m.Method, m.Era))
}

func (s *seen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.all)
}

// recordingServer is a server whose middleware, set once, records what
// it sees in rec: the whole middleware ("mw") and the receive hook
// ("hook").
func recordingServer(rec *seen, opts ...mcp.ServerOption) *mcp.StandardServer {
	mw := func(next mcp.MessageHandler) mcp.MessageHandler {
		return func(ctx context.Context, m *mcp.Message) (mcp.RawJSON, error) {
			if !m.Outgoing {
				rec.add(m, "mw")
			}
			return next(ctx, m)
		}
	}
	hook := func(ctx context.Context, m *mcp.Message) error {
		rec.add(m, "hook")
		return nil
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "rec", Version: "1"}, append([]mcp.ServerOption{mcp.WithMiddleware(mw), mcp.WithReceiveHook(hook)}, opts...)...)
	srv.MustAddTool(mcp.NewTool("echo", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("echo"), nil
	})
	return srv
}

// transportMiddleware records "transport" in rec for what is received.
func transportMiddleware(rec *seen) session.Middleware {
	return func(next session.HandlerFunc) session.HandlerFunc {
		return func(ctx context.Context, m *session.Request) (mcp.RawJSON, error) {
			if !m.Outgoing {
				rec.add(m, "transport")
			}
			return next(ctx, m)
		}
	}
}

// callEcho starts a client session on t, of the initialize era at
// 2025-11-25 (legacy) or of the stateless era, and calls the tool echo.
func callEcho(t *testing.T, tr transport.Transport, legacyEra bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var s *session.Session
	if legacyEra {
		s = session.New(session.Client, tr, legacy.NewClientHandler(legacy.UnimplementedClient{}), session.Options{})
		if _, err := s.Initialize(ctx, &legacy.InitializeRequestParams{ProtocolVersion: legacy.Revision, ClientInfo: legacy.Implementation{Name: "c", Version: "1"}}); err != nil {
			t.Fatalf("initialize: %v", err)
		}
	} else {
		s = session.New(session.Client, tr, mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
		if err := s.Connect(ctx, &mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientCapabilities{}); err != nil {
			t.Fatalf("connect: %v", err)
		}
	}
	defer s.Close()
	var params interface{ AppendJSON([]byte) ([]byte, error) } = &mcp.CallToolRequestParams{Name: "echo"}
	if legacyEra {
		params = &legacy.CallToolRequestParams{Name: "echo"}
	}
	res, err := s.Call(ctx, "tools/call", params)
	if err != nil || !strings.Contains(string(res), `"echo"`) {
		t.Fatalf("tools/call echo = %s, %v", res, err)
	}
}

// The middleware set once on the server sees the calls on every transport
// and in both eras, before the middleware a transport adds.
func TestMiddlewareOnEveryTransport(t *testing.T) {
	for _, tt := range []struct {
		name   string
		legacy bool
		// serve serves srv with a transport that adds mw, and returns the
		// client's transport.
		serve func(t *testing.T, srv *mcp.StandardServer, mw session.Middleware) transport.Transport
	}{
		{"stdio, a session", true, serveStdio},
		{"stdio, stateless requests", false, serveStdio},
		{"Streamable HTTP, a session", true, serveHTTP},
		{"Streamable HTTP, stateless requests", false, serveHTTP},
		{"HTTP+SSE", true, serveSSE},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &seen{}
			srv := recordingServer(rec)
			callEcho(t, tt.serve(t, srv, transportMiddleware(rec)), tt.legacy)
			era := "modern"
			if tt.legacy {
				era = "legacy"
			}
			want := []string{"mw tools/call " + era, "hook tools/call " + era, "transport tools/call " + era}
			got := rec.list()
			i := slices.Index(got, want[0])
			if i < 0 || len(got) < i+3 || !slices.Equal(got[i:i+3], want) {
				t.Errorf("the middleware saw %q; want %q in a row", got, want)
			}
		})
	}
}

func serveStdio(t *testing.T, srv *mcp.StandardServer, mw session.Middleware) transport.Transport {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(ctx, stdio.New(c2sR, s2cW), session.Options{Middleware: []session.Middleware{mw}})
	}()
	t.Cleanup(func() {
		cancel()
		c2sW.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return")
		}
	})
	return stdio.New(s2cR, c2sW)
}

func serveHTTP(t *testing.T, srv *mcp.StandardServer, mw session.Middleware) transport.Transport {
	h := srv.HTTPHandler(mcp.HTTPOptions{Session: session.Options{Middleware: []session.Middleware{mw}}})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() })
	return streamhttp.NewClient(hs.URL, streamhttp.ClientOptions{})
}

func serveSSE(t *testing.T, srv *mcp.StandardServer, mw session.Middleware) transport.Transport {
	h := srv.SSEHandler(mcp.SSEOptions{Session: session.Options{Middleware: []session.Middleware{mw}}})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); hs.Close() })
	return ssehttp.NewClient(hs.URL, ssehttp.ClientOptions{})
}

// ServeStdio serves on the process's standard input and output: the test
// binary, started as a server, answers a client over its pipes.
func TestServeStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveStdioEnv+"=1")
	p, err := stdio.Command(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	callEcho(t, p, true)
}

// A revision the server is limited to that is not linked in is refused,
// by name, when the server is served.
func TestWithRevisionsUnknown(t *testing.T) {
	srv := recordingServer(&seen{}, mcp.WithRevisions("2025-11-25", "2025-02-30"))
	a, _ := transport.Pipe()
	err := srv.Serve(context.Background(), a, session.Options{})
	if !errors.Is(err, session.ErrUnknownRevision) || !strings.Contains(err.Error(), `"2025-02-30"`) {
		t.Errorf("Serve = %v, want the unknown revision named", err)
	}
	hs := httptest.NewServer(srv.HTTPHandler(mcp.HTTPOptions{}))
	defer hs.Close()
	res, err := http.Post(hs.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), `2025-02-30`) {
		t.Errorf("HTTP: %d %s, want 500 naming the revision", res.StatusCode, body)
	}
}

// WithRevisions limits the revisions served: an initialize of another is
// answered in one of those, and the stateless era is not served without
// this revision.
func TestWithRevisions(t *testing.T) {
	srv := recordingServer(&seen{}, mcp.WithRevisions("2025-06-18"))
	a, b := transport.Pipe()
	go srv.Serve(context.Background(), a, session.Options{})
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := session.New(session.Client, b, legacy.NewClientHandler(legacy.UnimplementedClient{}), session.Options{})
	defer s.Close()
	if _, err := s.Initialize(ctx, &legacy.InitializeRequestParams{ProtocolVersion: legacy.Revision, ClientInfo: legacy.Implementation{Name: "c", Version: "1"}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Revision().Name; got != "2025-06-18" {
		t.Errorf("negotiated %s, want 2025-06-18", got)
	}
	d, err := srv.Discover(ctx, &mcp.RequestParams{})
	if err != nil || len(d.SupportedVersions) != 0 {
		t.Errorf("server/discover lists %v, %v; want no stateless revision", d, err)
	}
}
