package bearer_test

import (
	"errors"
	"testing"

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
