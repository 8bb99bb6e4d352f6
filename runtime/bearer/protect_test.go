package bearer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/runtime/bearer"
)

// An OPTIONS request needs a token like a GET: a handler behind Protect
// that serves content on OPTIONS (http.FileServer does) gives nothing
// without one. Only a CORS preflight passes without a token, and then
// without any Authorization header.
func TestOptionsNeedToken(t *testing.T) {
	as := oauthtest.New(t)
	v, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: resource, JWKSURL: as.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := bearer.New(bearer.Options{Resource: resource, AuthorizationServers: []string{as.URL}, Verifier: v})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("the secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(p.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Reached", "yes")
		w.Header().Set("X-Authorization-Seen", r.Header.Get("Authorization"))
		files.ServeHTTP(w, r)
	})))
	defer srv.Close()
	token := "Bearer " + as.Token(t, oauthtest.Claims{"sub": "alice", "aud": resource})
	const origin, acrm = "Origin", "Access-Control-Request-Method"
	tests := []struct {
		name    string
		method  string
		header  map[string]string
		reached bool
	}{
		{"GET without a token", http.MethodGet, nil, false},
		{"OPTIONS without a token", http.MethodOptions, nil, false},
		{"OPTIONS with Origin only", http.MethodOptions, map[string]string{origin: "https://app.example"}, false},
		{"OPTIONS with Access-Control-Request-Method only", http.MethodOptions, map[string]string{acrm: "GET"}, false},
		{"OPTIONS with a bad token", http.MethodOptions, map[string]string{"Authorization": "Bearer forged"}, false},
		{"OPTIONS with a token", http.MethodOptions, map[string]string{"Authorization": token}, true},
		{"CORS preflight", http.MethodOptions, map[string]string{origin: "https://app.example", acrm: "POST"}, true},
		{"CORS preflight with an Authorization header", http.MethodOptions, map[string]string{origin: "https://app.example", acrm: "POST", "Authorization": "Bearer forged"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+"/secret.txt", nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if got := res.Header.Get("X-Reached") == "yes"; got != tt.reached {
				t.Fatalf("the handler reached: %v, want %v (status %d)", got, tt.reached, res.StatusCode)
			}
			if got := res.Header.Get("X-Authorization-Seen"); got != "" {
				t.Errorf("the handler saw Authorization %q", got)
			}
			if tt.reached {
				return
			}
			if res.StatusCode != http.StatusUnauthorized || bytes.Contains(body, []byte("the secret")) {
				t.Errorf("status %d, body %q; want 401 without the file", res.StatusCode, body)
			}
			challengeOf(t, res)
		})
	}
}

// quotingVerifier is a verifier whose errors quote the token, as a
// careless one might.
type quotingVerifier struct{}

func (quotingVerifier) Verify(ctx context.Context, token string) (*bearer.TokenInfo, error) {
	if strings.HasPrefix(token, "bad") {
		return nil, fmt.Errorf("%w: token %s is revoked", bearer.ErrInvalidToken, token)
	}
	return nil, fmt.Errorf("cannot check %q now", token)
}

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The Protector's log, at every level, never holds a token: neither one
// the verifier refused nor one it could not check, even when the
// verifier's error quotes it.
func TestLogNeverHoldsToken(t *testing.T) {
	as := oauthtest.New(t)
	jwtv, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: resource, JWKSURL: as.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, tt := range []struct {
		name     string
		verifier bearer.TokenVerifier
		tokens   []string
	}{
		{"a verifier quoting tokens", quotingVerifier{}, []string{"bad-7f3a9c1e5d2b", "unlucky-0b8e2d4f6a"}},
		{"JWTVerifier", jwtv, []string{
			"not-a-jwt-5e1c9a7b3d",
			as.Token(t, oauthtest.Claims{"sub": "u", "aud": "http://127.0.0.1:9/other"}),
			as.Token(t, oauthtest.Claims{"aud": resource}),
			as.Token(t, oauthtest.Claims{"sub": "u", "aud": resource, "exp": now.Add(-time.Hour).Unix()}),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log lockedBuffer
			p, err := bearer.New(bearer.Options{
				Resource:             resource,
				AuthorizationServers: []string{as.URL},
				Verifier:             tt.verifier,
				Logger:               slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(p.Protect(http.NotFoundHandler()))
			defer srv.Close()
			for _, tok := range tt.tokens {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{}`))
				req.Header.Set("Authorization", "Bearer "+tok)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusUnauthorized && res.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("status %d, want 401 or 503", res.StatusCode)
				}
			}
			out := log.String()
			if strings.Count(out, "\n") < len(tt.tokens) {
				t.Fatalf("want a log line per refused token, got:\n%s", out)
			}
			for _, tok := range tt.tokens {
				// The token, or any part of a JWT's.
				parts := strings.Split(tok, ".")
				if len(parts) > 1 {
					parts = append(parts, tok)
				}
				for _, part := range parts {
					if (part == tok || len(part) >= 16) && strings.Contains(out, part) {
						t.Errorf("the log holds (part of) the token %q:\n%s", part, out)
					}
				}
			}
		})
	}
}
