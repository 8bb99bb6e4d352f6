package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Request is a request or notification passing through Middleware, in
// either direction.
type Request struct {
	// Method is the JSON-RPC method, such as "tools/call".
	Method string
	// Params are the params as raw JSON, nil for none. Incoming, they are
	// the params as received, in the request's revision, already checked
	// by the engine. Outgoing, they are what the caller of Call or Notify
	// gave, encoded, before the engine adds anything (a client of the
	// stateless era adds its _meta envelope after the middleware).
	// A middleware may pass on a copy of the Request with other Params:
	// they reach the handler or the peer as they are, not checked again.
	Params jsontext.Value
	// ID is the JSON-RPC id of an incoming request; zero for a
	// notification and an input request embedded in a result of the
	// stateless era. An outgoing request's id is chosen after the
	// middleware: the engine sets it on the Request given to next as the
	// request is sent, so that it is there once next returns (zero if
	// nothing was sent: a result from the cache, a call refused before
	// sending). A call of the stateless era that took several rounds has
	// the id of its first request.
	ID wire.ID
	// Notification is set for a notification, which has no result.
	Notification bool
	// Outgoing is set for what this side sends (Call, Notify), unset for
	// what it receives.
	Outgoing bool
	// Revision is the revision the message is said in: the session's
	// negotiated one, or a stateless request's own. Nil for initialize
	// (incoming or outgoing), which chooses it.
	Revision *revision.Revision
	// Era is EraLegacy for a message of an initialize session, EraModern
	// for a stateless request and what belongs to it, EraUnknown for a
	// client's probe before the era is known.
	Era Era
	// Session is the session the message belongs to; nil for a stateless
	// request served by Stateless, which has none.
	Session *Session

	next func(context.Context, *Request) (jsontext.Value, error)
}

// HandlerFunc handles a Request: it answers an incoming request, hands an
// incoming notification to the handler, or sends an outgoing message and,
// for a request, waits for its result. The result is raw JSON, nil for a
// notification. An error that is (or wraps) a *jsonrpc.Error answers an
// incoming request with that error; any other error is answered with
// -32603 and its text.
type HandlerFunc func(ctx context.Context, req *Request) (jsontext.Value, error)

// Middleware wraps the handling of requests and notifications, as net/http
// middleware wraps an http.Handler: it returns a HandlerFunc that may look
// at the Request, change it (pass a changed copy to next), call next with
// ctx or a context derived from it, look at or change the result, or
// refuse the request by returning an error without calling next, a
// *jsonrpc.Error choosing the code the peer gets. A Middleware is called
// once per session (or Stateless), when it starts; the HandlerFunc it
// returns is called for every message, from many goroutines at once.
//
// What passes through it (see Options.Middleware):
//
//   - incoming requests that the engine admitted (known method, valid
//     params, declared capability, for a stateless request a valid _meta
//     envelope), around their handler: on a legacy session, on a
//     stateless request read by a session or served by Stateless, and the
//     input requests a client of the stateless era answers. The requests
//     the engine answers itself pass too: ping, initialize,
//     logging/setLevel, and the resources/subscribe and unsubscribe it
//     keeps for a handler of the stateless era on a legacy session. The
//     result is the one sent, in the request's revision; for a stateless
//     request it is complete (resultType, the server's _meta) or an
//     InputRequiredResult. The ctx of an incoming request is its handler's
//     (FromContext, RevisionOf, HTTPRequestOf work on it);
//   - incoming notifications handed to the handler, on the goroutine that
//     handles them in order;
//   - outgoing requests and notifications sent with Call and Notify (the
//     engine's calls to them included: initialize, server/discover,
//     progress and log messages), and the subscriptions/listen request of
//     Listen, whose next returns when the subscription ends. On a client of the stateless era a Call
//     passes once, whatever rounds of input and cache lookups it takes,
//     and its result is the complete one. Progress and log messages of a
//     stateless request pass as outgoing notifications too.
//
// What does not: messages the engine refuses before handling them (they
// are answered with an error and logged at debug level), responses, and
// the notifications the engine consumes or makes itself
// (notifications/cancelled, notifications/progress it receives, the
// cancellation it sends).
type Middleware func(next HandlerFunc) HandlerFunc

// chain is a sequence of middleware around a HandlerFunc that runs the
// Request's own next: built once, used for every message.
func chain(mw []Middleware) HandlerFunc {
	if len(mw) == 0 {
		return nil
	}
	h := HandlerFunc(runNext)
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// errForeignRequest is returned when a middleware calls next with a Request
// it made itself instead of (a copy of) the one it got.
var errForeignRequest = errors.New("middleware passed on a Request it did not get (pass the one received, or a copy)")

func runNext(ctx context.Context, r *Request) (jsontext.Value, error) {
	if r == nil || r.next == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: errForeignRequest.Error()}
	}
	return r.next(ctx, r)
}

// through runs r through h, the middleware chain, turning a panic in a
// middleware into an error.
func through(ctx context.Context, h HandlerFunc, r *Request, log *slog.Logger) (res jsontext.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &jsonrpc.Error{Code: jsonrpc.InternalError, Message: fmt.Sprintf("internal error handling %s", r.Method)}
			log.Error("mcp: middleware panicked", "method", r.Method, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	return h(ctx, r)
}

// incomingEra is the era of what a session receives (or sends) outside a
// stateless request.
func (s *Session) incomingEra() Era {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.mc != nil:
		return EraModern
	case s.rev != nil && s.rev.Handshake():
		return EraLegacy
	}
	return EraUnknown
}

// wrapRequest runs an incoming request of a session through the
// middleware when there is any: run answers it with the context and params
// the middleware passes on. Without middleware it is run itself.
func (s *Session) wrapRequest(ctx context.Context, m *jsonrpc.Message, rev *revision.Revision, era Era, run func(context.Context, jsontext.Value) (wire.Appender, *jsonrpc.Error)) (wire.Appender, *jsonrpc.Error) {
	if s.mw == nil {
		return run(ctx, m.Params)
	}
	if rev == nil {
		rev = s.Revision()
	}
	r := &Request{Method: m.Method, Params: m.Params, ID: m.ID, Revision: rev, Era: era, Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		res, jerr := run(ctx, r.Params)
		if jerr != nil {
			return nil, jerr
		}
		b, err := res.AppendJSON(nil)
		if err != nil {
			return nil, resultError(r.Method, err)
		}
		return b, nil
	}
	raw, err := through(ctx, s.mw, r, s.log)
	if err != nil {
		return nil, asJSONRPC(err)
	}
	if raw == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: m.Method + ": the middleware returned no result"}
	}
	return rawAppender(raw), nil
}

// answerThrough answers an incoming request the engine handles itself
// (ping, initialize, logging/setLevel, subscriptions): without middleware
// answer is called with reply as is; with middleware, the answer answer
// gives becomes the result of next, and what the middleware returns is
// sent.
//
// A middleware that turns a successful initialize into an error leaves the
// session initialized all the same: refuse one before calling next.
func (s *Session) answerThrough(vals valuer, m *jsonrpc.Message, era Era, reply replier, answer func(replier)) {
	if s.mw == nil {
		answer(reply)
		return
	}
	r := &Request{Method: m.Method, Params: m.Params, ID: m.ID, Revision: s.Revision(), Era: era, Session: s}
	r.next = func(ctx context.Context, r *Request) (jsontext.Value, error) {
		var got *jsonrpc.Message
		answer(func(a *jsonrpc.Message) { got = a })
		switch {
		case got == nil:
			return nil, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: m.Method + ": no answer"}
		case got.Kind == jsonrpc.ErrorResponse:
			return nil, got.Error
		}
		return got.Result, nil
	}
	ctx := withRequestVals(s.ctx(), vals, s, m.ID)
	raw, err := through(ctx, s.mw, r, s.log)
	switch {
	case err != nil:
		s.answer(reply, errorMessage(m.ID, asJSONRPC(err)))
	case raw == nil:
		s.answer(reply, errorMessage(m.ID, &jsonrpc.Error{Code: jsonrpc.InternalError, Message: m.Method + ": the middleware returned no result"}))
	default:
		s.answer(reply, &jsonrpc.Message{Kind: jsonrpc.Response, ID: m.ID, Result: raw})
	}
}

// ReceiveHook returns a Middleware that calls fn before the handling of
// each request and notification this side receives, with the Request as
// Middleware sees it (outgoing messages pass untouched): for logging, or
// to refuse what the caller may not do. A nil error lets the message
// through. An error refuses it: a request is answered with the error, a
// *jsonrpc.Error as it is and any other as -32600 (invalid request) with
// its text, which the peer reads; a notification is dropped. fn is called
// from many goroutines at once, and must not change r.
func ReceiveHook(fn func(ctx context.Context, r *Request) error) Middleware {
	return func(next HandlerFunc) HandlerFunc {
		return func(ctx context.Context, r *Request) (jsontext.Value, error) {
			if r.Outgoing {
				return next(ctx, r)
			}
			if err := fn(ctx, r); err != nil {
				var je *jsonrpc.Error
				if !errors.As(err, &je) {
					je = &jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: err.Error()}
				}
				return nil, je
			}
			return next(ctx, r)
		}
	}
}
