package dpop_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// FuzzVerify feeds the proof parser and verifier arbitrary proofs: it
// never panics, gives claims or an error, and the only proofs it accepts
// are signed by a key whose thumbprint is the one asked for.
func FuzzVerify(f *testing.F) {
	keys(f)
	now := time.Now()
	jkt, err := dpop.Thumbprint(ecKey.Public())
	if err != nil {
		f.Fatal(err)
	}
	good, err := dpop.NewProof(ecKey, "POST", target, dpop.ProofOptions{AccessToken: "tok", Now: now})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	h, c := goodParts(f, now, "tok")
	h["alg"] = "none"
	f.Add(forge(f, h, c, func([]byte) []byte { return nil }))
	f.Add("e30.e30.")
	f.Add("..")
	f.Add(`{"payload":"e30"}`)
	f.Fuzz(func(t *testing.T, proof string) {
		v, err := dpop.NewVerifier(dpop.VerifierOptions{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		c, err := v.Verify(context.Background(), proof, dpop.Target{Method: "POST", URL: target, AccessToken: "tok", JKT: jkt})
		if (c == nil) == (err == nil) {
			t.Fatalf("Verify = %v, %v: want claims xor an error", c, err)
		}
		var e *dpop.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("Verify: %v, not an *Error", err)
		}
		if c != nil && c.JKT != jkt {
			t.Fatalf("accepted a proof of key %s, want %s", c.JKT, jkt)
		}
		r := httptest.NewRequest(http.MethodPost, target, nil)
		r.Header.Set("DPoP", proof)
		if c, err := v.VerifyRequest(r, "tok", jkt); (c == nil) == (err == nil) {
			t.Fatalf("VerifyRequest = %v, %v: want claims xor an error", c, err)
		}
	})
}
