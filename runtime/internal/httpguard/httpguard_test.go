package httpguard

import (
	"net/http/httptest"
	"testing"
)

func TestGuard(t *testing.T) {
	tests := []struct {
		name   string
		g      Guard
		host   string
		origin string
		ok     bool
	}{
		{"loopback", Guard{}, "127.0.0.1:8080", "", true},
		{"localhost any port", Guard{}, "localhost:1", "http://localhost:3000", true},
		{"ipv6 loopback", Guard{}, "[::1]:80", "https://[::1]", true},
		{"rebinding host", Guard{}, "evil.example:80", "", false},
		{"rebinding origin", Guard{}, "127.0.0.1", "http://evil.example", false},
		{"origin scheme", Guard{}, "127.0.0.1", "file://localhost", false},
		{"any host", Guard{Hosts: []string{"*"}}, "evil.example", "http://evil.example", true},
		{"host:port only", Guard{Hosts: []string{"mcp.example:443"}}, "mcp.example:80", "", false},
		{"host:port", Guard{Hosts: []string{"mcp.example:443"}}, "MCP.example:443", "", true},
		{"origins listed", Guard{Origins: []string{"https://app.example"}}, "localhost", "https://app.example", true},
		{"origin not listed", Guard{Origins: []string{"https://app.example"}}, "localhost", "http://localhost", false},
		{"any origin", Guard{Origins: []string{"*"}}, "localhost", "null", true},
		{"empty hosts allow none", Guard{Hosts: []string{}}, "localhost", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if err := tt.g.Check(r); (err == nil) != tt.ok {
				t.Errorf("Check(host %q, origin %q) = %v, want ok %v", tt.host, tt.origin, err, tt.ok)
			}
		})
	}
}
