// Command authorized-server is an MCP server over Streamable HTTP that
// only answers requests with an access token from a given authorization
// server: an OAuth 2.1 resource server (runtime/bearer). Its tool whoami
// tells the caller who the token says they are.
//
//	go run ./examples/authorized-server --addr 127.0.0.1:8080 \
//		--resource http://127.0.0.1:8080/mcp \
//		--issuer https://auth.example.com --jwks https://auth.example.com/jwks
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/bearer"
)

// config is what the flags say.
type config struct {
	resource, issuer, jwks string
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
	err = srv.AddTool(mcp.NewTool("whoami", "Who the access token says you are"), func(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		info, _ := bearer.TokenInfoFrom(ctx)
		return mcp.TextResult(fmt.Sprintf("%s (client %s, scopes %v)", info.Subject, info.ClientID, info.Scopes)), nil
	})
	if err != nil {
		return nil, nil, err
	}
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

func main() {
	log.SetFlags(0)
	addr := flag.String("addr", "127.0.0.1:8080", "listen on `ADDR`")
	var c config
	flag.StringVar(&c.resource, "resource", "http://127.0.0.1:8080/mcp", "the server's canonical `URI`, the tokens' audience")
	flag.StringVar(&c.issuer, "issuer", "", "the authorization server's issuer `URL` (required)")
	flag.StringVar(&c.jwks, "jwks", "", "the `URL` of the issuer's JSON Web Key Set (required)")
	flag.Parse()
	if c.issuer == "" || c.jwks == "" {
		fmt.Fprintln(os.Stderr, "authorized-server: --issuer and --jwks are required; see --help")
		os.Exit(2)
	}
	h, done, err := newHandler(c)
	if err != nil {
		log.Fatal(err)
	}
	defer done()
	log.Printf("serving MCP at %s (metadata at /.well-known/oauth-protected-resource)", c.resource)
	log.Fatal(newHTTPServer(*addr, h).ListenAndServe())
}
