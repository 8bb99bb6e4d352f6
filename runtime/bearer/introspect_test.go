package bearer_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/bearer"
)

func TestIntrospector(t *testing.T) {
	now := time.Now().Unix()
	answers := map[string]string{
		"good":     `{"active":true,"sub":"alice","iss":"https://as","aud":"` + resource + `","scope":"mcp read","client_id":"app","exp":` + itoa64(now+3600) + `}`,
		"many-aud": `{"active":true,"sub":"alice","iss":"https://as","aud":["https://other","` + resource + `"]}`,
		"inactive": `{"active":false}`,
		"wrong":    `{"active":true,"sub":"alice","iss":"https://as","aud":"https://other/mcp"}`,
		"issuer":   `{"active":true,"sub":"alice","iss":"https://evil","aud":"` + resource + `"}`,
		"expired":  `{"active":true,"sub":"alice","iss":"https://as","aud":"` + resource + `","exp":` + itoa64(now-3600) + `}`,
		"future":   `{"active":true,"sub":"alice","iss":"https://as","aud":"` + resource + `","nbf":` + itoa64(now+3600) + `}`,
		"bad-aud":  `{"active":true,"aud":7}`,
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs" || secret != "s3cret" {
			http.Error(w, "client authentication failed", http.StatusUnauthorized)
			return
		}
		if r.FormValue("token") == "down" {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answers[r.FormValue("token")]))
	}))
	defer srv.Close()
	in, err := bearer.NewIntrospector(bearer.IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "s3cret", Issuer: "https://as", Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, err := in.Verify(ctx, "good")
	if err != nil {
		t.Fatal(err)
	}
	if info.Subject != "alice" || info.ClientID != "app" || !info.HasScope("read") || info.Expiry.Unix() != now+3600 {
		t.Errorf("info = %+v", info)
	}
	before := hits.Load()
	if _, err := in.Verify(ctx, "good"); err != nil || hits.Load() != before {
		t.Errorf("second Verify: %v, %d more requests (want a cached answer)", err, hits.Load()-before)
	}
	if _, err := in.Verify(ctx, "many-aud"); err != nil {
		t.Errorf("an audience array naming the resource: %v", err)
	}
	for _, tok := range []string{"inactive", "wrong", "issuer", "expired", "future"} {
		if _, err := in.Verify(ctx, tok); !errors.Is(err, bearer.ErrInvalidToken) {
			t.Errorf("%s: err = %v, want ErrInvalidToken", tok, err)
		}
	}
	for _, tok := range []string{"down", "bad-aud"} {
		if _, err := in.Verify(ctx, tok); err == nil || errors.Is(err, bearer.ErrInvalidToken) {
			t.Errorf("%s: err = %v, want an error that is not ErrInvalidToken", tok, err)
		}
	}
	bad, _ := bearer.NewIntrospector(bearer.IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "wrong", Audience: resource})
	if _, err := bad.Verify(ctx, "good"); err == nil || errors.Is(err, bearer.ErrInvalidToken) {
		t.Errorf("wrong client secret: err = %v", err)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// An active answer without a subject is refused by default; with
// AllowMissingSubject it must name the client, which is then its own
// principal.
func TestIntrospectorSubject(t *testing.T) {
	answers := map[string]string{
		"client":  `{"active":true,"iss":"https://as","aud":"` + resource + `","client_id":"app"}`,
		"empty":   `{"active":true,"iss":"https://as","aud":"` + resource + `","sub":"","client_id":"app"}`,
		"nothing": `{"active":true,"iss":"https://as","aud":"` + resource + `"}`,
		"user":    `{"active":true,"iss":"https://as","aud":"` + resource + `","sub":"app","client_id":"app"}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answers[r.FormValue("token")]))
	}))
	defer srv.Close()
	newIn := func(allow bool) *bearer.Introspector {
		in, err := bearer.NewIntrospector(bearer.IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", Audience: resource, CacheTTL: -1, AllowMissingSubject: allow})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	ctx := context.Background()
	strict, lax := newIn(false), newIn(true)
	for _, tok := range []string{"client", "empty", "nothing"} {
		if _, err := strict.Verify(ctx, tok); !errors.Is(err, bearer.ErrInvalidToken) || !strings.Contains(err.Error(), "sub") {
			t.Errorf("default, %s: err = %v, want ErrInvalidToken naming sub", tok, err)
		}
	}
	if _, err := lax.Verify(ctx, "nothing"); !errors.Is(err, bearer.ErrInvalidToken) {
		t.Errorf("AllowMissingSubject, neither sub nor client_id: err = %v, want ErrInvalidToken", err)
	}
	client, err := lax.Verify(ctx, "client")
	if err != nil {
		t.Fatal(err)
	}
	user, err := lax.Verify(ctx, "user")
	if err != nil {
		t.Fatal(err)
	}
	if client.Subject != "" || client.ClientID != "app" || client.Principal() == user.Principal() {
		t.Errorf("client %+v (principal %q), user principal %q: want a client principal apart from the user's", client, client.Principal(), user.Principal())
	}
}
