package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
	"github.com/mcpgen/mcpgen/runtime/oauth"
)

// The tests of the address policy play an attacker who runs a "remote"
// MCP server and authorization server. Every server of a test listens on
// 127.0.0.1: the test network (oauth.WithTestNetwork) calls the
// attacker's servers public by their ports, and leaves the victim, a
// service on the user's machine, loopback.

// victim is a service on the user's machine that no request may reach.
type victim struct {
	*httptest.Server
	hits atomic.Int32
}

func newVictim(t *testing.T) *victim {
	v := &victim{}
	v.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(v.Close)
	return v
}

// port returns srv's port.
func port(srv *httptest.Server) string {
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return p
}

// addrPort returns srv's address.
func addrPort(srv *httptest.Server) netip.AddrPort {
	return netip.MustParseAddrPort(srv.Listener.Addr().String())
}

// remoteOpts shape a remote server.
type remoteOpts struct {
	challenge   string            // parameters of the 401's Bearer challenge
	as          string            // the issuer its metadata names; default itself
	meta        map[string]string // authorization server metadata members to replace; {port} is its own port
	prmRedirect string            // where its metadata redirects, if anywhere
}

// remote is an attacker's MCP server at /mcp that is its own
// authorization server (at the origin the request names in its Host
// header); it accepts the token "good" and counts the requests of the
// flow.
type remote struct {
	*httptest.Server
	authorizes, tokens, registrations atomic.Int32
}

func newRemote(t *testing.T, o remoteOpts) *remote {
	r := &remote{}
	r.Server = httptest.NewUnstartedServer(nil)
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	prm := func(w http.ResponseWriter, req *http.Request) {
		base, as := "http://"+req.Host, o.as
		if as == "" {
			as = base
		}
		if o.prmRedirect != "" {
			http.Redirect(w, req, o.prmRedirect, http.StatusFound)
			return
		}
		writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{as}})
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", prm)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, req *http.Request) {
		base := "http://" + req.Host
		m := map[string]any{
			"issuer":                                base,
			"authorization_endpoint":                base + "/authorize",
			"token_endpoint":                        base + "/token",
			"registration_endpoint":                 base + "/register",
			"revocation_endpoint":                   base + "/revoke",
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		}
		_, self, _ := net.SplitHostPort(req.Host)
		for k, v := range o.meta {
			m[k] = strings.ReplaceAll(v, "{port}", self)
		}
		writeJSON(w, 200, m)
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, req *http.Request) {
		r.authorizes.Add(1)
		q := req.URL.Query()
		http.Redirect(w, req, q.Get("redirect_uri")+"?code=c0de&iss="+url.QueryEscape("http://"+req.Host)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, req *http.Request) {
		r.tokens.Add(1)
		writeJSON(w, 200, map[string]any{"access_token": "good", "token_type": "Bearer", "expires_in": 3600})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, req *http.Request) {
		r.registrations.Add(1)
		writeJSON(w, 201, map[string]any{"client_id": "client-1", "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, req *http.Request) {})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "Bearer good" {
			ch := "Bearer"
			if o.challenge != "" {
				ch += " " + o.challenge
			}
			w.Header().Set("WWW-Authenticate", ch)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
	})
	r.Config.Handler = mux
	r.Start()
	t.Cleanup(r.Close)
	return r
}

// public returns the test network's classes that make srvs public.
func public(srvs ...*httptest.Server) map[netip.AddrPort]netpolicy.Class {
	m := map[netip.AddrPort]netpolicy.Class{}
	for _, s := range srvs {
		m[addrPort(s)] = netpolicy.Public
	}
	return m
}

// attacked returns a client on the test network n, with cfg's other
// fields (http is allowed to public hosts: the test servers have no TLS).
func attacked(t *testing.T, cfg oauth.Config, n oauth.TestNetwork) *oauth.Client {
	t.Helper()
	cfg.InsecureHTTP = true
	return client(t, oauth.WithTestNetwork(cfg, n))
}

// wantRefused checks that err is an *oauth.Error that names want and
// wraps a *netpolicy.RefusedError of class.
func wantRefused(t *testing.T, err error, class netpolicy.Class, want ...string) {
	t.Helper()
	var oe *oauth.Error
	var re *netpolicy.RefusedError
	if !errors.As(err, &oe) || !errors.As(err, &re) || !errors.Is(err, netpolicy.ErrRefused) {
		t.Fatalf("err = %v, want an *oauth.Error wrapping a *netpolicy.RefusedError", err)
	}
	if re.Class != class {
		t.Errorf("refused class %v, want %v (err = %v)", re.Class, class, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v\nwant it to contain %q", err, w)
		}
	}
}

// TestSteeredInward: a remote server's metadata that points at the user's
// machine or network (loopback, the cloud metadata service, RFC 1918,
// ULA, CGNAT, however spelled) is refused before any request goes there.
func TestSteeredInward(t *testing.T) {
	v := newVictim(t)
	vp := port(v.Server)
	for _, tc := range []struct {
		name    string
		opts    remoteOpts
		class   netpolicy.Class
		want    []string
		spelled bool // refused for its spelling
	}{
		{
			name:  "authorization server on loopback",
			opts:  remoteOpts{as: v.URL},
			class: netpolicy.Loopback,
			want:  []string{`names authorization server "` + v.URL + `"`, "127.0.0.1 is a loopback address", "refused because the MCP server is not on loopback"},
		},
		{
			name:  "registration endpoint on loopback",
			opts:  remoteOpts{meta: map[string]string{"registration_endpoint": v.URL + "/register"}},
			class: netpolicy.Loopback,
			want:  []string{`names registration_endpoint "` + v.URL + `/register"`, "loopback address"},
		},
		{
			name:  "registration endpoint on localhost",
			opts:  remoteOpts{meta: map[string]string{"registration_endpoint": "http://localhost:" + vp + "/register"}},
			class: netpolicy.Loopback,
			want:  []string{"localhost is a loopback name"},
		},
		{
			name:  "IPv4-mapped loopback",
			opts:  remoteOpts{meta: map[string]string{"registration_endpoint": "http://[::ffff:127.0.0.1]:" + vp + "/register"}},
			class: netpolicy.Loopback,
			want:  []string{"::ffff:127.0.0.1 is a loopback address"},
		},
		{
			name:    "loopback as a number",
			opts:    remoteOpts{meta: map[string]string{"registration_endpoint": "http://2130706433:" + vp + "/register"}},
			spelled: true,
			want:    []string{`host "2130706433" is a non-canonical spelling of the IPv4 address 127.0.0.1`},
		},
		{
			name:    "loopback in hex",
			opts:    remoteOpts{meta: map[string]string{"token_endpoint": "http://0x7f.1:" + vp + "/token"}},
			spelled: true,
			want:    []string{"127.0.0.1"},
		},
		{
			name:  "token endpoint at the cloud metadata service",
			opts:  remoteOpts{meta: map[string]string{"token_endpoint": "https://169.254.169.254/latest/api/token"}},
			class: netpolicy.LinkLocal | netpolicy.Metadata,
			want:  []string{`names token_endpoint "https://169.254.169.254/latest/api/token"`, "169.254.169.254 is a link-local address and the address of a cloud metadata service"},
		},
		{
			name:  "authorization endpoint on RFC 1918",
			opts:  remoteOpts{meta: map[string]string{"authorization_endpoint": "https://10.0.0.5/authorize"}},
			class: netpolicy.Private,
			want:  []string{"10.0.0.5 is a private address (RFC 1918); refused because the MCP server is not on a private network (RFC 1918) (see Config.AllowAddresses)"},
		},
		{
			name:  "token endpoint on ULA",
			opts:  remoteOpts{meta: map[string]string{"token_endpoint": "https://[fd00::1]/token"}},
			class: netpolicy.ULA,
			want:  []string{"fd00::1 is a unique local address"},
		},
		{
			name:  "registration endpoint on CGNAT",
			opts:  remoteOpts{meta: map[string]string{"registration_endpoint": "https://100.64.0.1/register"}},
			class: netpolicy.CGNAT,
			want:  []string{"100.64.0.1 is a shared address of carrier-grade NAT"},
		},
		{
			name:  "token endpoint on RFC 1918 through NAT64",
			opts:  remoteOpts{meta: map[string]string{"token_endpoint": "https://[64:ff9b::a00:5]/token"}},
			class: netpolicy.Private,
			want:  []string{"NAT64, for 10.0.0.5"},
		},
		{
			name:  "authorization server on 0.0.0.0",
			opts:  remoteOpts{as: "http://0.0.0.0:" + vp},
			class: netpolicy.Unspecified,
			want:  []string{"0.0.0.0 is an unspecified address"},
		},
		{
			name:  "metadata redirected into loopback",
			opts:  remoteOpts{prmRedirect: v.URL + "/prm"},
			class: netpolicy.Loopback,
			want:  []string{`redirect from `, `to "` + v.URL + `/prm"`, "loopback address"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t, tc.opts)
			c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: public(r.Server)})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if n := v.hits.Load(); n != 0 {
				t.Errorf("the loopback service received %d requests", n)
			}
			if tc.spelled {
				var re *netpolicy.RefusedError
				if !errors.As(err, &re) || re.Spelling == "" {
					t.Fatalf("err = %v, want a refusal of the host's spelling", err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err = %v\nwant it to contain %q", err, w)
					}
				}
			} else {
				wantRefused(t, err, tc.class, tc.want...)
			}
			if tc.opts.meta["token_endpoint"] != "" || tc.opts.meta["authorization_endpoint"] != "" {
				if n := r.authorizes.Load(); n != 0 {
					t.Errorf("the user was sent to authorize %d times before the token endpoint was refused", n)
				}
			}
		})
	}
}

// TestSteeredInwardControl: the remote server of TestSteeredInward, with
// metadata that points nowhere inward, is authorized with (the refusals
// there are the policy's, not a broken setup).
func TestSteeredInwardControl(t *testing.T) {
	r := newRemote(t, remoteOpts{})
	c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: public(r.Server)})
	url := r.URL + "/mcp"
	mustCall(t, httpClient(t, c, url), url, "tools/list")
	if r.registrations.Load() != 1 || r.authorizes.Load() != 1 || r.tokens.Load() != 1 {
		t.Errorf("registrations %d, authorizations %d, token requests %d; want 1 each", r.registrations.Load(), r.authorizes.Load(), r.tokens.Load())
	}
}

// TestChallengeResourceMetadataInward: a challenge whose resource_metadata
// points at loopback is not followed; the well-known URI is used instead.
func TestChallengeResourceMetadataInward(t *testing.T) {
	v := newVictim(t)
	r := newRemote(t, remoteOpts{challenge: `resource_metadata="` + v.URL + `/prm"`})
	c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: public(r.Server)})
	url := r.URL + "/mcp"
	mustCall(t, httpClient(t, c, url), url, "tools/list")
	if n := v.hits.Load(); n != 0 {
		t.Errorf("the loopback service received %d requests", n)
	}
}

// TestRevocationInward: Logout does not send the token to a revocation
// endpoint on a private network.
func TestRevocationInward(t *testing.T) {
	r := newRemote(t, remoteOpts{meta: map[string]string{"revocation_endpoint": "https://[fd12:3456::1]/revoke"}})
	c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: public(r.Server)})
	url := r.URL + "/mcp"
	mustCall(t, httpClient(t, c, url), url, "tools/list")
	wantRefused(t, c.Logout(context.Background(), url), netpolicy.ULA, `names revocation_endpoint "https://[fd12:3456::1]/revoke"`)
}

// TestDNSRebinding: a public name that resolves to a loopback or private
// address when it is dialled is refused then, before a byte is sent.
func TestDNSRebinding(t *testing.T) {
	v := newVictim(t)
	vp := port(v.Server)
	loop := netip.MustParseAddr("127.0.0.1")
	for _, tc := range []struct {
		name  string
		meta  map[string]string
		class netpolicy.Class // the victim's class on the test network
		want  string
	}{
		{"registration to loopback", map[string]string{"registration_endpoint": "http://rebind.test:" + vp + "/register"}, netpolicy.Loopback, "rebind.test resolved to 127.0.0.1, a loopback address; refused because the MCP server is not on loopback"},
		{"token request to RFC 1918", map[string]string{"token_endpoint": "http://rebind.test:" + vp + "/token"}, netpolicy.Private, "rebind.test resolved to 127.0.0.1, a private address (RFC 1918); refused because the MCP server is not on a private network"},
		{"authorization request to loopback", map[string]string{"authorization_endpoint": "http://rebind.test:" + vp + "/authorize"}, netpolicy.Loopback, "rebind.test resolved to 127.0.0.1, a loopback address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t, remoteOpts{meta: tc.meta})
			classes := public(r.Server)
			classes[addrPort(v.Server)] = tc.class
			c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: classes, Hosts: map[string]netip.Addr{"rebind.test": loop}})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if n := v.hits.Load(); n != 0 {
				t.Errorf("the service behind rebind.test received %d requests", n)
			}
			wantRefused(t, err, tc.class, tc.want)
			var re *netpolicy.RefusedError
			if errors.As(err, &re) && (!re.Resolved || re.Host != "rebind.test" || re.Addr != loop) {
				t.Errorf("refusal %+v, want rebind.test resolved to 127.0.0.1", re)
			}
		})
	}
}

// TestPrivateNetworkOptOut: an authorization server on a private network
// is refused for a public MCP server, allowed with
// Config.AllowAddresses, and allowed for an MCP server on the same class
// of network only: a server on an overlay network (CGNAT, such as
// Tailscale's 100.x addresses) or on a unique local network does not
// open the user's RFC 1918 LAN, nor one on RFC 1918 the ULA ones.
func TestPrivateNetworkOptOut(t *testing.T) {
	const (
		notPrivate = "is a private address (RFC 1918); refused because the MCP server is not on a private network (RFC 1918) (see Config.AllowAddresses)"
		notULA     = "is a unique local address (RFC 4193); refused because the MCP server is not on a unique local network (RFC 4193)"
		notCGNAT   = "is a shared address of carrier-grade NAT (RFC 6598); refused because the MCP server is not on a CGNAT network (RFC 6598)"
	)
	for _, tc := range []struct {
		name   string
		allow  netpolicy.Class
		server netpolicy.Class // the MCP server's class
		as     netpolicy.Class // the authorization server's class
		refuse string          // in the refusal; "" if allowed
	}{
		{"public server", 0, netpolicy.Public, netpolicy.Private, notPrivate},
		{"public server, private networks allowed", netpolicy.PrivateNetworks, netpolicy.Public, netpolicy.Private, ""},
		{"public server, loopback allowed", netpolicy.Loopback, netpolicy.Public, netpolicy.Private, notPrivate},
		{"server on RFC 1918", 0, netpolicy.Private, netpolicy.Private, ""},
		{"server on RFC 1918, AS on ULA", 0, netpolicy.Private, netpolicy.ULA, notULA},
		{"server on RFC 1918, AS on CGNAT", 0, netpolicy.Private, netpolicy.CGNAT, notCGNAT},
		{"server on ULA", 0, netpolicy.ULA, netpolicy.ULA, ""},
		{"server on ULA, AS on RFC 1918", 0, netpolicy.ULA, netpolicy.Private, notPrivate},
		{"server on CGNAT", 0, netpolicy.CGNAT, netpolicy.CGNAT, ""},
		{"server on CGNAT, AS on RFC 1918", 0, netpolicy.CGNAT, netpolicy.Private, notPrivate},
		{"server on CGNAT, AS on ULA", 0, netpolicy.CGNAT, netpolicy.ULA, notULA},
		{"server on CGNAT, AS on RFC 1918, RFC 1918 allowed", netpolicy.Private, netpolicy.CGNAT, netpolicy.Private, ""},
		{"server on link-local", 0, netpolicy.LinkLocal, netpolicy.Private, notPrivate},
		{"server on loopback", 0, netpolicy.Loopback, netpolicy.Loopback, ""},
		{"server on loopback, AS on RFC 1918", 0, netpolicy.Loopback, netpolicy.Private, notPrivate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newRemote(t, remoteOpts{})
			r := newRemote(t, remoteOpts{as: as.URL})
			classes := map[netip.AddrPort]netpolicy.Class{addrPort(r.Server): tc.server, addrPort(as.Server): tc.as}
			c := attacked(t, oauth.Config{AllowAddresses: tc.allow}, oauth.TestNetwork{Classes: classes})
			url := r.URL + "/mcp"
			// The remote server accepts the tokens its authorization server,
			// as, issues ("good").
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if tc.refuse == "" {
				if err != nil {
					t.Fatal(err)
				}
				if as.tokens.Load() != 1 {
					t.Errorf("%d token requests at the authorization server, want 1", as.tokens.Load())
				}
				return
			}
			wantRefused(t, err, tc.as, tc.refuse)
			if n := as.registrations.Load() + as.authorizes.Load() + as.tokens.Load(); n != 0 {
				t.Errorf("the private authorization server received %d requests", n)
			}
		})
	}
}

// TestPrivateServerNotLoopback: an MCP server on a private or link-local
// network does not open loopback.
func TestPrivateServerNotLoopback(t *testing.T) {
	v := newVictim(t)
	for _, class := range []netpolicy.Class{netpolicy.Private, netpolicy.ULA, netpolicy.CGNAT, netpolicy.LinkLocal} {
		t.Run(class.String(), func(t *testing.T) {
			r := newRemote(t, remoteOpts{as: v.URL})
			c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: map[netip.AddrPort]netpolicy.Class{addrPort(r.Server): class}})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if n := v.hits.Load(); n != 0 {
				t.Errorf("the loopback service received %d requests", n)
			}
			wantRefused(t, err, netpolicy.Loopback, "refused because the MCP server is not on loopback")
		})
	}
}

// localOnly returns an http.Client whose transport dials 127.0.0.1 for
// any host: a test whose URLs name other addresses (a cloud metadata
// service) reaches nothing outside the machine, whatever the policy does.
// dialled records the addresses it was asked for.
func localOnly(t *testing.T, dialled *[]string) *http.Client {
	var mu sync.Mutex
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, p, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if host != "127.0.0.1" {
			mu.Lock()
			*dialled = append(*dialled, addr)
			mu.Unlock()
			return nil, errors.New("test: no connection outside 127.0.0.1")
		}
		return d.DialContext(ctx, network, net.JoinHostPort(host, p))
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestMetadataServiceNeverLent: the cloud metadata services' addresses,
// though link-local, unique local or CGNAT, are not opened by an MCP
// server on that class of network; only netpolicy.Metadata in
// Config.AllowAddresses opens them.
func TestMetadataServiceNeverLent(t *testing.T) {
	for _, tc := range []struct {
		server   netpolicy.Class
		endpoint string
		class    netpolicy.Class
	}{
		{netpolicy.LinkLocal, "https://169.254.169.254/latest/api/token", netpolicy.LinkLocal | netpolicy.Metadata},
		{netpolicy.LinkLocal, "https://169.254.170.2/v2/credentials", netpolicy.LinkLocal | netpolicy.Metadata},
		{netpolicy.ULA, "https://[fd00:ec2::254]/latest/api/token", netpolicy.ULA | netpolicy.Metadata},
		{netpolicy.CGNAT, "https://100.100.100.200/latest/meta-data", netpolicy.CGNAT | netpolicy.Metadata},
		{netpolicy.Public, "https://168.63.129.16/machine", netpolicy.Metadata},
		{netpolicy.LinkLocal, "https://[::ffff:169.254.169.254]/latest/api/token", netpolicy.LinkLocal | netpolicy.Metadata},
	} {
		t.Run(tc.server.String()+" "+tc.endpoint, func(t *testing.T) {
			r := newRemote(t, remoteOpts{meta: map[string]string{"token_endpoint": tc.endpoint}})
			var dialled []string
			c := attacked(t, oauth.Config{HTTPClient: localOnly(t, &dialled)}, oauth.TestNetwork{Classes: map[netip.AddrPort]netpolicy.Class{addrPort(r.Server): tc.server}})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			wantRefused(t, err, tc.class, "the address of a cloud metadata service; refused: a cloud metadata service's address is allowed only by netpolicy.Metadata")
			if len(dialled) != 0 || r.authorizes.Load() != 0 {
				t.Errorf("dialled %q, %d authorizations; want none", dialled, r.authorizes.Load())
			}
		})
	}
	// The opt-out: an authorization server that the test network puts at
	// a metadata address.
	for name, allow := range map[string]netpolicy.Class{"refused": 0, "allowed by netpolicy.Metadata": netpolicy.Metadata} {
		t.Run("authorization server at a metadata address "+name, func(t *testing.T) {
			as := newRemote(t, remoteOpts{})
			r := newRemote(t, remoteOpts{as: as.URL})
			classes := map[netip.AddrPort]netpolicy.Class{addrPort(r.Server): netpolicy.LinkLocal, addrPort(as.Server): netpolicy.LinkLocal | netpolicy.Metadata}
			c := attacked(t, oauth.Config{AllowAddresses: allow}, oauth.TestNetwork{Classes: classes})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if allow == 0 {
				wantRefused(t, err, netpolicy.LinkLocal|netpolicy.Metadata, "netpolicy.Metadata")
				if n := as.registrations.Load() + as.authorizes.Load() + as.tokens.Load(); n != 0 {
					t.Errorf("the metadata address received %d requests", n)
				}
				return
			}
			if err != nil || as.tokens.Load() != 1 {
				t.Fatalf("err = %v, %d token requests; want the flow through the allowed address", err, as.tokens.Load())
			}
		})
	}
}

// TestCustomHTTPClient: a Config.HTTPClient keeps the policy: the URL
// check with any RoundTripper, the dial check with an *http.Transport,
// also one with its own DialContext (checked on the connection made,
// before the request is sent).
func TestCustomHTTPClient(t *testing.T) {
	v := newVictim(t)
	defer func() {
		if n := v.hits.Load(); n != 0 {
			t.Errorf("the loopback service received %d requests", n)
		}
	}()
	t.Run("any RoundTripper", func(t *testing.T) {
		r := newRemote(t, remoteOpts{as: v.URL})
		rt := roundTripperFunc(http.DefaultTransport.RoundTrip)
		c := attacked(t, oauth.Config{HTTPClient: &http.Client{Transport: rt}}, oauth.TestNetwork{Classes: public(r.Server)})
		url := r.URL + "/mcp"
		_, err := call(httpClient(t, c, url), url, "tools/list")
		wantRefused(t, err, netpolicy.Loopback, "127.0.0.1 is a loopback address")
	})
	t.Run("own DialContext", func(t *testing.T) {
		r := newRemote(t, remoteOpts{meta: map[string]string{"registration_endpoint": "http://rebind.test:" + port(v.Server) + "/register"}})
		var d net.Dialer
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, p, _ := net.SplitHostPort(addr)
			if strings.HasSuffix(host, ".test") {
				addr = net.JoinHostPort("127.0.0.1", p)
			}
			return d.DialContext(ctx, network, addr)
		}}
		defer tr.CloseIdleConnections()
		c := attacked(t, oauth.Config{HTTPClient: &http.Client{Transport: tr}}, oauth.TestNetwork{Classes: public(r.Server)})
		url := r.URL + "/mcp"
		_, err := call(httpClient(t, c, url), url, "tools/list")
		wantRefused(t, err, netpolicy.Loopback, "rebind.test resolved to 127.0.0.1, a loopback address")
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestServerByName: an MCP server given by a DNS name is public, but its
// own host:port is dialled whatever it resolves to (the user chose it);
// an endpoint on another name that resolves to loopback is refused.
func TestServerByName(t *testing.T) {
	v := newVictim(t)
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, p, _ := net.SplitHostPort(addr)
		if strings.HasSuffix(host, ".test") {
			addr = net.JoinHostPort("127.0.0.1", p)
		}
		return d.DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	t.Run("its own metadata", func(t *testing.T) {
		r := newRemote(t, remoteOpts{})
		c := attacked(t, oauth.Config{HTTPClient: &http.Client{Transport: tr}}, oauth.TestNetwork{})
		url := "http://mcp.test:" + port(r.Server) + "/mcp"
		mustCall(t, httpClient(t, c, url), url, "tools/list")
		if r.tokens.Load() != 1 {
			t.Errorf("%d token requests, want 1", r.tokens.Load())
		}
	})
	t.Run("an endpoint elsewhere on loopback", func(t *testing.T) {
		r := newRemote(t, remoteOpts{meta: map[string]string{"token_endpoint": "http://other.test:" + port(v.Server) + "/token"}})
		c := attacked(t, oauth.Config{HTTPClient: &http.Client{Transport: tr}}, oauth.TestNetwork{})
		url := "http://mcp.test:" + port(r.Server) + "/mcp"
		_, err := call(httpClient(t, c, url), url, "tools/list")
		wantRefused(t, err, netpolicy.Loopback, "other.test resolved to 127.0.0.1, a loopback address")
	})
	if n := v.hits.Load(); n != 0 {
		t.Errorf("the loopback service received %d requests", n)
	}
}

// TestProxy: a proxy on loopback (the user's choice) is used, though the
// MCP server is remote; the target's URL is checked.
func TestProxy(t *testing.T) {
	r := newRemote(t, remoteOpts{as: "http://as.test"})
	var proxied atomic.Int32
	as := newRemote(t, remoteOpts{})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// A forward proxy for http: the request names the target.
		proxied.Add(1)
		if req.URL.Host != "as.test" {
			http.Error(w, "unexpected target "+req.URL.Host, http.StatusBadGateway)
			return
		}
		target := *req.URL
		target.Scheme, target.Host = "http", as.Listener.Addr().String()
		out, err := http.NewRequestWithContext(req.Context(), req.Method, target.String(), req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = req.Header.Clone()
		out.Host = req.Host
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	tr := &http.Transport{Proxy: func(req *http.Request) (*url.URL, error) {
		if req.URL.Hostname() == "as.test" {
			return pu, nil
		}
		return nil, nil
	}}
	defer tr.CloseIdleConnections()
	c := attacked(t, oauth.Config{HTTPClient: &http.Client{Transport: tr}}, oauth.TestNetwork{Classes: public(r.Server)})
	u := r.URL + "/mcp"
	mustCall(t, httpClient(t, c, u), u, "tools/list")
	if proxied.Load() == 0 || as.tokens.Load() != 1 {
		t.Errorf("%d proxied requests, %d token requests at as.test; want some and 1", proxied.Load(), as.tokens.Load())
	}
}

// tlsAS is an authorization server over TLS whose token endpoint answers
// the code exchange, and then, when redirect is set, redirects every token
// request there with a 307 (which resends the body).
type tlsAS struct {
	*httptest.Server
	redirect atomic.Value // string
	tokens   atomic.Int32
}

func newTLSAS(t *testing.T) *tlsAS {
	a := &tlsAS{}
	a.redirect.Store("")
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{
			"issuer":                                a.URL,
			"authorization_endpoint":                a.URL + "/authorize",
			"token_endpoint":                        a.URL + "/token",
			"registration_endpoint":                 a.URL + "/register",
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post"},
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"client_id": "client-1", "client_secret": "s3cret-of-client-1", "token_endpoint_auth_method": "client_secret_post"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		a.tokens.Add(1)
		if to := a.redirect.Load().(string); to != "" {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "good", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "the-refresh-token"})
	})
	a.Server = httptest.NewTLSServer(mux)
	t.Cleanup(a.Close)
	return a
}

// loopbackMCP starts an MCP server on loopback whose authorization server
// is issuer, accepting the token "good".
func loopbackMCP(t *testing.T, issuer string) string {
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource"):
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{issuer}})
		case r.Header.Get("Authorization") == "Bearer good":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		default:
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return base + "/mcp"
}

// catcher records what reaches a host that must receive nothing.
type catcher struct {
	mu     sync.Mutex
	bodies []string
}

func (c *catcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.bodies = append(c.bodies, r.Method+" "+r.URL.String()+" "+r.Header.Get("Authorization")+" "+string(body))
	c.mu.Unlock()
}

func (c *catcher) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bodies...)
}

// TestTokenRequestRedirect: a 307 from the token endpoint, which would
// resend the code, the PKCE verifier and the client secret, is not
// followed to plain http nor to another origin: on the code exchange and
// on a refresh.
func TestTokenRequestRedirect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(http.Handler) *httptest.Server
	}{
		{"to plain http", httptest.NewServer},
		{"to another origin", httptest.NewTLSServer},
	} {
		t.Run(tc.name+" on the code exchange", func(t *testing.T) {
			catch := &catcher{}
			target := tc.start(catch)
			defer target.Close()
			as := newTLSAS(t)
			as.redirect.Store(target.URL + "/token")
			url := loopbackMCP(t, as.URL)
			c := client(t, oauth.Config{HTTPClient: as.Client(), Authorizer: &oauth.Headless{HTTPClient: as.Client()}})
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if !errors.Is(err, oauth.ErrRedirectRefused) {
				t.Errorf("err = %v, want ErrRedirectRefused", err)
			}
			if as.tokens.Load() != 1 {
				t.Errorf("%d token requests, want 1", as.tokens.Load())
			}
			if got := catch.got(); len(got) != 0 {
				t.Fatalf("the redirect target received %q", got)
			}
		})
		t.Run(tc.name+" on a refresh", func(t *testing.T) {
			catch := &catcher{}
			target := tc.start(catch)
			defer target.Close()
			as := newTLSAS(t)
			url := loopbackMCP(t, as.URL)
			store := &oauth.MemoryStore{}
			cfg := oauth.Config{Store: store, HTTPClient: as.Client(), Authorizer: &oauth.Headless{HTTPClient: as.Client()}}
			mustCall(t, httpClient(t, client(t, cfg), url), url, "tools/list")
			ctx := context.Background()
			tok, err := store.LoadToken(ctx, url)
			if err != nil || tok.RefreshToken == "" {
				t.Fatalf("stored token %+v, %v", tok, err)
			}
			tok.Expiry = time.Now().Add(time.Second)
			if err := store.SaveToken(ctx, url, tok); err != nil {
				t.Fatal(err)
			}
			as.redirect.Store(target.URL + "/token")
			// The refresh fails; the request goes with the token it has.
			mustCall(t, httpClient(t, client(t, cfg), url), url, "tools/list")
			if as.tokens.Load() != 2 {
				t.Errorf("%d token requests, want the exchange and a refresh", as.tokens.Load())
			}
			if got := catch.got(); len(got) != 0 {
				t.Fatalf("the redirect target received %q", got)
			}
		})
	}
	t.Run("within the origin", func(t *testing.T) {
		as := newTLSAS(t)
		as.redirect.Store("/token2")
		var moved atomic.Int32
		as.Config.Handler.(*http.ServeMux).HandleFunc("POST /token2", func(w http.ResponseWriter, r *http.Request) {
			moved.Add(1)
			r.ParseForm()
			if r.PostForm.Get("code") != "the-code" || r.PostForm.Get("client_secret") != "s3cret-of-client-1" {
				http.Error(w, "bad form", http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token":"good","token_type":"Bearer"}`)
		})
		url := loopbackMCP(t, as.URL)
		c := client(t, oauth.Config{HTTPClient: as.Client(), Authorizer: &oauth.Headless{HTTPClient: as.Client()}})
		mustCall(t, httpClient(t, c, url), url, "tools/list")
		if moved.Load() != 1 {
			t.Errorf("%d requests at the new location, want 1", moved.Load())
		}
	})
}

// TestMCPRedirectDowngrade: the client HTTPClient returns does not follow
// the MCP server from https to plain http.
func TestMCPRedirectDowngrade(t *testing.T) {
	catch := &catcher{}
	plain := httptest.NewServer(catch)
	defer plain.Close()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c := client(t, oauth.Config{HTTPClient: srv.Client()})
	url := srv.URL + "/mcp"
	_, err := call(httpClient(t, c, url), url, "tools/list")
	if !errors.Is(err, oauth.ErrRedirectRefused) {
		t.Errorf("err = %v, want ErrRedirectRefused", err)
	}
	if got := catch.got(); len(got) != 0 {
		t.Fatalf("the plain http server received %q", got)
	}
}

// get GETs url with hc, as a client opening an SSE stream does.
func get(hc *http.Client, url string) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// redirector is a remote MCP server that answers every request at /mcp
// with a redirect (307, which makes a POST send its body again) to the
// URL in to, and serves /moved itself.
func redirector(t *testing.T, to *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			return
		}
		http.Redirect(w, r, to.Load().(string), http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestMCPRedirectInward: the MCP server the user chose cannot use a
// redirect to send the client's requests (a POST's JSON-RPC message, a
// GET's session) into the user's machine or network, nor a POST's body
// to any other origin. The server's own origin is the user's choice.
func TestMCPRedirectInward(t *testing.T) {
	v := newVictim(t)
	vp := port(v.Server)
	elsewhere := &catcher{}
	other := httptest.NewServer(elsewhere)
	defer other.Close()
	var d net.Dialer
	// ownDial resolves the names under .test to 127.0.0.1, and dials
	// nothing outside 127.0.0.1.
	ownDial := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, p, _ := net.SplitHostPort(addr)
		if strings.HasSuffix(host, ".test") {
			host = "127.0.0.1"
		}
		if host != "127.0.0.1" {
			return nil, fmt.Errorf("test: no connection to %s", addr)
		}
		return d.DialContext(ctx, network, net.JoinHostPort(host, p))
	}}
	defer ownDial.CloseIdleConnections()
	for _, tc := range []struct {
		name    string
		method  string
		to      string // %s: the victim's port
		own     bool   // Config.HTTPClient with its own DialContext
		refused netpolicy.Class
		want    []string
	}{
		{name: "POST to loopback", method: "POST", to: "http://127.0.0.1:%s/admin", want: []string{"redirected the POST to another origin", "JSON-RPC message"}},
		{name: "POST to a public origin", method: "POST", to: other.URL + "/collect", want: []string{"redirected the POST to another origin"}},
		{name: "GET to loopback", method: "GET", to: "http://127.0.0.1:%s/admin", refused: netpolicy.Loopback, want: []string{"the MCP server's redirect from", "127.0.0.1 is a loopback address; refused because the MCP server is not on loopback"}},
		{name: "GET to localhost", method: "GET", to: "http://localhost:%s/admin", refused: netpolicy.Loopback, want: []string{"localhost is a loopback name"}},
		{name: "GET to the cloud metadata service", method: "GET", to: "http://169.254.169.254/latest/meta-data", own: true, refused: netpolicy.LinkLocal | netpolicy.Metadata, want: []string{"cloud metadata service"}},
		{name: "GET to a name that resolves to loopback", method: "GET", to: "http://rebind.test:%s/admin", refused: netpolicy.Loopback, want: []string{"rebind.test resolved to 127.0.0.1, a loopback address; refused because the MCP server is not on loopback"}},
		{name: "GET to a name that resolves to loopback, own DialContext", method: "GET", to: "http://rebind.test:%s/admin", own: true, refused: netpolicy.Loopback, want: []string{"rebind.test resolved to 127.0.0.1, a loopback address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var to atomic.Value
			if strings.Contains(tc.to, "%s") {
				to.Store(strings.Replace(tc.to, "%s", vp, 1))
			} else {
				to.Store(tc.to)
			}
			srv := redirector(t, &to)
			cfg := oauth.Config{}
			if tc.own {
				cfg.HTTPClient = &http.Client{Transport: ownDial}
			}
			classes := public(srv, other)
			c := attacked(t, cfg, oauth.TestNetwork{Classes: classes, Hosts: map[string]netip.Addr{"rebind.test": netip.MustParseAddr("127.0.0.1")}})
			url := srv.URL + "/mcp"
			hc := httpClient(t, c, url)
			var err error
			if tc.method == "POST" {
				_, err = call(hc, url, "tools/call")
			} else {
				_, err = get(hc, url)
			}
			if n := v.hits.Load(); n != 0 {
				t.Errorf("the loopback service received %d requests", n)
			}
			if got := elsewhere.got(); len(got) != 0 {
				t.Errorf("the other origin received %q", got)
			}
			if err == nil {
				t.Fatal("the redirect was followed")
			}
			if tc.refused == 0 {
				if !errors.Is(err, oauth.ErrRedirectRefused) {
					t.Errorf("err = %v, want ErrRedirectRefused", err)
				}
			} else {
				var re *netpolicy.RefusedError
				if !errors.As(err, &re) || re.Class != tc.refused {
					t.Errorf("err = %v, want a *netpolicy.RefusedError of class %v", err, tc.refused)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
	t.Run("GET from a loopback server to plain http elsewhere", func(t *testing.T) {
		var to atomic.Value
		to.Store(other.URL + "/stream")
		srv := redirector(t, &to) // on loopback, over http: the user's choice
		c := client(t, oauth.WithTestNetwork(oauth.Config{}, oauth.TestNetwork{Classes: public(other)}))
		url := srv.URL + "/mcp"
		_, err := get(httpClient(t, c, url), url)
		if got := elsewhere.got(); len(got) != 0 {
			t.Errorf("the other origin received %q", got)
		}
		if !errors.Is(err, oauth.ErrRedirectRefused) || !strings.Contains(err.Error(), "https is required") {
			t.Errorf("err = %v, want ErrRedirectRefused for want of https", err)
		}
	})
	// What the policy lets through: a POST within the server's origin, a
	// GET to another public origin, and the server's own host:port
	// whatever its address (a name that resolves to an address of a class
	// the policy refuses: the user chose it).
	t.Run("allowed", func(t *testing.T) {
		var to atomic.Value
		srv := redirector(t, &to)
		classes := public(srv, other)
		c := attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: classes})
		url := srv.URL + "/mcp"
		hc := httpClient(t, c, url)
		to.Store(srv.URL + "/moved")
		mustCall(t, hc, url, "tools/call")
		to.Store(other.URL + "/stream")
		if status, err := get(hc, url); err != nil || status != http.StatusOK {
			t.Fatalf("GET redirected to a public origin: %d, %v", status, err)
		}
		if got := elsewhere.got(); len(got) != 1 || !strings.HasPrefix(got[0], "GET /stream ") {
			t.Errorf("the other origin received %q, want the GET", got)
		}
		classes = map[netip.AddrPort]netpolicy.Class{addrPort(srv): netpolicy.Private}
		c = attacked(t, oauth.Config{}, oauth.TestNetwork{Classes: classes, Hosts: map[string]netip.Addr{"mcp.test": netip.MustParseAddr("127.0.0.1")}})
		own := "http://mcp.test:" + port(srv)
		to.Store(own + "/moved")
		mustCall(t, httpClient(t, c, own+"/mcp"), own+"/mcp", "tools/call")
	})
}

// TestLocalhostName: plain http is allowed to a localhost name as to a
// loopback host, so a localhost name must reach loopback: the client
// resolves it to 127.0.0.1 or ::1 itself (RFC 6761 section 6.3) rather
// than asking DNS, and refuses a connection of one that reached another
// address (through a Config.HTTPClient's own dialer, or a test network
// that calls 127.0.0.1 public); otherwise the code, the PKCE verifier and
// a client secret would go off the machine in cleartext.
func TestLocalhostName(t *testing.T) {
	loop := netip.MustParseAddr("127.0.0.1")
	t.Run("resolves to a public address", func(t *testing.T) {
		catch := &catcher{}
		off := httptest.NewServer(catch) // a "public" host
		defer off.Close()
		// An MCP server on loopback, which allows loopback names.
		r := newRemote(t, remoteOpts{meta: map[string]string{"token_endpoint": "http://as.localhost:" + port(off) + "/token"}})
		c := client(t, oauth.WithTestNetwork(oauth.Config{}, oauth.TestNetwork{Classes: public(off), Hosts: map[string]netip.Addr{"as.localhost": loop}}))
		url := r.URL + "/mcp"
		_, err := call(httpClient(t, c, url), url, "tools/list")
		if got := catch.got(); len(got) != 0 {
			t.Fatalf("the public host received %q", got)
		}
		wantRefused(t, err, netpolicy.Public, "as.localhost resolved to 127.0.0.1, a public address, not a loopback one (RFC 6761)")
	})
	t.Run("own DialContext", func(t *testing.T) {
		catch := &catcher{}
		off := httptest.NewServer(catch)
		defer off.Close()
		var d net.Dialer
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, p, _ := net.SplitHostPort(addr)
			if netpolicy.IsLocalhost(host) {
				addr = net.JoinHostPort("127.0.0.1", p) // a resolver that answers the "public" host
			}
			return d.DialContext(ctx, network, addr)
		}}
		defer tr.CloseIdleConnections()
		r := newRemote(t, remoteOpts{meta: map[string]string{"token_endpoint": "http://as.localhost:" + port(off) + "/token"}})
		c := client(t, oauth.WithTestNetwork(oauth.Config{HTTPClient: &http.Client{Transport: tr}}, oauth.TestNetwork{Classes: public(off)}))
		url := r.URL + "/mcp"
		_, err := call(httpClient(t, c, url), url, "tools/list")
		if got := catch.got(); len(got) != 0 {
			t.Fatalf("the public host received %q", got)
		}
		wantRefused(t, err, netpolicy.Public, "as.localhost resolved to 127.0.0.1, a public address, not a loopback one (RFC 6761)")
	})
	t.Run("DNS is not asked", func(t *testing.T) {
		// DNS would answer a documentation address; the client dials
		// 127.0.0.1 instead, where the token endpoint is.
		r := newRemote(t, remoteOpts{meta: map[string]string{"token_endpoint": "http://as.localhost:{port}/token"}})
		c := client(t, oauth.WithTestNetwork(oauth.Config{}, oauth.TestNetwork{Hosts: map[string]netip.Addr{"as.localhost": netip.MustParseAddr("192.0.2.1")}}))
		url := r.URL + "/mcp"
		mustCall(t, httpClient(t, c, url), url, "tools/list")
		if r.tokens.Load() != 1 {
			t.Errorf("%d token requests, want 1", r.tokens.Load())
		}
	})
}

// tunnelConn is a connection whose remote address is not an IP address
// and port, as a tunnel's may be.
type tunnelConn struct{ net.Conn }

type tunnelAddr struct{}

func (tunnelAddr) Network() string      { return "tunnel" }
func (tunnelAddr) String() string       { return "tunnel-7" }
func (tunnelConn) RemoteAddr() net.Addr { return tunnelAddr{} }

// TestUncheckableConn: a Config.HTTPClient's own dialer whose connection
// has no IP remote address cannot be checked, and is refused (not let
// through); netpolicy.All, the policy turned off, lets it through.
func TestUncheckableConn(t *testing.T) {
	for name, allow := range map[string]netpolicy.Class{"policy on": 0, "policy off": netpolicy.All} {
		t.Run(name, func(t *testing.T) {
			v := newVictim(t)
			var d net.Dialer
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				host, p, _ := net.SplitHostPort(addr)
				if host != "tunnel.test" {
					return d.DialContext(ctx, network, addr)
				}
				conn, err := d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", p))
				if err != nil {
					return nil, err
				}
				return tunnelConn{conn}, nil
			}}
			defer tr.CloseIdleConnections()
			r := newRemote(t, remoteOpts{meta: map[string]string{"registration_endpoint": "http://tunnel.test:" + port(v.Server) + "/register"}})
			c := attacked(t, oauth.Config{AllowAddresses: allow, HTTPClient: &http.Client{Transport: tr}}, oauth.TestNetwork{Classes: public(r.Server)})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if allow == netpolicy.All {
				if v.hits.Load() != 1 || errors.Is(err, netpolicy.ErrRefused) {
					t.Errorf("with the policy off: %d requests through the tunnel, err = %v; want 1 and no refusal", v.hits.Load(), err)
				}
				return
			}
			if n := v.hits.Load(); n != 0 {
				t.Errorf("the service behind the tunnel received %d requests", n)
			}
			var re *netpolicy.RefusedError
			if !errors.As(err, &re) || re.Host != "tunnel.test" || !strings.Contains(err.Error(), `host "tunnel.test" was connected to "tunnel-7", not an IP address and port`) {
				t.Errorf("err = %v, want a refusal of the connection to tunnel.test", err)
			}
		})
	}
}

// authorizeWith is an Authorizer that requests the authorization URL
// with the Client's policy client, as an application's own may.
type authorizeWith struct{ sawClient atomic.Bool }

func (a *authorizeWith) RedirectURL() string { return "http://127.0.0.1:1/callback" }

func (a *authorizeWith) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	hc := oauth.HTTPClientFrom(ctx)
	if hc == nil {
		return nil, errors.New("no client in the context")
	}
	a.sawClient.Store(true)
	client := *hc
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, err
	}
	return loc.Query(), nil
}

// TestHTTPClientFrom: an Authorizer of the application's gets the
// Client's policy client, so that its request of the authorization URL
// cannot be pointed inward either; outside Authorize there is none.
func TestHTTPClientFrom(t *testing.T) {
	if hc := oauth.HTTPClientFrom(context.Background()); hc != nil {
		t.Errorf("HTTPClientFrom(Background) = %v, want nil", hc)
	}
	v := newVictim(t)
	for name, inward := range map[string]bool{"authorized": false, "pointed inward": true} {
		t.Run(name, func(t *testing.T) {
			o := remoteOpts{}
			if inward {
				o.meta = map[string]string{"authorization_endpoint": "http://rebind.test:" + port(v.Server) + "/authorize"}
			}
			r := newRemote(t, o)
			a := &authorizeWith{}
			c := attacked(t, oauth.Config{Authorizer: a}, oauth.TestNetwork{Classes: public(r.Server), Hosts: map[string]netip.Addr{"rebind.test": netip.MustParseAddr("127.0.0.1")}})
			url := r.URL + "/mcp"
			_, err := call(httpClient(t, c, url), url, "tools/list")
			if !a.sawClient.Load() {
				t.Fatalf("Authorize had no client: %v", err)
			}
			if !inward {
				if err != nil || r.tokens.Load() != 1 {
					t.Fatalf("err = %v, %d token requests; want the flow done", err, r.tokens.Load())
				}
				return
			}
			if n := v.hits.Load(); n != 0 {
				t.Errorf("the loopback service received %d requests", n)
			}
			wantRefused(t, err, netpolicy.Loopback, "rebind.test resolved to 127.0.0.1, a loopback address; refused because the MCP server is not on loopback")
		})
	}
}
