package bearer_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/bearer"
	"github.com/mcpgen/mcpgen/runtime/dpop"
)

func FuzzIntrospectionResponse(f *testing.F) {
	f.Add([]byte(`{"active":true,"sub":"a","aud":["` + resource + `"],"scope":"x y","exp":99999999999}`))
	f.Add([]byte(`{"active":false}`))
	f.Add([]byte(`{"active":true,"aud":7}`))
	in, err := bearer.NewIntrospector(bearer.IntrospectionOptions{Endpoint: "http://127.0.0.1:1", ClientID: "c", Audience: resource})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		info, err := bearer.Decide(in, body)
		if err == nil && info == nil {
			t.Fatal("no info and no error")
		}
		if err != nil && info != nil {
			t.Fatal("info with an error")
		}
		_ = errors.Is(err, bearer.ErrInvalidToken)
	})
}

func FuzzParseKeySet(f *testing.F) {
	f.Add([]byte(`{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","kid":"k"}]}`))
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"AAAA"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := bearer.ParseKeySet(data)
		if err != nil {
			return
		}
		for _, k := range set.Keys {
			if !k.IsPublic() {
				t.Fatalf("a non-public key passed: %q", k.KeyID)
			}
		}
	})
}

// FuzzJWTVerify feeds Verify any token, header included, against a
// loaded key set: nothing is accepted that lacks a subject or the at+jwt
// type, and every refusal says the token is invalid.
func FuzzJWTVerify(f *testing.F) {
	is := newIssuer(f)
	v := is.verifier(f, newClock(), bearer.JWTOptions{})
	good := is.token(f, map[string]any{"sub": "alice"})
	if _, err := v.Verify(context.Background(), good); err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(is.tokenWith(f, is.signingKey(), "JWT", map[string]any{"sub": "alice"}))
	f.Add(is.tokenWith(f, is.signingKey(), nil, map[string]any{"sub": "alice"}))
	f.Add(is.token(f, map[string]any{"client_id": "app"}))
	f.Add("eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.e30.")
	f.Fuzz(func(t *testing.T, token string) {
		info, err := v.Verify(context.Background(), token)
		if err != nil {
			if !errors.Is(err, bearer.ErrInvalidToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
			return
		}
		if info.Subject == "" {
			t.Fatalf("accepted without a subject: %+v", info)
		}
		tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatalf("accepted a token go-jose does not parse: %v", err)
		}
		typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string)
		if !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
			t.Fatalf("accepted a token typed %q", typ)
		}
	})
}

// FuzzProtectDPoP sends arbitrary Authorization and DPoP headers through a
// Protector that takes DPoP: it never panics, and nothing made up reaches
// the handler.
func FuzzProtectDPoP(f *testing.F) {
	s := newDPoPSetupTB(f)
	p, err := bearer.New(bearer.Options{Resource: resource, AuthorizationServers: []string{s.is.URL}, Verifier: s.verifier, DPoP: &bearer.DPoPOptions{}})
	if err != nil {
		f.Fatal(err)
	}
	wrong, err := dpop.NewProof(s.key, "GET", resource, dpop.ProofOptions{AccessToken: s.bound})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("DPoP "+s.bound, wrong)
	f.Add("Bearer "+s.bound, "")
	f.Add("DPoP "+s.unbound, wrong)
	f.Add("dpop  x", "a.b.c")
	f.Fuzz(func(t *testing.T, auth, proof string) {
		got := send(p, "", "", auth, []string{proof}, "")
		if got.reached || got.status != http.StatusUnauthorized && got.status != http.StatusServiceUnavailable {
			t.Fatalf("status %d, reached %v: want a refusal", got.status, got.reached)
		}
	})
}
