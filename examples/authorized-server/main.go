// Command authorized-server is an MCP server over Streamable HTTP that
// only answers requests with an access token from a given authorization
// server: an OAuth 2.1 resource server (runtime/bearer). Its tool whoami
// tells the caller who the token says they are.
//
//	go run ./examples/authorized-server --http 127.0.0.1:8080 \
//		--issuer https://auth.example.com --jwks https://auth.example.com/jwks
//
// To try a login end to end on one machine, --test-issuer starts a test
// authorization server on 127.0.0.1 beside it, which approves every login
// at once, and trusts it; examples/login-client then logs in:
//
//	go run ./examples/authorized-server --test-issuer
//	go run ./examples/login-client --url http://127.0.0.1:8080/mcp --tool whoami
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/spf13/pflag"
)

// config is what the flags say.
type config struct {
	http, resource, issuer, jwks string
	testIssuer                   bool
}

// newHandler returns the server's handler: the MCP endpoint at the path of
// resource, and the Protected Resource Metadata at its well-known URIs.
func newHandler(c config) (http.Handler, func(), error) {
	verifier, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: c.issuer, Audience: c.resource, JWKSURL: c.jwks})
	if err != nil {
		return nil, nil, err
	}
	p, err := bearer.New(bearer.Options{Resource: c.resource, AuthorizationServers: []string{c.issuer}, Verifier: verifier, Scopes: []string{"mcp"}})
	if err != nil {
		return nil, nil, err
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "authorized-server", Version: "1.0.0"})
	srv.MustAddTool(mcp.NewTool("whoami", "Who the access token says you are"), func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		info, _ := bearer.TokenInfoFrom(ctx)
		return mcp.TextResult(fmt.Sprintf("%s (client %s, scopes %v)", info.Subject, info.ClientID, info.Scopes)), nil
	})
	h := srv.HTTPHandler(mcp.HTTPOptions{})
	mux := http.NewServeMux()
	mux.Handle("/", p.Protect(h))
	p.HandleMetadata(mux)
	return mux, h.Close, nil
}

// The limits of the http.Server. A server open to the internet bounds how
// long a client may take to send a request, so that a connection that sends
// nothing, or a byte at a time (slowloris), is closed instead of held
// forever.
const (
	// readHeaderTimeout bounds reading a request's headers.
	readHeaderTimeout = 10 * time.Second
	// readTimeout bounds reading a whole request, its body included.
	// net/http lifts the read deadline once the body has been read, so it
	// does not end an SSE stream or a call that runs longer.
	readTimeout = 30 * time.Second
	// idleTimeout bounds how long a kept-alive connection may wait for its
	// next request.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds the request's headers: room for an access token
	// and the Mcp-* headers.
	maxHeaderBytes = 64 << 10
)

// newHTTPServer returns the http.Server that serves h at addr.
func newHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		// No deadline for a whole response: it would cut the SSE streams,
		// and the answers of calls that run longer than it. Streamable HTTP
		// bounds each write to a stream itself instead
		// (streamhttp.ServerOptions.WriteTimeout), so that a client that
		// stops reading is let go.
		WriteTimeout:   0,
		IdleTimeout:    idleTimeout,
		MaxHeaderBytes: maxHeaderBytes,
	}
}

const usage = `usage: authorized-server [flags]

An MCP server over Streamable HTTP that answers only requests with an
access token of the authorization server --issuer names (an OAuth 2.1
resource server). Its tool whoami says who the token names.

Flags:
`

// parseFlags reads the command line. It returns done when it printed the
// help, and an error for a usage error.
func parseFlags(args []string, stdout io.Writer) (c config, done bool, err error) {
	fs := pflag.NewFlagSet("authorized-server", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.http, "http", "127.0.0.1:8080", "serve HTTP on `ADDR`")
	fs.StringVar(&c.resource, "resource", "", "the server's canonical `URI`, the tokens' audience (default http://ADDR/mcp)")
	fs.StringVar(&c.issuer, "issuer", "", "the authorization server's issuer `URL` (required, unless --test-issuer)")
	fs.StringVar(&c.jwks, "jwks", "", "the `URL` of the issuer's JSON Web Key Set (required, unless --test-issuer)")
	fs.BoolVar(&c.testIssuer, "test-issuer", false, "start a test authorization server on 127.0.0.1 that approves every login at once, and trust it (to try a login by hand)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return c, false, err
	}
	if *help {
		fmt.Fprint(stdout, usage+fs.FlagUsages())
		return c, true, nil
	}
	switch {
	case fs.NArg() > 0:
		return c, false, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.testIssuer && (c.issuer != "" || c.jwks != ""):
		return c, false, errors.New("--test-issuer starts its own issuer: leave out --issuer and --jwks")
	case !c.testIssuer && (c.issuer == "" || c.jwks == ""):
		return c, false, errors.New("--issuer and --jwks are required (or --test-issuer to try it out)")
	}
	if c.resource == "" {
		c.resource = "http://" + c.http + "/mcp"
	}
	return c, false, nil
}

func main() {
	log.SetFlags(0)
	c, done, err := parseFlags(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "authorized-server: %v; see --help\n", err)
		os.Exit(2)
	}
	if done {
		return
	}
	if c.testIssuer {
		stop, err := startTestIssuer(&c)
		if err != nil {
			log.Fatal(err)
		}
		defer stop()
		log.Printf("test authorization server at %s: it approves every login at once; for trying things out only", c.issuer)
	}
	h, closeHandler, err := newHandler(c)
	if err != nil {
		log.Fatal(err)
	}
	defer closeHandler()
	log.Printf("serving MCP at %s (metadata at /.well-known/oauth-protected-resource)", c.resource)
	log.Fatal(newHTTPServer(c.http, h).ListenAndServe())
}
