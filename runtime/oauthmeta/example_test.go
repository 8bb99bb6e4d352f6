package oauthmeta_test

import (
	"fmt"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// A resource server challenges a request without a token; the client finds
// the metadata URL in the challenge, or else tries the well-known URIs.
func Example() {
	challenge := oauthmeta.Bearer(
		oauthmeta.Param{Name: "resource_metadata", Value: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"},
		oauthmeta.Param{Name: "scope", Value: "files:read"},
	)
	h := http.Header{}
	h.Set("WWW-Authenticate", challenge.String())
	fmt.Println(h.Get("WWW-Authenticate"))

	c, _ := oauthmeta.BearerChallenge(h)
	u, _ := c.Get("resource_metadata")
	fmt.Println("metadata at", u)

	urls, _ := oauthmeta.ProtectedResourceURLs("https://mcp.example.com/mcp")
	fmt.Println("or at", urls)
	as, _ := oauthmeta.AuthorizationServerURLs("https://auth.example.com/tenant1")
	for _, u := range as {
		fmt.Println("issuer metadata:", u)
	}
	// Output:
	// Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read"
	// metadata at https://mcp.example.com/.well-known/oauth-protected-resource/mcp
	// or at [https://mcp.example.com/.well-known/oauth-protected-resource/mcp https://mcp.example.com/.well-known/oauth-protected-resource]
	// issuer metadata: https://auth.example.com/.well-known/oauth-authorization-server/tenant1
	// issuer metadata: https://auth.example.com/.well-known/openid-configuration/tenant1
	// issuer metadata: https://auth.example.com/tenant1/.well-known/openid-configuration
}
