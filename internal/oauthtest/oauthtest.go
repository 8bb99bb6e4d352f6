// Package oauthtest is a test authorization server for the OAuth tests of
// mcpgen: it signs JWT access tokens with keys generated at start (ES256),
// serves their JSON Web Key Set and its RFC 8414 metadata on 127.0.0.1,
// rotates keys on demand, and runs the authorization code flow: an
// authorization endpoint that approves every valid request at once (PKCE
// S256 required), a token endpoint (authorization_code, refresh_token,
// client_credentials and JWT bearer grants, and, as an enterprise identity
// provider, token exchange for ID-JAGs; client_secret_basic,
// client_secret_post, private_key_jwt and none), DPoP-bound tokens
// (Options.DPoP) and dynamic client registration. It records what clients sent, for tests to check.
// It is for tests, and for trying a login by hand on one machine (Listen).
package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// Server is a test authorization server.
type Server struct {
	// URL is the server's base URL, also its issuer identifier.
	URL string
	// JWKSFetches counts the requests for the key set.
	JWKSFetches atomic.Int32

	opts Options
	srv  *httptest.Server
	mu   sync.Mutex
	keys []jose.JSONWebKey // private; the last one signs
	n    int
	flow flow
	dpop *dpop.Verifier // with Options.DPoP
}

// New starts a Server with the default Options, closed when t ends.
func New(t testing.TB) *Server {
	return NewWith(t, Options{})
}

// NewWith starts a Server with opts, closed when t ends.
func NewWith(t testing.TB, opts Options) *Server {
	t.Helper()
	s, mux, err := newServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Listen starts a Server with opts on addr, outside tests: for trying a
// login by hand. It approves every login at once, so addr must be a
// loopback address, such as 127.0.0.1:0; any other is refused. Close
// stops it.
func Listen(addr string, opts Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("test authorization server address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("test authorization server address %q: want a loopback IP address such as 127.0.0.1: it approves every login, so no other machine may reach it", addr)
	}
	s, mux, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops a Server that Listen started; a test's is closed when the
// test ends.
func (s *Server) Close() {
	s.srv.Close()
}

// newServer returns a Server with opts and a signing key, and the handler
// of its endpoints; the caller serves it and sets URL.
func newServer(opts Options) (*Server, *http.ServeMux, error) {
	s := &Server{opts: opts}
	if opts.DPoP != nil {
		v, err := newDPoPVerifier(opts.DPoP)
		if err != nil {
			return nil, nil, err
		}
		s.dpop = v
	}
	s.flow.codes = map[string]*grant{}
	s.flow.refresh = map[string]*grant{}
	s.flow.clients = map[string]*client{}
	for id, secret := range opts.Clients {
		s.flow.clients[id] = &client{id: id, secret: secret, method: "client_secret_basic"}
	}
	if err := s.rotate(); err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	s.handleFlow(mux)
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		s.JWKSFetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.JWKS())
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.metadata())
	})
	return s, mux, nil
}

// Rotate makes a new signing key and drops the old ones from the key set.
func (s *Server) Rotate(t testing.TB) {
	t.Helper()
	if err := s.rotate(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) rotate() error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.keys = []jose.JSONWebKey{{Key: priv, KeyID: "key-" + strconv.Itoa(s.n), Algorithm: string(jose.ES256), Use: "sig"}}
	return nil
}

// JWKS returns the public key set.
func (s *Server) JWKS() jose.JSONWebKeySet {
	s.mu.Lock()
	defer s.mu.Unlock()
	var set jose.JSONWebKeySet
	for _, k := range s.keys {
		set.Keys = append(set.Keys, k.Public())
	}
	return set
}

// PublicKey returns the current signing key's public key.
func (s *Server) PublicKey() *ecdsa.PublicKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &s.keys[len(s.keys)-1].Key.(*ecdsa.PrivateKey).PublicKey
}

// Claims are the claims of a token; Token fills iss, iat and exp (one
// hour) when they are missing.
type Claims map[string]any

// Token returns a JWT access token with claims, signed with the current
// key.
func (s *Server) Token(t testing.TB, claims Claims) string {
	t.Helper()
	tok, err := s.sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// sign returns a JWT access token with claims, signed with the current
// key, with iss, iat and exp filled in when they are missing.
func (s *Server) sign(claims Claims) (string, error) {
	return s.signTyped("at+jwt", claims)
}

// signTyped is sign with the typ header typ.
func (s *Server) signTyped(typ string, claims Claims) (string, error) {
	s.mu.Lock()
	key := s.keys[len(s.keys)-1]
	s.mu.Unlock()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", err
	}
	c := Claims{"iss": s.URL, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		if v == nil {
			delete(c, k)
			continue
		}
		c[k] = v
	}
	return jwt.Signed(sig).Claims(map[string]any(c)).Serialize()
}
