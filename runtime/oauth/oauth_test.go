package oauth_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/oauthtest"
	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// protected starts a resource server on 127.0.0.1 whose /mcp answers 200
// to requests with a token of as (checked by runtime/bearer, as edit
// configures it), and returns the URL of /mcp.
func protected(t *testing.T, as *oauthtest.Server, edit func(*bearer.Options)) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	resource := "http://" + srv.Listener.Addr().String() + "/mcp"
	srv.Config.Handler = protector(t, as, resource, edit)
	srv.Start()
	t.Cleanup(srv.Close)
	return resource
}

// protector returns the handler of a resource server for resource.
func protector(t *testing.T, as *oauthtest.Server, resource string, edit func(*bearer.Options)) http.Handler {
	t.Helper()
	v, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: resource, JWKSURL: as.URL + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	o := bearer.Options{Resource: resource, AuthorizationServers: []string{as.URL}, Verifier: v}
	if edit != nil {
		edit(&o)
	}
	p, err := bearer.New(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})))
	p.HandleMetadata(mux)
	return mux
}

// client returns an oauth.Client with a Headless authorizer and cfg's
// other fields.
func client(t *testing.T, cfg oauth.Config) *oauth.Client {
	t.Helper()
	if cfg.Authorizer == nil {
		cfg.Authorizer = &oauth.Headless{}
	}
	c, err := oauth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call POSTs a JSON-RPC request of method to url with hc.
func call(hc *http.Client, url, method string) (int, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"name":"tool"}}`
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// mustCall calls and wants 200.
func mustCall(t *testing.T, hc *http.Client, url, method string) {
	t.Helper()
	status, err := call(hc, url, method)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200", method, status)
	}
}

func httpClient(t *testing.T, c *oauth.Client, url string) *http.Client {
	t.Helper()
	hc, err := c.HTTPClient(url)
	if err != nil {
		t.Fatal(err)
	}
	return hc
}

// TestFlow: the whole flow with dynamic registration, and what the client
// sent at each step.
func TestFlow(t *testing.T) {
	as := oauthtest.New(t)
	url := protected(t, as, func(o *bearer.Options) { o.Scopes = []string{"mcp:read"} })
	c := client(t, oauth.Config{ClientName: "flow-test"})
	hc := httpClient(t, c, url)
	mustCall(t, hc, url, "tools/list")
	mustCall(t, hc, url, "tools/call")

	regs := as.Registrations()
	if len(regs) != 1 {
		t.Fatalf("%d registrations, want 1", len(regs))
	}
	reg := regs[0]
	if reg["application_type"] != "native" || reg["client_name"] != "flow-test" || reg["token_endpoint_auth_method"] != "none" {
		t.Errorf("registration = %v", reg)
	}
	if gt, _ := reg["grant_types"].([]any); !slices.Contains(gt, any("refresh_token")) || !slices.Contains(gt, any("authorization_code")) {
		t.Errorf("registration grant_types = %v", reg["grant_types"])
	}
	auths := as.AuthRequests()
	if len(auths) != 1 {
		t.Fatalf("%d authorization requests, want 1 (the second call reuses the token)", len(auths))
	}
	a := auths[0]
	if a.Resource != url || a.Scope != "mcp:read" || a.CodeChallengeMethod != "S256" || a.CodeChallenge == "" || a.State == "" || a.RedirectURI != oauth.DefaultHeadlessRedirect {
		t.Errorf("authorization request = %+v", a)
	}
	toks := as.TokenRequests()
	if len(toks) != 1 || toks[0].GrantType != "authorization_code" || toks[0].Resource != url || toks[0].AuthMethod != "none" {
		t.Errorf("token requests = %+v", toks)
	}
}

// TestTokenEndpointAuth: the client authenticates as the authorization
// server says, as dynamic registration, pre-registration and CIMD give.
func TestTokenEndpointAuth(t *testing.T) {
	const cimd = "https://client.example/metadata.json"
	for _, tc := range []struct {
		name       string
		opts       oauthtest.Options
		cfg        oauth.Config
		wantMethod string
		wantClient string // "" = a registered one
		wantRegs   int
	}{
		{name: "basic", opts: oauthtest.Options{AuthMethods: []string{"client_secret_basic"}}, wantMethod: "client_secret_basic", wantRegs: 1},
		{name: "post", opts: oauthtest.Options{AuthMethods: []string{"client_secret_post"}}, wantMethod: "client_secret_post", wantRegs: 1},
		{name: "none", opts: oauthtest.Options{AuthMethods: []string{"none"}}, wantMethod: "none", wantRegs: 1},
		{
			name:       "pre-registered",
			opts:       oauthtest.Options{NoRegistration: true, AuthMethods: []string{"client_secret_basic"}, Clients: map[string]string{"pre:id": "s3cret&x"}},
			cfg:        oauth.Config{Clients: []oauth.ClientCredentials{{ClientID: "pre:id", ClientSecret: "s3cret&x"}}},
			wantMethod: "client_secret_basic", wantClient: "pre:id",
		},
		{
			name:       "client ID metadata document",
			opts:       oauthtest.Options{CIMD: true},
			cfg:        oauth.Config{ClientMetadataURL: cimd},
			wantMethod: "none", wantClient: cimd,
		},
		{
			name: "CIMD not offered: registration",
			opts: oauthtest.Options{},
			cfg:  oauth.Config{ClientMetadataURL: cimd}, wantMethod: "none", wantRegs: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, tc.opts)
			url := protected(t, as, nil)
			mustCall(t, httpClient(t, client(t, tc.cfg), url), url, "tools/list")
			toks := as.TokenRequests()
			if len(toks) != 1 || toks[0].AuthMethod != tc.wantMethod {
				t.Fatalf("token requests = %+v, want one with %s", toks, tc.wantMethod)
			}
			if tc.wantClient != "" && toks[0].ClientID != tc.wantClient {
				t.Errorf("client_id %q, want %q", toks[0].ClientID, tc.wantClient)
			}
			if n := len(as.Registrations()); n != tc.wantRegs {
				t.Errorf("%d registrations, want %d", n, tc.wantRegs)
			}
		})
	}
}

// TestRefusals: what the client must refuse, and that it refuses before
// the step that would harm.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      oauthtest.Options
		edit      func(*bearer.Options)
		want      string // in the error
		noAuth    bool   // no authorization request may be made
		noToken   bool   // no token request may be made
		mayCalled bool
	}{
		{name: "no PKCE", opts: oauthtest.Options{NoPKCE: true}, want: "PKCE", noAuth: true},
		{name: "no way to register", opts: oauthtest.Options{NoRegistration: true}, want: "Config.Clients", noAuth: true},
		{name: "wrong iss", opts: oauthtest.Options{Iss: "wrong"}, want: "iss", noToken: true},
		{name: "missing iss when advertised", opts: oauthtest.Options{Iss: "omit", IssSupported: true}, want: "no iss", noToken: true},
		{name: "metadata of another resource", edit: func(o *bearer.Options) { o.Resource = "https://evil.example/mcp" }, want: "not the server", noAuth: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, tc.opts)
			url := protected(t, as, tc.edit)
			_, err := call(httpClient(t, client(t, oauth.Config{}), url), url, "tools/list")
			var oe *oauth.Error
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want an *oauth.Error containing %q", err, tc.want)
			}
			if tc.noAuth && len(as.AuthRequests()) != 0 {
				t.Errorf("an authorization request was made: %+v", as.AuthRequests())
			}
			if (tc.noAuth || tc.noToken) && len(as.TokenRequests()) != 0 {
				t.Errorf("a token request was made: %+v", as.TokenRequests())
			}
		})
	}
}

// TestTokenRefused: a server that refuses the token it just caused to be
// issued costs one authorization, and the error says so.
func TestTokenRefused(t *testing.T) {
	as := oauthtest.New(t)
	srv := httptest.NewUnstartedServer(nil)
	url := "http://" + srv.Listener.Addr().String() + "/mcp"
	// The server wants tokens for another audience than its own resource.
	srv.Config.Handler = protector(t, as, url, func(o *bearer.Options) {
		v, err := bearer.NewJWTVerifier(bearer.JWTOptions{Issuer: as.URL, Audience: "https://elsewhere.example/mcp", JWKSURL: as.URL + "/jwks"})
		if err != nil {
			t.Fatal(err)
		}
		o.Verifier = v
	})
	srv.Start()
	defer srv.Close()
	_, err := call(httpClient(t, client(t, oauth.Config{}), url), url, "tools/list")
	if err == nil || !strings.Contains(err.Error(), "refuses the token just obtained") {
		t.Fatalf("err = %v", err)
	}
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
}

// TestIssNotAdvertised: a redirect without iss from a server that does not
// say it sends one is accepted.
func TestIssNotAdvertised(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{Iss: "omit"})
	url := protected(t, as, nil)
	mustCall(t, httpClient(t, client(t, oauth.Config{}), url), url, "tools/list")
}

// TestScopeSelection: the challenge's scope, else scopes_supported, else
// none; offline_access added when the authorization server lists it.
func TestScopeSelection(t *testing.T) {
	for _, tc := range []struct {
		name string
		as   oauthtest.Options
		edit func(*bearer.Options)
		cfg  oauth.Config
		want string
	}{
		{name: "challenge", edit: func(o *bearer.Options) { o.Scopes = []string{"a", "b"}; o.ScopesSupported = []string{"a", "b", "c"} }, want: "a b"},
		{name: "scopes_supported", edit: func(o *bearer.Options) { o.ScopesSupported = []string{"x", "y"} }, want: "x y"},
		{name: "none", want: ""},
		{name: "offline_access", as: oauthtest.Options{Scopes: []string{"a", "offline_access"}}, edit: func(o *bearer.Options) { o.Scopes = []string{"a"} }, want: "a offline_access"},
		{name: "offline_access not wanted", as: oauthtest.Options{Scopes: []string{"a", "offline_access"}}, edit: func(o *bearer.Options) { o.Scopes = []string{"a"} }, cfg: oauth.Config{NoOfflineAccess: true}, want: "a"},
		{name: "offline_access not listed", as: oauthtest.Options{Scopes: []string{"a"}}, edit: func(o *bearer.Options) { o.Scopes = []string{"a"} }, want: "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, tc.as)
			url := protected(t, as, tc.edit)
			mustCall(t, httpClient(t, client(t, tc.cfg), url), url, "tools/list")
			auths := as.AuthRequests()
			if len(auths) != 1 || auths[0].Scope != tc.want {
				t.Fatalf("authorization requests = %+v, want one with scope %q", auths, tc.want)
			}
		})
	}
}

// TestStepUp: a 403 insufficient_scope leads to an authorization for the
// union of the scopes held and those asked.
func TestStepUp(t *testing.T) {
	as := oauthtest.New(t)
	url := protected(t, as, func(o *bearer.Options) {
		o.Scopes = []string{"read"}
		o.MethodScopes = map[string][]string{"tools/call": {"write"}}
	})
	hc := httpClient(t, client(t, oauth.Config{}), url)
	mustCall(t, hc, url, "tools/list")
	mustCall(t, hc, url, "tools/call")
	mustCall(t, hc, url, "tools/list")
	var scopes []string
	for _, a := range as.AuthRequests() {
		scopes = append(scopes, a.Scope)
	}
	if !slices.Equal(scopes, []string{"read", "read write"}) {
		t.Errorf("authorization scopes = %q, want [read] then [read write]", scopes)
	}
}

// TestStepUpBounded: a server that never grants the scope asked costs at
// most MaxAuthorizations authorizations per request, and one whose
// challenge asks for what the token holds none.
func TestStepUpBounded(t *testing.T) {
	t.Run("never granted", func(t *testing.T) {
		as := oauthtest.NewWith(t, oauthtest.Options{GrantScopes: func(string) string { return "read" }})
		url := protected(t, as, func(o *bearer.Options) {
			o.Scopes = []string{"read"}
			o.MethodScopes = map[string][]string{"tools/call": {"write"}}
		})
		hc := httpClient(t, client(t, oauth.Config{MaxAuthorizations: 2}), url)
		mustCall(t, hc, url, "tools/list")
		_, err := call(hc, url, "tools/call")
		if err == nil || !strings.Contains(err.Error(), "giving up") {
			t.Fatalf("err = %v, want giving up", err)
		}
		if n := len(as.AuthRequests()); n != 3 {
			t.Errorf("%d authorizations, want 1 + 2", n)
		}
	})
	t.Run("already held", func(t *testing.T) {
		as := oauthtest.New(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource"):
				io.WriteString(w, `{"resource":"http://`+r.Host+`/mcp","authorization_servers":["`+as.URL+`"]}`)
			case r.Header.Get("Authorization") == "":
				w.Header().Set("WWW-Authenticate", `Bearer scope="admin"`)
				w.WriteHeader(http.StatusUnauthorized)
			default:
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
				w.WriteHeader(http.StatusForbidden)
			}
		}))
		defer srv.Close()
		url := srv.URL + "/mcp"
		hc := httpClient(t, client(t, oauth.Config{}), url)
		for range 3 {
			if _, err := call(hc, url, "tools/list"); err == nil || !strings.Contains(err.Error(), "already holds") {
				t.Fatalf("err = %v, want one saying the token already holds the scope", err)
			}
		}
		if n := len(as.AuthRequests()); n != 1 {
			t.Errorf("%d authorizations, want 1", n)
		}
	})
}

// TestRefresh: a token about to expire is refreshed before it is sent,
// with the resource parameter, without the user; a token from the Store
// too, before any 401.
func TestRefresh(t *testing.T) {
	as := oauthtest.NewWith(t, oauthtest.Options{RefreshTokens: true})
	url := protected(t, as, nil)
	store := &oauth.MemoryStore{}
	mustCall(t, httpClient(t, client(t, oauth.Config{Store: store}), url), url, "tools/list")
	ctx := context.Background()
	tok, err := store.LoadToken(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken == "" || tok.Issuer != as.URL {
		t.Fatalf("stored token = %+v", tok)
	}
	tok.Expiry = time.Now().Add(time.Second)
	if err := store.SaveToken(ctx, url, tok); err != nil {
		t.Fatal(err)
	}
	mustCall(t, httpClient(t, client(t, oauth.Config{Store: store}), url), url, "tools/list")
	toks := as.TokenRequests()
	if len(toks) != 2 || toks[1].GrantType != "refresh_token" || toks[1].Resource != url {
		t.Fatalf("token requests = %+v, want a code exchange then a refresh with the resource", toks)
	}
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
	if nt, _ := store.LoadToken(ctx, url); nt == nil || nt.AccessToken == tok.AccessToken {
		t.Error("the refreshed token was not saved")
	}
}

// TestMigration: when the server names another authorization server, the
// client registers with it and never shows it the old client's id.
func TestMigration(t *testing.T) {
	as1, as2 := oauthtest.New(t), oauthtest.New(t)
	srv := httptest.NewUnstartedServer(nil)
	url := "http://" + srv.Listener.Addr().String() + "/mcp"
	h1, h2 := protector(t, as1, url, nil), protector(t, as2, url, nil)
	var moved atomic.Bool
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if moved.Load() {
			h2.ServeHTTP(w, r)
			return
		}
		h1.ServeHTTP(w, r)
	})
	srv.Start()
	defer srv.Close()
	hc := httpClient(t, client(t, oauth.Config{}), url)
	mustCall(t, hc, url, "tools/list")
	moved.Store(true)
	mustCall(t, hc, url, "tools/list")
	if n := len(as2.Registrations()); n != 1 {
		t.Fatalf("%d registrations at the new server, want 1", n)
	}
	old := as1.TokenRequests()[0].ClientID
	for _, a := range as2.AuthRequests() {
		if a.ClientID == old {
			t.Errorf("the old server's client id %q was sent to the new one", old)
		}
	}
	for _, tr := range as2.TokenRequests() {
		if tr.ClientID == old {
			t.Errorf("the old server's client id %q was sent to the new one's token endpoint", old)
		}
	}
}

// TestConcurrent: requests that all meet a 401 lead to one authorization.
func TestConcurrent(t *testing.T) {
	as := oauthtest.New(t)
	url := protected(t, as, nil)
	hc := httpClient(t, client(t, oauth.Config{}), url)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { mustCall(t, hc, url, "tools/list") })
	}
	wg.Wait()
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
}

// TestTokenStaysHome: the token goes to the MCP server's origin only.
func TestTokenStaysHome(t *testing.T) {
	as := oauthtest.New(t)
	url := protected(t, as, nil)
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
	}))
	defer other.Close()
	hc := httpClient(t, client(t, oauth.Config{}), url)
	mustCall(t, hc, url, "tools/list")
	if _, err := call(hc, other.URL+"/mcp", "tools/list"); err != nil {
		t.Fatal(err)
	}
	if v, _ := leaked.Load().(string); v != "" {
		t.Errorf("another origin received Authorization %q", v)
	}
}

// TestFileStore: a second client with the same file uses the saved token
// and client; the file is 0600; a file others may read is refused.
func TestFileStore(t *testing.T) {
	as := oauthtest.New(t)
	url := protected(t, as, nil)
	path := filepath.Join(t.TempDir(), "dir", "tokens.json")
	mustCall(t, httpClient(t, client(t, oauth.Config{Store: oauth.NewFileStore(path)}), url), url, "tools/list")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	mustCall(t, httpClient(t, client(t, oauth.Config{Store: oauth.NewFileStore(path)}), url), url, "tools/list")
	if n := len(as.AuthRequests()); n != 1 {
		t.Errorf("%d authorizations, want 1: the second client should use the stored token", n)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.NewFileStore(path).LoadToken(context.Background(), url); err == nil || !strings.Contains(err.Error(), "0600") {
		t.Errorf("LoadToken of a 0644 file: err = %v, want a refusal naming 0600", err)
	}
}

// TestInsecureURLs: OAuth requests go over https, but to loopback hosts.
func TestInsecureURLs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource"):
			io.WriteString(w, `{"resource":"http://`+r.Host+`/mcp","authorization_servers":["http://auth.example.com"]}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	_, err := call(httpClient(t, client(t, oauth.Config{}), url), url, "tools/list")
	if err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("err = %v, want a refusal of http to a host that is not loopback", err)
	}
}

// TestNewChecks: New refuses a configuration that cannot work.
func TestNewChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  oauth.Config
		want string
	}{
		{"no authorizer", oauth.Config{}, "Authorizer"},
		{"bad application type", oauth.Config{Authorizer: &oauth.Headless{}, ApplicationType: "desktop"}, "ApplicationType"},
		{"CIMD over http", oauth.Config{Authorizer: &oauth.Headless{}, ClientMetadataURL: "http://client.example/m.json"}, "ClientMetadataURL"},
		{"client without id", oauth.Config{Authorizer: &oauth.Headless{}, Clients: []oauth.ClientCredentials{{ClientSecret: "x"}}}, "ClientID"},
		{"none with a secret", oauth.Config{Authorizer: &oauth.Headless{}, Clients: []oauth.ClientCredentials{{ClientID: "a", ClientSecret: "x", AuthMethod: "none"}}}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := oauth.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// TestLoopback: the loopback authorizer receives the redirect of its own
// request, refuses others, and listens on loopback only.
func TestLoopback(t *testing.T) {
	l, err := oauth.NewLoopback("")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !strings.HasPrefix(l.RedirectURL(), "http://127.0.0.1:") || !strings.HasSuffix(l.RedirectURL(), oauth.LoopbackPath) {
		t.Fatalf("RedirectURL = %q", l.RedirectURL())
	}
	// A stray redirect with an unknown state is refused.
	resp, err := http.Get(l.RedirectURL() + "?code=x&state=nobody")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("stray redirect: status %d, want 400", resp.StatusCode)
	}
	// The "browser" follows the authorization server's redirect.
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, l.RedirectURL()+"?code=c0de&state="+r.URL.Query().Get("state"), http.StatusFound)
	}))
	defer as.Close()
	l.Open = func(u string) error {
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	q, err := l.Authorize(ctx, as.URL+"/authorize?state=s1")
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("code") != "c0de" || q.Get("state") != "s1" {
		t.Errorf("query = %v", q)
	}
	if _, err := oauth.NewLoopback("0.0.0.0:0"); err == nil {
		t.Error("NewLoopback on 0.0.0.0: no error")
	}
}

// TestHeadlessLoginPage: Headless cannot log a user in, and says so.
func TestHeadlessLoginPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<form>log in</form>")
	}))
	defer srv.Close()
	_, err := (&oauth.Headless{}).Authorize(context.Background(), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "not a redirect") {
		t.Errorf("err = %v", err)
	}
}

// TestRedirectToInsecure: a metadata document that redirects to plain http
// on a host that is not loopback is not followed.
func TestRedirectToInsecure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource"):
			http.Redirect(w, r, "http://metadata.example.com/prm.json", http.StatusFound)
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	_, err := call(httpClient(t, client(t, oauth.Config{}), url), url, "tools/list")
	if err == nil || !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), "https") {
		t.Fatalf("err = %v, want the redirect refused for want of https", err)
	}
}

// browse returns a Loopback whose "browser" follows the authorization
// server's redirect to it.
func browse(t *testing.T) *oauth.Loopback {
	t.Helper()
	l, err := oauth.NewLoopback("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.Open = func(u string) error {
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	return l
}

// TestLoopbackRegisteredOnce: a client registered from one loopback port
// is used again, from another, for another server of the same
// authorization server.
func TestLoopbackRegisteredOnce(t *testing.T) {
	as := oauthtest.New(t)
	url1, url2 := protected(t, as, nil), protected(t, as, nil)
	store := &oauth.MemoryStore{}
	l1, l2 := browse(t), browse(t)
	mustCall(t, httpClient(t, client(t, oauth.Config{Authorizer: l1, Store: store}), url1), url1, "tools/list")
	mustCall(t, httpClient(t, client(t, oauth.Config{Authorizer: l2, Store: store}), url2), url2, "tools/list")
	if n := len(as.Registrations()); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
	auths := as.AuthRequests()
	if len(auths) != 2 || auths[0].ClientID != auths[1].ClientID || auths[0].RedirectURI == auths[1].RedirectURI {
		t.Errorf("authorization requests = %+v, want two of one client from two ports", auths)
	}
}

// TestLogout: Logout revokes the refresh token at the authorization
// server, forgets the token, and the next request authorizes again.
func TestLogout(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     oauthtest.Options
		wantHint string
	}{
		{"refresh token", oauthtest.Options{RefreshTokens: true, AuthMethods: []string{"client_secret_basic"}}, "refresh_token"},
		{"access token", oauthtest.Options{AuthMethods: []string{"client_secret_post"}}, "access_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewWith(t, tc.opts)
			url := protected(t, as, nil)
			store := &oauth.MemoryStore{}
			c := client(t, oauth.Config{Store: store})
			hc := httpClient(t, c, url)
			mustCall(t, hc, url, "tools/list")
			ctx := context.Background()
			tok, err := store.LoadToken(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Logout(ctx, url); err != nil {
				t.Fatalf("Logout: %v", err)
			}
			revs := as.Revocations()
			want := tok.RefreshToken
			if tc.wantHint == "access_token" {
				want = tok.AccessToken
			}
			if len(revs) != 1 || revs[0].Token != want || revs[0].Hint != tc.wantHint {
				t.Errorf("revocations = %+v, want one of the %s", revs, tc.wantHint)
			}
			if _, err := store.LoadToken(ctx, url); !errors.Is(err, oauth.ErrNotFound) {
				t.Errorf("the store still holds a token: %v", err)
			}
			mustCall(t, hc, url, "tools/list")
			if n := len(as.AuthRequests()); n != 2 {
				t.Errorf("%d authorizations, want 2 (one after the logout)", n)
			}
		})
	}
}
