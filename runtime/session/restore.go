package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// LegacyState is what a server session of the initialize era (2025-11-25
// and before) negotiated, and what its client set since: enough for
// another process to carry the session on (Resume) when the one that held
// it is gone. Servers that run as several instances keep it in a store
// they share, saved after each change (Options.OnLegacyState).
//
// Its JSON form (json.Marshal from github.com/go-json-experiment/json;
// UnmarshalLegacyState to read it back) is stable across the versions of
// mcpgen of one major version, so that the instances of a fleet being
// upgraded one by one read each other's: members are only ever added,
// and a reader ignores those it does not know.
type LegacyState struct {
	// Revision is the negotiated protocol revision, such as "2025-06-18".
	Revision string `json:"revision"`
	// ServerCapabilities is the capabilities object the server declared in
	// its answer to initialize.
	ServerCapabilities jsontext.Value `json:"serverCapabilities,omitzero"`
	// ClientCapabilities is the capabilities object of the client's
	// initialize.
	ClientCapabilities jsontext.Value `json:"clientCapabilities,omitzero"`
	// ClientInfo is the clientInfo object of the client's initialize.
	ClientInfo jsontext.Value `json:"clientInfo,omitzero"`
	// LogLevel is the level the client set with logging/setLevel, "" when
	// it set none.
	LogLevel string `json:"logLevel,omitzero"`
	// Subscriptions are the URIs of the resources the client subscribed
	// to (resources/subscribe), sorted, as far as the engine keeps them:
	// for a handler of the stateless era (2026-07-28 on), which has no
	// resources/subscribe, the engine answers them and tells the session
	// of the updates its handler's Bus carries. A handler of the
	// initialize era keeps its subscriptions itself: they are not here.
	Subscriptions []string `json:"subscriptions,omitzero"`
	// Initialized reports whether the client sent notifications/initialized:
	// until then the server sends it no requests.
	Initialized bool `json:"initialized,omitzero"`
}

// UnmarshalLegacyState decodes the JSON form of a LegacyState and checks
// it as Resume does: a revision that is not linked into the binary, or
// that does not begin with initialize, capabilities that are not JSON
// objects and an unknown log level are errors that name the member.
// Members it does not know are ignored (see LegacyState).
func UnmarshalLegacyState(data []byte) (LegacyState, error) {
	var st LegacyState
	if err := json.Unmarshal(data, &st); err != nil {
		return LegacyState{}, fmt.Errorf("legacy session state: %w", err)
	}
	if err := st.check(); err != nil {
		return LegacyState{}, err
	}
	return st, nil
}

// check reports what makes st unfit for Resume.
func (st LegacyState) check() error {
	if st.Revision == "" {
		return errors.New("legacy session state: revision: missing")
	}
	rev, ok := revision.Lookup(st.Revision)
	if !ok {
		return fmt.Errorf("legacy session state: revision %s: %w: %s", quoteBounded(st.Revision), ErrUnknownRevision, unknownHint(st.Revision))
	}
	if !rev.Handshake() {
		return fmt.Errorf("legacy session state: revision %s is of the stateless era: a legacy session's revision begins with initialize (2025-11-25 and before)", rev.Name)
	}
	for _, m := range []struct {
		name     string
		v        jsontext.Value
		required bool
	}{
		{"serverCapabilities", st.ServerCapabilities, true},
		{"clientCapabilities", st.ClientCapabilities, true},
		{"clientInfo", st.ClientInfo, false},
	} {
		if err := checkObject(m.v, m.required); err != nil {
			return fmt.Errorf("legacy session state: %s: %w", m.name, err)
		}
	}
	if st.LogLevel != "" && levelIndex(st.LogLevel) < 0 {
		return fmt.Errorf("legacy session state: logLevel: unknown level %s (want one of %s)", quoteBounded(st.LogLevel), strings.Join(logLevels, ", "))
	}
	return nil
}

// checkObject reports whether v is one JSON object (or nil, when not
// required).
func checkObject(v jsontext.Value, required bool) error {
	if v == nil {
		if required {
			return errors.New("missing")
		}
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	val, err := dec.ReadValue()
	if err != nil {
		return fmt.Errorf("malformed JSON: %w", err)
	}
	k := val.Kind() // val is good until the next read
	if _, err := dec.ReadToken(); err != io.EOF {
		return errors.New("malformed JSON: more follows the value")
	}
	if k != '{' {
		return fmt.Errorf("want a JSON object, got %s", wire.KindName(k))
	}
	return nil
}

// quoteBounded quotes s, cut to 32 bytes: a value read from a store,
// quoted back in an error.
func quoteBounded(s string) string {
	if len(s) > 32 {
		return fmt.Sprintf("%q…", s[:32])
	}
	return fmt.Sprintf("%q", s)
}

// LegacyState returns a snapshot of the state of a server session of the
// initialize era, and true; false for a client's session, a session that
// serves the stateless era, one whose initialize has not been answered
// yet, and one that has begun to end.
func (s *Session) LegacyState() (LegacyState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.role != Server || s.rev == nil || !s.rev.Handshake() || (s.state != stateInitializing && s.state != stateReady) {
		return LegacyState{}, false
	}
	st := LegacyState{
		Revision:           s.rev.Name,
		ServerCapabilities: orEmpty(s.ownCaps),
		ClientCapabilities: orEmpty(s.peerCaps),
		ClientInfo:         cloneValue(s.peerInfo),
		Initialized:        s.state == stateReady,
	}
	if s.logSet {
		st.LogLevel = logLevels[s.logLevel]
	}
	for uri := range s.subs {
		st.Subscriptions = append(st.Subscriptions, uri)
	}
	slices.Sort(st.Subscriptions)
	return st, true
}

// orEmpty returns a copy of the object v, or an empty object for nil.
func orEmpty(v jsontext.Value) jsontext.Value {
	if v == nil {
		return jsontext.Value(`{}`)
	}
	return cloneValue(v)
}

// legacyChanged calls Options.OnLegacyState with the session's state after
// a change of it, one call at a time (see Options.OnLegacyState). The
// session's lock must not be held.
func (s *Session) legacyChanged() {
	fn := s.opts.OnLegacyState
	if fn == nil || s.role != Server {
		return
	}
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if st, ok := s.LegacyState(); ok {
		fn(st)
	}
}

// Resume starts a server session on t that carries on the legacy session
// whose state is st, as another process held it: it serves the client at
// st's revision, with the capabilities, client information, log level and
// resource subscriptions st records, ready for requests to the client when
// st.Initialized (otherwise once notifications/initialized comes), and
// from then on behaves as that session would have: results are converted
// to its revision, log messages below its level are not sent, the events
// of the handler's Bus reach it as they reach the sessions the handler
// initialized itself, and a second initialize is refused. opts are as for
// New (a handler that is an OptionsHandler merges its own); its
// OnLegacyState is called for the changes that follow, not for st.
//
// Its requests to the client are numbered from a random offset rather
// than from 1: the client may still hold a request of the process that
// held the session before, and its answer, posted now, must not be taken
// for the answer to one of this session's (it is dropped as the answer to
// no request). The offset is below 2^53, so that every id stays exact in
// a client that keeps JSON numbers as doubles.
//
// A handler of the initialize era learns of the session only from what it
// handles: a generated StandardServer of those revisions keeps its own
// subscriptions and tells a session of list changes once it has handled a
// resources/subscribe from it. A fleet serves legacy sessions with a
// handler of the stateless era, whose subscriptions and list changes the
// engine keeps (see Bus).
//
// It fails, starting nothing, when st does not check (see
// UnmarshalLegacyState), when opts.Revisions do not allow st's revision,
// when st has subscriptions and h does not speak the stateless era (the
// engine keeps subscriptions only for such a handler, see
// LegacyState.Subscriptions), and when h is no server's handler. On
// failure t is left to the caller.
func Resume(t transport.Transport, h Handler, opts Options, st LegacyState) (*Session, error) {
	if t == nil {
		return nil, errors.New("session: resume: no transport")
	}
	if h == nil || h.Revision() == nil {
		return nil, errors.New("session: resume: the handler names no revision: want a server's handler, such as a generated package's NewServerHandler or a StandardServer's Handler")
	}
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("session: resume: %w", err)
	}
	rev, _ := revision.Lookup(st.Revision)
	if len(st.Subscriptions) > 0 && !Modern(h) {
		return nil, fmt.Errorf("session: resume: the state has %d resource subscriptions, which the engine keeps only for a handler of the stateless era; this handler speaks %s and keeps its own", len(st.Subscriptions), h.Revision().Name)
	}
	s := newSession(Server, t, h, opts)
	if s.opts.Revisions != nil && !slices.Contains(s.opts.Revisions, rev.Name) {
		return nil, fmt.Errorf("session: resume: revision %s is not among the revisions this server allows (%s)", rev.Name, strings.Join(s.opts.Revisions, ", "))
	}
	s.rev = rev
	s.ownCaps = cloneValue(st.ServerCapabilities)
	s.peerCaps = cloneValue(st.ClientCapabilities)
	s.peerInfo = cloneValue(st.ClientInfo)
	if st.LogLevel != "" {
		s.logLevel, s.logSet = levelIndex(st.LogLevel), true
	}
	for _, uri := range st.Subscriptions {
		if s.subs == nil {
			s.subs = map[string]bool{}
		}
		s.subs[uri] = true
	}
	s.state = stateInitializing
	if st.Initialized {
		s.state = stateReady
	}
	s.nextID = resumedFirstID()
	s.start()
	if s.modern {
		s.follow()
	}
	return s, nil
}

// resumedFirstID returns where a resumed session's request ids start (see
// Resume): at random in [2^20, 2^20+2^52), so that they are neither those
// of a session that was not resumed (which number from 1) nor, but by a
// chance of about n in 2^52 for n requests, those of another resumed one;
// and stay below 2^53.
func resumedFirstID() int64 {
	return 1<<20 + rand.Int64N(1<<52)
}
