package oauth

import (
	"testing"
)

// FuzzRegistered: any registration response is read or refused with an
// error, never a panic, and what is read is usable.
func FuzzRegistered(f *testing.F) {
	f.Add([]byte(`{"client_id":"a","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}`), "client_secret_basic")
	f.Add([]byte(`{"client_id":"a"}`), "none")
	f.Add([]byte(`{"client_id":"a","client_secret":"s"}`), "none")
	f.Add([]byte(`{"client_id":"","client_id":"b"}`), "none")
	f.Add([]byte(`{"client_id":"a","token_endpoint_auth_method":"private_key_jwt"}`), "none")
	f.Fuzz(func(t *testing.T, data []byte, method string) {
		cc, err := decodeRegistered(data, method)
		if err != nil {
			return
		}
		if cc.ClientID == "" {
			t.Fatal("credentials without a client_id")
		}
		if err := checkAuthMethod(cc.AuthMethod, cc.ClientSecret); err != nil {
			t.Fatalf("unusable credentials %+v: %v", cc, err)
		}
	})
}

// FuzzStoreFile: any store file is read or refused with an error, and what
// is read answers lookups.
func FuzzStoreFile(f *testing.F) {
	f.Add([]byte(`{"tokens":[{"resource":"https://a/mcp","token":{"issuer":"https://i","access_token":"t","expiry":"2030-01-01T00:00:00Z"}}],"clients":{"https://i":{"client_id":"c"}}}`))
	f.Add([]byte(`{"tokens":[{"resource":"r","token":null}]}`))
	f.Add([]byte(`{"clients":{"x":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeStore(data)
		if err != nil {
			return
		}
		for _, tok := range st.Tokens {
			st.token(tok.Resource)
		}
		for issuer := range st.Clients {
			st.client(issuer)
		}
	})
}
