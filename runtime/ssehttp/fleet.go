package ssehttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// fleetService is the service of this transport's tunnel on a fleet's
// Node, apart from Streamable HTTP's.
const fleetService = "sse"

// recordTTL is how long a session's record lives in the fleet's store
// without being renewed: the stream renews it every third of it (see
// conn.serve), so that it outlives the session only when its instance
// died.
const recordTTL = 10 * time.Minute

// relayedKey is the context key of a POST another instance of the fleet
// carried here: its value is the principal that instance found.
type relayedKey struct{}

// joinFleet makes s an instance of n's fleet.
func (s *Server) joinFleet(n *fleet.Node) error {
	if n.ID == "" || n.Sessions == nil || n.Relay == nil {
		return errors.New("ssehttp: ServerOptions.Fleet needs an ID, a SessionStore and a Relay (see fleet.NewNode)")
	}
	t, err := fleet.NewTunnel(context.Background(), n, s.serveRelayed, fleet.TunnelOptions{Service: fleetService, Logger: s.log})
	if err != nil {
		return fmt.Errorf("ssehttp: ServerOptions.Fleet: %w", err)
	}
	s.fleet, s.tunnel = n, t
	return nil
}

// principalOf returns the principal r speaks for: the one another
// instance found, for a POST it carried here; else ServerOptions.Principal.
func (s *Server) principalOf(r *http.Request) string {
	if p, ok := relayedPrincipal(r); ok {
		return p
	}
	return s.opts.Principal(r)
}

// relayedPrincipal returns the principal of a POST another instance
// carried here, and false for any other request.
func relayedPrincipal(r *http.Request) (string, bool) {
	p, ok := r.Context().Value(relayedKey{}).(string)
	return p, ok
}

// serveRelayed serves a POST another instance of the fleet carried here,
// as a local one: that instance checked its Host, Origin and Gate, and
// found its principal, which the handlers see as session.PrincipalOf.
func (s *Server) serveRelayed(w http.ResponseWriter, r *http.Request, principal string) {
	if r.Method != http.MethodPost {
		// Only POSTs are carried: a stream is served where it was opened.
		w.Header().Set("Allow", "POST")
		refuse(w, http.StatusMethodNotAllowed, nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "method %s is not carried between the instances of a fleet: only POST is", r.Method))
		return
	}
	ctx := context.WithValue(r.Context(), relayedKey{}, principal)
	s.post(w, r.WithContext(session.WithPrincipal(ctx, principal)))
}

// renewRecord renews the record of c in the fleet's store, and writes it
// anew when the store lost it (the store restarted, or the record expired
// while the store could not be reached), so that POSTs through other
// instances find the session again.
func (c *conn) renewRecord() {
	s := c.srv
	ctx, cancel := s.fleet.Context(context.Background())
	defer cancel()
	ok, err := s.fleet.Sessions.Save(ctx, c.id, s.fleet.ID, nil, s.recordTTL)
	if err == nil && !ok {
		ok, err = s.fleet.Sessions.Create(ctx, c.id, fleet.Record{Owner: s.fleet.ID, Principal: c.principal}, s.recordTTL)
		if err == nil && !ok {
			err = errors.New("another record holds its id")
		}
	}
	if err != nil {
		s.log.Warn("mcp sse: renewing a session's record in the fleet's store failed; POSTs through other instances may not find it", "sessionTag", c.tag(), "err", err)
	}
}

// deleteRecord removes the record of c from the fleet's store: its stream
// has ended.
func (c *conn) deleteRecord() {
	s := c.srv
	if s.fleet == nil || s.dead.Load() {
		return
	}
	ctx, cancel := s.fleet.Context(context.Background())
	defer cancel()
	if err := s.fleet.Sessions.Delete(ctx, c.id); err != nil {
		s.log.Warn("mcp sse: deleting an ended session's record from the fleet's store failed; it expires by itself", "sessionTag", c.tag(), "err", err)
	}
}

// errSessionNotFound answers a POST naming a session that does not exist,
// whose stream has ended, or that belongs to another principal. The
// message does not repeat the id: the client knows which it sent, and
// what it logs of the message then holds none.
func errSessionNotFound() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.InvalidRequest,
		"session not found: the sessionId names no session, one whose SSE stream has ended, or one of another user; open a new one with GET")
}

// forward serves a POST naming session sid, which this instance does not
// hold: it carries it to the instance that holds the session's stream, as
// the fleet's store records it. A session the store does not know, whose
// instance is gone, or that belongs to another principal, gets 404.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, sid string) {
	ctx, cancel := s.fleet.Context(r.Context())
	defer cancel()
	rec, err := s.fleet.Sessions.Load(ctx, sid)
	if errors.Is(err, fleet.ErrNotFound) {
		refuse(w, http.StatusNotFound, nil, errSessionNotFound())
		return
	}
	if err != nil {
		s.log.Warn("mcp sse: a POST was refused: the fleet's session store did not answer", "err", err)
		body, _ := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBodyBytes))
		s.unavailable(w, body, "finding the session: the fleet's session store did not answer (%v); try again", err)
		return
	}
	principal := s.principalOf(r)
	if rec.Owner == s.fleet.ID || rec.Owner == "" {
		// Its stream was here, and has ended: the record should have
		// gone with it (its Delete failed, or runs now).
		s.deleteStale(r, sid)
		refuse(w, http.StatusNotFound, nil, errSessionNotFound())
		return
	}
	if !s.opts.UnboundSessions && principal != rec.Principal {
		s.log.Warn("mcp sse: a POST names a session of another principal; answered as if it did not exist",
			"sessionTag", httpmsg.Tag(sid), "remote", r.RemoteAddr)
		refuse(w, http.StatusNotFound, nil, errSessionNotFound())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		rf := &refusal{}
		rf.ids, rf.batch = httpmsg.PeekRequestIDs(body)
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(w, http.StatusRequestEntityTooLarge, rf, jsonrpc.Errorf(jsonrpc.InvalidRequest, "body larger than %d bytes", s.opts.MaxBodyBytes))
			return
		}
		refuse(w, http.StatusBadRequest, rf, jsonrpc.Errorf(jsonrpc.ParseError, "reading the body: %v", err))
		return
	}
	err = s.tunnel.Forward(w, r, body, rec.Owner, principal)
	switch {
	case err == nil:
	case errors.Is(err, fleet.ErrOwnerGone):
		// The stream died with its instance, and HTTP+SSE has no
		// resumption: the session has ended. Its record goes.
		s.log.Debug("mcp sse: a POST names a session whose instance is gone; its record is deleted", "sessionTag", httpmsg.Tag(sid))
		s.deleteStale(r, sid)
		refuse(w, http.StatusNotFound, nil, errSessionNotFound())
	default:
		s.log.Warn("mcp sse: a POST could not be carried to the instance that holds its session's stream", "err", err)
		s.unavailable(w, body, "carrying the message to the instance that holds the session's stream failed (%v); try again", err)
	}
}

// deleteStale deletes the record of session sid, which has ended.
func (s *Server) deleteStale(r *http.Request, sid string) {
	ctx, cancel := s.fleet.Context(r.Context())
	defer cancel()
	if err := s.fleet.Sessions.Delete(ctx, sid); err != nil {
		s.log.Warn("mcp sse: deleting the record of an ended session failed; it expires by itself", "sessionTag", httpmsg.Tag(sid), "err", err)
	}
}

// unavailable refuses a POST whose body is body with 503: the fleet's
// store or relay did not answer. Each request of the body gets the error.
func (s *Server) unavailable(w http.ResponseWriter, body []byte, format string, args ...any) {
	rf := &refusal{}
	rf.ids, rf.batch = httpmsg.PeekRequestIDs(body)
	refuse(w, http.StatusServiceUnavailable, rf, jsonrpc.Errorf(jsonrpc.InternalError, format, args...))
}
