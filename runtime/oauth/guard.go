package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
)

// This file is the address policy of the OAuth requests and of the MCP
// requests' redirects: every URL a server's metadata, challenge or
// redirect gives is checked before it is requested (guard.checkURL,
// guard.checkRedirect, guard.checkServerRedirect), and every connection
// but to the MCP server's own host:port before it is made, after DNS
// resolution (guard.dial), so that a remote server cannot steer the
// client to the local machine or network.

// ErrRedirectRefused is what the errors of the redirects the client does
// not follow match with errors.Is: from https to plain http (on every
// request it makes, the MCP server's included), and, for a request other
// than GET or HEAD (a token, registration or revocation request, which
// carry a code, a verifier or client credentials; an MCP POST, which
// carries a JSON-RPC message), to another origin, and to a URL the policy
// refuses for another reason than its address (plain http to a host that
// is not loopback, a URL with user information). A redirect to an address
// the policy refuses is a *netpolicy.RefusedError instead.
var ErrRedirectRefused = errors.New("oauth: redirect refused")

// guard is the address policy of the requests made for one MCP server.
type guard struct {
	allow        netpolicy.Class // Config.AllowAddresses and the server's own class
	server       string          // host:port the MCP server is dialled at
	origin       string          // the MCP server's origin
	insecureHTTP bool
	base         *http.Client // Config.HTTPClient, or the default
	net          *testNetwork // nil but in tests

	proxies sync.Map // host:port of the proxies the transport used → true

	mu         sync.Mutex
	clients    map[*http.Client]*http.Client       // base → the same with the policy
	transports map[*http.Transport]*http.Transport // base → its clone with the dial check
	std        *http.Transport                     // http.DefaultTransport's clone with the dial check
}

// testNetwork replaces, in tests, what the policy learns from the
// network: see export_test.go.
type testNetwork struct {
	classes map[netip.AddrPort]netpolicy.Class // instead of netpolicy.Classify
	hosts   map[string]netip.Addr              // what names resolve to
}

// ownClasses are the classes an MCP server's own host lends the policy: a
// server on an address of one of them may send the client to the other
// addresses of that class (and of no other). The metadata services'
// addresses (netpolicy.Metadata) are never lent, nor the classes that no
// server lives on (unspecified, multicast, documentation, reserved).
const ownClasses = netpolicy.Loopback | netpolicy.Private | netpolicy.ULA | netpolicy.CGNAT | netpolicy.LinkLocal

// newGuard returns the policy for the MCP server at u: the classes
// Config.AllowAddresses allows, and the class of the server's own host
// among ownClasses (loopback for a server on loopback, RFC 1918 for one
// on RFC 1918, CGNAT for one on CGNAT; a server given by a name other than
// localhost is public and lends nothing).
func (c *Client) newGuard(u *url.URL) *guard {
	g := &guard{
		allow:        c.cfg.AllowAddresses,
		server:       dialAddr(u),
		origin:       origin(u),
		insecureHTTP: c.cfg.InsecureHTTP,
		base:         c.base,
		net:          c.cfg.testNet,
		clients:      map[*http.Client]*http.Client{},
		transports:   map[*http.Transport]*http.Transport{},
	}
	if class, _, err := g.hostClass(u); err == nil {
		g.allow |= class & ownClasses
	}
	return g
}

// dialAddr returns the host:port an http.Transport dials for u (without a
// proxy), in lower case.
func dialAddr(u *url.URL) string {
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port(u)))
}

// port returns u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "socks5", "socks5h":
		return "1080"
	}
	return "80"
}

// classify returns the class of the address ap.
func (g *guard) classify(ap netip.AddrPort) netpolicy.Class {
	if g.net != nil {
		if c, ok := g.net.classes[netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())]; ok {
			return c
		}
	}
	return netpolicy.Classify(ap.Addr())
}

// hostClass returns the class of u's host and the address it names, if
// it is an IP address; an error for a host netpolicy.ParseHost refuses.
func (g *guard) hostClass(u *url.URL) (netpolicy.Class, netip.Addr, error) {
	addr, class, err := netpolicy.ParseHost(u.Hostname())
	if err != nil || !addr.IsValid() {
		return class, addr, err
	}
	p, err := strconv.ParseUint(port(u), 10, 16)
	if err != nil {
		return 0, addr, fmt.Errorf("port %q: %w", u.Port(), err)
	}
	return g.classify(netip.AddrPortFrom(addr, uint16(p))), addr, nil
}

// why says why the policy refuses an address of class.
func (g *guard) why(class netpolicy.Class) string {
	refused := class &^ g.allow
	var s string
	switch {
	case refused&netpolicy.Metadata != 0:
		s = "refused: a cloud metadata service's address is allowed only by netpolicy.Metadata"
	case refused&netpolicy.Loopback != 0:
		s = "refused because the MCP server is not on loopback"
	case refused&netpolicy.Private != 0:
		s = "refused because the MCP server is not on a private network (RFC 1918)"
	case refused&netpolicy.ULA != 0:
		s = "refused because the MCP server is not on a unique local network (RFC 4193)"
	case refused&netpolicy.CGNAT != 0:
		s = "refused because the MCP server is not on a CGNAT network (RFC 6598)"
	case refused&netpolicy.LinkLocal != 0:
		s = "refused because the MCP server is not on a link-local network"
	default:
		s = "refused: the client does not go to " + refused.String() + " addresses"
	}
	return s + " (see Config.AllowAddresses)"
}

// checkURL refuses a URL the client must not send OAuth requests to, send
// a user to, or follow the MCP server's redirect to: one that is not
// absolute http(s), has user information, a host netpolicy.ParseHost
// refuses or (but at the MCP server's own host:port, which the user
// chose) of a class the policy does not allow, or is plain http to a host
// that is not loopback (unless Config.InsecureHTTP). source says where the
// URL came from.
func (g *guard) checkURL(source, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", source, excerpt(raw), err)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%s %q: not an absolute http or https URL", source, excerpt(raw))
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s %q: a URL with user information", source, excerpt(raw))
	}
	class, addr, err := g.hostClass(u)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w; refused", source, excerpt(raw), err)
	}
	if class&^g.allow != 0 && dialAddr(u) != g.server {
		err := &netpolicy.RefusedError{Host: u.Hostname(), Addr: addr, Class: class}
		return nil, fmt.Errorf("%s %q: %w; %s", source, excerpt(raw), err, g.why(class))
	}
	if u.Scheme == "http" && !g.insecureHTTP && class != netpolicy.Loopback {
		return nil, fmt.Errorf("%s %q: https is required (plain http only to a loopback host, or with Config.InsecureHTTP)", source, excerpt(raw))
	}
	return u, nil
}

// checkRedirect is the redirect policy of the OAuth requests: at most 10
// redirects, none from https to http, none of a POST to another origin,
// and none to a URL checkURL refuses.
func (g *guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if err := noDowngrade(req, via); err != nil {
		return err
	}
	if err := sameOriginBody(req, via, "the request carries a code or client credentials"); err != nil {
		return err
	}
	return redirectTo(g.checkURL("redirect from "+excerpt(via[len(via)-1].URL.String())+" to", req.URL.String()))
}

// checkServerRedirect is the redirect policy of the clients HTTPClient
// returns (the MCP requests): none from https to http, none of a request
// other than GET or HEAD (an MCP POST carries a JSON-RPC message, which a
// 307 or 308 sends again) to another origin, and none that leaves the MCP
// server's origin to a URL checkURL refuses: the user chose the server,
// not where it redirects.
func (g *guard) checkServerRedirect(req *http.Request, via []*http.Request) error {
	if err := noDowngrade(req, via); err != nil {
		return err
	}
	if err := sameOriginBody(req, via, "its body, a JSON-RPC message, would be sent there"); err != nil {
		return err
	}
	if origin(req.URL) == g.origin {
		return nil
	}
	return redirectTo(g.checkURL("the MCP server's redirect from "+excerpt(via[len(via)-1].URL.String())+" to", req.URL.String()))
}

// redirectTo returns the error of checkURL on a redirect's target: a
// refusal of its address as it is, any other reason (plain http, user
// information) as an ErrRedirectRefused.
func redirectTo(_ *url.URL, err error) error {
	if err == nil || errors.Is(err, netpolicy.ErrRefused) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrRedirectRefused, err)
}

// sameOriginBody refuses a redirect to another origin than the first
// request's when that request is not a GET or HEAD: carries says what its
// body, or what a 307 or 308 would send again, carries.
func sameOriginBody(req *http.Request, via []*http.Request, carries string) error {
	first := via[0]
	if first.Method != http.MethodGet && first.Method != http.MethodHead && origin(req.URL) != origin(first.URL) {
		return fmt.Errorf("%w: %s redirected the %s to another origin, %q (%s)", ErrRedirectRefused, excerpt(first.URL.String()), first.Method, excerpt(req.URL.String()), carries)
	}
	return nil
}

// noDowngrade refuses a redirect from https to plain http.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if prev := via[len(via)-1]; prev.URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: %s redirected to %q, from https to plain http", ErrRedirectRefused, excerpt(prev.URL.String()), excerpt(req.URL.String()))
	}
	return nil
}

// oauth returns the client of the OAuth requests: Config.HTTPClient (or
// the default) with the policy.
func (g *guard) oauth() *http.Client { return g.client(g.base) }

// client returns base with the policy: its redirects checked by
// checkRedirect (then by its own CheckRedirect), and its connections by
// the dial check when its Transport is an *http.Transport.
func (g *guard) client(base *http.Client) *http.Client {
	g.mu.Lock()
	defer g.mu.Unlock()
	if hc, ok := g.clients[base]; ok {
		return hc
	}
	hc := *base
	hc.Transport = g.transportLocked(base.Transport)
	check := base.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := g.checkRedirect(req, via); err != nil {
			return err
		}
		if check != nil {
			return check(req, via)
		}
		return nil
	}
	g.clients[base] = &hc
	return &hc
}

// transport returns rt (nil: http.DefaultTransport) with the dial check,
// when it is an *http.Transport: a clone, made once per rt, whose
// connections are checked after DNS resolution and before they are made
// (a net.Dialer Control hook), or, when rt has its own DialContext (or
// Dial, DialTLSContext, DialTLS), whose connections are checked by their
// remote address once made: before a byte of the request is sent, but,
// with DialTLSContext or DialTLS, after the TLS handshake (the
// ClientHello has gone to that address). For http.DefaultTransport, whose
// DialContext is a net.Dialer's, the clone dials with a net.Dialer of the
// same timeouts and the hook. Connections to the MCP server's own
// host:port and to proxies are not checked: the user chose them. Another
// RoundTripper is returned as it is.
func (g *guard) transport(rt http.RoundTripper) http.RoundTripper {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.transportLocked(rt)
}

// transportLocked is transport, with g.mu held.
func (g *guard) transportLocked(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		if g.std == nil {
			g.std = g.withDialCheck(http.DefaultTransport.(*http.Transport), true)
		}
		return g.std
	}
	t, ok := rt.(*http.Transport)
	if !ok {
		return rt
	}
	if c, ok := g.transports[t]; ok {
		return c
	}
	c := g.withDialCheck(t, false)
	g.transports[t] = c
	return c
}

// withDialCheck returns a clone of t with the dial check; std says that t
// is http.DefaultTransport, whose DialContext g.dial replaces.
func (g *guard) withDialCheck(t *http.Transport, std bool) *http.Transport {
	t = t.Clone()
	if std {
		t.DialContext = nil // g.dial's net.Dialer instead
	}
	if proxy := t.Proxy; proxy != nil {
		t.Proxy = func(r *http.Request) (*url.URL, error) {
			u, err := proxy(r)
			if u != nil {
				g.proxies.Store(dialAddr(u), true)
			}
			return u, err
		}
	}
	// The deprecated Dial and DialTLS are used when DialContext and
	// DialTLSContext are nil: a transport that still sets them is
	// checked as well.
	//lint:ignore SA1019 a transport that dials with the deprecated Dial must not dial around the check
	dial, dialTLS := t.Dial, t.DialTLS
	switch {
	case t.DialContext != nil:
		t.DialContext = g.checkConn(t.DialContext)
	case dial != nil:
		t.DialContext = g.checkConn(func(_ context.Context, network, addr string) (net.Conn, error) { return dial(network, addr) })
	default:
		t.DialContext = g.dial
	}
	switch {
	case t.DialTLSContext != nil:
		t.DialTLSContext = g.checkConn(t.DialTLSContext)
	case dialTLS != nil:
		t.DialTLSContext = g.checkConn(func(_ context.Context, network, addr string) (net.Conn, error) { return dialTLS(network, addr) })
	}
	return t
}

// trusted reports whether addr, a host:port a transport dials, is the MCP
// server's or a proxy's.
func (g *guard) trusted(addr string) bool {
	addr = strings.ToLower(addr)
	if addr == g.server {
		return true
	}
	_, ok := g.proxies.Load(addr)
	return ok
}

// dial connects to addr as http.DefaultTransport does (30 s timeout and
// keep-alive), checking each address the host resolves to before
// connecting to it (but for the MCP server's own host:port). A localhost
// name is not looked up: it is dialled at 127.0.0.1, then ::1 (RFC 6761
// section 6.3), so that no resolver can send a request meant for the
// local machine, perhaps over plain http, elsewhere.
func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	trusted := g.trusted(addr)
	if !trusted {
		d.Control = func(_, address string, _ syscall.RawConn) error { return g.checkDial(host, address) }
	}
	if netpolicy.IsLocalhost(host) {
		return dialLocalhost(ctx, d, network, port)
	}
	if g.net != nil {
		if a, ok := g.net.hosts[strings.ToLower(host)]; ok {
			addr = net.JoinHostPort(a.String(), port)
		}
	}
	return d.DialContext(ctx, network, addr)
}

// dialLocalhost dials port at 127.0.0.1, then at ::1, as network allows,
// with d; it stops at a refusal of the policy.
func dialLocalhost(ctx context.Context, d *net.Dialer, network, port string) (net.Conn, error) {
	addrs := []string{"127.0.0.1", "::1"}
	switch network {
	case "tcp4":
		addrs = addrs[:1]
	case "tcp6":
		addrs = addrs[1:]
	}
	var first error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a, port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if errors.Is(err, netpolicy.ErrRefused) || ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// checkConn wraps a dial function whose connections the policy cannot
// check before they are made: it checks their remote address, and closes
// those the policy refuses. A connection whose remote address is not an
// IP address and port (a tunnel's, say) cannot be checked and is refused,
// unless Config.AllowAddresses is netpolicy.All.
func (g *guard) checkConn(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil || g.trusted(addr) {
			return conn, err
		}
		host, _, _ := net.SplitHostPort(addr)
		remote := conn.RemoteAddr()
		var at string
		if remote != nil {
			at = remote.String()
		}
		var refused error
		if _, perr := netip.ParseAddrPort(at); perr == nil {
			refused = g.checkDial(host, at)
		} else if g.allow&netpolicy.All != netpolicy.All {
			refused = &netpolicy.RefusedError{Host: host, Spelling: fmt.Sprintf("was connected to %q, not an IP address and port: the address policy cannot check it (netpolicy.All in Config.AllowAddresses turns the policy off)", excerpt(at))}
		}
		if refused != nil {
			conn.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: refused}
		}
		return conn, nil
	}
}

// checkDial refuses a connection to address (ip:port), which host (a name
// or an IP address) resolved to, of a class the policy does not allow, and
// one of a localhost name to an address that is not loopback.
func (g *guard) checkDial(host, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &netpolicy.RefusedError{Host: host, Spelling: fmt.Sprintf("was to be dialled at %q, not an IP address and port", excerpt(address))}
	}
	class := g.classify(ap)
	localhost := netpolicy.IsLocalhost(host)
	if class&^g.allow == 0 && (!localhost || class&netpolicy.Loopback != 0) {
		return nil
	}
	_, isIP := netip.ParseAddr(host)
	return &netpolicy.RefusedError{Host: host, Addr: ap.Addr(), Class: class, Resolved: isIP != nil}
}

// explain adds to an error of a connection the policy refused why it
// refused it (a refused spelling, and a localhost name that resolved
// elsewhere than loopback, say why already).
func (g *guard) explain(err error) error {
	var oe *net.OpError
	var re *netpolicy.RefusedError
	if errors.As(err, &oe) && errors.As(oe.Err, &re) && re.Spelling == "" && (!netpolicy.IsLocalhost(re.Host) || re.Class&netpolicy.Loopback != 0) {
		return fmt.Errorf("%w; %s", err, g.why(re.Class))
	}
	return err
}
