package bearer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/dpop"
	"github.com/mcpgen/mcpgen/runtime/oauthmeta"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// DefaultMaxPeek is the default of Options.MaxPeek.
const DefaultMaxPeek = 4 << 20

// Options configure a Protector.
type Options struct {
	// Resource is the canonical URI of the MCP server (RFC 8707), such as
	// "https://mcp.example.com/mcp": the metadata's resource, and what the
	// Verifier must accept as the tokens' audience. Required.
	Resource string
	// AuthorizationServers are the issuer identifiers of the authorization
	// servers whose tokens are accepted. At least one is required.
	AuthorizationServers []string
	// ScopesSupported are the scopes the metadata lists; default: every
	// scope named in Scopes, MethodScopes and ToolScopes.
	ScopesSupported []string
	// ResourceName is the metadata's human-readable resource_name.
	ResourceName string
	// Verifier checks tokens. Required.
	Verifier TokenVerifier
	// Scopes are needed by every request.
	Scopes []string
	// MethodScopes are the scopes needed by requests of a method (such as
	// "tools/call"), beyond Scopes.
	MethodScopes map[string][]string
	// ToolScopes are the scopes needed to call a tool, by name, beyond
	// Scopes and MethodScopes["tools/call"].
	ToolScopes map[string][]string
	// MaxPeek bounds the bytes of a POST body read to find the methods and
	// tools it holds (default DefaultMaxPeek). A longer body is passed on
	// with only Scopes checked, to be refused by the MCP server's own body
	// limit; keep that limit no higher than MaxPeek.
	MaxPeek int64
	// Logger receives the reasons of refused tokens, at debug level, and
	// of tokens that could not be checked, at warn level; the client is
	// told less. The token itself is never logged. Default: none.
	Logger *slog.Logger
	// DPoP, when set, accepts DPoP-bound tokens (RFC 9449) and checks
	// their proofs; see DPoPOptions. Default: bearer tokens only.
	DPoP *DPoPOptions
}

// Protector checks the bearer tokens of the requests to an MCP endpoint
// and serves its Protected Resource Metadata.
type Protector struct {
	opts        Options
	metadata    []byte // the PRM document
	metadataURL string // its path-specific URL, named in challenges
	paths       []string
	log         *slog.Logger
	proofs      *dpop.Verifier // nil without Options.DPoP
}

// New returns the Protector of opts, or an error naming the option that
// is wrong.
func New(opts Options) (*Protector, error) {
	if opts.Verifier == nil {
		return nil, errors.New("bearer: Options.Verifier is nil")
	}
	resource, err := oauthmeta.CanonicalResource(opts.Resource)
	if err != nil {
		return nil, fmt.Errorf("bearer: Options.Resource: %w", err)
	}
	if len(opts.AuthorizationServers) == 0 {
		return nil, errors.New("bearer: Options.AuthorizationServers is empty; MCP clients need at least one")
	}
	for _, as := range opts.AuthorizationServers {
		if _, err := oauthmeta.AuthorizationServerURLs(as); err != nil {
			return nil, fmt.Errorf("bearer: Options.AuthorizationServers: %w", err)
		}
	}
	if opts.MaxPeek <= 0 {
		opts.MaxPeek = DefaultMaxPeek
	}
	scopes := opts.ScopesSupported
	if scopes == nil {
		scopes = append(scopes, opts.Scopes...)
		for _, m := range []map[string][]string{opts.MethodScopes, opts.ToolScopes} {
			for _, s := range m {
				scopes = append(scopes, s...)
			}
		}
		slices.Sort(scopes)
		scopes = slices.Compact(scopes)
	}
	for _, s := range scopes {
		if !validScope(s) {
			return nil, fmt.Errorf("bearer: scope %q is not an RFC 6749 scope token", s)
		}
	}
	doc, err := json.Marshal(oauthmeta.ProtectedResource{
		Resource:               resource,
		AuthorizationServers:   opts.AuthorizationServers,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           opts.ResourceName,
	}, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("bearer: metadata: %w", err)
	}
	urls, err := oauthmeta.ProtectedResourceURLs(resource)
	if err != nil {
		return nil, fmt.Errorf("bearer: Options.Resource: %w", err)
	}
	u, _ := url.Parse(resource)
	paths := []string{oauthmeta.ProtectedResourcePath(u.EscapedPath())}
	if paths[0] != oauthmeta.WellKnownProtectedResource {
		paths = append(paths, oauthmeta.WellKnownProtectedResource)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts.Resource = resource
	p := &Protector{opts: opts, metadata: doc, metadataURL: urls[0], paths: paths, log: log}
	if opts.DPoP != nil {
		d := *opts.DPoP
		p.opts.DPoP = &d
		if p.proofs, err = newProofVerifier(&d, resource); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// validScope reports whether s is a scope-token of RFC 6749 section 3.3.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}

// MetadataURL is the URL of the Protected Resource Metadata that
// challenges name: the path-specific well-known URI of the resource.
func (p *Protector) MetadataURL() string { return p.metadataURL }

// MetadataPaths are the paths at which the metadata is served: the
// path-specific well-known URI and, for a resource with a path, the root
// one (clients try both, in that order).
func (p *Protector) MetadataPaths() []string { return slices.Clone(p.paths) }

// HandleMetadata registers the metadata handler on mux at MetadataPaths.
func (p *Protector) HandleMetadata(mux *http.ServeMux) {
	for _, path := range p.paths {
		mux.Handle(path, p.Metadata())
	}
}

// Metadata returns the handler that serves the Protected Resource Metadata
// (GET and HEAD; OPTIONS for CORS preflight). It may be fetched by a
// browser-based client of another origin, so it allows any origin.
func (p *Protector) Metadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "max-age=3600")
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				w.Write(p.metadata)
			}
		case http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}

// Protect returns a handler that lets a request through to next only with
// a valid bearer token that has the scopes the request needs, and puts
// what the verifier found in the request's context (TokenInfoFrom). The
// token is taken from the Authorization header alone; the header is
// removed before next sees the request, so the token never goes further.
// The token's Principal is also put in the context for the runtime
// (session.WithPrincipal), which binds sealed requestState to it.
//
// Every method needs a token, OPTIONS too: only a CORS preflight, an
// OPTIONS request with Origin and Access-Control-Request-Method headers
// (which browsers send without credentials), goes to next without one,
// and next must answer it as a preflight: a handler that serves content
// on any OPTIONS (http.FileServer does) would serve it to whoever sends
// those two headers, so wrap such a handler in a CORS handler that
// answers preflights itself.
//
// A TokenInfo naming neither a subject nor a client is refused, since all
// such tokens would share one Principal. The token never appears in the
// log: Logger gets the verifier's error with any copy of it cut out.
//
// With Options.DPoP, a token may also come as "Authorization: DPoP
// <token>" with a proof in one DPoP header (removed before next too), and
// must when it is DPoP-bound; see DPoPOptions. Without it, only the Bearer
// scheme is read and DPoP headers are ignored.
func (p *Protector) Protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isPreflight(r) {
			if len(r.Header.Values("Authorization")) > 0 {
				r.Header = r.Header.Clone()
				r.Header.Del("Authorization")
			}
			next.ServeHTTP(w, r)
			return
		}
		scheme, token, ok := p.credentials(r.Header)
		if !ok {
			p.refuse(w, http.StatusUnauthorized, "", "", "", p.opts.Scopes)
			return
		}
		if scheme == schemeBearer && p.proofs != nil && p.opts.DPoP.Required {
			p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", "this resource takes DPoP-bound tokens only: send the token as Authorization: DPoP, with a DPoP proof", p.opts.Scopes)
			return
		}
		info, err := p.opts.Verifier.Verify(r.Context(), token)
		switch {
		case errors.Is(err, ErrInvalidToken):
			p.log.Debug("bearer: token refused", "err", redact(err, token))
			p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", "the access token is not valid for this resource", p.opts.Scopes)
			return
		case err != nil:
			level := slog.LevelWarn
			if errors.Is(err, errKeyMayBeNew) { // any made-up key id: not worth a warning
				level = slog.LevelDebug
			}
			p.log.Log(r.Context(), level, "bearer: token could not be checked", "err", redact(err, token))
			w.Header().Set("Retry-After", retryAfter(err))
			http.Error(w, "the access token could not be checked; try again later", http.StatusServiceUnavailable)
			return
		case info == nil:
			p.log.Warn("bearer: the verifier returned no TokenInfo and no error")
			p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", "the access token is not valid for this resource", p.opts.Scopes)
			return
		case info.Subject == "" && info.ClientID == "":
			p.log.Warn("bearer: the verifier accepted a token that names neither a subject nor a client; refused")
			p.refuse(w, http.StatusUnauthorized, scheme, "invalid_token", "the access token is not valid for this resource", p.opts.Scopes)
			return
		}
		if p.proofs != nil && !p.checkBinding(w, r, scheme, token, info) {
			return
		}
		need, err := p.needed(r)
		if err != nil {
			http.Error(w, "the request body could not be read", http.StatusBadRequest)
			return
		}
		if missing := missingScopes(info, need); len(missing) > 0 {
			p.refuse(w, http.StatusForbidden, scheme, "insufficient_scope", "the access token lacks a scope this request needs", need)
			return
		}
		r = r.WithContext(session.WithPrincipal(NewContext(r.Context(), info), info.Principal()))
		r.Header = r.Header.Clone()
		r.Header.Del("Authorization")
		if p.proofs != nil {
			r.Header.Del("DPoP")
		}
		next.ServeHTTP(w, r)
	})
}

// retryAfter is the Retry-After, in seconds, of a token that could not be
// checked: what err's RetryAfter method says (rounded up, at least one
// second) when it has one, else five seconds.
func retryAfter(err error) string {
	var r interface{ RetryAfter() time.Duration }
	if !errors.As(err, &r) {
		return "5"
	}
	d := r.RetryAfter()
	secs := int64(d / time.Second)
	if d%time.Second > 0 {
		secs++
	}
	return strconv.FormatInt(max(secs, 1), 10)
}

// isPreflight reports whether r is a CORS preflight request (the Fetch
// standard's CORS-preflight request): OPTIONS with an Origin and an
// Access-Control-Request-Method.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// redact returns the text of err with every copy of token replaced, for
// the log: a verifier's error might quote the token it refused.
func redact(err error, token string) string {
	return strings.ReplaceAll(err.Error(), token, "[token]")
}

// bearerToken returns the token of the Authorization header, which must be
// the only one and use the Bearer scheme (case-insensitively).
func bearerToken(h http.Header) (string, bool) {
	vals := h.Values("Authorization")
	if len(vals) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// challenge refuses the request with a Bearer challenge. Nothing of the
// request goes into it: the metadata URL comes from Options.Resource, the
// scopes from Options.
func (p *Protector) challenge(w http.ResponseWriter, status int, code, description string, scopes []string) {
	c := oauthmeta.Bearer(
		oauthmeta.Param{Name: "error", Value: code},
		oauthmeta.Param{Name: "error_description", Value: description},
		oauthmeta.Param{Name: "scope", Value: strings.Join(scopes, " ")},
		oauthmeta.Param{Name: "resource_metadata", Value: p.metadataURL},
	)
	w.Header().Set("WWW-Authenticate", c.String())
	p.writeRefusal(w, status, description)
}

// writeRefusal writes the status and the JSON-RPC error body of a refused
// request, once its challenges are set.
func (p *Protector) writeRefusal(w http.ResponseWriter, status int, description string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	msg := "authorization required"
	if description != "" {
		msg = description
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32001, "message": msg}}, json.Deterministic(true))
	w.Write(body)
}

// missingScopes returns the scopes of need that info lacks.
func missingScopes(info *TokenInfo, need []string) []string {
	var missing []string
	for _, s := range need {
		if !info.HasScope(s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// needed returns the scopes r needs: Options.Scopes, and for a POST those
// of the methods and tools its body holds. The body is read up to MaxPeek
// and given back to r whole.
func (p *Protector) needed(r *http.Request) ([]string, error) {
	need := slices.Clone(p.opts.Scopes)
	if r.Method != http.MethodPost || r.Body == nil || len(p.opts.MethodScopes) == 0 && len(p.opts.ToolScopes) == 0 {
		return need, nil
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, p.opts.MaxPeek+1))
	if err != nil {
		return nil, err
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if int64(len(head)) > p.opts.MaxPeek {
		return need, nil
	}
	for _, m := range Messages(head) {
		need = append(need, p.opts.MethodScopes[m.Method]...)
		if m.Method == "tools/call" && m.Tool != "" {
			need = append(need, p.opts.ToolScopes[m.Tool]...)
		}
	}
	slices.Sort(need)
	return slices.Compact(need), nil
}

// Message is what Protect reads of a JSON-RPC message to choose the scopes
// it needs.
type Message struct {
	// Method is the message's method; "" for a response.
	Method string
	// Tool is params.name of a tools/call.
	Tool string
}

// Messages returns the messages of a POST body: one, or the elements of a
// batch. What does not parse yields nothing (the MCP server answers it
// with a parse error).
func Messages(body []byte) []Message {
	v := jsontext.Value(bytes.TrimSpace(body))
	switch v.Kind() {
	case '{':
		return []Message{message(v)}
	case '[':
		var elems []jsontext.Value
		if json.Unmarshal(v, &elems) != nil {
			return nil
		}
		out := make([]Message, 0, len(elems))
		for _, e := range elems {
			out = append(out, message(e))
		}
		return out
	}
	return nil
}

func message(v jsontext.Value) Message {
	var m Message
	m.Method, _ = wire.MemberString(v, "method")
	if m.Method == "tools/call" {
		if params, ok := wire.Member(v, "params"); ok {
			m.Tool, _ = wire.MemberString(params, "name")
		}
	}
	return m
}
