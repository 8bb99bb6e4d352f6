// Package httpguard is the DNS-rebinding defence the MCP HTTP servers share
// (streamhttp and ssehttp; see the security warning of
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning):
// a request is served only if
// its Host header names an allowed host and its Origin header, when it has
// one, an allowed origin.
package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// DefaultHosts are the hosts allowed when none are configured: the
// loopback names, on any port.
func DefaultHosts() []string { return []string{"localhost", "127.0.0.1", "::1"} }

// Guard checks the Host and Origin headers of requests. The zero value
// allows the DefaultHosts and the http and https origins on them.
type Guard struct {
	// Hosts are the Host header values accepted, as host names (any port)
	// or host:port; "*" allows any host. Nil means DefaultHosts.
	Hosts []string
	// Origins are the Origin header values accepted; "*" allows any. Nil
	// means the http and https origins on an allowed host.
	Origins []string
}

// Check returns nil when r may be served, and otherwise an error that says
// which header is refused (the server answers 403 Forbidden). A request
// without Origin is not a browser's and passes that check.
func (g Guard) Check(r *http.Request) error {
	if !g.HostAllowed(r.Host) {
		return fmt.Errorf("host %q is not allowed", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" && !g.OriginAllowed(o) {
		return fmt.Errorf("origin %q is not allowed", o)
	}
	return nil
}

// HostAllowed reports whether host, a Host header value (host or
// host:port), is allowed.
func (g Guard) HostAllowed(host string) bool {
	hosts := g.Hosts
	if hosts == nil {
		hosts = DefaultHosts()
	}
	for _, a := range hosts {
		if a == "*" || strings.EqualFold(a, host) || strings.EqualFold(a, hostname(host)) {
			return true
		}
	}
	return false
}

// OriginAllowed reports whether origin, an Origin header value, is allowed.
func (g Guard) OriginAllowed(origin string) bool {
	if g.Origins != nil {
		for _, a := range g.Origins {
			if a == "*" || strings.EqualFold(a, origin) {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return g.HostAllowed(u.Host)
}

// hostname returns the host of hostport, without port and brackets.
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return strings.Trim(hostport, "[]")
}
