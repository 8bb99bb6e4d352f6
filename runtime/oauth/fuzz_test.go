package oauth

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
)

// FuzzRegistered: any registration response is read or refused with an
// error, never a panic, and what is read is usable.
func FuzzRegistered(f *testing.F) {
	f.Add([]byte(`{"client_id":"a","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}`), "client_secret_basic")
	f.Add([]byte(`{"client_id":"a"}`), "none")
	f.Add([]byte(`{"client_id":"a","client_secret":"s"}`), "none")
	f.Add([]byte(`{"client_id":"","client_id":"b"}`), "none")
	f.Add([]byte(`{"client_id":"a","token_endpoint_auth_method":"private_key_jwt"}`), "none")
	f.Fuzz(func(t *testing.T, data []byte, method string) {
		cc, err := decodeRegistered(data, method)
		if err != nil {
			return
		}
		if cc.ClientID == "" {
			t.Fatal("credentials without a client_id")
		}
		if err := checkAuthMethod(cc.AuthMethod, cc.ClientSecret); err != nil {
			t.Fatalf("unusable credentials %+v: %v", cc, err)
		}
	})
}

// FuzzStoreFile: any store file is read or refused with an error, and what
// is read answers lookups.
func FuzzStoreFile(f *testing.F) {
	f.Add([]byte(`{"tokens":[{"resource":"https://a/mcp","token":{"issuer":"https://i","access_token":"t","expiry":"2030-01-01T00:00:00Z"}}],"clients":{"https://i":{"client_id":"c"}}}`))
	f.Add([]byte(`{"tokens":[{"resource":"r","token":null}]}`))
	f.Add([]byte(`{"clients":{"x":null}}`))
	f.Add([]byte(`{"tokens":[{"resource":"r","token":{"access_token":"t","token_type":"DPoP","dpop_key":"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg"}}]}`))
	f.Add([]byte(`{"tokens":[{"resource":"r","token":{"access_token":"t","dpop_key":"!"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeStore(data)
		if err != nil {
			return
		}
		for _, tok := range st.Tokens {
			st.token(tok.Resource)
		}
		for issuer := range st.Clients {
			st.client(issuer)
		}
	})
}

// FuzzCheckURL: any URL a server's metadata may hold is accepted or
// refused, never a panic; what is accepted is absolute http(s), its host
// is a canonical IP address or a name, and its class is one the policy
// allows (here: public only, as for a remote MCP server).
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://as.example.com/token", "http://127.0.0.1:8080/x", "https://[::ffff:10.0.0.1]/", "https://2130706433/",
		"https://0x7f.1/", "https://169.254.169.254/latest", "https://[fe80::1%25eth0]/", "https://user@as.example/",
		"https://localhost./", "https://xn--bcher-kva.example/", "https://%31%32%37.0.0.1/", "https://[64:ff9b::a00:1]:8443/t",
	} {
		f.Add(s)
	}
	g := (&Client{base: &http.Client{}}).newGuard(&url.URL{Scheme: "https", Host: "mcp.example.com"})
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := g.checkURL("fuzz", raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if u.Scheme != "https" || u.Host == "" || u.User != nil {
			t.Fatalf("accepted %q: %+v", raw, u)
		}
		host := u.Hostname()
		addr, class, err := netpolicy.ParseHost(host)
		if err != nil || class != netpolicy.Public {
			t.Fatalf("accepted %q, whose host %q is %v (%v)", raw, host, class, err)
		}
		if a, ok := netpolicy.LegacyIPv4(host); ok && addr != a {
			t.Fatalf("accepted %q, a spelling of %s", raw, a)
		}
	})
}
