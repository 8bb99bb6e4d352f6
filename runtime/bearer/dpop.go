package bearer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/dpop"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
)

// DPoPOptions turn on DPoP-bound access tokens (RFC 9449,
// https://www.rfc-editor.org/rfc/rfc9449) in Protect: a token whose
// TokenInfo has a JKT (cnf.jkt) is taken only with
// "Authorization: DPoP <token>" and one DPoP header holding a proof made
// for the request with the key the token is bound to, checked by
// runtime/dpop.
//
// A bound token sent with the Bearer scheme is refused, as section 7.2
// asks (https://www.rfc-editor.org/rfc/rfc9449#section-7.2). So is a token
// that is not bound sent with the DPoP scheme, mcpgen's choice: its proof
// would bind nothing, and the client is to send it as a bearer token. Challenges name both schemes, Bearer
// first, as section 7.1 shows
// (https://www.rfc-editor.org/rfc/rfc9449#section-7.1), unless Required;
// the DPoP one lists the accepted algorithms (algs).
type DPoPOptions struct {
	// Required refuses tokens sent with the Bearer scheme: every request
	// needs a DPoP-bound token and its proof, and challenges name only
	// DPoP.
	Required bool
	// Proofs configure the proof verifier: accepted algorithms, iat
	// window, clock, replay cache (one shared by a fleet), nonces (when
	// set, every proof must carry one; a proof without a valid one gets
	// 401 with error="use_dpop_nonce" and a DPoP-Nonce header). Its
	// ExternalURL defaults to the scheme and host of Options.Resource: a
	// proof must name that origin and the request's path as htu, whatever
	// the Host header says.
	Proofs dpop.VerifierOptions
}

// The authentication schemes of the Authorization header.
const (
	schemeBearer = "Bearer"
	schemeDPoP   = "DPoP"
)

// newProofVerifier returns the proof verifier of opts for resource.
func newProofVerifier(opts *DPoPOptions, resource string) (*dpop.Verifier, error) {
	vo := opts.Proofs
	if vo.ExternalURL == "" {
		u, err := url.Parse(resource)
		if err != nil {
			return nil, err
		}
		vo.ExternalURL = u.Scheme + "://" + u.Host
	}
	v, err := dpop.NewVerifier(vo)
	if err != nil {
		return nil, fmt.Errorf("bearer: Options.DPoP.Proofs: %w", err)
	}
	return v, nil
}

// credentials returns the scheme and token of the Authorization header,
// which must be the only one and use the Bearer scheme, or the DPoP scheme
// when DPoP is on (both case-insensitively).
func (p *Protector) credentials(h http.Header) (scheme, token string, ok bool) {
	if p.proofs == nil {
		token, ok := bearerToken(h)
		return schemeBearer, token, ok
	}
	vals := h.Values("Authorization")
	if len(vals) != 1 {
		return "", "", false
	}
	scheme, token, ok = strings.Cut(vals[0], " ")
	switch {
	case !ok:
		return "", "", false
	case strings.EqualFold(scheme, schemeBearer):
		scheme = schemeBearer
	case strings.EqualFold(scheme, schemeDPoP):
		scheme = schemeDPoP
	default:
		return "", "", false
	}
	token = strings.TrimSpace(token)
	return scheme, token, token != ""
}

// boundKey returns the key thumbprint a token is bound to: info.JKT, else
// cnf.jkt of info.Claims; "" for a token that is not bound.
func boundKey(info *TokenInfo) (string, error) {
	if info.JKT != "" {
		return info.JKT, nil
	}
	return confirmationKey(info.Claims)
}

// confirmationKey returns cnf.jkt of claims, "" without one, or an error
// wrapping ErrInvalidToken when cnf or jkt is malformed.
func confirmationKey(claims map[string]any) (string, error) {
	raw, ok := claims["cnf"]
	if !ok {
		return "", nil
	}
	cnf, ok := raw.(map[string]any)
	if !ok {
		return "", fmt.Errorf("%w: the token's confirmation (cnf) is not an object", ErrInvalidToken)
	}
	raw, ok = cnf["jkt"]
	if !ok {
		return "", nil
	}
	jkt, ok := raw.(string)
	if !ok || jkt == "" {
		return "", fmt.Errorf("%w: the token's key thumbprint (cnf.jkt) is not a non-empty string", ErrInvalidToken)
	}
	return jkt, nil
}

// checkBinding applies DPoP to a request whose token, sent with scheme,
// the verifier accepted: a bound token needs the DPoP scheme and a valid
// proof, an unbound one the Bearer scheme. It reports whether the request
// may go on; if not, it has answered it.
func (p *Protector) checkBinding(w http.ResponseWriter, r *http.Request, scheme, token string, info *TokenInfo) bool {
	jkt, err := boundKey(info)
	if err != nil {
		p.log.Debug("bearer: token refused", "err", redact(err, token))
		p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", "the access token is not valid for this resource", p.opts.Scopes)
		return false
	}
	switch {
	case scheme == schemeBearer && jkt != "":
		p.log.Debug("bearer: a DPoP-bound token came with the Bearer scheme; refused")
		p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", "the access token is bound to a DPoP key: send it as Authorization: DPoP, with a DPoP proof", p.opts.Scopes)
		return false
	case scheme == schemeDPoP && jkt == "":
		p.log.Debug("bearer: a token that is not DPoP-bound came with the DPoP scheme; refused")
		desc := "the access token is not bound to a DPoP key (no cnf.jkt): send it with the Bearer scheme"
		if p.opts.DPoP.Required {
			desc = "the access token is not bound to a DPoP key (no cnf.jkt), and this resource takes DPoP-bound tokens only"
		}
		p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", desc, p.opts.Scopes)
		return false
	case scheme == schemeBearer:
		return true
	}
	claims, err := p.proofs.VerifyRequest(r, token, jkt)
	var perr *dpop.Error
	switch {
	case errors.As(err, &perr):
		p.log.Debug("bearer: DPoP proof refused", "err", redact(err, token))
		if perr.Code == dpop.CodeUseNonce && !p.setNonce(w, r.Context(), "") {
			return false
		}
		p.refuse(w, http.StatusUnauthorized, scheme, perr.Code, perr.Description, p.opts.Scopes)
		return false
	case err != nil:
		p.log.Warn("bearer: DPoP proof could not be checked", "err", redact(err, token))
		w.Header().Set("Retry-After", retryAfter(err))
		http.Error(w, "the DPoP proof could not be checked; try again later", http.StatusServiceUnavailable)
		return false
	}
	p.setNonce(w, r.Context(), claims.Nonce)
	return true
}

// setNonce gives the client a fresh nonce in a DPoP-Nonce header when
// nonces are on, unless it is have, the nonce of the client's valid proof.
// It reports false, having answered 503, when a nonce the refused client
// needs could not be made.
func (p *Protector) setNonce(w http.ResponseWriter, ctx context.Context, have string) bool {
	n, err := p.proofs.Nonce(ctx)
	if err != nil {
		p.log.Warn("bearer: no DPoP nonce could be made", "err", err)
		if have != "" { // the request was valid: let it through without a new nonce
			return true
		}
		w.Header().Set("Retry-After", retryAfter(err))
		http.Error(w, "the DPoP nonce could not be made; try again later", http.StatusServiceUnavailable)
		return false
	}
	if n != "" && n != have {
		w.Header().Set("DPoP-Nonce", n)
	}
	return true
}

// refuse answers with the challenges of the schemes the resource accepts:
// the Bearer one alone without DPoP (challenge), else Bearer and DPoP, or
// DPoP alone when it is required. The error goes in the challenge of the
// scheme the client used (scheme, "" for none), or in the DPoP one when
// DPoP is required.
func (p *Protector) refuse(w http.ResponseWriter, status int, scheme, code, description string, scopes []string) {
	if p.proofs == nil {
		p.challenge(w, status, code, description, scopes)
		return
	}
	if !p.opts.DPoP.Required {
		var c, d string
		if scheme == schemeBearer {
			c, d = code, description
		}
		w.Header().Add("WWW-Authenticate", oauthmeta.Bearer(
			oauthmeta.Param{Name: "error", Value: c},
			oauthmeta.Param{Name: "error_description", Value: d},
			oauthmeta.Param{Name: "scope", Value: strings.Join(scopes, " ")},
			oauthmeta.Param{Name: "resource_metadata", Value: p.metadataURL},
		).String())
	}
	var c, d string
	if scheme == schemeDPoP || p.opts.DPoP.Required {
		c, d = code, description
	}
	dc := oauthmeta.Challenge{Scheme: schemeDPoP}
	for _, prm := range []oauthmeta.Param{
		{Name: "error", Value: c},
		{Name: "error_description", Value: d},
		{Name: "scope", Value: strings.Join(scopes, " ")},
		{Name: "resource_metadata", Value: p.metadataURL},
		{Name: "algs", Value: strings.Join(p.proofs.Algorithms(), " ")},
	} {
		if prm.Value != "" {
			dc.Params = append(dc.Params, prm)
		}
	}
	w.Header().Add("WWW-Authenticate", dc.String())
	p.writeRefusal(w, status, description)
}
