package oauth

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
)

// roundTripper puts the server's token on the requests to its origin and
// reacts to 401 and 403 insufficient_scope.
type roundTripper struct {
	s    *server
	base http.RoundTripper
}

// maxReplayBody bounds a request body read to be sent again; a transport
// that sets GetBody (as net/http does for bytes and strings readers) is
// not read.
const maxReplayBody = 64 << 20

// bufferBody reads req's body (at most maxReplayBody bytes) and closes
// it, and returns a GetBody that gives the bytes read again, so that the
// request can be sent more than once.
func bufferBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	data, err := io.ReadAll(io.LimitReader(req.Body, maxReplayBody+1))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(data) > maxReplayBody {
		return nil, fmt.Errorf("oauth: request body larger than %d bytes", maxReplayBody)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }, nil
}

// RoundTrip implements http.RoundTripper.
func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	s := rt.s
	if origin(req.URL) != s.origin {
		// A redirect away from the server, say: a connection the dial
		// check refused says why.
		resp, err := rt.base.RoundTrip(req)
		if err != nil {
			return nil, s.g.explain(err)
		}
		return resp, nil
	}
	ctx := req.Context()
	getBody := req.GetBody
	if req.Body != nil && req.Body != http.NoBody {
		if getBody == nil {
			var err error
			if getBody, err = bufferBody(req); err != nil {
				return nil, err
			}
		} else {
			req.Body.Close()
		}
	}
	authorizations := 0
	mayRefresh := true
	nonceRetried := false
	for first := true; ; first = false {
		tok, gen := s.current(ctx)
		// A token is refreshed (or replaced) before the first send only:
		// after a 401 or 403, the token is a new one.
		if first && s.ensureFresh(ctx, tok, gen) {
			tok, gen = s.current(ctx)
		}
		r := req.Clone(ctx)
		if getBody != nil {
			body, err := getBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		r.Header.Del("Authorization")
		if tok != nil {
			if err := s.setAuthorization(r, tok); err != nil {
				return nil, err
			}
		}
		resp, err := rt.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if s.resourceNonce(resp) && !nonceRetried {
			// RFC 9449 section 9: once more, with the server's nonce.
			nonceRetried = true
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			continue
		}
		ch := s.challenge(resp.Header, tok)
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
		case resp.StatusCode == http.StatusForbidden && param(ch, "error") == "insufficient_scope":
		default:
			if resp.StatusCode != http.StatusForbidden {
				s.succeeded()
			}
			return resp, nil
		}
		if resp.StatusCode == http.StatusUnauthorized && authorizations > 0 {
			// The token this request just got is refused: another
			// authorization would end the same way.
			resp.Body.Close()
			return nil, s.errorf("authorization", "the server refuses the token just obtained (%s); it does not accept the tokens of its authorization server, or the token's audience", resp.Status)
		}
		if authorizations >= s.c.cfg.MaxAuthorizations {
			resp.Body.Close()
			return nil, s.errorf("authorization", "the server still answers %s after %d authorizations for this request; giving up", resp.Status, authorizations)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		out, err := s.reauthorize(ctx, resp.StatusCode, ch, gen, mayRefresh)
		if err != nil {
			return nil, err
		}
		switch out {
		case refreshed:
			mayRefresh = false
		case authorized:
			authorizations++
		}
	}
}

// AuthContext names the token the requests carry now (a digest of it, ""
// without one): see session.AuthContexter. A client of the stateless era
// caches "private" results per token.
func (rt *roundTripper) AuthContext() string {
	rt.s.mu.Lock()
	tok := rt.s.tok
	rt.s.mu.Unlock()
	if tok == nil {
		return ""
	}
	return httpmsg.AuthDigest(tok.AccessToken)
}
