package oauthtest

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/dpop"
)

// DPoP makes a Server bind its tokens to the client's key (RFC 9449): a
// token request with a valid DPoP proof for POST to the token endpoint
// gets a token whose claims hold cnf.jkt, the thumbprint of the proof's
// key, with token_type DPoP; a refresh token issued so is taken only with
// a proof of the same key. A request without a proof gets a bearer token;
// one with a proof that is not valid gets 400 invalid_dpop_proof.
type DPoP struct {
	// Nonce requires a nonce of the Server's in every proof (RFC 9449
	// section 8): a proof without one gets 400 use_dpop_nonce and a
	// DPoP-Nonce header.
	Nonce bool
	// Unbound answers token_type Bearer, with no cnf, even to a valid
	// proof: an authorization server that does not bind tokens.
	Unbound bool
}

// newDPoPVerifier returns the proof verifier of opts.
func newDPoPVerifier(opts *DPoP) (*dpop.Verifier, error) {
	vo := dpop.VerifierOptions{}
	if opts.Nonce {
		n, err := dpop.NewHMACNonces(dpop.NonceOptions{})
		if err != nil {
			return nil, err
		}
		vo.Nonces = n
	}
	return dpop.NewVerifier(vo)
}

type jktKey struct{}

// checkDPoP checks the DPoP proof of a token request, when the Server does
// DPoP and the request has one, and returns r with the proof's key
// thumbprint in its context (see proofJKT). It reports false, having
// answered, for a proof it refuses.
func (s *Server) checkDPoP(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if s.dpop == nil {
		return r, true
	}
	proofs := r.Header.Values("DPoP")
	switch len(proofs) {
	case 0:
		return r, true
	case 1:
	default:
		oauthError(w, http.StatusBadRequest, dpop.CodeInvalidProof, "more than one DPoP header")
		return r, false
	}
	c, err := s.dpop.Verify(r.Context(), proofs[0], dpop.Target{Method: http.MethodPost, URL: s.URL + "/token"})
	var perr *dpop.Error
	switch {
	case errors.As(err, &perr):
		if perr.Code == dpop.CodeUseNonce {
			if n, err := s.dpop.Nonce(r.Context()); err == nil {
				w.Header().Set("DPoP-Nonce", n)
			}
		}
		oauthError(w, http.StatusBadRequest, perr.Code, perr.Description)
		return r, false
	case err != nil:
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), jktKey{}, c.JKT)), true
}

// proofJKT returns the thumbprint of the key of the request's valid DPoP
// proof, "" without one.
func proofJKT(r *http.Request) string {
	jkt, _ := r.Context().Value(jktKey{}).(string)
	return jkt
}

// bind makes claims and the token response resp those of a token bound to
// jkt, unless jkt is "" or the Server is Unbound.
func (s *Server) bind(claims Claims, resp map[string]any, jkt string) {
	if jkt == "" || s.opts.DPoP == nil || s.opts.DPoP.Unbound {
		return
	}
	claims["cnf"] = map[string]any{"jkt": jkt}
	resp["token_type"] = "DPoP"
}
