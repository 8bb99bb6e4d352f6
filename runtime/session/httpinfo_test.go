package session_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// An HTTP request's Info is what a server sees of the connection it came
// on.
func TestHTTPRequestInfo(t *testing.T) {
	for _, tt := range []struct {
		proto        string
		major, minor int
		remote       string
		want         transport.Info
	}{
		{"HTTP/1.1", 1, 1, "127.0.0.1:5123", transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: "127.0.0.1", Port: 5123}},
		{"HTTP/2.0", 2, 0, "[::1]:443", transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "2", Address: "::1", Port: 443}},
		{"HTTP/1.0", 1, 0, "host-without-port", transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.0", Address: "host-without-port"}},
	} {
		r := &http.Request{Proto: tt.proto, ProtoMajor: tt.major, ProtoMinor: tt.minor, RemoteAddr: tt.remote, Header: http.Header{}}
		h, ok := session.HTTPRequestOf(session.WithHTTPRequest(context.Background(), r))
		if !ok {
			t.Fatal("no HTTPRequest in the context")
		}
		if h.Proto != tt.proto {
			t.Errorf("Proto %q, want %q", h.Proto, tt.proto)
		}
		if d := cmp.Diff(tt.want, h.Info()); d != "" {
			t.Errorf("%s from %s: Info (-want +got):\n%s", tt.proto, tt.remote, d)
		}
	}
}
