package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/oauth"
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
	h, done, err := newHandler(config{http: addr, resource: "http://" + addr + "/mcp", issuer: as.URL, jwks: as.URL + "/jwks"})
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

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    config
		wantErr string
	}{
		{args: []string{"--issuer", "https://as", "--jwks", "https://as/jwks"}, want: config{http: "127.0.0.1:8080", resource: "http://127.0.0.1:8080/mcp", issuer: "https://as", jwks: "https://as/jwks"}},
		{args: []string{"--test-issuer", "--http", "127.0.0.1:9000"}, want: config{http: "127.0.0.1:9000", resource: "http://127.0.0.1:9000/mcp", testIssuer: true}},
		{args: []string{"--test-issuer", "--resource", "https://mcp.example.com/mcp"}, want: config{http: "127.0.0.1:8080", resource: "https://mcp.example.com/mcp", testIssuer: true}},
		{args: nil, wantErr: "--issuer and --jwks are required (or --test-issuer to try it out)"},
		{args: []string{"--issuer", "https://as"}, wantErr: "--issuer and --jwks are required"},
		{args: []string{"--test-issuer", "--issuer", "https://as"}, wantErr: "leave out --issuer and --jwks"},
		{args: []string{"--addr", "127.0.0.1:1"}, wantErr: "unknown flag: --addr"},
		{args: []string{"--test-issuer", "serve"}, wantErr: `unexpected argument "serve"`},
	}
	for _, tt := range tests {
		got, done, err := parseFlags(tt.args, io.Discard)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || done || got != tt.want {
			t.Errorf("%q: %+v, done %v, err %v; want %+v", tt.args, got, done, err, tt.want)
		}
	}
	var help strings.Builder
	if _, done, err := parseFlags([]string{"--help"}, &help); err != nil || !done || !strings.Contains(help.String(), "--test-issuer") {
		t.Errorf("--help: done %v, err %v, printed %q", done, err, help.String())
	}
}

// --test-issuer: the server trusts a test authorization server on
// 127.0.0.1, and a client that logs in as examples/login-client does
// (runtime/oauth, here without a browser) gets through to whoami.
func TestTestIssuer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := parseFlags([]string{"--test-issuer", "--http", ln.Addr().String()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := startTestIssuer(&c)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(c.issuer, "http://127.0.0.1:") {
		t.Fatalf("the test issuer is at %q, want 127.0.0.1", c.issuer)
	}
	h, done, err := newHandler(c)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	hs := newHTTPServer(c.http, h)
	go hs.Serve(ln)
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	oc, err := oauth.New(oauth.Config{Authorizer: &oauth.Headless{}})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := oc.HTTPClient(c.resource)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.Connect(ctx, streamhttp.NewClient(c.resource, streamhttp.ClientOptions{HTTPClient: hc}), &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Value.(*mcp.TextContent).Text; !strings.HasPrefix(got, "user-1 (client client-") || !strings.HasSuffix(got, "scopes [mcp])") {
		t.Errorf("whoami = %q, want the test issuer's user-1 with scope mcp", got)
	}
}
