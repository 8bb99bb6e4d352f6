package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
)

// ErrClientCannotAnswer is wrapped by the error of a request to the client
// of a legacy session (elicitation/create, sampling/createMessage,
// roots/list) that the client cannot answer: the session's revision has no
// such request (elicitation before 2025-06-18), or the client did not
// declare the capability it needs in initialize (such as elicitation, or
// elicitation.url for a URL elicitation). The request is not sent. Ask
// and Call return such an error; the error's text says which capability
// or revision. On a stateless request (2026-07-28 on) Ask does not: the
// runtime answers the request with error -32021 naming the capability
// instead, as the protocol asks. ClientCan tells a handler in advance.
var ErrClientCannotAnswer = errors.New("the client cannot answer")

// inputGates maps the capability each input request needs to its method.
var inputGates = map[string]string{
	"elicitation": "elicitation/create",
	"sampling":    "sampling/createMessage",
	"roots":       "roots/list",
}

// isInputMethod reports whether method is a request for input a server
// sends its client.
func isInputMethod(method string) bool {
	return method == "elicitation/create" || method == "sampling/createMessage" || method == "roots/list"
}

// cannotAnswerError is the error of an input request the client of a
// legacy session cannot answer. It wraps ErrClientCannotAnswer and, for
// the callers of Call that look for one, the *jsonrpc.Error the session
// used to return for it (none when the revision lacks the request).
type cannotAnswerError struct {
	msg  string
	jerr *jsonrpc.Error
}

func (e *cannotAnswerError) Error() string { return e.msg }

func (e *cannotAnswerError) Unwrap() []error {
	if e.jerr == nil {
		return []error{ErrClientCannotAnswer}
	}
	return []error{ErrClientCannotAnswer, e.jerr}
}

func cannotAnswer(method string, code int64, format string, args ...any) error {
	msg := method + ": " + ErrClientCannotAnswer.Error() + ": " + fmt.Sprintf(format, args...)
	e := &cannotAnswerError{msg: msg}
	if code != 0 {
		e.jerr = &jsonrpc.Error{Code: code, Message: msg}
	}
	return e
}

// checkInput returns an error wrapping ErrClientCannotAnswer when the
// client of this (server's) session, of revision rev, cannot answer the
// input request method with params raw (nil for none), else nil.
func (s *Session) checkInput(rev *revision.Revision, method string, raw jsontext.Value) error {
	md := rev.Find(method)
	if md == nil || md.Notification || !s.maySend(*md) {
		return cannotAnswer(method, 0, "revision %s has no such request", rev.Name)
	}
	if path, ok := s.gatePeer(*md); !ok {
		return cannotAnswer(method, jsonrpc.MethodNotFound, "it did not declare the capability %s", path)
	}
	if method == "elicitation/create" && len(raw) > 0 {
		s.mu.Lock()
		peer := s.peerCaps
		s.mu.Unlock()
		if mode, ok := elicitationModeOK(peer, raw); !ok {
			return cannotAnswer(method, jsonrpc.InvalidParams, "it did not declare elicitation mode %q (the capability elicitation.%s)", mode, mode)
		}
	}
	return nil
}

// ClientCan reports whether the client whose request the handler of ctx
// answers declared the capability at the dotted path capability, such as
// "elicitation", "elicitation.url", "sampling", "sampling.tools" or
// "roots": in the request's _meta on a stateless request, in initialize on
// a legacy session. A capability of an input request the request's
// revision does not have (elicitation before 2025-06-18) is false, and
// "elicitation.form" is true for a client that declared elicitation with
// neither mode, which means form (see
// https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#capabilities).
// Outside a handler it is false.
//
// A handler checks it before asking for input with Ask, and takes another
// way when it is false: asking anyway fails, with an error wrapping
// ErrClientCannotAnswer on a legacy session and error -32021 on a
// stateless request.
func ClientCan(ctx context.Context, capability string) bool {
	caps := ClientCapabilities(ctx)
	if caps == nil {
		return false
	}
	top, rest, _ := strings.Cut(capability, ".")
	if method, ok := inputGates[top]; ok {
		if rev := RevisionOf(ctx); rev == nil || rev.Find(method) == nil {
			return false
		}
	}
	if top == "elicitation" && (rest == "form" || rest == "url") {
		_, ok := elicitationModeOK(caps, jsontext.Value(`{"mode":"`+rest+`"}`))
		return ok
	}
	return HasCapability(caps, capability)
}
