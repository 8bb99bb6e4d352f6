package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Side is who sent a message.
type Side uint8

// The sides. AnySide means unknown: the sender of a request is then told
// from its method where the method goes one way only.
const (
	AnySide Side = iota
	Client
	Server
)

func (s Side) String() string {
	switch s {
	case Client:
		return "client"
	case Server:
		return "server"
	}
	return "either side"
}

// other returns the peer of s.
func (s Side) other() Side {
	switch s {
	case Client:
		return Server
	case Server:
		return Client
	}
	return AnySide
}

// The kinds of message a Report has.
const (
	KindRequest      = "request"
	KindNotification = "notification"
	KindResponse     = "response"
	KindError        = "error"
	KindInvalid      = "invalid" // not a JSON-RPC message of any kind
)

// Report is the outcome of validating one message of a stream.
type Report struct {
	// Index is the message's position in the stream, from 0; each element
	// of a batch is a message.
	Index int `json:"index"`
	// Line is the line of the input where the message starts, from 1; 0
	// when unknown.
	Line int `json:"line,omitempty"`
	// Element is the message's index within its batch, nil outside one.
	Element *int `json:"element,omitempty"`
	// Kind is one of the Kind* constants.
	Kind string `json:"kind"`
	// Method is the method of a request or notification, or of the request
	// a response answers, when known.
	Method string `json:"method,omitempty"`
	// ID is the message's id as JSON text, when it has one.
	ID json.RawMessage `json:"id,omitempty"`
	// Definitions are the schema definitions the message was validated
	// against, the envelope first.
	Definitions []string `json:"definitions,omitempty"`
	// Problems are what is wrong; empty when the message is valid.
	Problems []Problem `json:"problems"`
}

// Valid reports whether the message has no problems.
func (r *Report) Valid() bool { return len(r.Problems) == 0 }

// Stream validates the messages of one connection in order, applying the
// rules that need what came before: request IDs unique per direction, a
// response answers an earlier request (whose method gives the result
// definition). A Stream is not safe for concurrent use.
//
// A Stream keeps of each request, until it is answered, its id, method and
// index; once it is answered, only its id, for the duplicate-id rule. Ids
// are stored compactly: integer ids, which real clients count up, as runs
// of consecutive ids, so that a session of a million answered requests
// with ids 1, 2, 3, ... costs a few bytes; a string id costs its length
// plus about 50 bytes for the rest of the session. Requests never answered
// (a peer that cancels without waiting, or never answers) cost about 100
// bytes each, plus their method's name when it is not one of the
// revision's.
type Stream struct {
	v     *Validator
	index int
	// used are the ids of every request seen, by sender.
	used [3]idSet
	// pending are the requests not answered yet, by sender and id; peak
	// is the most it held since it was last made anew.
	pending map[reqKey]pending
	peak    int
}

type reqKey struct {
	side Side
	id   requestID
}

type pending struct {
	method string
	index  int
}

// Stream returns a new stream checker.
func (v *Validator) Stream() *Stream {
	return &Stream{v: v, pending: map[reqKey]pending{}}
}

// Payload validates one payload (a message, or a batch) sent by from, which
// starts on line of the input (0 when unknown), and returns one report per
// message.
func (s *Stream) Payload(data []byte, line int, from Side) []Report {
	return s.payload(data, line, from, true)
}

// payload is Payload; schema false skips the schema (and only keeps track
// of requests and responses).
func (s *Stream) payload(data []byte, line int, from Side, schema bool) []Report {
	elems, starts, batch, p := splitPayload(data)
	if p != nil {
		r := Report{Index: s.next(), Line: line, Kind: KindInvalid, Problems: []Problem{*p}}
		return []Report{r}
	}
	if batch && len(elems) == 0 {
		r := Report{Index: s.next(), Line: line, Kind: KindInvalid, Problems: []Problem{{Pointer: "", Reason: "a batch must not be empty", Rule: RuleBatch}}}
		return []Report{r}
	}
	out := make([]Report, 0, len(elems))
	for i, e := range elems {
		r := Report{Index: s.next(), Line: line}
		if line > 0 {
			r.Line = line + bytes.Count(data[:starts[i]], []byte("\n"))
		}
		if batch {
			r.Element = &i
			if !s.v.batching {
				r.Problems = append(r.Problems, Problem{Pointer: "", Reason: fmt.Sprintf("sent in a batch, but revision %s has no batches", s.v.c.rev), Rule: RuleBatch})
			}
		}
		s.message(&r, e, from, schema)
		if batch && s.v.batching && r.Method == "initialize" && r.Kind == KindRequest {
			r.Problems = append(r.Problems, Problem{Pointer: "", Reason: "initialize must not be part of a batch", Rule: RuleBatch})
		}
		out = append(out, r)
	}
	return out
}

func (s *Stream) next() int {
	i := s.index
	s.index++
	return i
}

// message validates one message into r.
func (s *Stream) message(r *Report, data []byte, from Side, schema bool) {
	val, p := decodeStrict(data)
	if p != nil {
		r.Kind = KindInvalid
		r.Problems = append(r.Problems, *p)
		return
	}
	add := func(ps ...Problem) {
		for _, p := range ps {
			r.Problems = appendProblem(r.Problems, p)
		}
	}
	check := func(def string, v any, prefix string) {
		r.Definitions = append(r.Definitions, def)
		if schema {
			add(s.v.value(def, v, prefix)...)
		}
	}
	obj, ok := val.(map[string]any)
	if !ok {
		r.Kind = KindInvalid
		add(Problem{Pointer: "", Reason: "want a JSON-RPC message (an object), got " + jsonType(val), Rule: RuleSchema})
		return
	}
	idVal, hasID := obj["id"]
	if hasID {
		r.ID, _ = json.Marshal(idVal)
	}
	_, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	method, _ := obj["method"].(string)
	switch {
	case hasMethod && hasID:
		r.Kind, r.Method = KindRequest, method
		check("JSONRPCRequest", obj, "")
		s.request(r, obj, method, idVal, from, check, add)
	case hasMethod:
		r.Kind, r.Method = KindNotification, method
		check("JSONRPCNotification", obj, "")
		m, ok := s.v.methods[method]
		switch {
		case !ok && method != "":
			add(Problem{Pointer: "/method", Reason: fmt.Sprintf("revision %s has no notification %q", s.v.c.rev, method), Rule: RuleMethod})
		case ok && m.Embedded:
			add(s.v.embeddedProblem(m))
		case ok && !m.Notification:
			add(Problem{Pointer: "", Reason: fmt.Sprintf("%q is a request, but the message has no id", method), Rule: RuleMethod})
		case ok:
			s.direction(m, from, add)
			check(m.Message, obj, "")
		}
	case hasResult || hasError:
		r.Kind = KindResponse
		env := s.v.envelope("JSONRPCResultResponse", "JSONRPCResponse")
		if hasError && !hasResult {
			r.Kind = KindError
			env = s.v.envelope("JSONRPCErrorResponse", "JSONRPCError")
		}
		results := []string{"Result"}
		var m Method
		if method := s.response(r, idVal, from, add); method != "" {
			r.Method = method
			if mm, ok := s.v.methods[method]; ok && len(mm.Results) > 0 {
				m, results = mm, mm.Results
			}
		}
		res, hasRes := obj["result"]
		switch {
		case r.Kind == KindResponse && m.Response != "":
			// The method's own response definition: the envelope and the
			// union of its results, then (value applies the resultType
			// rule to a Response definition) the result its resultType
			// selects.
			check(m.Response, obj, "")
			if def, _ := s.v.resultOf(m, res, "/result"); def != "" {
				r.Definitions = append(r.Definitions, def)
			}
		case r.Kind == KindError:
			check(env, obj, "")
			s.namedError(obj, check)
		default:
			check(env, obj, "")
			if hasRes && r.Kind == KindResponse {
				s.result(r, results, res, check, add, schema)
			}
		}
	default:
		r.Kind = KindInvalid
		add(Problem{Pointer: "", Reason: `neither a request, a notification nor a response: no "method", "result" or "error"`, Rule: RuleSchema})
	}
	if schema {
		s.v.metadata(obj, "", add)
	}
}

// envelope returns the first of names that the schema defines.
func (v *Validator) envelope(names ...string) string {
	for _, n := range names {
		if v.c.defs[n] != nil {
			return n
		}
	}
	return names[len(names)-1]
}

// request applies the rules of a request.
func (s *Stream) request(r *Report, obj map[string]any, method string, id any, from Side, check func(string, any, string), add func(...Problem)) {
	m, ok := s.v.methods[method]
	switch {
	case !ok && method != "":
		add(Problem{Pointer: "/method", Reason: fmt.Sprintf("revision %s has no request %q", s.v.c.rev, method), Rule: RuleMethod})
	case ok && m.Embedded:
		add(s.v.embeddedProblem(m))
	case ok && m.Notification:
		add(Problem{Pointer: "/id", Reason: fmt.Sprintf("%q is a notification, which has no id", method), Rule: RuleMethod})
		ok = false
	case ok:
		s.direction(m, from, add)
		check(m.Message, obj, "")
	}
	key, valid := idOf(id)
	if !valid {
		return // the envelope schema reports it
	}
	sender := from
	if sender == AnySide && ok {
		switch m.Direction {
		case wire.ClientToServer:
			sender = Client
		case wire.ServerToClient:
			sender = Server
		}
	}
	if !s.used[sender].add(key) {
		who := "the same side"
		if sender != AnySide {
			who = "the " + sender.String()
		}
		earlier := "an earlier request"
		if prev, ok := s.pending[reqKey{sender, key}]; ok {
			earlier = fmt.Sprintf("an earlier request (message %d)", prev.index)
		}
		add(Problem{Pointer: "/id", Reason: fmt.Sprintf("id %s was already used by %s from %s", key, earlier, who), Rule: RuleID})
		return
	}
	if ok {
		method = m.Name // the table's copy: the message's is not kept
	}
	s.pending[reqKey{sender, key}] = pending{method: method, index: r.Index}
	s.peak = max(s.peak, len(s.pending))
}

// embeddedProblem is what is wrong with a JSON-RPC message whose method is
// an embedded request.
func (v *Validator) embeddedProblem(m Method) Problem {
	return Problem{Pointer: "/method", Reason: fmt.Sprintf("%q is an embedded request in revision %s, never a JSON-RPC message: the server asks it inside a result's inputRequests (InputRequiredResult), and the client answers in the retried request's inputResponses", m.Name, v.c.rev), Rule: RuleMethod}
}

// namedError validates an error response against the named error of its
// code, where the revision has one (2026-07-28's
// UnsupportedProtocolVersionError and the others): a definition of the
// whole response, or of the error object alone.
func (s *Stream) namedError(obj map[string]any, check func(string, any, string)) {
	e, _ := obj["error"].(map[string]any)
	n, ok := e["code"].(json.Number)
	if !ok {
		return
	}
	code, err := n.Int64()
	if err != nil {
		return
	}
	def, ok := s.v.c.errors[code]
	if !ok {
		return
	}
	if props, _ := s.v.c.defs[def]["properties"].(map[string]any); props["error"] != nil {
		check(def, obj, "")
		return
	}
	check(def, e, "/error")
}

// direction checks that from may send m.
func (s *Stream) direction(m Method, from Side, add func(...Problem)) {
	var want wire.Direction
	switch from {
	case Client:
		want = wire.ClientToServer
	case Server:
		want = wire.ServerToClient
	default:
		return
	}
	if m.Direction&want == 0 {
		add(Problem{Pointer: "/method", Reason: fmt.Sprintf("%q is sent %s, not by the %s", m.Name, directionText(m.Direction), from), Rule: RuleDirection})
	}
}

func directionText(d wire.Direction) string {
	switch d {
	case wire.ClientToServer:
		return "by the client"
	case wire.ServerToClient:
		return "by the server"
	}
	return "by either side"
}

// response finds the request a response answers, and forgets it but for
// its id. It returns the method of the request, "" when unknown.
func (s *Stream) response(r *Report, id any, from Side, add func(...Problem)) string {
	key, valid := idOf(id)
	if !valid {
		// An error response may have no id (or null) when the request's id
		// could not be read; the envelope schema judges the rest.
		return ""
	}
	var cands []Side
	if from == AnySide {
		cands = []Side{Client, Server, AnySide}
	} else {
		cands = []Side{from.other(), AnySide}
	}
	var found reqKey
	var req pending
	ok, answered := false, false
	for _, side := range cands {
		k := reqKey{side, key}
		if p, pend := s.pending[k]; pend && (!ok || p.index < req.index) {
			found, req, ok = k, p, true
		}
		answered = answered || s.used[side].has(key)
	}
	switch {
	case ok:
		delete(s.pending, found)
		// A map keeps the room it once needed: make it anew once it is
		// empty after holding many.
		if len(s.pending) == 0 && s.peak > 64 {
			s.pending, s.peak = map[reqKey]pending{}, 0
		}
		return req.method
	case answered:
		add(Problem{Pointer: "/id", Reason: fmt.Sprintf("the request with id %s was already answered", key), Rule: RuleResponse})
		return ""
	}
	who := "earlier request"
	if from != AnySide {
		who = "earlier request from the " + from.other().String()
	}
	add(Problem{Pointer: "/id", Reason: fmt.Sprintf("no %s has id %s", who, key), Rule: RuleResponse})
	return ""
}

// result validates a response's result against the method's results: it
// is valid when one of them accepts it; else the problems are those of the
// first.
func (s *Stream) result(r *Report, results []string, res any, check func(string, any, string), add func(...Problem), schema bool) {
	if len(results) == 1 || !schema {
		check(results[0], res, "/result")
		return
	}
	var first []Problem
	for i, name := range results {
		ps := s.v.value(name, res, "/result")
		if len(ps) == 0 {
			r.Definitions = append(r.Definitions, name)
			return
		}
		if i == 0 {
			first = ps
		}
	}
	r.Definitions = append(r.Definitions, strings.Join(results, "|"))
	add(first...)
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// splitPayload takes a payload apart: the message, or the elements of a
// batch, with their byte offsets. It checks only the syntax here (duplicate
// names and invalid UTF-8 are reported per message).
func splitPayload(data []byte) (elems [][]byte, starts []int64, batch bool, p *Problem) {
	lenient := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	d := jsontext.NewDecoder(bytes.NewReader(data), lenient...)
	if d.PeekKind() != '[' {
		start := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
		v, err := d.ReadValue()
		if err != nil {
			return nil, nil, false, jsonProblem(err)
		}
		v = bytes.Clone(v) // the decoder reuses its buffer
		if _, err := d.ReadToken(); err != io.EOF {
			return nil, nil, false, &Problem{Pointer: "", Reason: "data after the JSON value", Rule: RuleJSON}
		}
		return [][]byte{v}, []int64{start}, false, nil
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, nil, false, jsonProblem(err)
	}
	for d.PeekKind() != ']' {
		off := d.InputOffset()
		v, err := d.ReadValue()
		if err != nil {
			return nil, nil, true, jsonProblem(err)
		}
		// The value starts after the blanks and the comma before it.
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++
		}
		elems = append(elems, bytes.Clone(v))
		starts = append(starts, off)
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, nil, true, jsonProblem(err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, nil, true, &Problem{Pointer: "", Reason: "data after the JSON value", Rule: RuleJSON}
	}
	return elems, starts, true, nil
}

// Input is one payload of an input: a message or a batch.
type Input struct {
	Data []byte
	// Line is where the payload starts, from 1.
	Line int
}

// Split cuts an input into payloads: one JSON value (a message, or an array
// that is a batch), a sequence of them (such as JSON Lines, one message per
// line, the shape of a captured stdio session), or, when the input is not a
// sequence of JSON values, its non-blank lines, each a payload on its own
// (so that one bad line does not hide the others).
func Split(data []byte) []Input {
	lenient := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	d := jsontext.NewDecoder(bytes.NewReader(data), lenient...)
	var out []Input
	for {
		off := d.InputOffset()
		v, err := d.ReadValue()
		if err == io.EOF {
			return out
		}
		if err != nil {
			break
		}
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		out = append(out, Input{Data: bytes.Clone(v), Line: 1 + bytes.Count(data[:off], []byte("\n"))})
	}
	out = out[:0]
	for i, line := range bytes.Split(data, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			out = append(out, Input{Data: t, Line: i + 1})
		}
	}
	return out
}
