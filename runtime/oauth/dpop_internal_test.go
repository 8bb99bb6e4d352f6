package oauth

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"
)

// proofNonce returns the nonce claim of a DPoP proof, "" without one.
func proofNonce(t *testing.T, proof string) string {
	t.Helper()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		t.Fatalf("a proof of %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Nonce string `json:"nonce"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return c.Nonce
}

// The token endpoint's use_dpop_nonce gets one more request with the
// nonce, never more; other answers are passed on as they came, and every
// DPoP-Nonce is kept for the next proof.
func TestDPoPTransportNonce(t *testing.T) {
	for _, tt := range []struct {
		name       string
		status     int
		body       string
		nonce      bool // the answers carry a DPoP-Nonce
		wantSent   int
		wantStatus int
	}{
		{"use_dpop_nonce every time: one retry", 400, `{"error":"use_dpop_nonce"}`, true, 2, 400},
		{"another error with a nonce: no retry", 400, `{"error":"invalid_grant"}`, true, 1, 400},
		{"use_dpop_nonce without a nonce: no retry", 400, `{"error":"use_dpop_nonce"}`, false, 1, 400},
		{"not JSON: no retry", 400, `use_dpop_nonce`, true, 1, 400},
		{"success with a nonce", 200, `{}`, true, 1, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var proofs []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if string(body) != "grant_type=x" {
					t.Errorf("body %q, want it sent again whole", body)
				}
				mu.Lock()
				proofs = append(proofs, r.Header.Get("DPoP"))
				n := len(proofs)
				mu.Unlock()
				if tt.nonce {
					w.Header().Set("DPoP-Nonce", "n"+string(rune('0'+n)))
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c, err := New(Config{Authorizer: &Headless{}, DPoP: &DPoPOptions{}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.server(srv.URL + "/mcp")
			if err != nil {
				t.Fatal(err)
			}
			send := func() *http.Response {
				resp, err := s.tokenClient().Post(srv.URL+"/token?x=1", "application/x-www-form-urlencoded", strings.NewReader("grant_type=x"))
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			resp := send()
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || string(body) != tt.body {
				t.Errorf("answer %d %q, want %d %q", resp.StatusCode, body, tt.wantStatus, tt.body)
			}
			mu.Lock()
			sent := len(proofs)
			mu.Unlock()
			if sent != tt.wantSent {
				t.Fatalf("%d requests, want %d", sent, tt.wantSent)
			}
			if proofNonce(t, proofs[0]) != "" {
				t.Error("the first proof has a nonce, before any was given")
			}
			if sent == 2 && proofNonce(t, proofs[1]) != "n1" {
				t.Errorf("the retry's nonce %q, want n1", proofNonce(t, proofs[1]))
			}
			resp = send()
			resp.Body.Close()
			mu.Lock()
			next := proofs[sent] // the first proof of the second request
			mu.Unlock()
			want := ""
			if tt.nonce {
				want = "n" + string(rune('0'+sent))
			}
			if got := proofNonce(t, next); got != want {
				t.Errorf("the next request's nonce %q, want %q (the latest one)", got, want)
			}
		})
	}
}

// Only a nonce as RFC 9449 writes it, and not too long, is kept for the
// next proofs.
func TestDPoPNonceKept(t *testing.T) {
	for _, tt := range []struct {
		name  string
		nonce string
		kept  bool
	}{
		{"plain", "eyJ7S_zG.9-~!#$%&'()*+,/:;<=>?@[]^`{|}", true},
		{"none", "", false},
		{"a space", "a b", false},
		{"a double quote", `a"b`, false},
		{"a backslash", `a\b`, false},
		{"not ASCII", "nonce\u00e9", false},
		{"a control character", "a\x01b", false},
		{"longest", strings.Repeat("n", maxNonce), true},
		{"too long", strings.Repeat("n", maxNonce+1), false},
	} {
		st := &dpopState{}
		h := http.Header{}
		if tt.nonce != "" {
			h.Set("DPoP-Nonce", tt.nonce)
		}
		if got := st.noteNonce("as", "https://as.example", h); got != tt.kept {
			t.Errorf("%s: noteNonce = %v, want %v", tt.name, got, tt.kept)
		}
		want := ""
		if tt.kept {
			want = tt.nonce
		}
		if got := st.nonce("as", "https://as.example"); got != want {
			t.Errorf("%s: nonce %q kept, want %q", tt.name, got, want)
		}
	}
}
