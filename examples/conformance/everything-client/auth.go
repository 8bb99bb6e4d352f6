package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/oauth"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// cimdURL is the Client ID Metadata Document URL the auth scenarios
// expect as client_id when the authorization server accepts one.
const cimdURL = "https://conformance-test.local/client-metadata.json"

// authContext is what MCP_CONFORMANCE_CONTEXT carries for the auth
// scenarios: pre-registered credentials (auth/pre-registration,
// auth/client-credentials-basic), or a client id and the PKCS #8 PEM of
// its private key (auth/client-credentials-jwt); the workload identity
// tokens of auth/wif-jwt-bearer (a valid one, and two the authorization
// server refuses); the identity provider, its client and the user's ID
// token of enterprise-managed authorization.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	ValidJWT         string `json:"valid_jwt"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// machineAuth are the auth scenarios of machine clients: the
// client_credentials grant, with the credentials of the context.
var machineAuth = map[string]bool{
	"auth/client-credentials-basic": true,
	"auth/client-credentials-jwt":   true,
}

// dpopAuth are the auth scenarios of DPoP (RFC 9449): the login flow with
// DPoP-bound tokens, with or without the servers' nonces.
var dpopAuth = map[string]bool{
	"auth/dpop":       true,
	"auth/dpop-nonce": true,
}

// enterpriseAuth are the auth scenarios of enterprise-managed
// authorization (0.2's name, and 0.1.16's).
var enterpriseAuth = map[string]bool{
	"auth/enterprise-managed-authorization": true,
	"auth/cross-app-access-complete-flow":   true,
}

// privateKey reads a PKCS #8 PEM private key.
func privateKey(pemText string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("private_key_pem: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("private_key_pem: %w", err)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private_key_pem: a %T cannot sign", k)
	}
	return s, nil
}

// authTransport returns a Streamable HTTP transport for url whose requests
// runtime/oauth authorizes, as the auth/* scenarios expect: a headless
// authorizer (the suite's authorization server redirects at once), the
// suite's CIMD URL, and the pre-registered client of the context if any.
func authTransport(url string) (_ *streamhttp.Client, err error) {
	cfg := oauth.Config{
		Authorizer:        &oauth.Headless{},
		ClientName:        "mcpgen-conformance-everything-client",
		ClientMetadataURL: cimdURL,
		Logger:            logger,
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var ac authContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &ac); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
		if ac.ClientID != "" {
			cc := oauth.ClientCredentials{ClientID: ac.ClientID, ClientSecret: ac.ClientSecret}
			if ac.PrivateKeyPEM != "" {
				if cc.PrivateKey, err = privateKey(ac.PrivateKeyPEM); err != nil {
					return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
				}
			}
			cfg.Clients = []oauth.ClientCredentials{cc}
		}
	}
	switch {
	case machineAuth[scenario]:
		cfg.ClientCredentialsGrant = true
		cfg.Authorizer = nil
	case scenario == "auth/wif-jwt-bearer":
		// A workload needs no client: the workload token identifies it.
		cfg.WorkloadIdentity = constant(ac.ValidJWT)
		cfg.Clients = nil
		cfg.Authorizer = nil
	case enterpriseAuth[scenario]:
		cfg.Enterprise = &oauth.IdentityProvider{
			TokenEndpoint:     ac.IdPTokenEndpoint,
			ClientID:          ac.IdPClientID,
			IdentityAssertion: constant(ac.IdPIDToken),
		}
		cfg.Authorizer = nil
	case dpopAuth[scenario]:
		cfg.DPoP = &oauth.DPoPOptions{}
	}
	oc, err := oauth.New(cfg)
	if err != nil {
		return nil, err
	}
	hc, err := oc.HTTPClient(url)
	if err != nil {
		return nil, err
	}
	return streamhttp.NewClient(url, streamhttp.ClientOptions{Logger: logger, HTTPClient: hc}), nil
}

// runAuth: connect through OAuth, list the tools and call test-tool, at
// 2025-11-25 and older.
func runAuth(ctx context.Context, url string) error {
	t, err := authTransport(url)
	if err != nil {
		return err
	}
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{Info: info, Session: session.Options{Logger: logger}})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	defer cs.Close()
	if err := requireTool(ctx, cs, "test-tool"); err != nil {
		return err
	}
	_, err = callTool(ctx, cs, "test-tool", `{}`)
	return err
}

// runAuth26: the same with the client of both eras, at 2026-07-28.
func runAuth26(ctx context.Context, url string) error {
	t, err := authTransport(url)
	if err != nil {
		return err
	}
	cs, err := m26.Connect(ctx, t, &m26.ClientOptions{Info: info26, Session: session.Options{Logger: logger}})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	return listAndCall(ctx, cs, [2]string{"test-tool", `{}`})
}

// constant is an AssertionSource of the assertion a, from the
// scenario's context.
func constant(a string) oauth.AssertionSource {
	return func(context.Context) (string, error) {
		if a == "" {
			return "", errors.New("MCP_CONFORMANCE_CONTEXT has no assertion for the scenario")
		}
		return a, nil
	}
}
