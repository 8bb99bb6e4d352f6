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

// A workload (a job on Kubernetes, a SPIFFE-identified service, a cloud
// function) with no secret of its own: it presents the identity token its
// platform issued in the JWT bearer grant (workload identity federation).
// The file is read again for every grant, so a token the platform
// rotated is picked up.
func Example_workloadIdentity() {
	oc, err := oauth.New(oauth.Config{
		WorkloadIdentity: oauth.AssertionFile("/var/run/secrets/tokens/mcp-token"),
	})
	if err != nil {
		log.Fatal(err)
	}
	hc, err := oc.HTTPClient("https://mcp.example.com/mcp")
	if err != nil {
		log.Fatal(err)
	}
	t := streamhttp.NewClient("https://mcp.example.com/mcp", streamhttp.ClientOptions{HTTPClient: hc})
	cs, err := mcp.Connect(context.Background(), t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "my-job", Version: "1.0.0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
}

// An application the user signed in to with the enterprise's identity
// provider reaches an MCP server without another login
// (enterprise-managed authorization): it exchanges the user's ID token at
// the identity provider for an ID-JAG, and presents the ID-JAG to the MCP
// server's authorization server, where it is a pre-registered client.
func Example_enterprise() {
	idToken := func(ctx context.Context) (string, error) {
		// The ID token of the user's single sign-on, kept by the
		// application (and renewed when it expires).
		return os.Getenv("MYAPP_ID_TOKEN"), nil
	}
	oc, err := oauth.New(oauth.Config{
		Enterprise: &oauth.IdentityProvider{
			TokenEndpoint:     "https://acme.idp.example/oauth2/token",
			ClientID:          "myapp",
			ClientSecret:      os.Getenv("MYAPP_IDP_SECRET"),
			IdentityAssertion: idToken,
		},
		Clients: []oauth.ClientCredentials{{ClientID: "myapp-at-chat", ClientSecret: os.Getenv("MYAPP_CHAT_SECRET")}},
	})
	if err != nil {
		log.Fatal(err)
	}
	hc, err := oc.HTTPClient("https://mcp.chat.example/mcp")
	if err != nil {
		log.Fatal(err)
	}
	t := streamhttp.NewClient("https://mcp.chat.example/mcp", streamhttp.ClientOptions{HTTPClient: hc})
	cs, err := mcp.Connect(context.Background(), t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "myapp", Version: "1.0.0"}})
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
