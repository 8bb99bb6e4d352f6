package session

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/reqstate"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// inputRequiredResult is the result type of a stateless request's answer
// that asks the client for input first (multi round-trip requests, MRTR).
// The methods whose results include it may ask.
const inputRequiredResult = "InputRequiredResult"

// MaxInputRounds bounds how often a legacy session runs a handler again
// after fetching the input it asked for by returning an
// *InputRequiredError (see Ask).
const MaxInputRounds = 8

// InputRequest is a request for input the server needs from the client: an
// elicitation (elicitation/create), a sampling request
// (sampling/createMessage) or a roots listing (roots/list), by method and
// params (encoded in the handler's revision; nil for none).
type InputRequest struct {
	Method string
	Params wire.Appender
}

// InputRequiredError is returned by Ask when the client must first answer
// input requests, on a stateless request (2026-07-28 on): the handler
// returns it as its error, the runtime answers the request with an
// InputRequiredResult carrying Requests, and when the client retries with
// the answers the handler runs again, and Ask returns them. A handler may
// also return one itself; on a legacy session the runtime then sends the
// requests to the client and runs the handler again with the answers.
type InputRequiredError struct {
	// Requests are the input requests by key. The keys are the handler's
	// own: the answers come back under the same keys.
	Requests map[string]InputRequest
}

func (e *InputRequiredError) Error() string {
	keys := make([]string, 0, len(e.Requests))
	for k := range e.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "input required from the client: " + strings.Join(keys, ", ")
}

// StateSealer seals the requestState of an InputRequiredResult and opens it
// when the client echoes it: the client is untrusted, so the state must be
// authenticated (and should be encrypted, expire, and be bound to the
// server and the request: StateAudienceOf(ctx), method, params and
// PrincipalOf(ctx)). SealWith makes one of runtime/reqstate.
type StateSealer interface {
	// Seal returns payload sealed for the request method with params.
	Seal(ctx context.Context, method string, params jsontext.Value, payload []byte) (string, error)
	// Open returns the payload of state, which must have been sealed for
	// the request method with params (inputResponses and requestState
	// aside), or an error saying why it cannot be trusted. An error that
	// wraps reqstate.ErrUnknownKey says the state was sealed by a key this
	// server does not have (an earlier process's, a retired one): the
	// request then starts over, as if it came with neither requestState
	// nor inputResponses. Any other error fails the request with -32602.
	Open(ctx context.Context, state, method string, params jsontext.Value) ([]byte, error)
}

// roundInput is what a stateless request's handler has of the client's
// input: the answers of earlier rounds (from the sealed requestState) and
// of this retry (inputResponses), and the handler's own state.
type roundInput struct {
	mu       sync.Mutex
	answers  map[string]jsontext.Value
	state    []byte
	newState []byte
	setState bool
}

// split returns the answers in hand for reqs, and the requests that have
// none yet.
func (in *roundInput) split(reqs map[string]InputRequest) (map[string]jsontext.Value, map[string]InputRequest) {
	out := make(map[string]jsontext.Value, len(reqs))
	missing := map[string]InputRequest{}
	in.mu.Lock()
	defer in.mu.Unlock()
	for k, r := range reqs {
		if a, ok := in.answers[k]; ok {
			out[k] = a
		} else {
			missing[k] = r
		}
	}
	return out, missing
}

// openRound reads a stateless request's inputResponses and requestState
// into in, which is empty.
// A state sealed by a key the server does not have (reqstate.ErrUnknownKey:
// a state of an earlier process, or of a retired key) can be neither
// trusted nor blamed on the client: the request starts over, with no
// answers at all, since the inputResponses answer questions of a round this
// server knows nothing of. startedOver reports that. Every other state that
// does not open is -32602.
func openRound(ctx context.Context, sealer StateSealer, method string, sp *StatelessParams, in *roundInput) (startedOver bool, jerr *jsonrpc.Error) {
	params := sp.params
	if raw, ok := sp.requestState, sp.hasRequestState; ok {
		var state string
		if err := wire.DecodeValue(raw, &state); err != nil {
			return false, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /requestState: not a string", method)
		}
		if sealer == nil {
			return false, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /requestState: this server issued no state", method)
		}
		payload, err := sealer.Open(ctx, state, method, params)
		if errors.Is(err, reqstate.ErrUnknownKey) {
			return true, nil
		}
		if err != nil {
			return false, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /requestState: %v", method, err)
		}
		var p statePayload
		if err := wire.DecodeValue(payload, &p); err != nil {
			return false, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /requestState: unreadable: %v", method, err)
		}
		in.answers = p.Answers
		in.state = p.State
	}
	if raw, ok := sp.inputResponses, sp.hasInputResponses; ok {
		var answers map[string]jsontext.Value
		if err := wire.DecodeValue(raw, &answers); err != nil {
			return false, jsonrpc.Errorf(jsonrpc.InvalidParams, "%s params: /inputResponses: %v", method, err)
		}
		if in.answers == nil {
			in.answers = make(map[string]jsontext.Value, len(answers))
		}
		for k, v := range answers {
			in.answers[k] = v
		}
	}
	return false, nil
}

// statePayload is what the runtime keeps in a sealed requestState: the
// answers of the rounds so far and the handler's state.
type statePayload struct {
	Answers map[string]jsontext.Value `json:"a,omitempty"`
	State   []byte                    `json:"s,omitempty"`
}

// inputRequired makes the InputRequiredResult for the input requests of
// ir: the requests the client has not answered yet (only of kinds
// the client declared), and the state sealed.
func inputRequired(ctx context.Context, sealer StateSealer, method string, params jsontext.Value, ir *InputRequiredError) (jsontext.Value, *jsonrpc.Error) {
	ri := ctx.Value(requestKey{}).(*requestInfo)
	mi := ri.mod()
	if len(ir.Requests) == 0 {
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "%s: the handler asked for input but named none", method)
	}
	keys := make([]string, 0, len(ir.Requests))
	for k := range ir.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if jerr := inputAllowed(mi, ir.Requests[k]); jerr != nil {
			return nil, jerr
		}
	}
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"resultType":`)
	e.String("input_required")
	e.Name(`"inputRequests":`)
	e.BeginObject()
	for _, k := range keys {
		r := ir.Requests[k]
		q, _ := jsontext.AppendQuote(nil, k)
		e.Name(string(q) + ":")
		e.BeginObject()
		e.Name(`"method":`)
		e.String(r.Method)
		if r.Params != nil {
			p, err := r.Params.AppendJSON(nil)
			if err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.InternalError, "%s: input request %q: %v", method, k, err)
			}
			if len(p) > 0 {
				e.Name(`"params":`)
				e.Raw(p)
			}
		}
		e.EndObject()
	}
	e.EndObject()
	if sealer != nil {
		p := statePayload{}
		if in := mi.input; in != nil {
			in.mu.Lock()
			p.Answers = in.answers
			p.State = in.state
			if in.setState {
				p.State = in.newState
			}
			in.mu.Unlock()
		}
		payload, err := wire.EncodeValue(p)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.InternalError, "%s: requestState: %v", method, err)
		}
		state, err := sealer.Seal(ctx, method, params, payload)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.InternalError, "%s: sealing requestState: %v", method, err)
		}
		e.Name(`"requestState":`)
		e.String(state)
	}
	e.EndObject()
	b, err := e.Bytes()
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "%s: %v", method, err)
	}
	return b, nil
}

// inputAllowed checks an input request against the capabilities the
// stateless request declared: -32021 naming the missing one.
func inputAllowed(mi *modernInfo, r InputRequest) *jsonrpc.Error {
	md := mi.rev.Find(r.Method)
	if md == nil || !md.Embedded {
		return jsonrpc.Errorf(jsonrpc.InternalError, "the handler asked for input with %q, which is not an input request of revision %s", r.Method, mi.rev.Name)
	}
	if md.Gate != "" && !HasCapability(mi.caps, md.Gate) {
		return MissingCapabilityError(md.Gate)
	}
	if r.Method == "elicitation/create" && r.Params != nil {
		p, err := r.Params.AppendJSON(nil)
		if err != nil {
			return jsonrpc.Errorf(jsonrpc.InternalError, "elicitation/create params: %v", err)
		}
		if mode, ok := elicitationModeOK(mi.caps, p); !ok {
			return MissingCapabilityError("elicitation." + mode)
		}
	}
	return nil
}

// Ask asks the client for the inputs in reqs and returns the answers by
// the same keys, each the raw result (ElicitResult, CreateMessageResult or
// ListRootsResult). Handlers call it the same way in both eras:
//
//   - On a legacy session (initialize, up to 2025-11-25) it sends the
//     requests to the client, at once, and waits for the answers.
//   - On a stateless request (2026-07-28 on), the answers come with the
//     client's retry. When one is missing, Ask returns an
//     *InputRequiredError: the handler returns it (as any error), the
//     runtime answers InputRequiredResult, and the handler runs again, from
//     the start, on the retry. Keys must therefore name the same question
//     from run to run; answers of earlier rounds are kept (sealed in
//     requestState) so that a handler may ask in several rounds.
//
// A client that cannot answer an input request fails it. On a stateless
// request the runtime answers -32021 naming the capability the request did
// not declare. On a legacy session Ask returns an error wrapping
// ErrClientCannotAnswer, saying which capability the client did not
// declare in initialize or that the session's revision has no such
// request, and sends none of reqs; a tool handler that returns it gives
// its caller a tool result with isError (see the ready-made server's
// ToolHandler). ClientCan tells in advance.
//
// A handler that runs outside its request round (a task) asks through the
// Asker of its context instead (see WithAsker).
func Ask(ctx context.Context, reqs map[string]InputRequest) (map[string]jsontext.Value, error) {
	if a, ok := ctx.Value(askerKey{}).(Asker); ok && a != nil {
		return a(ctx, reqs)
	}
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return nil, errors.New("session.Ask: the context is not a request handler's")
	}
	if mi := ri.mod(); mi != nil {
		in := mi.input
		if in == nil {
			return nil, fmt.Errorf("session.Ask: %s cannot ask the client for input", mi.method)
		}
		out, missing := in.split(reqs)
		if len(missing) > 0 {
			return nil, &InputRequiredError{Requests: missing}
		}
		return out, nil
	}
	if ri.s == nil {
		return nil, errors.New("session.Ask: no session to ask")
	}
	if in, ok := ctx.Value(roundKey{}).(*roundInput); ok {
		// Run again by bridgeInput: the answers it fetched count.
		out, rest := in.split(reqs)
		if len(rest) > 0 {
			more, err := ri.s.askAll(ctx, rest)
			if err != nil {
				return nil, err
			}
			for k, v := range more {
				out[k] = v
			}
		}
		return out, nil
	}
	return ri.s.askAll(ctx, reqs)
}

// checkInputs returns an error wrapping ErrClientCannotAnswer, naming the
// key, when the client of this legacy session cannot answer one of reqs
// (the first by key), so that none is sent.
func (s *Session) checkInputs(reqs map[string]InputRequest) error {
	rev := s.Revision()
	if rev == nil || s.role != Server {
		return nil
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := reqs[k]
		if !isInputMethod(r.Method) {
			continue
		}
		var raw jsontext.Value
		if r.Method == "elicitation/create" && r.Params != nil {
			var err error
			if raw, err = r.Params.AppendJSON(nil); err != nil {
				return fmt.Errorf("input %q: %s params: %w", k, r.Method, err)
			}
		}
		if err := s.checkInput(rev, r.Method, raw); err != nil {
			return fmt.Errorf("input %q: %w", k, err)
		}
	}
	return nil
}

// askAll sends reqs to the client of a legacy session, at once, and
// returns their results by key; the first error fails them all.
func (s *Session) askAll(ctx context.Context, reqs map[string]InputRequest) (map[string]jsontext.Value, error) {
	if err := s.checkInputs(reqs); err != nil {
		return nil, err
	}
	type answer struct {
		key string
		raw jsontext.Value
		err error
	}
	ch := make(chan answer, len(reqs))
	for k, r := range reqs {
		go func() {
			raw, err := s.Call(ctx, r.Method, r.Params)
			ch <- answer{k, raw, err}
		}()
	}
	out := make(map[string]jsontext.Value, len(reqs))
	var first error
	for range reqs {
		a := <-ch
		if a.err != nil {
			if first == nil {
				first = fmt.Errorf("input %q: %w", a.key, a.err)
			}
			continue
		}
		out[a.key] = a.raw
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// RoundState returns the state the handler of ctx kept for itself with
// SetRoundState in an earlier round of the same stateless request (sealed
// in requestState), or nil. On a legacy session there are no rounds: it
// returns what SetRoundState set during this run.
func RoundState(ctx context.Context) []byte {
	in := roundOf(ctx)
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.setState {
		return in.newState
	}
	return in.state
}

// SetRoundState keeps state for the next round of the stateless request
// the handler of ctx answers, if it asks for input: the runtime seals it
// into requestState (authenticated and encrypted), and RoundState returns
// it on the retry. It returns false where there are no rounds to keep
// state for.
func SetRoundState(ctx context.Context, state []byte) bool {
	in := roundOf(ctx)
	if in == nil {
		return false
	}
	in.mu.Lock()
	in.newState = append([]byte(nil), state...)
	in.setState = true
	in.mu.Unlock()
	return true
}

func roundOf(ctx context.Context) *roundInput {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return nil
	}
	if ri.mod() != nil {
		return ri.mod().input
	}
	in, _ := ctx.Value(roundKey{}).(*roundInput)
	return in
}

// roundKey is the context key of the answers a legacy session fetched for
// a handler that asked for input by returning an *InputRequiredError.
type roundKey struct{}

// bridgeInput answers, on a legacy session, a handler that returned an
// *InputRequiredError: it sends the requests to the client and runs the
// handler again with the answers, at most MaxInputRounds times.
func (s *Session) bridgeInput(ctx context.Context, run func(context.Context) (wire.Appender, error), ir *InputRequiredError) (wire.Appender, error) {
	in := &roundInput{answers: map[string]jsontext.Value{}}
	rctx := context.WithValue(ctx, roundKey{}, in)
	for round := 1; ; round++ {
		if round > MaxInputRounds {
			return nil, jsonrpc.Errorf(jsonrpc.InternalError, "the handler asked for input more than %d times", MaxInputRounds)
		}
		answers, err := s.askAll(ctx, ir.Requests)
		if err != nil {
			return nil, err
		}
		in.mu.Lock()
		for k, v := range answers {
			in.answers[k] = v
		}
		in.mu.Unlock()
		res, err := run(rctx)
		if !errors.As(err, &ir) {
			return res, err
		}
	}
}

// SealWith returns a StateSealer that seals with s (runtime/reqstate): each
// state is bound to the audience of the server that seals it
// (StateAudienceOf), to its request's method and params (inputResponses,
// requestState and _meta aside) and to the principal of its context
// (PrincipalOf), and opens only for a retry of that request by that
// principal, at a server of the same audience, before s's expiry, with a
// key of s's ring. One Sealer may serve several servers: their audiences
// keep their states apart.
func SealWith(s *reqstate.Sealer) StateSealer { return reqSealer{s} }

type reqSealer struct{ s *reqstate.Sealer }

func (r reqSealer) binding(ctx context.Context, method string, params jsontext.Value) (reqstate.Binding, error) {
	d, err := paramsDigest(ctx, params)
	if err != nil {
		return reqstate.Binding{}, err
	}
	return reqstate.Binding{Audience: StateAudienceOf(ctx), Method: method, Params: d, Principal: PrincipalOf(ctx)}, nil
}

func (r reqSealer) Seal(ctx context.Context, method string, params jsontext.Value, payload []byte) (string, error) {
	b, err := r.binding(ctx, method, params)
	if err != nil {
		return "", err
	}
	return r.s.Seal(b, payload)
}

func (r reqSealer) Open(ctx context.Context, state, method string, params jsontext.Value) ([]byte, error) {
	b, err := r.binding(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return r.s.Open(state, b)
}

// processSealer is the default StateSealer: one random key per process,
// made when first used (a test stands for a restart by replacing it, see
// export_test.go).
var processSealer atomic.Pointer[reqSealer]

// defaultSealer returns the default StateSealer.
func defaultSealer() StateSealer {
	if s := processSealer.Load(); s != nil {
		return *s
	}
	processSealer.CompareAndSwap(nil, &reqSealer{&reqstate.Sealer{Ring: reqstate.NewEphemeralRing()}})
	return *processSealer.Load()
}

// sealer returns the StateSealer of opts, or the process's.
func sealer(opts Options) StateSealer {
	if opts.Sealer != nil {
		return opts.Sealer
	}
	return defaultSealer()
}

// stateAudienceKey is the context key of a request's StateAudience.
type stateAudienceKey struct{}

// WithStateAudience returns ctx naming aud as the audience of the
// requestState sealed and opened with it (see Options.StateAudience). A
// server puts its own on the context of every stateless request it serves,
// where it takes precedence over one in the values the server was given
// (those of an HTTP request, say): WithStateAudience is for calling a
// StateSealer outside a server, as a test or a server of one's own does.
func WithStateAudience(ctx context.Context, aud string) context.Context {
	return context.WithValue(ctx, stateAudienceKey{}, aud)
}

// StateAudienceOf returns the audience of the requestState of the request
// ctx belongs to: that of the server serving it (its
// Options.StateAudience, or the value unique to it that it made), or what
// WithStateAudience put in ctx; "" for none. SealWith binds states to it; a
// StateSealer of one's own should too.
func StateAudienceOf(ctx context.Context) string {
	a, _ := ctx.Value(stateAudienceKey{}).(string)
	return a
}

// stateAudience returns the StateAudience of the stateless requests s
// serves: Options.StateAudience, or one unique to s, made when the first
// arrives (most sessions never serve one).
func (s *Session) stateAudience() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.audience == "" {
		s.audience = stateAudience(s.opts)
	}
	return s.audience
}

// stateAudience returns the StateAudience of opts, or one unique to the
// server being made: the process's random prefix and a counter, unique in
// the process and, with the prefix, between processes.
func stateAudience(opts Options) string {
	if opts.StateAudience != "" {
		return opts.StateAudience
	}
	return "mcpgen:" + audiencePrefix() + ":" + strconv.FormatUint(audienceCount.Add(1), 10)
}

var (
	audiencePrefix = sync.OnceValue(func() string { return rand.Text()[:16] })
	audienceCount  atomic.Uint64
)

// paramsDigest returns reqstate.ParamsDigest(params), computed once per
// request when params are those the request's scan read: a retry that is
// asked for input again opens its state and seals the next with one digest.
func paramsDigest(ctx context.Context, params jsontext.Value) ([32]byte, error) {
	if ri, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		if mi := ri.mod(); mi != nil && mi.scan != nil && sameBytes(mi.scan.params, params) {
			return mi.scan.paramsDigest()
		}
	}
	if c := digestCount.Load(); c != nil {
		c.Add(1)
	}
	return reqstate.ParamsDigest(params)
}
