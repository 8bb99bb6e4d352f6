// Command login-client connects to an MCP server over HTTP (Streamable
// HTTP, else the older HTTP+SSE), logging in with OAuth when the server
// asks (runtime/oauth), lists the server's tools and calls one.
//
//	go run ./examples/login-client --url http://127.0.0.1:8080/mcp --tool whoami
//
// When the server answers 401, the client discovers its authorization
// server, registers, and prints a URL to open in a browser; the browser's
// redirect comes back to a loopback port the client listens on. Tokens and
// the registered client are kept in a file (--store, mode 0600), so the
// next run does not ask again. With --headless the client reads the
// authorization server's redirect itself, for test authorization servers
// that approve at once. --logout forgets the stored token (revoking it at
// the authorization server when that one can).
//
// With --client-credentials the client is a machine client, with no user:
// it gets its token with the client_credentials grant, as the
// pre-registered client --client-id, authenticating with the secret in
// --client-secret-file (client_secret_basic) or with the private key in
// --private-key (a PKCS #8 PEM file; private_key_jwt, with --key-id as its
// kid):
//
//	go run ./examples/login-client --url http://127.0.0.1:8080/mcp --tool whoami \
//		--client-credentials --client-id my-agent --private-key agent-key.pem
//
// With --dpop the tokens are bound to a key the client generates and keeps
// in --store with them (DPoP, RFC 9449): every token request and every
// request to the MCP server carries a proof of the key, so a token copied
// out of the store file is useless without the key beside it, and a token
// intercepted on the way is useless without the file.
//
// examples/authorized-server --test-issuer is a server to try it against,
// with a test authorization server that approves every login at once.
package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/oauth"
	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit status (0 done, 1 failed, 2 a
// usage error).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("login-client", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("url", "", "the MCP server's `URL` (required)")
	tool := fs.String("tool", "", "call the tool `NAME` (with no arguments) after listing the tools")
	store := fs.String("store", defaultStore(), "keep tokens and registered clients in `FILE`")
	headless := fs.Bool("headless", false, "read the authorization server's redirect instead of asking a user (test servers)")
	cimd := fs.String("client-metadata-url", "", "the https `URL` of this client's Client ID Metadata Document, if it has one")
	logout := fs.Bool("logout", false, "forget the stored token for --url (revoking it at the authorization server when it can), then exit")
	machine := fs.Bool("client-credentials", false, "be a machine client, with no user: get the token with the client_credentials grant as --client-id")
	clientID := fs.String("client-id", "", "the pre-registered client `ID` of --client-credentials")
	secretFile := fs.String("client-secret-file", "", "read the client secret of --client-credentials from `FILE` (client_secret_basic)")
	keyFile := fs.String("private-key", "", "sign the client assertions of --client-credentials with the PKCS #8 PEM private key in `FILE` (private_key_jwt)")
	keyID := fs.String("key-id", "", "the `KID` of --private-key, if the authorization server knows the key by one")
	withDPoP := fs.Bool("dpop", false, "bind the tokens to a key kept in --store with them, proving it on every request (DPoP, RFC 9449)")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "login-client: %v; see --help\n", err)
		return 2
	}
	if *help {
		fmt.Fprintf(stdout, "usage: login-client [flags] --url URL\n\nConnects to the MCP server at URL, logging in with OAuth if it asks,\nlists its tools and calls --tool.\n\nFlags:\n%s", fs.FlagUsages())
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "login-client: unexpected argument %q (the server's URL goes in --url); see --help\n", fs.Arg(0))
		return 2
	}
	if *url == "" {
		fmt.Fprintln(stderr, "login-client: --url is required; see --help")
		return 2
	}
	var creds *oauth.ClientCredentials
	switch {
	case *machine && (*clientID == "" || *secretFile == "" && *keyFile == ""):
		fmt.Fprintln(stderr, "login-client: --client-credentials needs --client-id and --client-secret-file or --private-key; see --help")
		return 2
	case !*machine && (*clientID != "" || *secretFile != "" || *keyFile != "" || *keyID != ""):
		fmt.Fprintln(stderr, "login-client: --client-id, --client-secret-file, --private-key and --key-id go with --client-credentials; see --help")
		return 2
	case *machine:
		var err error
		if creds, err = machineCredentials(*clientID, *secretFile, *keyFile, *keyID); err != nil {
			fmt.Fprintf(stderr, "login-client: %v\n", err)
			return 1
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if *logout {
		cfg := oauth.Config{Authorizer: &oauth.Headless{}, Store: oauth.NewFileStore(*store)}
		if creds != nil {
			cfg = oauth.Config{ClientCredentialsGrant: true, Clients: []oauth.ClientCredentials{*creds}, Store: cfg.Store}
		}
		if *withDPoP {
			cfg.DPoP = &oauth.DPoPOptions{}
		}
		oc, err := oauth.New(cfg)
		if err == nil {
			err = oc.Logout(ctx, *url)
		}
		if err != nil {
			fmt.Fprintf(stderr, "login-client: logout: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "logged out of %s\n", *url)
		return 0
	}
	if err := connect(ctx, *url, *tool, *store, *cimd, *headless, *withDPoP, creds, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "login-client: %v\n", err)
		return 1
	}
	return 0
}

// defaultStore is where tokens are kept by default.
func defaultStore() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "mcpgen-login-client.json"
	}
	return filepath.Join(dir, "mcpgen", "login-client.json")
}

// machineCredentials returns the credentials of a machine client: id,
// with the secret in secretFile or the PKCS #8 PEM private key in
// keyFile (whose kid is keyID).
func machineCredentials(id, secretFile, keyFile, keyID string) (*oauth.ClientCredentials, error) {
	cc := &oauth.ClientCredentials{ClientID: id, KeyID: keyID}
	if secretFile != "" {
		data, err := os.ReadFile(secretFile)
		if err != nil {
			return nil, fmt.Errorf("--client-secret-file: %w", err)
		}
		if cc.ClientSecret = strings.TrimSpace(string(data)); cc.ClientSecret == "" {
			return nil, fmt.Errorf("--client-secret-file %s: empty", secretFile)
		}
	}
	if keyFile != "" {
		data, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, fmt.Errorf("--private-key: %w", err)
		}
		block, _ := pem.Decode(data)
		if block == nil {
			return nil, fmt.Errorf("--private-key %s: no PEM block", keyFile)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("--private-key %s: want a PKCS #8 private key (BEGIN PRIVATE KEY): %w", keyFile, err)
		}
		signer, ok := k.(crypto.Signer)
		if !ok {
			return nil, errors.New("--private-key " + keyFile + ": the key cannot sign")
		}
		cc.PrivateKey = signer
	}
	return cc, nil
}

// connect logs in as needed (as the machine client creds, when not nil;
// with DPoP-bound tokens when withDPoP), lists the tools and calls tool.
func connect(ctx context.Context, url, tool, store, cimd string, headless, withDPoP bool, creds *oauth.ClientCredentials, stdout, stderr io.Writer) error {
	var authorizer oauth.Authorizer = &oauth.Headless{}
	if !headless && creds == nil {
		l, err := oauth.NewLoopback("127.0.0.1:0")
		if err != nil {
			return err
		}
		defer l.Close()
		l.Open = func(u string) error {
			_, err := fmt.Fprintf(stderr, "Open this URL in a browser to log in:\n\n  %s\n\n", u)
			return err
		}
		authorizer = l
	}
	cfg := oauth.Config{
		Authorizer:        authorizer,
		Store:             oauth.NewFileStore(store),
		ClientName:        "mcpgen login-client",
		ClientMetadataURL: cimd,
	}
	if withDPoP {
		cfg.DPoP = &oauth.DPoPOptions{}
	}
	if creds != nil {
		cfg.Authorizer = nil
		cfg.ClientCredentialsGrant = true
		cfg.Clients = []oauth.ClientCredentials{*creds}
	}
	oc, err := oauth.New(cfg)
	if err != nil {
		return err
	}
	hc, err := oc.HTTPClient(url)
	if err != nil {
		return err
	}
	t := mcp.HTTP(url, &mcp.HTTPClientOptions{HTTPClient: hc})
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{Info: mcp.Implementation{Name: "login-client", Version: "1.0.0"}})
	if err != nil {
		return err
	}
	defer cs.Close()
	for tl, err := range cs.AllTools(ctx) {
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "tool %s\n", tl.Name)
	}
	if tool == "" {
		return nil
	}
	res, err := cs.CallToolArgs(ctx, tool, nil)
	if err != nil {
		return err
	}
	if text := res.Text(); text != "" {
		fmt.Fprintf(stdout, "%s: %s\n", tool, text)
	}
	if res.Failed() {
		return fmt.Errorf("tool %s failed", tool)
	}
	return nil
}
