package httpmsg

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/transport"
)

func TestProtoVersion(t *testing.T) {
	for _, tc := range []struct {
		major, minor int
		want         string
	}{
		{1, 1, "1.1"},
		{1, 0, "1.0"},
		{2, 0, "2"},
		{3, 0, "3"},
		{4, 0, "4"},
		{2, 5, "2.5"},
		{0, 0, ""},
		{-1, 1, ""},
		{1, -1, ""},
	} {
		if got := ProtoVersion(tc.major, tc.minor); got != tc.want {
			t.Errorf("ProtoVersion(%d, %d) = %q, want %q", tc.major, tc.minor, got, tc.want)
		}
	}
}

func TestSplitAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, host string
		port       int
	}{
		{"127.0.0.1:54321", "127.0.0.1", 54321},
		{"[::1]:8080", "::1", 8080},
		{"example.com:443", "example.com", 443},
		{"127.0.0.1", "127.0.0.1", 0},       // no port
		{"127.0.0.1:http", "127.0.0.1", 0},  // not a number
		{"127.0.0.1:70000", "127.0.0.1", 0}, // out of range
		{"@", "@", 0},
		{"", "", 0},
	} {
		host, port := SplitAddr(tc.addr)
		if host != tc.host || port != tc.port {
			t.Errorf("SplitAddr(%q) = %q, %d; want %q, %d", tc.addr, host, port, tc.host, tc.port)
		}
	}
}

func TestServerInfo(t *testing.T) {
	for _, tc := range []struct {
		name         string
		remote       string
		major, minor int
		want         transport.Info
	}{
		{"HTTP/1.1", "127.0.0.1:40000", 1, 1, transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: "127.0.0.1", Port: 40000, SessionID: "sid"}},
		{"HTTP/2", "[::1]:40001", 2, 0, transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "2", Address: "::1", Port: 40001, SessionID: "sid"}},
		{"no port", "pipe", 1, 1, transport.Info{Network: "tcp", Protocol: "http", ProtocolVersion: "1.1", Address: "pipe", SessionID: "sid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tc.remote, ProtoMajor: tc.major, ProtoMinor: tc.minor}
			if got := ServerInfo(r, "sid"); got != tc.want {
				t.Errorf("ServerInfo = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPeer(t *testing.T) {
	for _, tc := range []struct {
		url  string
		host string
		port int
	}{
		{"http://127.0.0.1:8080/mcp", "127.0.0.1", 8080},
		{"http://example.com/mcp", "example.com", 80},
		{"https://example.com/mcp", "example.com", 443},
		{"https://[::1]:8443/mcp", "::1", 8443},
		{"ftp://example.com/mcp", "example.com", 0}, // no port implied
	} {
		t.Run(tc.url, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			var p Peer
			p.SetURL(u)
			want := transport.Info{Network: "tcp", Protocol: "http", Address: tc.host, Port: tc.port}
			if got := p.Info(""); got != want {
				t.Errorf("before a response: Info = %+v, want %+v", got, want)
			}
			for _, v := range []struct {
				major, minor int
				want         string
			}{{1, 1, "1.1"}, {2, 0, "2"}, {1, 1, "1.1"}} {
				p.Saw(&http.Response{ProtoMajor: v.major, ProtoMinor: v.minor})
				want.ProtocolVersion, want.SessionID = v.want, "sid"
				if got := p.Info("sid"); got != want {
					t.Errorf("after an HTTP/%d.%d response: Info = %+v, want %+v", v.major, v.minor, got, want)
				}
			}
		})
	}
}

// Describe may be called for every message: once the version is known,
// neither recording a response nor describing allocates.
func TestPeerAllocations(t *testing.T) {
	var p Peer
	p.SetURL(&url.URL{Scheme: "http", Host: "127.0.0.1:1"})
	resp := &http.Response{ProtoMajor: 1, ProtoMinor: 1}
	var info transport.Info
	if n := testing.AllocsPerRun(100, func() {
		p.Saw(resp)
		info = p.Info("sid")
	}); n != 0 {
		t.Errorf("Saw and Info allocate %v times, want 0", n)
	}
	if info.ProtocolVersion != "1.1" {
		t.Errorf("ProtocolVersion %q, want 1.1", info.ProtocolVersion)
	}
	r := &http.Request{RemoteAddr: "127.0.0.1:1", ProtoMajor: 2}
	if n := testing.AllocsPerRun(100, func() { info = ServerInfo(r, "sid") }); n != 0 {
		t.Errorf("ServerInfo allocates %v times, want 0", n)
	}
}
