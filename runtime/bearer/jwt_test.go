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
