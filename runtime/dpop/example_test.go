package dpop_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"log"

	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// A client makes a proof for each request; the server checks it against
// the request, the access token and the key the token is bound to.
func ExampleNewProof() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	const token = "an-access-token" // bound to key: its cnf.jkt is dpop.Thumbprint(&key.PublicKey)
	proof, err := dpop.NewProof(key, "POST", "https://mcp.example.com/mcp", dpop.ProofOptions{AccessToken: token})
	if err != nil {
		log.Fatal(err)
	}
	// Sent as "Authorization: DPoP an-access-token" and "DPoP: <proof>".

	jkt, err := dpop.Thumbprint(&key.PublicKey)
	if err != nil {
		log.Fatal(err)
	}
	v, err := dpop.NewVerifier(dpop.VerifierOptions{})
	if err != nil {
		log.Fatal(err)
	}
	target := dpop.Target{Method: "POST", URL: "https://mcp.example.com/mcp", AccessToken: token, JKT: jkt}
	claims, err := v.Verify(context.Background(), proof, target)
	fmt.Println(claims.Method, claims.URL, err)
	_, err = v.Verify(context.Background(), proof, target)
	fmt.Println(err)
	// Output:
	// POST https://mcp.example.com/mcp <nil>
	// dpop: invalid_dpop_proof: the DPoP proof was used before (its jti is not new); make a new proof for every request
}
