package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// Authorizer is the step of the authorization code flow that involves the
// user: the user agent visits the authorization URL, the user logs in and
// consents, and the authorization server redirects to the client's
// redirect URI with the outcome in the query.
type Authorizer interface {
	// RedirectURL is the redirect URI the client registers and sends in
	// its authorization requests.
	RedirectURL() string
	// Authorize has the user agent visit authURL and returns the query of
	// the redirect that came back to RedirectURL: code and state, and iss
	// (RFC 9207), or error and error_description. It returns when the
	// redirect came or ctx ended.
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// Headless is an Authorizer without a user: it requests the authorization
// URL itself and takes the redirect the authorization server answers with
// at once. It suits test authorization servers that approve every request
// (such as the MCP conformance suite's) and unattended setups; a real
// authorization server answers with a login page instead, which Headless
// reports as an error.
type Headless struct {
	// Redirect is the redirect URI. Default "http://localhost:3000/callback"
	// (nothing listens there: the redirect is read, not followed).
	Redirect string
	// HTTPClient sends the request. Default: the Client's (see
	// HTTPClientFrom). Its redirect policy is not used (the redirect is
	// read, not followed). When a Client calls Authorize, the request has
	// the Client's address policy, as its own requests do.
	HTTPClient *http.Client
}

// guardKey is the context key under which a Client passes the address
// policy of the MCP server being authorized to Authorize.
type guardKey struct{}

// HTTPClientFrom returns, when ctx is the context a Client passes to
// Authorizer.Authorize (or one derived from it), the http.Client the
// Client sends its own OAuth requests with: Config.HTTPClient (or the
// default) with the address policy of the MCP server being authorized,
// applied to its redirects and, when its Transport is an *http.Transport,
// to its connections (see the package documentation). It returns nil for
// any other context. An Authorizer that requests the authorization URL
// itself, as Headless does, sends the request with it, so that a server's
// metadata cannot point that request at the user's machine or network.
func HTTPClientFrom(ctx context.Context) *http.Client {
	if g, _ := ctx.Value(guardKey{}).(*guard); g != nil {
		return g.oauth()
	}
	return nil
}

// DefaultHeadlessRedirect is Headless's default redirect URI.
const DefaultHeadlessRedirect = "http://localhost:3000/callback"

// RedirectURL implements Authorizer.
func (h *Headless) RedirectURL() string {
	if h.Redirect == "" {
		return DefaultHeadlessRedirect
	}
	return h.Redirect
}

// Authorize implements Authorizer.
func (h *Headless) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	base := h.HTTPClient
	if base == nil {
		base = HTTPClientFrom(ctx)
	} else if g, _ := ctx.Value(guardKey{}).(*guard); g != nil {
		base = g.client(base)
	}
	if base == nil {
		base = &http.Client{Timeout: 30 * time.Second}
	}
	client := *base
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return nil, fmt.Errorf("authorization request: the authorization server answered %s, not a redirect (a headless authorizer cannot log in a user)", resp.Status)
	}
	loc, err := resp.Location()
	if err != nil {
		return nil, fmt.Errorf("authorization request: redirect: %w", err)
	}
	want, err := url.Parse(h.RedirectURL())
	if err != nil {
		return nil, fmt.Errorf("redirect URI: %w", err)
	}
	if loc.Scheme != want.Scheme || loc.Host != want.Host || loc.Path != want.Path {
		return nil, fmt.Errorf("authorization request: redirected to %s, not to the redirect URI %s", excerpt(loc.Scheme+"://"+loc.Host+loc.Path), want)
	}
	return loc.Query(), nil
}

// Loopback is an Authorizer for programs on the user's machine (RFC 8252
// section 7.3): it listens on a loopback port for the redirect, shows the
// user the authorization URL (or opens a browser, see Open) and waits for
// the redirect that carries the authorization request's state. Close it
// when done.
type Loopback struct {
	// Open shows the authorization URL to the user; default: print it on
	// standard error. A program may open a browser here.
	Open func(authURL string) error

	ln       net.Listener
	srv      *http.Server
	redirect string

	mu      sync.Mutex
	waiting map[string]chan url.Values // by state
}

// LoopbackPath is the path of Loopback's redirect URI.
const LoopbackPath = "/callback"

// NewLoopback listens on addr, a loopback address ("127.0.0.1:0" picks a
// free port; "" means that), and returns a Loopback whose redirect URI is
// http://ADDR/callback.
//
// OAuth 2.1 (after RFC 8252 section 7.3) has authorization servers accept
// any port in a loopback redirect URI, so that a client registered once
// (and kept in a Store) can listen on another free port the next time.
// With an authorization server that compares the port too, listen on a
// fixed one.
func NewLoopback(addr string) (*Loopback, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("loopback address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("loopback address %q: not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("loopback redirect: %w", err)
	}
	l := &Loopback{ln: ln, waiting: map[string]chan url.Values{}}
	l.redirect = "http://" + ln.Addr().String() + LoopbackPath
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+LoopbackPath, l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln)
	return l, nil
}

// RedirectURL implements Authorizer.
func (l *Loopback) RedirectURL() string { return l.redirect }

// Close stops listening.
func (l *Loopback) Close() error { return l.srv.Close() }

// callback receives the redirect and hands its query to the Authorize
// waiting for its state.
func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l.mu.Lock()
	ch, ok := l.waiting[q.Get("state")]
	if ok {
		delete(l.waiting, q.Get("state"))
	}
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "<!doctype html><p>No authorization is waiting for this answer.</p>")
		return
	}
	ch <- q
	msg := "Authorization complete: you can close this window."
	if e := q.Get("error"); e != "" {
		msg = "Authorization failed: " + e
	}
	io.WriteString(w, "<!doctype html><p>"+html.EscapeString(msg)+"</p>")
}

// Authorize implements Authorizer.
func (l *Loopback) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization URL: %w", err)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("authorization URL: no state")
	}
	ch := make(chan url.Values, 1)
	l.mu.Lock()
	l.waiting[state] = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.waiting, state)
		l.mu.Unlock()
	}()
	open := l.Open
	if open == nil {
		open = func(s string) error {
			_, err := fmt.Fprintf(os.Stderr, "Open this URL in a browser to authorize:\n\n  %s\n\n", s)
			return err
		}
	}
	if err := open(authURL); err != nil {
		return nil, fmt.Errorf("showing the authorization URL: %w", err)
	}
	select {
	case q := <-ch:
		return q, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the authorization redirect: %w", ctx.Err())
	}
}
