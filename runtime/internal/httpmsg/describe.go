package httpmsg

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

// This file is what the HTTP transports tell of their connection
// (transport.Describer).

// ProtoVersion returns the version of HTTP major.minor as
// network.protocol.version names it: "1.0", "1.1", "2", "3"; "" when
// major is not positive. The usual versions cost no allocation.
func ProtoVersion(major, minor int) string {
	switch {
	case major <= 0 || minor < 0:
		return ""
	case major == 1 && minor == 1:
		return "1.1"
	case major == 1 && minor == 0:
		return "1.0"
	case major == 2 && minor == 0:
		return "2"
	case major == 3 && minor == 0:
		return "3"
	case minor == 0:
		return strconv.Itoa(major)
	}
	return strconv.Itoa(major) + "." + strconv.Itoa(minor)
}

// SplitAddr splits a network address "host:port" (an http.Request's
// RemoteAddr) into its host and port. An address without a port is
// returned whole, with port 0; so is the host of a port that is no number
// from 0 to 65535.
func SplitAddr(addr string) (host string, port int) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return h, 0
	}
	return h, int(n)
}

// ServerInfo returns what the server's side of the session sid tells of its
// connection: that of the request r that opened it (or carried it to this
// instance), whose peer is the client.
func ServerInfo(r *http.Request, sid string) transport.Info {
	host, port := SplitAddr(r.RemoteAddr)
	return transport.Info{
		Network:         "tcp",
		Protocol:        "http",
		ProtocolVersion: ProtoVersion(r.ProtoMajor, r.ProtoMinor),
		Address:         host,
		Port:            port,
		SessionID:       sid,
	}
}

// Peer is what a client tells of its connection but the session: the
// server's host and port from the endpoint's URL, and the HTTP version of
// the latest response. Its methods are safe for concurrent use.
type Peer struct {
	host  string
	port  int
	proto atomic.Uint32 // major<<16 | minor of the latest response; 0 before one
}

// SetURL sets the peer's host and port from the endpoint u: the port the
// URL names, or the one its scheme implies (80 for http, 443 for https).
// Call it before the Peer is shared.
func (p *Peer) SetURL(u *url.URL) {
	if u == nil {
		return
	}
	p.host = u.Hostname()
	if n, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		p.port = int(n)
		return
	}
	switch u.Scheme {
	case "http":
		p.port = 80
	case "https":
		p.port = 443
	}
}

// Saw records the HTTP version of a response. It writes only when the
// version changed, so that concurrent responses share a cache line
// cheaply.
func (p *Peer) Saw(resp *http.Response) {
	v := uint32(resp.ProtoMajor&0xffff)<<16 | uint32(resp.ProtoMinor&0xffff)
	if p.proto.Load() != v {
		p.proto.Store(v)
	}
}

// Info returns the Info of a client whose session is sid ("" for none).
func (p *Peer) Info(sid string) transport.Info {
	v := p.proto.Load()
	return transport.Info{
		Network:         "tcp",
		Protocol:        "http",
		ProtocolVersion: ProtoVersion(int(v>>16), int(v&0xffff)),
		Address:         p.host,
		Port:            p.port,
		SessionID:       sid,
	}
}
