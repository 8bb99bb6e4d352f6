package bearer_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// An MCP server protected by bearer tokens: the metadata is public, the
// endpoint answers 401 with the challenge that tells a client where to log
// in.
func Example() {
	verifier, err := bearer.NewJWTVerifier(bearer.JWTOptions{
		Issuer:   "https://auth.example.com",
		Audience: "https://mcp.example.com/mcp",
		JWKSURL:  "https://auth.example.com/jwks",
	})
	if err != nil {
		log.Fatal(err)
	}
	p, err := bearer.New(bearer.Options{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		Verifier:             verifier,
		Scopes:               []string{"mcp"},
		ToolScopes:           map[string][]string{"deploy": {"deploy"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "ops", Version: "1.0.0"})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.Protect(h))
	p.HandleMetadata(mux)

	ts := httptest.NewServer(mux)
	defer ts.Close()
	res, err := http.Post(ts.URL+"/mcp", "application/json", nil)
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("WWW-Authenticate"))
	res, err = http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"))
	// Output:
	// 401 Bearer scope="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200 application/json
}

// A server that takes DPoP-bound tokens as well as bearer tokens names
// both schemes in its challenges; the DPoP one lists the proof algorithms
// it accepts.
func ExampleDPoPOptions() {
	verifier, err := bearer.NewJWTVerifier(bearer.JWTOptions{
		Issuer:   "https://auth.example.com",
		Audience: "https://mcp.example.com/mcp",
		JWKSURL:  "https://auth.example.com/jwks",
	})
	if err != nil {
		log.Fatal(err)
	}
	p, err := bearer.New(bearer.Options{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		Verifier:             verifier,
		DPoP:                 &bearer.DPoPOptions{}, // Required: true for DPoP-bound tokens only
	})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(p.Protect(http.NotFoundHandler()))
	defer ts.Close()
	res, err := http.Post(ts.URL+"/mcp", "application/json", nil)
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println(res.StatusCode)
	for _, c := range res.Header.Values("WWW-Authenticate") {
		fmt.Println(c)
	}
	// Output:
	// 401
	// Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// DPoP resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", algs="ES256 PS256 RS256 EdDSA"
}
