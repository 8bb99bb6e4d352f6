package main

import "github.com/mcpgen/mcpgen/internal/oauthtest"

// startTestIssuer starts the test authorization server of mcpgen's own
// tests on a free port of 127.0.0.1 and points c at it. It approves every
// login at once, with no user to ask: it is for trying the login on one
// machine, never for serving. A server of your own trusts a real
// authorization server instead (--issuer, --jwks). The returned function
// stops it.
func startTestIssuer(c *config) (stop func(), err error) {
	as, err := oauthtest.Listen("127.0.0.1:0", oauthtest.Options{})
	if err != nil {
		return nil, err
	}
	c.issuer, c.jwks = as.URL, as.URL+"/jwks"
	return as.Close, nil
}
