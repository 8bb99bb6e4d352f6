package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/toolschema"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Bounds of what a client remembers from tools/list answers (see
// UnusableToolError): at most MaxCheckedTools tools, whose schemas total
// at most MaxCheckedSchemaBytes. Tools listed beyond them are not checked.
const (
	MaxCheckedTools       = 4096
	MaxCheckedSchemaBytes = 32 << 20
)

// UnusableToolError is the error of a tools/call that a client refuses to
// send: the tool's schema, as the server listed it, is not one the client
// can use. From 2025-11-25 a schema without "$schema" is JSON Schema
// 2020-12, draft-07 may be declared, and any other dialect must be refused
// (see runtime/toolschema for what is supported); a schema must be valid in
// its dialect, and a "$ref" to a network URI is never fetched, so a schema
// that needs one is not usable either.
type UnusableToolError struct {
	// Tool is the tool's name.
	Tool string
	// Schema is "inputSchema" or "outputSchema".
	Schema string
	// Err says what is wrong with it.
	Err error
}

func (e *UnusableToolError) Error() string {
	return fmt.Sprintf("tool %q cannot be used: its %s: %v", e.Tool, e.Schema, e.Err)
}

func (e *UnusableToolError) Unwrap() error { return e.Err }

// toolCheck is what a client learned of the server's tools from the
// tools/list answers it read.
type toolCheck struct {
	mu     sync.Mutex
	tools  map[string]*checkedTool
	bytes  int  // the schema bytes of tools
	full   bool // a bound reached: logged once
	listed bool // a tools/list answer was read
}

type checkedTool struct {
	sum      [sha256.Size]byte // of the schemas as listed, to recompile only what changed
	size     int               // their length
	unusable *UnusableToolError
	out      *toolschema.Schema // the compiled outputSchema, nil without one
}

// schemaSum is the digest of a tool's two schemas.
func schemaSum(input, output jsontext.Value) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(input)))
	h.Write(n[:])
	h.Write(input)
	h.Write(output)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// learn checks the tools of a tools/list result: each inputSchema and
// outputSchema is compiled in its dialect. A tool whose schema does not
// compile is logged, once per listing that changes it, and remembered as
// unusable.
func (tc *toolCheck) learn(res jsontext.Value, log func(msg string, args ...any)) {
	list, ok := wire.Member(res, "tools")
	if !ok || list.Kind() != '[' {
		return
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.listed = true
	if tc.tools == nil {
		tc.tools = map[string]*checkedTool{}
	}
	d := jsontext.NewDecoder(bytes.NewReader(list))
	if wire.BeginArray(d) != nil {
		return
	}
	for {
		more, err := wire.More(d)
		if err != nil || !more {
			return
		}
		tool, err := wire.ReadValue(d)
		if err != nil {
			return
		}
		tc.learnTool(tool, log)
	}
}

// learnTool is learn's part for one tool; tc.mu is held.
func (tc *toolCheck) learnTool(tool jsontext.Value, log func(msg string, args ...any)) {
	name, ok := wire.MemberString(tool, "name")
	if !ok {
		return
	}
	input, _ := wire.Member(tool, "inputSchema")
	output, _ := wire.Member(tool, "outputSchema")
	if output.Kind() == 'n' {
		output = nil
	}
	sum, size := schemaSum(input, output), len(input)+len(output)
	old := tc.tools[name]
	if old != nil && old.sum == sum {
		return
	}
	total := tc.bytes + size
	if old != nil {
		total -= old.size
	}
	if old == nil && len(tc.tools) >= MaxCheckedTools || total > MaxCheckedSchemaBytes {
		if !tc.full {
			tc.full = true
			log("mcp: more tools listed than a client checks; the others are not checked", "tools", MaxCheckedTools, "bytes", MaxCheckedSchemaBytes)
		}
		return
	}
	tc.bytes = total
	ct := &checkedTool{sum: sum, size: size}
	var err error
	if _, err = toolschema.Compile(input); err != nil {
		ct.unusable = &UnusableToolError{Tool: name, Schema: "inputSchema", Err: err}
	} else if len(output) > 0 {
		if ct.out, err = toolschema.Compile(output); err != nil {
			ct.unusable = &UnusableToolError{Tool: name, Schema: "outputSchema", Err: err}
		}
	}
	if ct.unusable != nil {
		log("mcp: a listed tool cannot be used", "tool", name, "err", ct.unusable.Err, "schema", ct.unusable.Schema)
	}
	tc.tools[name] = ct
}

// lookup returns what was learned of the tool name, or nil.
func (tc *toolCheck) lookup(name string) *checkedTool {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.tools[name]
}

// empty reports whether no tool was learned yet, so that a client that
// never lists tools pays nothing on tools/call.
func (tc *toolCheck) empty() bool {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return len(tc.tools) == 0
}

// ToolsListed reports whether the client has read an answer to tools/list,
// from which it learns the tools' outputSchemas to check their results
// against (see UnusableTools). A typed call lists the tools first when it
// has not (the generated CallTypedTool).
func (s *Session) ToolsListed() bool {
	if s.tools == nil {
		return false // a server's
	}
	s.tools.mu.Lock()
	defer s.tools.mu.Unlock()
	return s.tools.listed
}

// unusable returns the tools learned as unusable, by name.
func (tc *toolCheck) unusable() map[string]error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := map[string]error{}
	for name, ct := range tc.tools {
		if ct.unusable != nil {
			out[name] = ct.unusable
		}
	}
	return out
}

// dialectRulesSince is the first revision with the JSON Schema dialect
// rules (SEP-1613): an unsupported dialect must be refused.
const dialectRulesSince = "2025-11-25"

// refusesUnusable reports whether the session's revision has the dialect
// rules, under which a client refuses a tool it cannot use; before them it
// only reports it (UnusableTools, the log).
func (s *Session) refusesUnusable() bool {
	r := s.Revision()
	return r == nil || r.Name >= dialectRulesSince
}

// UnusableTools returns the tools the server listed whose schemas this
// client cannot use, with why (an *UnusableToolError each). From
// 2025-11-25 on, a tools/call of one of them fails with that error without
// being sent; at older revisions, which have no dialect rules, it is only
// reported here and in the log. A tool's outputSchema, when it compiles,
// is also used to check the structuredContent of its results. Tools are
// learned from the tools/list answers the client read (within
// MaxCheckedTools and MaxCheckedSchemaBytes); it is empty on a server
// session.
func (s *Session) UnusableTools() map[string]error {
	if s.tools == nil {
		return map[string]error{} // a server's
	}
	return s.tools.unusable()
}

// callTools is Call's part for tools/list and tools/call on a client: a
// listing teaches the client the server's tools (toolCheck.learn); a call
// of a tool known to be unusable is refused, and the structuredContent of
// a call's result is checked against the listed outputSchema.
func (s *Session) callTools(ctx context.Context, method string, params wire.Appender, o callOptions, next func(context.Context, string, wire.Appender, callOptions) (jsontext.Value, error)) (jsontext.Value, error) {
	if method == "tools/list" {
		res, err := next(ctx, method, params, o)
		if err == nil {
			s.tools.learn(res, s.log.Warn)
		}
		return res, err
	}
	if params == nil || s.tools.empty() {
		return next(ctx, method, params, o)
	}
	// Encode the params as the call would, once: the call sends these.
	var raw jsontext.Value
	var err error
	if s.clientOfModern() {
		s.mu.Lock()
		mc := s.mc
		s.mu.Unlock()
		raw, err = encodeParams(params, mc)
	} else {
		raw, err = params.AppendJSON(nil)
	}
	if err != nil {
		return nil, fmt.Errorf("%s params: %w", method, err)
	}
	name, ok := wire.MemberString(raw, "name")
	if !ok {
		return next(ctx, method, rawAppender(raw), o)
	}
	ct := s.tools.lookup(name)
	if ct != nil && ct.unusable != nil && s.refusesUnusable() {
		return nil, ct.unusable
	}
	res, err := next(ctx, method, rawAppender(raw), o)
	if err != nil || ct == nil || ct.out == nil {
		return res, err
	}
	if isErr, _ := wire.Member(res, "isError"); string(isErr) == "true" {
		return res, nil
	}
	sc, ok := wire.Member(res, "structuredContent")
	if !ok || sc.Kind() == 'n' {
		return res, nil
	}
	if err := ct.out.Validate(sc); err != nil {
		return nil, fmt.Errorf("tools/call %q: the structuredContent does not match the tool's outputSchema: %w", name, err)
	}
	return res, nil
}
