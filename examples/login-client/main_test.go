package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/internal/oauthtest/protected"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// TestLogin: the client logs in at the test authorization server, lists
// the tools and calls whoami; a second run uses the stored token.
func TestLogin(t *testing.T) {
	as := oauthtest.New(t)
	url := protected.Start(t, as, "mcp")
	store := filepath.Join(t.TempDir(), "tokens.json")
	for i := range 2 {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"--headless", "--store", store, "--tool", "whoami", "--url", url}, &stdout, &stderr); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, code, stderr.String())
		}
		if got := stdout.String(); !strings.Contains(got, "tool whoami\n") || !strings.Contains(got, "whoami: user-1 [mcp]\n") {
			t.Errorf("run %d: stdout %q", i, got)
		}
	}
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations for two runs, want 1 (the second uses the stored token)", n)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--logout", "--store", store, "--url", url}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "logged out") {
		t.Fatalf("--logout: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n := len(as.Revocations()); n != 1 {
		t.Errorf("%d revocations after --logout, want 1", n)
	}
	if code := run(context.Background(), []string{"--headless", "--store", store, "--url", url}, &stdout, &stderr); code != 0 {
		t.Fatalf("run after logout: exit %d\n%s", code, stderr.String())
	}
	if n := len(as.AuthRequests()); n != 2 {
		t.Errorf("%d authorizations, want 2: the run after --logout logs in again", n)
	}
}

// TestUsage: usage errors are one line and exit 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--bogus", "--url", "http://x"}, {"http://x"}, {"--url", "http://x", "b"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if s := stderr.String(); strings.Count(s, "\n") != 1 || !strings.Contains(s, "see --help") {
			t.Errorf("%q: stderr %q, want one line pointing to --help", args, s)
		}
	}
}

// TestClientCredentials: --client-credentials gets the token with the
// client_credentials grant, with a secret from a file or a private key
// from a PEM file, and no authorization request.
func TestClientCredentials(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem")
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, client, method string
		args                 []string
	}{
		{"secret", "agent", "client_secret_basic", []string{"--client-id", "agent", "--client-secret-file", secretFile}},
		{"private key", "jwt-agent", "private_key_jwt", []string{"--client-id", "jwt-agent", "--private-key", keyFile, "--key-id", "k1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, oauthtest.Options{Clients: map[string]string{"agent": "s3cret"}, JWTClients: map[string]crypto.PublicKey{"jwt-agent": &key.PublicKey}})
			url := protected.Start(t, as, "mcp")
			var stdout, stderr bytes.Buffer
			args := append([]string{"--client-credentials", "--store", filepath.Join(t.TempDir(), "tokens.json"), "--tool", "whoami", "--url", url}, tt.args...)
			if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			if got := stdout.String(); !strings.Contains(got, "whoami: "+tt.client+" [mcp]\n") {
				t.Errorf("stdout %q", got)
			}
			trs := as.TokenRequests()
			if len(trs) != 1 || trs[0].GrantType != "client_credentials" || trs[0].AuthMethod != tt.method || len(as.AuthRequests()) != 0 {
				t.Errorf("token requests %+v, %d authorization requests", trs, len(as.AuthRequests()))
			}
		})
	}
	for _, args := range [][]string{
		{"--client-credentials", "--url", "http://x"},
		{"--client-credentials", "--client-id", "a", "--url", "http://x"},
		{"--client-id", "a", "--client-secret-file", secretFile, "--url", "http://x"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--client-credentials") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a word on --client-credentials", args, code, stderr.String())
		}
	}
}

// TestDPoP: with --dpop, the client gets DPoP-bound tokens from an
// authorization server and a resource server that both want their nonces
// and take DPoP-bound tokens only, logged in or as a machine client; a
// second run proves the stored token with the stored key, and --logout
// revokes it.
func TestDPoP(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		args   []string
		whoami string
	}{
		{"login", []string{"--headless"}, "whoami: user-1 [mcp]\n"},
		{"machine client", []string{"--client-credentials", "--client-id", "agent", "--client-secret-file", secretFile}, "whoami: agent [mcp]\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, oauthtest.Options{DPoP: &oauthtest.DPoP{Nonce: true}, Clients: map[string]string{"agent": "s3cret"}})
			nonces, err := dpop.NewHMACNonces(dpop.NonceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			url := protected.StartDPoP(t, as, bearer.DPoPOptions{Required: true, Proofs: dpop.VerifierOptions{Nonces: nonces}}, "mcp")
			store := filepath.Join(t.TempDir(), "tokens.json")
			for i := range 2 {
				var stdout, stderr bytes.Buffer
				args := append([]string{"--dpop", "--store", store, "--tool", "whoami", "--url", url}, tt.args...)
				if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
					t.Fatalf("run %d: exit %d\n%s", i, code, stderr.String())
				}
				if got := stdout.String(); !strings.Contains(got, tt.whoami) {
					t.Errorf("run %d: stdout %q, want %q", i, got, tt.whoami)
				}
			}
			trs := as.TokenRequests()
			if len(trs) != 1 || trs[0].DPoPJKT == "" {
				t.Fatalf("token requests %+v, want one with a DPoP proof (the second run uses the stored token and key)", trs)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"--dpop", "--logout", "--store", store, "--url", url}, tt.args...)
			if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
				t.Fatalf("--logout: exit %d, stderr %q", code, stderr.String())
			}
			if n := len(as.Revocations()); n != 1 {
				t.Errorf("%d revocations after --logout, want 1", n)
			}
		})
	}
}
