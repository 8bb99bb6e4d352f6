package oauth_test

import (
	"context"
	"fmt"
	"log"

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
