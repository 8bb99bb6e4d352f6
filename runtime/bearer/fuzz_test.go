package bearer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/bearer"
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
