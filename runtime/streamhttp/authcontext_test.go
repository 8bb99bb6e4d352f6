package streamhttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

type authedTransport struct {
	http.RoundTripper
	ctx string
}

func (a authedTransport) AuthContext() string { return a.ctx }

// TestAuthContext: the Client names its authorization from its HTTP
// client's transport, else from its Authorization header, without
// revealing the credential.
func TestAuthContext(t *testing.T) {
	const url = "http://127.0.0.1:1/mcp"
	if got := streamhttp.NewClient(url, streamhttp.ClientOptions{}).AuthContext(); got != "" {
		t.Errorf("no authorization: %q, want empty", got)
	}
	alice := streamhttp.NewClient(url, streamhttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer alice-secret"}}}).AuthContext()
	bob := streamhttp.NewClient(url, streamhttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer bob-secret"}}}).AuthContext()
	if alice == "" || alice == bob || strings.Contains(alice, "alice") {
		t.Errorf("header digests %q and %q: want two different opaque names", alice, bob)
	}
	hc := &http.Client{Transport: authedTransport{http.DefaultTransport, "from-transport"}}
	if got := streamhttp.NewClient(url, streamhttp.ClientOptions{HTTPClient: hc, Header: http.Header{"Authorization": {"Bearer x"}}}).AuthContext(); got != "from-transport" {
		t.Errorf("with an AuthContext transport: %q", got)
	}
}
