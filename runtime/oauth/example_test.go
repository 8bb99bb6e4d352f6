package oauth_test

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"log"
	"os"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/oauth"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// A client that logs in when the server asks: the user opens the printed
// URL, the browser comes back to a loopback port, and the token is kept in
// a file for the next run.
func Example() {
	ctx := context.Background()
	url := "https://mcp.example.com/mcp"
	login, err := oauth.NewLoopback("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer login.Close()
	oc, err := oauth.New(oauth.Config{
		Authorizer: login,
		Store:      oauth.NewFileStore("/home/me/.config/myapp/oauth.json"),
		ClientName: "myapp",
	})
	if err != nil {
		log.Fatal(err)
	}
	hc, err := oc.HTTPClient(url)
	if err != nil {
		log.Fatal(err)
	}
	t := streamhttp.NewClient(url, streamhttp.ClientOptions{HTTPClient: hc})
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "myapp", Version: "1.0.0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content)
}

// A machine client (an agent, a service, a batch job) with no user: it
// gets its tokens with the client_credentials grant, authenticating with a
// private key whose public key the authorization server holds
// (private_key_jwt). With a client secret instead, set ClientSecret and no
// PrivateKey (client_secret_basic).
func Example_clientCredentials() {
	pemKey, err := os.ReadFile("/etc/myagent/client-key.pem") // PKCS #8
	if err != nil {
		log.Fatal(err)
	}
	block, _ := pem.Decode(pemKey)
	if block == nil {
		log.Fatal("client-key.pem: no PEM block")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	oc, err := oauth.New(oauth.Config{
		ClientCredentialsGrant: true,
		Clients: []oauth.ClientCredentials{{
			ClientID:   "my-agent",
			PrivateKey: key.(crypto.Signer),
			KeyID:      "2026-11",
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	hc, err := oc.HTTPClient("https://mcp.example.com/mcp")
	if err != nil {
		log.Fatal(err)
	}
	t := streamhttp.NewClient("https://mcp.example.com/mcp", streamhttp.ClientOptions{HTTPClient: hc})
	cs, err := mcp.Connect(context.Background(), t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "my-agent", Version: "1.0.0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
}

// A client whose tokens are bound to a key it holds (DPoP, RFC 9449): the
// key is generated at the first token request and kept in the store with
// the token, so a token copied out of the file is useless elsewhere
// without the key, and one seen on the wire is useless without the file.
func ExampleDPoPOptions() {
	login, err := oauth.NewLoopback("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer login.Close()
	oc, err := oauth.New(oauth.Config{
		Authorizer: login,
		Store:      oauth.NewFileStore("/home/me/.config/myapp/oauth.json"),
		DPoP:       &oauth.DPoPOptions{}, // or Key: a crypto.Signer of the application's
	})
	if err != nil {
		log.Fatal(err)
	}
	hc, err := oc.HTTPClient("https://mcp.example.com/mcp")
	if err != nil {
		log.Fatal(err)
	}
	t := streamhttp.NewClient("https://mcp.example.com/mcp", streamhttp.ClientOptions{HTTPClient: hc})
	cs, err := mcp.Connect(context.Background(), t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "myapp", Version: "1.0.0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
}
