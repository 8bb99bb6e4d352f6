package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/internal/httpmsg"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// relayedKey is the context key of a request another instance of the
// fleet carried here: its value is the principal that instance found.
type relayedKey struct{}

// joinFleet makes s an instance of n's fleet.
func (s *Server) joinFleet(n *fleet.Node) error {
	if n.ID == "" || n.Sessions == nil || n.Relay == nil {
		return errors.New("ServerOptions.Fleet needs an ID, a SessionStore and a Relay (see fleet.NewNode)")
	}
	for _, r := range n.ID {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return fmt.Errorf("ServerOptions.Fleet.ID %q: an instance's ID is made of ASCII letters and digits only (it is part of SSE event ids)", n.ID)
		}
	}
	t, err := fleet.NewTunnel(context.Background(), n, s.serveRelayed, fleet.TunnelOptions{Logger: s.log, WriteTimeout: s.opts.WriteTimeout})
	if err != nil {
		return err
	}
	s.fleet, s.tunnel = n, t
	s.local = NewMemoryStore()
	if s.opts.EventStore == nil {
		s.log.Warn("mcp http: ServerOptions.Fleet is set without an EventStore the fleet shares: a GET stream cannot be resumed on another instance once its own is gone")
	}
	return nil
}

// storeFor returns the event store of the stream id: in a fleet, the
// shared EventStore keeps the GET streams and this instance's memory the
// POST streams, whose requests are answered here only.
func (s *Server) storeFor(id string) EventStore {
	if s.fleet != nil && len(id) > 2 && id[len(id)-2:] == "-0" {
		return s.store
	}
	return s.local
}

// dropEvents forgets the events of the stream id, unless the session was
// handed over to another instance, which carries its GET stream on.
func (c *conn) dropEvents(id string) {
	if c.handedOver.Load() && c.srv.storeFor(id) != c.srv.local {
		return
	}
	c.srv.storeFor(id).Drop(id)
}

// principalOf returns the principal r speaks for: the one another
// instance found, for a request it carried here; else ServerOptions.Principal.
func (s *Server) principalOf(r *http.Request) string {
	if p, ok := r.Context().Value(relayedKey{}).(string); ok {
		return p
	}
	return s.opts.Principal(r)
}

// serveRelayed serves a request another instance of the fleet carried
// here: that instance checked its Host, Origin and Gate, and found its
// principal, which the handlers see as session.PrincipalOf.
func (s *Server) serveRelayed(w http.ResponseWriter, r *http.Request, principal string) {
	ctx := context.WithValue(r.Context(), relayedKey{}, principal)
	r = r.WithContext(session.WithPrincipal(ctx, principal))
	s.dispatch(w, r)
}

// recordTTL is how long a session's record lives without a write: twice
// IdleTimeout, at least a minute; none when sessions never idle out. The
// owner renews it (see renew), so that it outlives the session only when
// the owner died.
func (s *Server) recordTTL() time.Duration {
	if s.opts.IdleTimeout < 0 {
		return 0
	}
	return max(2*s.opts.IdleTimeout, time.Minute)
}

// errStore refuses a request that needs the fleet's session store while it
// cannot be reached.
func errStore(w http.ResponseWriter, r *http.Request, body []byte, what string, err error) {
	errFleet(w, r, body, "%s: the fleet's session store did not answer (%v); try again", what, err)
}

// errFleet refuses a request for a session with 503 and a JSON-RPC error
// carrying the ids of its body's requests.
func errFleet(w http.ResponseWriter, r *http.Request, body []byte, format string, args ...any) {
	rf := refusal{rev: claimedRevision(r)}
	rf.ids, rf.batch = peekRequestIDs(body)
	refuse(w, rf, http.StatusServiceUnavailable, jsonrpc.InternalError, format, args...)
}

// forward serves a request that names a session this instance does not
// hold, and reports whether it did: it carries it to the session's owner,
// or, when the owner is gone, claims the session and carries it on here
// (then the request is served as any other, and forward reports false). A
// session the store does not know, or that belongs to another principal,
// is left to the usual 404.
func (s *Server) forward(w http.ResponseWriter, r *http.Request) bool {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return false
	}
	if _, relayed := r.Context().Value(relayedKey{}).(string); relayed {
		return false // the owner's own: a session it no longer has is gone
	}
	s.mu.Lock()
	_, local := s.sessions[sid]
	s.mu.Unlock()
	if local {
		return false
	}
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
		if err != nil {
			rf := refusal{rev: claimedRevision(r)}
			rf.ids, rf.batch = peekRequestIDs(body)
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				refuse(w, rf, http.StatusRequestEntityTooLarge, jsonrpc.InvalidRequest, "body larger than %d bytes", s.opts.MaxBodyBytes)
			} else {
				refuse(w, rf, http.StatusBadRequest, jsonrpc.ParseError, "reading the body: %v", err)
			}
			return true
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	ctx, cancel := s.fleet.Context(r.Context())
	defer cancel()
	rec, err := s.fleet.Sessions.Load(ctx, sid)
	if errors.Is(err, fleet.ErrNotFound) {
		return false
	}
	if err != nil {
		errStore(w, r, body, "finding the session", err)
		return true
	}
	principal := s.principalOf(r)
	if !s.opts.UnboundSessions && principal != rec.Principal {
		s.log.Warn("mcp http: a request names a session of another principal; answered as if it did not exist",
			"sessionTag", httpmsg.Tag(sid), "method", r.Method, "remote", r.RemoteAddr)
		return false // answered 404 as a session that does not exist
	}
	for range 3 {
		if rec.Owner == s.fleet.ID {
			return false // it ends here (a DELETE, the reaper): gone
		}
		if rec.Owner != "" {
			err := s.tunnel.Forward(w, r, body, rec.Owner, principal)
			if err == nil {
				return true
			}
			if !errors.Is(err, fleet.ErrOwnerGone) {
				errFleet(w, r, body, "the request could not be carried to the instance that holds the session, or its answer back (%v); try again", err)
				return true
			}
		}
		// The owner is gone (or released the session): carry it on here.
		if rec, err = s.fleet.Sessions.Claim(ctx, sid, rec.Owner, s.fleet.ID, s.recordTTL()); errors.Is(err, fleet.ErrNotFound) {
			return false
		} else if err != nil {
			errStore(w, r, body, "taking the session over", err)
			return true
		}
		if rec.Owner != s.fleet.ID {
			continue // another instance took it first: carry the request there
		}
		if err := s.resume(r, sid, rec); errors.Is(err, errNoRoomHere) {
			// Not this instance's to carry now: released for another.
			s.fleet.Sessions.Claim(ctx, sid, s.fleet.ID, "", s.recordTTL())
			rf := refusal{rev: claimedRevision(r)}
			rf.ids, rf.batch = peekRequestIDs(body)
			refuse(w, rf, http.StatusServiceUnavailable, session.Busy, "the session's instance is gone, and this one cannot take it over now (%v); try again", err)
			return true
		} else if err != nil {
			s.log.Warn("mcp http: a session of the fleet could not be carried on here; it is ended", "err", err)
			s.fleet.Sessions.Delete(ctx, sid)
			return false
		}
		s.log.Debug("mcp http: session taken over from an instance that is gone", "sessionTag", httpmsg.Tag(sid))
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		return false
	}
	errFleet(w, r, body, "taking the session over: it changed hands three times while this request waited; try again")
	return true
}

// sessionOptions returns the options of a session on c: in a fleet, each
// change of its state is saved to its record.
func (s *Server) sessionOptions(c *conn) session.Options {
	opts := s.opts.Session
	if s.fleet == nil {
		return opts
	}
	user := opts.OnLegacyState
	opts.OnLegacyState = func(st session.LegacyState) {
		c.saveState(st)
		if user != nil {
			user(st)
		}
	}
	return opts
}

// saveState saves st to c's record. When another instance has claimed
// the session meanwhile, this one lets it go.
func (c *conn) saveState(st session.LegacyState) {
	s := c.srv
	b, err := json.Marshal(st)
	if err != nil {
		s.log.Error("mcp http: encoding a session's state", "sessionTag", c.tag(), "err", err)
		return
	}
	ctx, cancel := s.fleet.Context(context.Background())
	defer cancel()
	ok, err := s.fleet.Sessions.Save(ctx, c.id, s.fleet.ID, b, s.recordTTL())
	if err != nil {
		s.log.Warn("mcp http: saving a session's state to the fleet's store", "sessionTag", c.tag(), "err", err)
		return
	}
	c.mu.Lock()
	c.saved = time.Now()
	c.mu.Unlock()
	if !ok {
		s.log.Warn("mcp http: another instance took the session over; it ends here", "sessionTag", c.tag())
		c.handedOver.Store(true)
		s.forget(c)
		go c.sess.Close()
	}
}

// renew saves the state of each session not saved for a third of its
// record's TTL, so that its record outlives it only when this instance
// dies.
func (s *Server) renew(conns []*conn) {
	ttl := s.recordTTL()
	if s.fleet == nil || ttl <= 0 {
		return
	}
	for _, c := range conns {
		c.mu.Lock()
		due := time.Since(c.saved) > ttl/3
		c.mu.Unlock()
		if !due {
			continue
		}
		if st, ok := c.sess.LegacyState(); ok {
			c.saveState(st)
		}
	}
}

// errNoRoomHere is wrapped by the error of resume when this instance
// cannot take a session now (it is full, or closing, or the event store
// did not answer), whose record is then left for another try.
var errNoRoomHere = errors.New("this instance cannot carry the session on now")

// resume carries on here the session sid, from its record; r is the
// request that brought it here.
func (s *Server) resume(r *http.Request, sid string, rec fleet.Record) error {
	if len(rec.State) == 0 {
		return errors.New("its record holds no state: its initialize was never answered")
	}
	st, err := session.UnmarshalLegacyState(rec.State)
	if err != nil {
		return fmt.Errorf("its record's state: %w", err)
	}
	c := s.makeConn(r, sid, rec.Principal)
	// The GET stream goes on where the last owner left it in the shared
	// store: a client resumes it with its Last-Event-ID.
	g := c.standaloneLocked() // c is not published yet: no lock
	evs, _, err := s.store.After(g.id, 0)
	if err != nil {
		return fmt.Errorf("%w: reading its GET stream's events: %w", errNoRoomHere, err)
	}
	var last int64
	if ls, ok := s.store.(LastSeqer); ok {
		// The events kept may all have been discarded: the numbering
		// goes on from the last one appended.
		seq, ok, err := ls.LastSeq(g.id)
		if err != nil {
			return fmt.Errorf("%w: reading its GET stream's last event: %w", errNoRoomHere, err)
		}
		if ok {
			last = seq
		}
	}
	if len(evs) > 0 {
		last = max(last, evs[len(evs)-1].Seq)
		g.first = evs[0].Seq
		for _, ev := range evs {
			g.sizes = append(g.sizes, len(ev.Data))
			g.sentBytes += int64(len(ev.Data))
		}
	} else {
		g.first = last + 1
	}
	// Taken as sent: a client resumes them with its Last-Event-ID.
	g.last, g.delivered = last, last
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("%w: it is shutting down", errNoRoomHere)
	}
	if limit := s.quota.Acquire(c.principal); limit != nil {
		s.mu.Unlock()
		if limit.PerPrincipal {
			return fmt.Errorf("%w: it holds its limit of %d sessions of this user", errNoRoomHere, limit.Max)
		}
		return fmt.Errorf("%w: it holds its limit of %d sessions", errNoRoomHere, limit.Max)
	}
	s.live.Add(1) // Done by conn.Close
	sess, err := session.Resume(c, s.newHandler(), s.sessionOptions(c), st)
	if err != nil {
		s.mu.Unlock()
		s.quota.Release(c.principal)
		s.live.Done()
		return err
	}
	c.sess = sess
	c.saved = time.Now()
	s.sessions[c.id] = c
	s.peak = max(s.peak, len(s.sessions))
	s.mu.Unlock()
	return nil
}

// endRecord removes the record of a session that ended here; one handed
// over by Close is released instead, and one whose instance is taken for
// dead (another claimed it) is left alone.
func (c *conn) endRecord() {
	s := c.srv
	if s.fleet == nil || c.handedOver.Load() && !c.release.Load() {
		return
	}
	ctx, cancel := s.fleet.Context(context.Background())
	defer cancel()
	if c.release.Load() {
		if _, err := s.fleet.Sessions.Claim(ctx, c.id, s.fleet.ID, "", s.recordTTL()); err != nil && !errors.Is(err, fleet.ErrNotFound) {
			s.log.Warn("mcp http: releasing a session to the fleet; another instance takes it over once this one is gone", "sessionTag", c.tag(), "err", err)
		}
		return
	}
	if err := s.fleet.Sessions.Delete(ctx, c.id); err != nil {
		s.log.Warn("mcp http: removing an ended session's record from the fleet's store; it expires by itself", "sessionTag", c.tag(), "err", err)
	}
}
