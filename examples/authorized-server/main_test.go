package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// start serves the example as main does (newHandler, newHTTPServer) on a
// port of 127.0.0.1, with tokens from a test authorization server, and
// returns its address and that server.
func start(t *testing.T) (addr string, as *oauthtest.Server) {
	t.Helper()
	as = oauthtest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	h, done, err := newHandler(config{resource: "http://" + addr + "/mcp", issuer: as.URL, jwks: as.URL + "/jwks"})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	hs := newHTTPServer(addr, h)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		hs.Close()
		done()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return addr, as
}

func TestAuthorizedServer(t *testing.T) {
	addr, as := start(t)
	resource := "http://" + addr + "/mcp"

	ctx := context.Background()
	info := mcp.Implementation{Name: "c", Version: "1"}
	if _, err := mcp.Connect(ctx, streamhttp.NewClient(resource, streamhttp.ClientOptions{}), &mcp.ClientOptions{Info: info}); err == nil {
		t.Fatal("Connect without a token succeeded")
	}
	tok := as.Token(t, oauthtest.Claims{"sub": "alice", "aud": resource, "scope": "mcp", "client_id": "app"})
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(resource, streamhttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + tok}}}), &mcp.ClientOptions{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Value.(*mcp.TextContent).Text; got != "alice (client app, scopes [mcp])" {
		t.Errorf("whoami = %q", got)
	}
}

// A client that sends its headers a byte at a time and never ends them
// (slowloris) is cut off by the server once readHeaderTimeout has passed,
// rather than holding its connection for as long as it keeps sending. The
// wait is bounded: well past readHeaderTimeout, the test fails.
func TestSlowHeadersCutOff(t *testing.T) {
	t.Parallel()
	addr, _ := start(t)

	// A client that sends its request at once is answered.
	resp, err := http.Get("http://" + addr + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metadata: %s, want 200", resp.Status)
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() {
		// Returns when the server closes the connection: nil at EOF, or
		// the reset.
		_, err := io.Copy(io.Discard, c)
		closed <- err
	}()
	limit := readHeaderTimeout + 10*time.Second
	giveUp := time.NewTimer(limit)
	defer giveUp.Stop()
	drip := time.NewTicker(200 * time.Millisecond)
	defer drip.Stop()
	for {
		select {
		case <-closed:
			return
		case <-drip.C:
			c.Write([]byte("x")) // fails once the server has closed; the reader reports that
		case <-giveUp.C:
			t.Fatalf("the server still holds a connection that has been sending its headers for %v (readHeaderTimeout %v)", limit, readHeaderTimeout)
		}
	}
}
