package ssehttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// AutoOptions configure an AutoClient.
type AutoOptions struct {
	// HTTPClient, Header and Logger are used by both transports, unless
	// Streamable or SSE set their own.
	HTTPClient *http.Client
	Header     http.Header
	Logger     *slog.Logger
	// Streamable configures the Streamable HTTP client, tried first.
	Streamable streamhttp.ClientOptions
	// SSE configures the HTTP+SSE client of the fallback.
	SSE ClientOptions
	// SSEURL is the URL the fallback GETs for the SSE stream. Default: the
	// URL given to NewAutoClient, as the spec's fallback does.
	SSEURL string
}

// AutoClient is a client transport for an MCP server URL of either HTTP
// transport: Streamable HTTP (2025-03-26 on) or the HTTP+SSE transport of
// 2024-11-05. It finds out which as the spec's backwards-compatibility
// recipe says
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility):
// it POSTs the initialize request as a Streamable HTTP
// client, with Accept: application/json, text/event-stream; if that
// succeeds, the session goes on over Streamable HTTP. If the server
// answers 400, 404 or 405 (a server of the old transport has no POST
// there), it GETs the URL, and when that is an SSE stream whose first
// event is endpoint, the session goes on over the old transport (Client),
// starting with the same initialize. Otherwise Write fails with an error
// that names both attempts.
//
// A client of the stateless era (2026-07-28) connects through it too: its
// first request, the server/discover probe, goes over Streamable HTTP; a
// server that does not answer it is taken for a legacy one and sent
// initialize (session.Session.Connect), which then takes the path above.
// A 4xx whose body is an error only a server of the stateless era sends
// (session.ModernError) is not followed by the fallback, as 2026-07-28
// asks (see docs/requirements.md#era-detection).
//
// Until the transport is known, Read reads from the Streamable HTTP
// client; Transport tells which was chosen.
type AutoClient struct {
	url        string
	streamable *streamhttp.Client
	sse        *Client
	log        *slog.Logger

	mu       sync.Mutex
	chosen   transport.Transport // nil until known
	switched chan struct{}       // closed when the choice is the old transport
}

var _ transport.Transport = (*AutoClient)(nil)

// NewAutoClient returns a client transport for the MCP server at url (an
// http or https URL) that speaks whichever of the two HTTP transports the
// server speaks. It sends nothing until the first Write.
func NewAutoClient(url string, opts AutoOptions) *AutoClient {
	so, oo := opts.Streamable, opts.SSE
	if so.HTTPClient == nil {
		so.HTTPClient = opts.HTTPClient
	}
	if so.Header == nil {
		so.Header = opts.Header
	}
	if so.Logger == nil {
		so.Logger = opts.Logger
	}
	if oo.HTTPClient == nil {
		oo.HTTPClient = opts.HTTPClient
	}
	if oo.Header == nil {
		oo.Header = opts.Header
	}
	if oo.Logger == nil {
		oo.Logger = opts.Logger
	}
	sseURL := opts.SSEURL
	if sseURL == "" {
		sseURL = url
	}
	a := &AutoClient{
		url:        url,
		streamable: streamhttp.NewClient(url, so),
		sse:        NewClient(sseURL, oo),
		log:        opts.Logger,
		switched:   make(chan struct{}),
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	return a
}

// Transport returns the transport the server was found to speak: a
// *streamhttp.Client or a *Client; nil until the first initialize (or
// stateless request) succeeded.
func (a *AutoClient) Transport() transport.Transport {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.chosen
}

// ServerKey returns the URL: the server a session.Session remembers the
// protocol era of (session.ServerKeyer).
func (a *AutoClient) ServerKey() string { return a.url }

// Read returns the next message of the chosen transport (before the
// choice, of the Streamable HTTP client).
func (a *AutoClient) Read(ctx context.Context) ([]byte, error) {
	for {
		a.mu.Lock()
		chosen, switched := a.chosen, a.switched
		a.mu.Unlock()
		if chosen != nil {
			return chosen.Read(ctx)
		}
		rctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-switched:
				cancel()
			case <-rctx.Done():
			}
		}()
		b, err := a.streamable.Read(rctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			select {
			case <-switched:
				continue // the old transport was chosen: read from it
			default:
			}
		}
		return b, err
	}
}

// Write sends data over the chosen transport; before the choice, see
// AutoClient.
func (a *AutoClient) Write(ctx context.Context, data []byte) error {
	a.mu.Lock()
	chosen := a.chosen
	a.mu.Unlock()
	if chosen != nil {
		return chosen.Write(ctx, data)
	}
	initialize := isInitialize(data)
	err := a.streamable.Write(ctx, data)
	if err == nil {
		if initialize || isStatelessRequest(data) {
			a.choose(a.streamable)
		}
		return nil
	}
	if !initialize || !fallbackStatus(err) || ctx.Err() != nil {
		return err
	}
	a.log.Debug("ssehttp: the Streamable HTTP initialize failed; trying the HTTP+SSE transport", "url", a.url, "err", err)
	if oerr := a.sse.Open(ctx); oerr != nil {
		return fmt.Errorf("ssehttp: %s speaks neither HTTP transport: Streamable HTTP: %w; HTTP+SSE: %w", a.url, err, oerr)
	}
	a.choose(a.sse)
	return a.sse.Write(ctx, data)
}

// choose settles the transport, and closes the other.
func (a *AutoClient) choose(t transport.Transport) {
	a.mu.Lock()
	if a.chosen != nil {
		a.mu.Unlock()
		return
	}
	a.chosen = t
	if t == a.sse {
		close(a.switched)
	}
	a.mu.Unlock()
	a.log.Debug("ssehttp: transport chosen", "url", a.url, "sse", t == a.sse)
	if t == a.sse {
		a.streamable.Close() // no session there: nothing to DELETE
	} else {
		a.sse.Close()
	}
}

// fallbackStatus reports whether err, the failure of a Streamable HTTP
// initialize POST, is the 4xx that the spec follows with the old
// transport's GET: 400, 404 or 405, whose body is not an error only a
// server of the stateless era sends.
func fallbackStatus(err error) bool {
	switch streamhttp.StatusCode(err) {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		return false
	}
	var je *jsonrpc.Error
	return !errors.As(err, &je) || !session.ModernError(je)
}

// isInitialize reports whether data is an initialize request.
func isInitialize(data []byte) bool {
	m, ok := wire.MemberString(data, "method")
	return ok && m == "initialize" && wire.Has(data, "id")
}

// isStatelessRequest reports whether data is a request of the stateless
// era (its params carry _meta's protocol version): one that succeeded
// settles Streamable HTTP.
func isStatelessRequest(data []byte) bool {
	if !wire.Has(data, "id") || !wire.Has(data, "method") {
		return false
	}
	params, _ := wire.Member(data, "params")
	meta, _ := wire.Member(params, "_meta")
	_, ok := wire.MemberString(meta, session.MetaProtocolVersion)
	return ok
}

// Close closes both transports.
func (a *AutoClient) Close() error {
	err := a.streamable.Close()
	if err2 := a.sse.Close(); err == nil {
		err = err2
	}
	return err
}

// current is the chosen transport, or the Streamable HTTP client before
// the choice.
func (a *AutoClient) current() transport.Transport {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.chosen == nil {
		return a.streamable
	}
	return a.chosen
}

// Describe implements transport.Describer for the transport in use (before
// the choice, the Streamable HTTP client).
func (a *AutoClient) Describe() transport.Info {
	if a.current() == transport.Transport(a.streamable) {
		return a.streamable.Describe()
	}
	return a.sse.Describe()
}

// NeedsToolList forwards the Streamable HTTP client's answer (see
// session.ToolLister) while it is, or may become, the transport; the
// HTTP+SSE transport needs no list.
func (a *AutoClient) NeedsToolList() bool {
	if a.current() == transport.Transport(a.streamable) {
		return a.streamable.NeedsToolList()
	}
	return false
}

// AuthContext names the authorization of the current transport's requests
// (see session.AuthContexter).
func (a *AutoClient) AuthContext() string {
	if a.current() == transport.Transport(a.streamable) {
		return a.streamable.AuthContext()
	}
	return a.sse.AuthContext()
}
