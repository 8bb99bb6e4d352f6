package oauth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
)

// ErrNotFound is what a Store returns for a token or client it does not
// hold.
var ErrNotFound = errors.New("oauth: not in the store")

// Token is an access token and what came with it. A Store keeps it under
// the canonical URI of the MCP server it is for, and it is never sent
// anywhere else.
type Token struct {
	// Issuer is the issuer identifier of the authorization server that
	// issued the token; the token is refreshed there only.
	Issuer string `json:"issuer"`
	// AccessToken is sent as "Authorization: Bearer" to the resource, or
	// as "Authorization: DPoP" with a proof when TokenType is DPoP.
	AccessToken string `json:"access_token"`
	// TokenType is the token_type of the token response: "Bearer", or
	// "DPoP" for a token bound to a DPoP key (Config.DPoP).
	TokenType string `json:"token_type,omitempty"`
	// RefreshToken, when the server issued one, gets a new access token
	// without the user.
	RefreshToken string `json:"refresh_token,omitempty"`
	// Expiry is when the access token expires; zero if the server did not
	// say.
	Expiry time.Time `json:"expiry,omitzero"`
	// Scope is the space-separated scope the token was granted: the token
	// response's scope, or the requested scope when the response had none
	// (RFC 6749 section 5.1).
	Scope string `json:"scope,omitempty"`
	// DPoPKey is the private key a DPoP-bound token is bound to, when the
	// Client generated it (see DPoPOptions.Key); nil otherwise. Token's
	// JSON form holds it as PKCS#8, so FileStore keeps it with the token,
	// in the owner-only file.
	DPoPKey crypto.Signer `json:"-"`
}

// ClientCredentials identify the client to one authorization server.
type ClientCredentials struct {
	// Issuer is the issuer identifier of the authorization server the
	// credentials belong to. Credentials are never presented to another
	// issuer. In Config.Clients, an empty Issuer means the first issuer the
	// Client meets, to which the credentials are then bound.
	Issuer string `json:"issuer,omitempty"`
	// ClientID is the client identifier; for a Client ID Metadata
	// Document, its HTTPS URL.
	ClientID string `json:"client_id"`
	// ClientSecret is the secret of a confidential client; empty for a
	// public one.
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is how the client authenticates at the token endpoint:
	// "client_secret_basic", "client_secret_post" or "none". Empty picks
	// one from the server's metadata: none without a secret, otherwise
	// client_secret_basic unless the server lists only
	// client_secret_post.
	//
	// With Config.ClientCredentialsGrant, Config.WorkloadIdentity or
	// Config.Enterprise, AuthMethod may also be "private_key_jwt", and an
	// empty one picks private_key_jwt when there is a PrivateKey, else
	// client_secret_basic, else client_secret_post, the first the server
	// lists in token_endpoint_auth_methods_supported; with the JWT bearer
	// grant of the last two, a client with neither a secret nor a key is
	// "none" (its client_id only).
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// PrivateKey signs the client assertions of private_key_jwt (RFC 7523
	// section 2.2), with Config.ClientCredentialsGrant,
	// Config.WorkloadIdentity or Config.Enterprise only: an
	// *ecdsa.PrivateKey (P-256: ES256, P-384: ES384, P-521: ES512), an
	// *rsa.PrivateKey of 2048 bits or more (RS256) or an
	// ed25519.PrivateKey (EdDSA). The authorization server holds its public
	// key. It is never saved in a Store.
	PrivateKey crypto.Signer `json:"-"`
	// KeyID is the kid of the client assertions' header, when the
	// authorization server knows the key by one; optional.
	KeyID string `json:"kid,omitempty"`
	// AssertionAudience is the aud of the client assertions PrivateKey
	// signs: "" or AudienceIssuer for the authorization server's issuer
	// identifier, which the update of RFC 7523 in the IETF OAuth working
	// group requires so that an assertion is good at one server only;
	// AudienceTokenEndpoint for its token endpoint URL, for a server that
	// takes only that (RFC 7523 section 3 allows both).
	AssertionAudience string `json:"assertion_audience,omitempty"`
}

// Store keeps tokens and registered clients between runs. Its methods may
// be called from several goroutines. Load methods return ErrNotFound (or
// an error wrapping it) for what they do not hold.
type Store interface {
	// LoadToken returns the token for the MCP server whose canonical URI
	// is resource.
	LoadToken(ctx context.Context, resource string) (*Token, error)
	// SaveToken saves the token for resource, replacing what was there.
	SaveToken(ctx context.Context, resource string, tok *Token) error
	// DeleteToken forgets the token for resource.
	DeleteToken(ctx context.Context, resource string) error
	// LoadClient returns the client registered with the issuer.
	LoadClient(ctx context.Context, issuer string) (*ClientCredentials, error)
	// SaveClient saves the client registered with the issuer.
	SaveClient(ctx context.Context, issuer string, c *ClientCredentials) error
}

// MemoryStore is a Store in memory: what it holds ends with the process.
// The zero value is ready to use.
type MemoryStore struct {
	mu    sync.Mutex
	state storeState
}

// storeState is what a store holds, also the file format of FileStore.
type storeState struct {
	Tokens  []storedToken                 `json:"tokens"`
	Clients map[string]*ClientCredentials `json:"clients"`
}

type storedToken struct {
	Resource string `json:"resource"`
	Token    *Token `json:"token"`
}

func (s *storeState) token(resource string) (*Token, error) {
	for _, t := range s.Tokens {
		if t.Resource == resource && t.Token != nil {
			c := *t.Token
			return &c, nil
		}
	}
	return nil, fmt.Errorf("token for %s: %w", resource, ErrNotFound)
}

func (s *storeState) setToken(resource string, tok *Token) {
	s.deleteToken(resource)
	if tok != nil {
		c := *tok
		s.Tokens = append(s.Tokens, storedToken{Resource: resource, Token: &c})
	}
}

func (s *storeState) deleteToken(resource string) {
	for i, t := range s.Tokens {
		if t.Resource == resource {
			s.Tokens = append(s.Tokens[:i], s.Tokens[i+1:]...)
			return
		}
	}
}

func (s *storeState) client(issuer string) (*ClientCredentials, error) {
	c, ok := s.Clients[issuer]
	if !ok || c == nil {
		return nil, fmt.Errorf("client of %s: %w", issuer, ErrNotFound)
	}
	cc := *c
	return &cc, nil
}

func (s *storeState) setClient(issuer string, c *ClientCredentials) {
	if s.Clients == nil {
		s.Clients = map[string]*ClientCredentials{}
	}
	cc := *c
	s.Clients[issuer] = &cc
}

// LoadToken implements Store.
func (m *MemoryStore) LoadToken(_ context.Context, resource string) (*Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state.token(resource)
}

// SaveToken implements Store.
func (m *MemoryStore) SaveToken(_ context.Context, resource string, tok *Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state.setToken(resource, tok)
	return nil
}

// DeleteToken implements Store.
func (m *MemoryStore) DeleteToken(_ context.Context, resource string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state.deleteToken(resource)
	return nil
}

// LoadClient implements Store.
func (m *MemoryStore) LoadClient(_ context.Context, issuer string) (*ClientCredentials, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state.client(issuer)
}

// SaveClient implements Store.
func (m *MemoryStore) SaveClient(_ context.Context, issuer string, c *ClientCredentials) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state.setClient(issuer, c)
	return nil
}

// FileStore is a Store in one JSON file, readable and writable by its
// owner only (mode 0600, in a directory it creates with mode 0700). Each
// save rewrites the file through a temporary file and a rename, so a
// crash leaves the old or the new content, never a mix. Processes sharing
// the file do not lock it: the last save wins.
type FileStore struct {
	path string
	mu   sync.Mutex
}

// NewFileStore returns a FileStore at path. The file is created at the
// first save.
func NewFileStore(path string) *FileStore {
	return &FileStore{path: path}
}

// maxStoreFile bounds the file FileStore reads.
const maxStoreFile = 16 << 20

func (f *FileStore) read() (storeState, error) {
	var st storeState
	info, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("oauth store: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return st, fmt.Errorf("oauth store %s: mode %v lets others read it; it must be 0600", f.path, info.Mode().Perm())
	}
	if info.Size() > maxStoreFile {
		return st, fmt.Errorf("oauth store %s: %d bytes, more than %d", f.path, info.Size(), maxStoreFile)
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return st, fmt.Errorf("oauth store: %w", err)
	}
	if st, err = decodeStore(data); err != nil {
		return st, fmt.Errorf("oauth store %s: %w", f.path, err)
	}
	return st, nil
}

// decodeStore reads FileStore's file format.
func decodeStore(data []byte) (storeState, error) {
	var st storeState
	err := json.Unmarshal(data, &st)
	return st, err
}

func (f *FileStore) write(st storeState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("oauth store: %w", err)
	}
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauth store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".oauth-store-*")
	if err != nil {
		return fmt.Errorf("oauth store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("oauth store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("oauth store: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("oauth store: %w", err)
	}
	return nil
}

// update reads the file, applies change and writes the file back.
func (f *FileStore) update(change func(*storeState)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := f.read()
	if err != nil {
		return err
	}
	change(&st)
	return f.write(st)
}

// LoadToken implements Store.
func (f *FileStore) LoadToken(_ context.Context, resource string) (*Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := f.read()
	if err != nil {
		return nil, err
	}
	return st.token(resource)
}

// SaveToken implements Store.
func (f *FileStore) SaveToken(_ context.Context, resource string, tok *Token) error {
	return f.update(func(st *storeState) { st.setToken(resource, tok) })
}

// DeleteToken implements Store.
func (f *FileStore) DeleteToken(_ context.Context, resource string) error {
	return f.update(func(st *storeState) { st.deleteToken(resource) })
}

// LoadClient implements Store.
func (f *FileStore) LoadClient(_ context.Context, issuer string) (*ClientCredentials, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := f.read()
	if err != nil {
		return nil, err
	}
	return st.client(issuer)
}

// SaveClient implements Store.
func (f *FileStore) SaveClient(_ context.Context, issuer string, c *ClientCredentials) error {
	return f.update(func(st *storeState) { st.setClient(issuer, c) })
}
