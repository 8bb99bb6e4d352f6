// Package validate checks MCP messages against the official JSON Schema of a
// protocol revision, and against the rules the schema cannot express: the
// method exists in the revision and goes in a possible direction, batches
// only where the revision has them, request IDs unique per direction, every
// response answers an earlier request, strict JSON (no duplicate member
// names, valid UTF-8), and the rules on untrusted metadata: every _meta key,
// at any depth, has the form the revision requires and, under a prefix
// reserved for MCP, is one the revision defines (from 2025-06-18); every
// icon's src is https: or data: and its sizes well formed (from 2025-11-25,
// with package runtime/icon); every extension identifier has the form of a
// _meta key with a prefix (from 2026-07-28).
//
// From 2026-07-28 a request's _meta must hold what the schema's
// RequestMetaObject requires (the protocol version and the client's
// capabilities); the embedded requests (elicitation/create,
// sampling/createMessage, roots/list) are never JSON-RPC messages; a
// response is validated against its method's response definition (such as
// CallToolResultResponse), and its result against the one its resultType
// selects: "complete" the method's result, "input_required"
// InputRequiredResult where the method may answer it, a value that one of
// the method's results fixes as its resultType const that result (an
// extension's, such as the Tasks extension's CreateTaskResult, "task", in
// a table that widens tools/call), any other value nothing (the schema
// alone accepts any resultType); and an error response
// against the named error of its code (UnsupportedProtocolVersionError
// and the others), where there is one.
//
// The schema is compiled with github.com/santhosh-tekuri/jsonschema/v5, once
// per process for each revision and schema, with format assertion on for
// every dialect. The package imports no generated package: the caller passes
// the schema, which every generated package carries (no files, no network):
//
//	v, err := validate.New(mcp20251125.Revision, mcp20251125.Schema(), validate.WithMethods(mcp20251125.Methods()))
//	problems := v.Definition("CallToolResult", data)
//
// Validation is opt-in: [Transport] wraps a session's transport so that
// inbound messages are validated before the session sees them.
package validate

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Problem is one reason a message is invalid.
type Problem struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value within
	// the message ("" is the message itself).
	Pointer string `json:"pointer"`
	// Reason says what is wrong, on one line.
	Reason string `json:"reason"`
	// Rule is the kind of check that failed: one of the Rule* constants.
	Rule string `json:"rule"`
}

func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(message)"
	}
	return ptr + ": " + p.Reason
}

// The rules a Problem can come from.
const (
	RuleJSON      = "json"      // not strict JSON: syntax, duplicate member name, invalid UTF-8
	RuleSchema    = "schema"    // the schema definition rejects the value
	RuleMethod    = "method"    // the method does not exist in the revision, or is of the other kind
	RuleDirection = "direction" // the method is not sent by that side
	RuleBatch     = "batch"     // a batch the revision does not have, or may not hold this
	RuleID        = "id"        // a request ID used twice by the same side
	RuleResponse  = "response"  // a response that answers no earlier request
	RuleMeta      = "meta"      // a _meta key of a bad form, or reserved and unknown (from 2025-06-18); an extension identifier of a bad form (from 2026-07-28)
	RuleIcon      = "icon"      // an icon src that is not https: or data:, or bad sizes (from 2025-11-25)
	RuleResult    = "result"    // a resultType that names no result the method may answer (from 2026-07-28)
)

// Method is what the validator needs of one method of the revision.
type Method struct {
	Name         string
	Notification bool
	// Direction says who sends it.
	Direction wire.Direction
	// Message is the schema name of the request or notification.
	Message string
	// Results are the schema names a response result may match, the normal
	// one first.
	Results []string
	// Embedded reports a request that is never a JSON-RPC message: it
	// travels inside a result (2026-07-28's inputRequests), so a message
	// with its method is invalid.
	Embedded bool
	// Response is the schema name of the method's whole response (envelope
	// and result, such as 2026-07-28's CallToolResultResponse), "" when the
	// revision has none. A response is then validated against it, and its
	// result against the one of Results its resultType selects.
	Response string
}

// Validator validates messages of one revision. It is safe for concurrent
// use; its Streams are not.
type Validator struct {
	c        *compiled
	methods  map[string]Method
	batching bool
	// responses maps a method's Response definition to the method.
	responses map[string]Method
}

// Option configures New.
type Option func(*Validator)

// WithMethods takes the method table from a generated package's Methods()
// instead of deriving it from the schema. The derived table pairs XRequest
// with XResult (else the generic Result) and so misses alternative results
// such as CreateTaskResult; the generated table has them.
func WithMethods(methods []wire.Method) Option {
	return func(v *Validator) {
		v.methods = map[string]Method{}
		for _, m := range methods {
			v.methods[m.Name] = Method{Name: m.Name, Notification: m.Notification, Direction: m.Direction, Message: m.Message, Results: slices.Clone(m.Results), Embedded: m.Embedded, Response: m.Response}
		}
	}
}

// compiled is one schema document, compiled once per process. It is not
// changed after compile returns.
type compiled struct {
	rev     string
	url     string
	defsKey string
	defs    map[string]map[string]any
	schemas map[string]*jsonschema.Schema
	// reserved are the _meta keys under a reserved prefix that the schema
	// text names.
	reserved map[string]bool
	// errors maps the code of each named error (a definition whose error
	// code is a const, such as 2026-07-28's UnsupportedProtocolVersionError)
	// to its definition.
	errors map[int64]string
}

var (
	cacheMu sync.Mutex
	cache   = map[[sha256.Size]byte]*compiled{}
)

// New returns a validator of revision with the schema document schema (a
// generated package's Schema()). The schema is parsed and every definition
// compiled once per process for each revision and document; later calls
// share it. A schema that does not compile is an error naming the JSON
// pointer and keyword at fault, such as a "$ref" to a definition the schema
// lacks or a "pattern" that is not a regular expression; it is not kept,
// so a later call with the same schema reports the same error.
func New(revision string, schema []byte, opts ...Option) (*Validator, error) {
	key := sha256.Sum256(append([]byte(revision+"\x00"), schema...))
	cacheMu.Lock()
	c, ok := cache[key]
	if !ok {
		var err error
		c, err = compile(revision, schema)
		if err != nil {
			cacheMu.Unlock()
			return nil, err
		}
		cache[key] = c
	}
	cacheMu.Unlock()
	v := &Validator{c: c, batching: c.defs["JSONRPCBatchRequest"] != nil}
	for _, o := range opts {
		o(v)
	}
	if v.methods == nil {
		v.methods = c.deriveMethods()
	}
	v.responses = map[string]Method{}
	for _, m := range v.methods {
		if m.Response != "" {
			v.responses[m.Response] = m
		}
	}
	return v, nil
}

func compile(rev string, schema []byte) (*compiled, error) {
	doc, err := decodeStrict(schema)
	if err != nil {
		return nil, fmt.Errorf("validate: revision %s: schema: %s", rev, err.Reason)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("validate: revision %s: the schema is not a JSON object", rev)
	}
	c := &compiled{
		rev:     rev,
		url:     "mcpgen:///schema/" + rev + "/schema.json",
		defs:    map[string]map[string]any{},
		schemas: map[string]*jsonschema.Schema{},
	}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := root[k].(map[string]any); ok {
			c.defsKey = k
			for name, def := range d {
				if m, ok := def.(map[string]any); ok {
					c.defs[name] = m
				}
			}
			break
		}
	}
	if c.defsKey == "" {
		return nil, fmt.Errorf("validate: revision %s: the schema has no definitions", rev)
	}
	if err := checkRefs(root); err != nil {
		return nil, fmt.Errorf("validate: revision %s: schema %w", rev, err)
	}
	compiler := jsonschema.NewCompiler()
	compiler.AssertFormat = true
	compiler.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("loading schemas from elsewhere (%s) is not allowed", s)
	}
	if err := compiler.AddResource(c.url, bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("validate: revision %s: %w", rev, err)
	}
	// Every definition is compiled now: a compiler that failed once must
	// not be used again (santhosh-tekuri/jsonschema#91: the next Compile
	// panics), and a broken schema is then an error of New, not of the
	// first message that needs the definition.
	for _, name := range slices.Sorted(maps.Keys(c.defs)) {
		s, err := compileDef(compiler, c.url+"#/"+c.defsKey+"/"+escapeToken(name))
		var located *schemaFault
		switch {
		case errors.As(err, &located):
			return nil, fmt.Errorf("validate: revision %s: schema %w", rev, err)
		case err != nil:
			return nil, fmt.Errorf("validate: revision %s: schema #/%s/%s: %w", rev, c.defsKey, escapeToken(name), err)
		}
		c.schemas[name] = s
	}
	c.reserved = reservedKeys(rev, schema)
	c.errors = c.namedErrors()
	return c, nil
}

// namedErrors finds the named errors of the schema: the definitions whose
// "code", or whose "error" member's "code", is a const integer (directly
// or in an allOf branch).
func (c *compiled) namedErrors() map[int64]string {
	var code func(node any, depth int) (int64, bool)
	code = func(node any, depth int) (int64, bool) {
		m, _ := node.(map[string]any)
		if name := c.ref(m); name != "" {
			m = c.defs[name]
		}
		if m == nil || depth > 4 {
			return 0, false
		}
		props, _ := m["properties"].(map[string]any)
		cp, _ := props["code"].(map[string]any)
		if n, ok := cp["const"].(json.Number); ok {
			v, err := n.Int64()
			return v, err == nil
		}
		subs, _ := m["allOf"].([]any)
		for _, sub := range subs {
			if v, ok := code(sub, depth+1); ok {
				return v, ok
			}
		}
		return 0, false
	}
	out := map[int64]string{}
	for _, name := range slices.Sorted(maps.Keys(c.defs)) {
		v, ok := code(c.defs[name], 0)
		if !ok {
			props, _ := c.defs[name]["properties"].(map[string]any)
			if e, has := props["error"]; has {
				v, ok = code(e, 0)
			}
		}
		if _, taken := out[v]; ok && !taken {
			out[v] = name
		}
	}
	return out
}

// compileDef compiles the schema at url, turning a panic of the compiler
// into an error.
func compileDef(compiler *jsonschema.Compiler, url string) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the schema compiler failed: %v", r)
		}
	}()
	s, err = compiler.Compile(url)
	if err != nil {
		return nil, schemaError(err)
	}
	return s, nil
}

// schemaError rewrites a compilation error of jsonschema/v5 to name the
// pointer and keyword of the schema that are at fault, on one line.
func schemaError(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return errors.New(oneLine(strings.TrimPrefix(err.Error(), "jsonschema: ")))
	}
	// The schema document failed its meta-schema: the leaves name the
	// place in the document and why.
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	loc := leaf.InstanceLocation
	keyword := loc[strings.LastIndexByte(loc, '/')+1:]
	return &schemaFault{Pointer: loc, Keyword: unescapeToken(keyword), Reason: oneLine(leaf.Message)}
}

// schemaFault is a keyword of the schema document that is wrong.
type schemaFault struct {
	Pointer, Keyword, Reason string
}

func (f *schemaFault) Error() string {
	return fmt.Sprintf("#%s: keyword %q: %s", f.Pointer, f.Keyword, f.Reason)
}

// checkRefs checks that every local "$ref" of the schema document root
// points at a place of the document: jsonschema/v5 names the missing
// target but not the reference. Of several bad references it reports the
// one with the least pointer.
func checkRefs(root any) error {
	var bad *schemaFault
	fault := func(f *schemaFault) {
		if bad == nil || f.Pointer < bad.Pointer {
			bad = f
		}
	}
	var walk func(node any, ptr string)
	walk = func(node any, ptr string) {
		switch node := node.(type) {
		case map[string]any:
			if ref, ok := node["$ref"].(string); ok {
				switch {
				case strings.HasPrefix(ref, "#"):
					if _, ok := resolve(root, strings.TrimPrefix(ref, "#")); !ok {
						fault(&schemaFault{Pointer: ptr + "/$ref", Keyword: "$ref", Reason: ref + " is not in the schema"})
					}
				default:
					fault(&schemaFault{Pointer: ptr + "/$ref", Keyword: "$ref", Reason: ref + ": loading schemas from elsewhere is not allowed"})
				}
			}
			for k, v := range node {
				switch k {
				case "const", "enum", "default", "examples":
					continue // values, not schemas
				}
				switch v.(type) {
				case map[string]any, []any:
					walk(v, ptr+"/"+escapeToken(k))
				}
			}
		case []any:
			for i, e := range node {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(root, "")
	if bad != nil {
		return bad
	}
	return nil
}

// resolve returns the value at the RFC 6901 pointer ptr of doc.
func resolve(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch n := doc.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			doc = n[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

func unescapeToken(s string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

// schema returns the compiled definition name.
func (c *compiled) schema(name string) (*jsonschema.Schema, error) {
	if s, ok := c.schemas[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("revision %s has no definition %q", c.rev, name)
}

// ref returns the definition name a member {"$ref": ...} points at.
func (c *compiled) ref(node any) string {
	m, _ := node.(map[string]any)
	r, _ := m["$ref"].(string)
	return strings.TrimPrefix(r, "#/"+c.defsKey+"/")
}

// members returns the definitions a union definition lists in anyOf.
func (c *compiled) members(union string) []string {
	var out []string
	list, _ := c.defs[union]["anyOf"].([]any)
	for _, m := range list {
		if name := c.ref(m); name != "" && c.defs[name] != nil {
			out = append(out, name)
		}
	}
	return out
}

// methodConst returns properties.method.const of the definition def.
func (c *compiled) methodConst(def string) (string, bool) {
	props, _ := c.defs[def]["properties"].(map[string]any)
	method, _ := props["method"].(map[string]any)
	name, ok := method["const"].(string)
	return name, ok
}

// deriveMethods reads the method table from the ClientRequest,
// ServerRequest, ClientNotification and ServerNotification unions, and
// the embedded requests from InputRequest (2026-07-28). A "union" that is
// one definition with a method const (2026-07-28's ClientNotification) is
// its own only member. A request XRequest answers with XResult (else the
// generic Result); where the schema defines XResultResponse, that is the
// method's Response, and the results its "result" may be are its Results.
func (c *compiled) deriveMethods() map[string]Method {
	out := map[string]Method{}
	for _, u := range []struct {
		union        string
		dir          wire.Direction
		notification bool
		embedded     bool
	}{
		{"ClientRequest", wire.ClientToServer, false, false},
		{"ServerRequest", wire.ServerToClient, false, false},
		{"ClientNotification", wire.ClientToServer, true, false},
		{"ServerNotification", wire.ServerToClient, true, false},
		{"InputRequest", wire.ServerToClient, false, true},
	} {
		members := c.members(u.union)
		if _, single := c.methodConst(u.union); single && members == nil {
			members = []string{u.union}
		}
		for _, def := range members {
			name, ok := c.methodConst(def)
			if !ok {
				continue
			}
			m := out[name]
			// (2026-07-28's notifications/cancelled is both ClientNotification
			// and ServerNotification's CancelledNotification, the same
			// shape: the later, a union's member, names it.)
			m.Name, m.Notification, m.Embedded, m.Message = name, u.notification, u.embedded, def
			m.Direction |= u.dir
			if !u.notification {
				res := strings.TrimSuffix(def, "Request") + "Result"
				if c.defs[res] == nil || !strings.HasSuffix(def, "Request") {
					res = "Result"
				}
				m.Results = []string{res}
				if resp := res + "Response"; res != "Result" && c.defs[resp] != nil {
					m.Response = resp
					m.Results = c.responseResults(resp, res)
				}
			}
			out[name] = m
		}
	}
	return out
}

// responseResults returns the results the response definition resp may
// carry (its "result" member: a reference, or a union of them), normal
// first.
func (c *compiled) responseResults(resp, normal string) []string {
	props, _ := c.defs[resp]["properties"].(map[string]any)
	res, _ := props["result"].(map[string]any)
	out := []string{normal}
	list, _ := res["anyOf"].([]any)
	for _, m := range list {
		if name := c.ref(m); name != "" && name != normal && c.defs[name] != nil {
			out = append(out, name)
		}
	}
	return out
}

// Revision returns the revision validated.
func (v *Validator) Revision() string { return v.c.rev }

// Batching reports whether the revision has JSON-RPC batches (its schema
// defines JSONRPCBatchRequest).
func (v *Validator) Batching() bool { return v.batching }

// Has reports whether the schema has the definition name.
func (v *Validator) Has(name string) bool { return v.c.defs[name] != nil }

// Method returns the method called name.
func (v *Validator) Method(name string) (Method, bool) {
	m, ok := v.methods[name]
	return m, ok
}

// Definition validates the JSON text instance against the schema
// definition name (such as "CallToolRequest" or "ContentBlock"), after
// checking that it is strict JSON. It returns nil when the instance is
// valid. An unknown definition is one problem at "".
func (v *Validator) Definition(name string, instance []byte) []Problem {
	val, p := decodeStrict(instance)
	if p != nil {
		return []Problem{*p}
	}
	ps := v.value(name, val, "")
	v.metadata(val, "", func(more ...Problem) {
		for _, p := range more {
			ps = appendProblem(ps, p)
		}
	})
	return ps
}

// value validates a decoded value against a definition; prefix is the
// pointer of the value within the message. A method's Response definition
// is followed by the resultType rule (see resultOf).
func (v *Validator) value(name string, val any, prefix string) []Problem {
	ps := v.schemaValue(name, val, prefix)
	if m, ok := v.responses[name]; ok {
		obj, _ := val.(map[string]any)
		if res, has := obj["result"]; has {
			def, more := v.resultOf(m, res, prefix+"/result")
			for _, p := range more {
				ps = appendProblem(ps, p)
			}
			if def != "" {
				for _, p := range v.schemaValue(def, res, prefix+"/result") {
					ps = appendProblem(ps, p)
				}
			}
		}
	}
	return ps
}

// The values of resultType (2026-07-28) and the result each selects: ""
// is the method's normal result (Results[0]). An absent resultType is
// "complete"; the schema requires it in the revision's own results.
var resultTypes = map[string]string{
	"complete":       "",
	"input_required": "InputRequiredResult",
}

// resultOf returns the definition the resultType of the result res (at
// ptr) of method m selects, or problems when it selects none: a value that
// is not "complete" or "input_required", or input_required from a method
// that may not answer it. The schema cannot say this: resultType is a
// plain string there, and InputRequiredResult takes any.
func (v *Validator) resultOf(m Method, res any, ptr string) (string, []Problem) {
	if len(m.Results) == 0 {
		return "", nil
	}
	obj, _ := res.(map[string]any)
	rt, has := obj["resultType"]
	if !has {
		return m.Results[0], nil
	}
	s, ok := rt.(string)
	if !ok {
		return m.Results[0], nil // the schema reports the type
	}
	def, known := resultTypes[s]
	if !known {
		def, known = v.c.fixedResultType(m.Results, s)
	}
	switch {
	case !known:
		want := `"complete" or "input_required"`
		if fixed := v.c.fixedResultTypes(m.Results); len(fixed) > 0 {
			want = `"complete", "input_required", ` + strings.Join(fixed, ", ")
		}
		return "", []Problem{{Pointer: ptr + "/resultType", Reason: fmt.Sprintf("unknown resultType %q: want %s", s, want), Rule: RuleResult}}
	case def == "":
		return m.Results[0], nil
	case !slices.Contains(m.Results, def):
		return "", []Problem{{Pointer: ptr + "/resultType", Reason: fmt.Sprintf("%s may not answer %q (%s): it answers with %s", m.Name, s, def, strings.Join(m.Results, " or ")), Rule: RuleResult}}
	}
	return def, nil
}

// fixedResultType returns the one of results whose schema fixes resultType
// to the value s: a result an extension adds to a core method, such as the
// Tasks extension's CreateTaskResult ("task") answering tools/call.
func (c *compiled) fixedResultType(results []string, s string) (string, bool) {
	for _, r := range results {
		if c.resultTypeConst(r) == s && s != "" {
			return r, true
		}
	}
	return "", false
}

// fixedResultTypes returns the values, as JSON strings, that the schemas of
// results fix resultType to (see fixedResultType).
func (c *compiled) fixedResultTypes(results []string) []string {
	var out []string
	for _, r := range results {
		if s := c.resultTypeConst(r); s != "" {
			out = append(out, strconv.Quote(s))
		}
	}
	return out
}

// resultTypeConst returns the const of the resultType member of the
// definition def, in its properties or in those of one of its allOf
// branches; "" when it has none.
func (c *compiled) resultTypeConst(def string) string {
	d := c.defs[def]
	nodes := []any{d}
	if subs, ok := d["allOf"].([]any); ok {
		nodes = append(nodes, subs...)
	}
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		rt, _ := props["resultType"].(map[string]any)
		if s, ok := rt["const"].(string); ok {
			return s
		}
	}
	return ""
}

// schemaValue validates a decoded value against a definition's schema.
func (v *Validator) schemaValue(name string, val any, prefix string) []Problem {
	s, err := v.c.schema(name)
	if err != nil {
		return []Problem{{Pointer: prefix, Reason: err.Error(), Rule: RuleSchema}}
	}
	err = s.Validate(val)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Pointer: prefix, Reason: oneLine(err.Error()), Rule: RuleSchema}}
	}
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = appendProblem(out, Problem{Pointer: prefix + strings.TrimPrefix(e.InstanceLocation, "#"), Reason: oneLine(e.Message), Rule: RuleSchema})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// appendProblem appends p unless it is already there.
func appendProblem(ps []Problem, p Problem) []Problem {
	if slices.Contains(ps, p) {
		return ps
	}
	return append(ps, p)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func escapeToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// decodeStrict decodes exactly one JSON value, rejecting duplicate member
// names and invalid UTF-8; numbers are kept as json.Number. The problem
// names the pointer of the offending value.
func decodeStrict(data []byte) (any, *Problem) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	if _, err := d.ReadValue(); err != nil {
		return nil, jsonProblem(err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return nil, &Problem{Pointer: "", Reason: "data after the JSON value", Rule: RuleJSON}
		}
		return nil, jsonProblem(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Problem{Pointer: "", Reason: oneLine(err.Error()), Rule: RuleJSON}
	}
	return v, nil
}

// jsonProblem turns a jsontext error into a problem.
func jsonProblem(err error) *Problem {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		reason := "invalid JSON"
		switch {
		case errors.Is(se.Err, jsontext.ErrDuplicateName):
			reason = "duplicate member name"
		case errors.Is(se.Err, io.ErrUnexpectedEOF):
			reason = "truncated JSON"
		case se.Err != nil:
			reason = oneLine(se.Err.Error())
		}
		return &Problem{Pointer: string(se.JSONPointer), Reason: reason, Rule: RuleJSON}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Problem{Pointer: "", Reason: "truncated or empty JSON", Rule: RuleJSON}
	}
	return &Problem{Pointer: "", Reason: oneLine(err.Error()), Rule: RuleJSON}
}
