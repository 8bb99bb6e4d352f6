package oauthtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Listen serves on a loopback address only: the server approves every
// login, so no other machine may reach it.
func TestListen(t *testing.T) {
	for _, tt := range []struct {
		addr    string
		wantErr string
	}{
		{"127.0.0.1:0", ""},
		{"0.0.0.0:0", "want a loopback IP address"},
		{":0", "want a loopback IP address"},
		{"localhost:0", "want a loopback IP address"},
		{"127.0.0.1", "missing port"},
	} {
		s, err := Listen(tt.addr, Options{})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				if s != nil {
					s.Close()
				}
				t.Errorf("Listen(%q) = %v, want an error with %q", tt.addr, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Listen(%q): %v", tt.addr, err)
		}
		resp, err := http.Get(s.URL + "/.well-known/oauth-authorization-server")
		if err != nil {
			s.Close()
			t.Fatal(err)
		}
		var m map[string]any
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		s.Close()
		if err != nil || m["issuer"] != s.URL {
			t.Errorf("Listen(%q): metadata %v, %v; want issuer %s", tt.addr, m, err, s.URL)
		}
	}
}
