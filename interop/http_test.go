package interop_test

// Interop over Streamable HTTP: this project's client transport
// (runtime/streamhttp.Client), at each revision, against the reference
// server @modelcontextprotocol/server-everything in its streamableHttp mode
// (the TypeScript SDK's StreamableHTTPServerTransport, with sessions, SSE
// answers, an event store for resumption, a GET stream and DELETE).
//
// server-everything listens on every interface on $PORT; listen-localhost.mjs,
// preloaded with node --import, binds it to 127.0.0.1 instead and prints the
// port the system chose for PORT=0.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// httpStartTimeout bounds the wait for server-everything to listen.
const httpStartTimeout = 20 * time.Second

var listeningLine = regexp.MustCompile(`mcpgen-interop: listening on (\S+):(\d+)\n`)

// startHTTPEverything starts server-everything in Streamable HTTP mode on
// 127.0.0.1 and returns its MCP endpoint URL. The process is stopped when
// the test ends (SIGINT, then SIGKILL after 15 seconds).
func startHTTPEverything(t *testing.T) string {
	t.Helper()
	node := nodeBin(t)
	interop, _ := dirs(t)
	entry := filepath.Join(interop, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("server-everything is not installed: %v\nrun npm ci in interop/ (scripts/test does it)", err)
	}
	preload := (&url.URL{Scheme: "file", Path: filepath.Join(interop, "listen-localhost.mjs")}).String()

	cmd := exec.Command(node, "--import", preload, entry, "streamableHttp")
	cmd.Dir = interop
	cmd.Env = append(os.Environ(), "PORT=0")
	m := startListening(t, "server-everything", cmd, syscall.SIGINT, listeningLine)
	host, port := m[1], m[2]
	deadline := time.Now().Add(httpStartTimeout)
	if host != "127.0.0.1" {
		t.Fatalf("server-everything listens on %s, want 127.0.0.1 only", host)
	}
	addr := net.JoinHostPort(host, port)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything does not accept connections on %s: %v", addr, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

func TestServerEverythingHTTP(t *testing.T) {
	endpoint := startHTTPEverything(t)
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()

			var logs lockedBuffer
			client := streamhttp.NewClient(endpoint, streamhttp.ClientOptions{
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			tr := &tracer{Transport: client}
			t.Cleanup(func() {
				if t.Failed() || traceAlways {
					t.Logf("messages exchanged (-> sent, <- received):\n%s", tr)
					t.Logf("client transport log:\n%s", logs.String())
				}
			})
			p, err := connect(ctx, tr, rev)
			if err != nil {
				client.Close()
				t.Fatalf("handshake at %s: %v", rev, err)
			}
			closed := false
			defer func() {
				if !closed {
					p.s.Close()
				}
			}()
			got := ""
			if r := p.s.Revision(); r != nil {
				got = r.Name
			}
			sid := client.SessionID()
			t.Logf("offered %s, the server negotiated %s; session %s; serverInfo %s", rev, got, sid, p.s.PeerInfo())
			if got != rev {
				t.Fatalf("negotiated revision %q, want %q", got, rev)
			}
			if v := client.ProtocolVersion(); v != rev {
				t.Errorf("Client.ProtocolVersion() = %q, want %q", v, rev)
			}
			if sid == "" {
				t.Error("the server assigned no session id")
			}

			tools, err := list(ctx, "tools/list", p.listTools)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(tools.Tools, func(x toolInfo) bool { return x.Name == "echo" })
			if i < 0 {
				t.Fatalf("tools/list: no echo tool among %d", len(tools.Tools))
			}
			arg, err := stringArgument(tools.Tools[i].InputSchema)
			if err != nil {
				t.Fatalf("echo: %v", err)
			}
			if arg != "message" {
				t.Errorf("echo's argument is %q, want message", arg)
			}
			args, _ := json.Marshal(map[string]string{arg: goEchoText})
			raw, err := p.callTool(ctx, "echo", args)
			if err != nil {
				t.Fatalf("tools/call echo: %v", err)
			}
			call := decodeResult(t, "tools/call echo", raw)
			if call.IsError || !strings.Contains(call.texts(), goEchoText) {
				t.Errorf("tools/call echo %s: got %s, want the text %q back", args, raw, goEchoText)
			}
			t.Logf("%d tools; echo answered %q", len(tools.Tools), call.texts())

			// Close sends DELETE (T-S5): afterwards the server refuses the
			// session id (server-everything answers 400, not the 404 of
			// T-S4, for an id missing from its session map).
			closed = true
			if err := p.s.Close(); err != nil && !errors.Is(err, session.ErrClosed) {
				t.Errorf("closing the session: %v", err)
			}
			if err := probeSession(ctx, endpoint, sid, rev); err != nil {
				t.Error(err)
			}
		})
	}
}

// probeSession checks that the server no longer knows session sid after
// Close sent DELETE (T-S5): a ping carrying its id must be refused.
func probeSession(ctx context.Context, endpoint, sid, rev string) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", rev)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probing the closed session: %w", err)
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	if resp.StatusCode < 400 {
		return fmt.Errorf("after Close, a ping in session %s was answered %s (%s): DELETE did not end the session", sid, resp.Status, excerpt)
	}
	return nil
}
