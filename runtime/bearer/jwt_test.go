package bearer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/bearer"
)

// Only JWTs typed as access tokens pass by default (RFC 9068 section
// 2.1): an ID token of the same issuer whose audience names the resource
// is not one.
func TestJWTType(t *testing.T) {
	is := newIssuer(t)
	ctx := context.Background()
	key := is.signingKey()
	tests := []struct {
		name     string
		accepted []string // JWTOptions.AcceptedTypes
		typ      any      // the typ header; nil for none
		ok       bool
	}{
		{"at+jwt", nil, "at+jwt", true},
		{"application/at+jwt", nil, "application/at+jwt", true},
		{"upper case", nil, "AT+JWT", true},
		{"mixed case with application/", nil, "Application/At+Jwt", true},
		{"JWT (an ID token)", nil, "JWT", false},
		{"no typ", nil, nil, false},
		{"empty typ", nil, "", false},
		{"typ a number", nil, 7, false},
		{"at+jwt with a suffix", nil, "at+jwt;x", false},
		{"opt-out: no typ accepted", []string{"at+jwt", ""}, nil, true},
		{"opt-out: no typ, JWT still refused", []string{"at+jwt", ""}, "JWT", false},
		{"opt-out: JWT accepted as application/jwt", []string{"JWT"}, "application/jwt", true},
		{"opt-out: JWT only, at+jwt refused", []string{"JWT"}, "at+jwt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := is.verifier(t, newClock(), bearer.JWTOptions{AcceptedTypes: tt.accepted})
			_, err := v.Verify(ctx, is.tokenWith(t, key, tt.typ, map[string]any{"sub": "alice"}))
			switch {
			case tt.ok && err != nil:
				t.Errorf("refused: %v", err)
			case !tt.ok && !errors.Is(err, bearer.ErrInvalidToken):
				t.Errorf("err = %v, want ErrInvalidToken", err)
			case !tt.ok && !strings.Contains(err.Error(), "typ"):
				t.Errorf("err = %v, want one naming the typ header", err)
			}
		})
	}
}

// A token of the wrong type is refused before the key set is fetched.
func TestJWTTypeBeforeFetch(t *testing.T) {
	is := newIssuer(t)
	v := is.verifier(t, newClock(), bearer.JWTOptions{})
	if _, err := v.Verify(context.Background(), is.tokenWith(t, is.signingKey(), "JWT", map[string]any{"sub": "alice"})); !errors.Is(err, bearer.ErrInvalidToken) {
		t.Fatalf("err = %v, want ErrInvalidToken", err)
	}
	if n := is.fetches.Load(); n != 0 {
		t.Errorf("%d fetches of the key set for a token of the wrong type, want 0", n)
	}
}

// A JWT without a subject is refused by default (RFC 9068 section 2.2).
// With AllowMissingSubject, it must name its client, and each client is
// its own principal, apart from every user's.
func TestJWTSubject(t *testing.T) {
	is := newIssuer(t)
	ctx := context.Background()
	strict := is.verifier(t, newClock(), bearer.JWTOptions{})
	lax := is.verifier(t, newClock(), bearer.JWTOptions{AllowMissingSubject: true})

	for name, claims := range map[string]map[string]any{
		"no sub":       {"client_id": "app"},
		"empty sub":    {"sub": "", "client_id": "app"},
		"no sub, azp":  {"azp": "app"},
		"nothing else": {},
	} {
		_, err := strict.Verify(ctx, is.token(t, claims))
		if !errors.Is(err, bearer.ErrInvalidToken) || !strings.Contains(err.Error(), "sub") {
			t.Errorf("default, %s: err = %v, want ErrInvalidToken naming sub", name, err)
		}
	}
	if _, err := lax.Verify(ctx, is.token(t, map[string]any{})); !errors.Is(err, bearer.ErrInvalidToken) || !strings.Contains(err.Error(), "client_id") {
		t.Errorf("AllowMissingSubject, neither sub nor client: err = %v, want ErrInvalidToken naming client_id", err)
	}

	principal := func(v *bearer.JWTVerifier, claims map[string]any) (*bearer.TokenInfo, string) {
		t.Helper()
		info, err := v.Verify(ctx, is.token(t, claims))
		if err != nil {
			t.Fatalf("%v: %v", claims, err)
		}
		return info, info.Principal()
	}
	app, pApp := principal(lax, map[string]any{"client_id": "app"})
	if app.Subject != "" || app.ClientID != "app" {
		t.Errorf("a client token: Subject %q, ClientID %q; want none and app", app.Subject, app.ClientID)
	}
	azp, pAzp := principal(lax, map[string]any{"azp": "app"})
	if azp.ClientID != "app" || pAzp != pApp {
		t.Errorf("client named by azp: ClientID %q, principal %q; want app and %q", azp.ClientID, pAzp, pApp)
	}
	_, pOther := principal(lax, map[string]any{"client_id": "other"})
	_, pUser := principal(lax, map[string]any{"sub": "app", "client_id": "app"})
	_, pUser2 := principal(strict, map[string]any{"sub": "app"})
	if pApp == pOther || pApp == pUser || pUser != pUser2 {
		t.Errorf("principals: client app %q, client other %q, user app %q and %q; want the clients apart from each other and from the user", pApp, pOther, pUser, pUser2)
	}
}
