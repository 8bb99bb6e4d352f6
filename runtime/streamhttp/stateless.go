package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcpheader"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// The header that names the revision of a request of the stateless era
// (2026-07-28 on); the others are mcpheader's.
const headerVersion = mcpheader.HeaderProtocolVersion

// versionKey is headerVersion in the canonical form of net/http's header
// map, to look it up with: Header.Get and Values allocate to canonicalize
// any other spelling, on every request.
const versionKey = "Mcp-Protocol-Version"

// isStateless reports whether a POST that names no session is a request of
// the stateless era: its MCP-Protocol-Version header names a revision
// without the handshake (even for initialize, which that era answers with
// 404 and -32601), or, with no header or one not linked in, it is one
// request whose _meta names its revision and is not initialize. The scan of
// the request's params it made, if any, is returned for postStateless.
func (s *Server) isStateless(r *http.Request, items []jsonrpc.Item, initialize bool) (bool, *session.StatelessParams) {
	if s.stateless == nil || r.Header.Get("Mcp-Session-Id") != "" {
		return false, nil
	}
	if v := r.Header.Get(versionKey); v != "" {
		if rev, ok := revision.Lookup(v); ok && !rev.Handshake() {
			return true, nil
		}
		// A revision this binary does not know, or a legacy one in the
		// header of a request whose _meta claims a stateless revision: the
		// request is stateless, and the mismatch or the unknown revision is
		// reported as such (-32020, -32022).
	}
	if initialize || len(items) != 1 || items[0].Err != nil {
		return false, nil
	}
	sp := session.ScanParams(items[0].Msg)
	return sp.ClaimsModern(), sp
}

// postStateless serves a POST of the stateless era: one request, answered
// with JSON, or with an SSE stream when the handler sends notifications
// first; one notification, accepted.
func (s *Server) postStateless(w http.ResponseWriter, r *http.Request, rf refusal, items []jsonrpc.Item, batch bool, sp *session.StatelessParams) {
	if batch || len(items) != 1 {
		// One message per POST, and an answer is one object, so the
		// refusal is one error without an id, not a batch of them (see
		// docs/requirements.md#stateless-batch-refusal).
		refuse(w, refusal{rev: rf.rev}, http.StatusBadRequest, jsonrpc.InvalidRequest, "a POST of revision %s carries one message, not a batch", r.Header.Get(versionKey))
		return
	}
	m := items[0].Msg
	switch m.Kind {
	case jsonrpc.Notification:
		// Nothing the core protocol defines for a client to notify over
		// HTTP: accepted and dropped (cancellation is closing the stream).
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.Response, jsonrpc.ErrorResponse:
		refuse(w, rf, http.StatusBadRequest, jsonrpc.InvalidRequest, "a client of revision %s sends no responses", r.Header.Get(versionKey))
		return
	}
	if sp == nil {
		sp = session.ScanParams(m)
	}
	if e := s.checkStatelessHeaders(r, m, sp); e != nil {
		refuse(w, rf, http.StatusBadRequest, e.Code, "%s", e.Message)
		return
	}
	out := &statelessWriter{w: w, r: r, srv: s}
	resp, status := s.stateless.ServeParams(session.WithHTTPRequest(r.Context(), r), m, sp, out.notify)
	out.finish(resp, status)
}

// checkStatelessHeaders checks the headers that mirror the body (see
// https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#server-validation):
// MCP-Protocol-Version against _meta's revision; Mcp-Method
// against the method; Mcp-Name against params.name of tools/call and
// prompts/get, params.uri of resources/read and params.taskId of the Tasks
// extension's tasks/get, tasks/update and tasks/cancel; and, on a tools/call, the
// Mcp-Param headers of the called tool's x-mcp-header annotations (which
// the handler reports if it implements session.ToolHeaderHandler) against
// its arguments. A header that is missing, appears twice, or differs is
// error -32020 (HeaderMismatch) naming it.
func (s *Server) checkStatelessHeaders(r *http.Request, m *jsonrpc.Message, sp *session.StatelessParams) *jsonrpc.Error {
	if mv, ok := sp.ProtocolVersion(); ok {
		switch hv := r.Header.Values(versionKey); {
		case len(hv) == 0:
			return jsonrpc.Errorf(session.HeaderMismatch, "header mismatch: %s: missing; _meta names %q", headerVersion, mv)
		case len(hv) > 1:
			return jsonrpc.Errorf(session.HeaderMismatch, "header mismatch: %s: the header appears %d times; it must appear once", headerVersion, len(hv))
		case strings.Trim(hv[0], " \t") != mv:
			return jsonrpc.Errorf(session.HeaderMismatch, "header mismatch: %s: the value %q differs from _meta's %q", headerVersion, hv[0], mv)
		}
	}
	name, args := sp.Mirrored()
	var tool mcpheader.Params
	if m.Method == "tools/call" {
		if th, ok := s.stateless.Handler().(session.ToolHeaderHandler); ok {
			if n := toolName(name); n != "" {
				tool = th.ToolHeaderParams(n)
			}
		}
	}
	if err := mcpheader.CheckMembers(r.Header, m.Method, name, args, tool); err != nil {
		if errors.Is(err, mcpheader.ErrMismatch) {
			return jsonrpc.Errorf(session.HeaderMismatch, "%v", err)
		}
		return jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: %v", m.Method, err)
	}
	return nil
}

// statelessWriter answers a stateless POST: with JSON when the handler
// sends nothing before its answer, else with an SSE stream that starts at
// its first notification.
type statelessWriter struct {
	w   http.ResponseWriter
	r   *http.Request
	srv *Server

	ct     [1]string // the Content-Type header's values
	mu     sync.Mutex
	sse    bool
	failed bool
	rc     *http.ResponseController
}

// notify sends a notification of the request on its SSE stream, starting
// the stream if need be.
func (o *statelessWriter) notify(ctx context.Context, data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failed {
		return http.ErrHandlerTimeout
	}
	if !o.sse {
		o.startSSE()
	}
	return o.event(data)
}

func (o *statelessWriter) startSSE() {
	o.sse = true
	o.rc = http.NewResponseController(o.w)
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	o.w.WriteHeader(http.StatusOK)
}

// event writes one SSE event (no id: the stateless era has no resumption)
// and flushes it, within the server's WriteTimeout.
func (o *statelessWriter) event(data []byte) error {
	if d := o.srv.opts.WriteTimeout; d > 0 {
		_ = o.rc.SetWriteDeadline(time.Now().Add(d))
	}
	buf := make([]byte, 0, len(data)+16)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	if _, err := o.w.Write(buf); err != nil {
		o.failed = true
		return err
	}
	if err := o.rc.Flush(); err != nil {
		o.failed = true
		return err
	}
	return nil
}

// finish writes the answer.
func (o *statelessWriter) finish(resp *jsonrpc.Message, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.r.Context().Err() != nil || o.failed {
		return // the client went away: nothing to answer
	}
	b, err := resp.AppendJSON(nil)
	if err != nil {
		b, _ = (&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: resp.ID, Error: jsonrpc.Errorf(jsonrpc.InternalError, "the answer cannot be encoded: %v", err)}).AppendJSON(nil)
	}
	if o.sse {
		_ = o.event(b)
		return
	}
	// Within WriteTimeout, as an SSE event is: a client that does not read
	// its answer does not hold this handler.
	if d := o.srv.opts.WriteTimeout; d > 0 {
		_ = http.NewResponseController(o.w).SetWriteDeadline(time.Now().Add(d))
	}
	o.ct[0] = "application/json"
	o.w.Header()["Content-Type"] = o.ct[:] // canonical already: no Set, no slice of its own
	o.w.WriteHeader(status)
	o.w.Write(b)
}

// toolName returns the tools/call params.name member v unquoted, "" when it
// is not a string; a name without escapes is copied once, not unquoted.
func toolName(v jsontext.Value) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return ""
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	n, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return ""
	}
	return string(n)
}
