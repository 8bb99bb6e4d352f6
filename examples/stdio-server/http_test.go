//go:build unix

package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	m24 "github.com/mcpgen/mcpgen/protocol/mcp20241105"
	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

var servingLine = regexp.MustCompile(`serving MCP on (http://127\.0\.0\.1:\d+)/mcp \(Streamable HTTP\) and (http://127\.0\.0\.1:\d+/sse) \(HTTP\+SSE\)`)

// --http serves both HTTP transports: Streamable HTTP at /mcp and the
// HTTP+SSE transport at /sse, which a client of either era reaches with
// ssehttp.NewAutoClient, and an old client with ssehttp.Client. SIGTERM
// still ends it cleanly with an HTTP+SSE stream open.
func TestHTTPBothTransports(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errOut := bufio.NewReader(stderr)
	line, err := errOut.ReadString('\n')
	m := servingLine.FindStringSubmatch(line)
	if err != nil || m == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first stderr line %q, %v: want both addresses served", line, err)
	}
	base, sseURL := m[1], m[2]
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(errOut)
		rest <- string(b)
	}()

	echo := func(t *testing.T, cs *mcp.ClientSession) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"both"}`)})
		if err != nil {
			t.Fatalf("tools/call: %v", err)
		}
		if tc, ok := res.Content[0].Value.(*mcp.TextContent); !ok || tc.Text != "both" {
			t.Fatalf("tools/call: %+v", res)
		}
	}
	connect := func(t *testing.T, tr transport.Transport) *mcp.ClientSession {
		t.Helper()
		cs, err := mcp.Connect(ctx, tr, &mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}})
		if err != nil {
			tr.Close()
			t.Fatalf("Connect: %v", err)
		}
		return cs
	}

	t.Run("auto at /mcp", func(t *testing.T) {
		a := ssehttp.NewAutoClient(base+"/mcp", ssehttp.AutoOptions{})
		cs := connect(t, a)
		defer cs.Close()
		echo(t, cs)
		if _, ok := a.Transport().(*streamhttp.Client); !ok || cs.Era() != session.EraModern {
			t.Fatalf("transport %T, era %v; want Streamable HTTP, modern", a.Transport(), cs.Era())
		}
	})
	t.Run("auto at /sse", func(t *testing.T) {
		a := ssehttp.NewAutoClient(sseURL, ssehttp.AutoOptions{})
		cs := connect(t, a)
		defer cs.Close()
		echo(t, cs)
		if _, ok := a.Transport().(*ssehttp.Client); !ok || cs.Era() != session.EraLegacy {
			t.Fatalf("transport %T, era %v; want HTTP+SSE, legacy", a.Transport(), cs.Era())
		}
	})
	// The clients that still speak 2024-11-05, the revision of HTTP+SSE,
	// get it.
	t.Run("2024-11-05 at /sse", func(t *testing.T) {
		cs, err := m24.Connect(ctx, ssehttp.NewClient(sseURL, ssehttp.ClientOptions{}), &m24.ClientOptions{Info: m24.Implementation{Name: "oldest", Version: "1"}, Session: session.Options{Revisions: []string{m24.Revision}}})
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		defer cs.Close()
		if r := cs.Revision(); r == nil || r.Name != m24.Revision {
			t.Fatalf("negotiated %v, want %s", r, m24.Revision)
		}
		res, err := cs.CallTool(ctx, &m24.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"oldest"}`)})
		if err != nil {
			t.Fatalf("tools/call: %v", err)
		}
		if tc, ok := res.Content[0].Value.(*m24.TextContent); !ok || tc.Text != "oldest" {
			t.Fatalf("tools/call: %+v", res)
		}
	})
	// An old client, whose stream stays open across the SIGTERM.
	cs, err := m25.Connect(ctx, ssehttp.NewClient(sseURL, ssehttp.ClientOptions{}), &m25.ClientOptions{Info: m25.Implementation{Name: "old", Version: "1"}})
	if err != nil {
		t.Fatalf("Connect over HTTP+SSE: %v", err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &m25.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"old"}`)}); err != nil {
		t.Fatalf("tools/call over HTTP+SSE: %v", err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatal("the server did not exit after SIGTERM")
	}
	if err != nil {
		t.Fatalf("after SIGTERM: %v, want exit status 0\nstderr: %s", err, <-rest)
	}
	select {
	case <-cs.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the HTTP+SSE client session did not end with the server")
	}
}
