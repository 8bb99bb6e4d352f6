package session

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// HTTPRequest is what a handler may know of the HTTP request that carried
// the request it answers: the POST of a stateless request, or, on a
// legacy Streamable HTTP session, the POST whose body held the request.
// Its fields are shared with the HTTP server: read them, do not change
// them.
//
// Authorization (the principal a token names) is not a field: an
// http.Handler in front of the MCP server that checks credentials puts
// what it found in the HTTP request's context, and a handler reads it
// from its own context with the same key, since a handler's context
// carries the values of its HTTP request's context (see WithHTTPRequest).
type HTTPRequest struct {
	// Header is the request's header.
	Header http.Header
	// RemoteAddr is the client's network address, as net/http gives it
	// (host:port; behind a proxy, the proxy's).
	RemoteAddr string
	// Host is the host the request was sent to (the Host header).
	Host string
	// Proto is the request's protocol, as net/http gives it: "HTTP/1.1",
	// "HTTP/2.0".
	Proto string

	major, minor uint8 // the version of Proto
}

// Info returns what the request tells of its connection, as a server sees
// it (see transport.Info): network "tcp", protocol "http" and its version
// ("1.1", "2"), and the client's address and port (behind a proxy, the
// proxy's). It has no session id: the session's transport has it.
func (r *HTTPRequest) Info() transport.Info {
	host, port := httpmsg.SplitAddr(r.RemoteAddr)
	return transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: httpmsg.ProtoVersion(int(r.major), int(r.minor)), Address: host, Port: port}
}

// httpRequestKey is the context key of an HTTPRequest.
type httpRequestKey struct{}

// httpValues carries an HTTPRequest in a context; it is one allocation
// where context.WithValue and the info would be two.
type httpValues struct {
	context.Context
	info HTTPRequest
}

func (c *httpValues) Value(key any) any {
	if key == (httpRequestKey{}) {
		return &c.info
	}
	return c.Context.Value(key)
}

// WithHTTPRequest returns ctx carrying what HTTPRequestOf reports of r.
// HTTP transports call it on r's context and give the result to the
// session (ItemPusher) or to Stateless.Serve, whose handlers' contexts
// then carry its values: the HTTPRequest, and whatever r's context held.
func WithHTTPRequest(ctx context.Context, r *http.Request) context.Context {
	return &httpValues{Context: ctx, info: HTTPRequest{Header: r.Header, RemoteAddr: r.RemoteAddr, Host: r.Host, Proto: r.Proto, major: uint8(r.ProtoMajor), minor: uint8(r.ProtoMinor)}}
}

// HTTPRequestOf returns the HTTP request that carried the request whose
// handler (or incoming middleware) ctx belongs to, when it came over HTTP
// (package streamhttp), and false otherwise: over stdio, and for
// notifications.
func HTTPRequestOf(ctx context.Context) (*HTTPRequest, bool) {
	r, ok := ctx.Value(httpRequestKey{}).(*HTTPRequest)
	return r, ok
}
