package session

import (
	"context"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Extension is an MCP extension served beside a revision's own methods
// (Tasks, Skills): it is negotiated under capabilities.extensions[ID()] and
// adds client-to-server requests (see
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle).
type Extension interface {
	// ID is the extension's identifier, such as
	// "io.modelcontextprotocol/tasks".
	ID() string
	// Capability is the JSON object the server declares under
	// capabilities.extensions[ID()] (server/discover), usually {}.
	Capability() jsontext.Value
	// Methods are the table entries of the requests it adds (wire.Method,
	// as a revision's table has them; Direction ClientToServer; NewParams
	// set for strict params decoding).
	Methods() []wire.Method
	// HandleRequest answers one of Methods, like Handler.HandleRequest.
	// The runtime calls it for a request whose method is one of Methods
	// and which the revision's table does not have.
	HandleRequest(ctx context.Context, s *Session, method string, params jsontext.Value) (wire.Appender, error)
}

// ToolCallWrapper is an optional interface of an Extension that takes over
// tools/call (Tasks: run the call as a task). call runs the tool as it
// would run without the extension; the wrapper may run it on another
// goroutine, with another context, and answer with another result
// (CreateTaskResult). A server that serves the extension calls
// WrapToolCall for every tools/call, of a legacy session too: there
// ClientDeclares is false, and IsStateless tells the eras apart.
type ToolCallWrapper interface {
	WrapToolCall(ctx context.Context, s *Session, params jsontext.Value, call func(context.Context) (wire.Appender, error)) (wire.Appender, error)
}

// ListenExtension is an optional interface of an Extension that defines
// members of the notifications filter of subscriptions/listen, and sends
// the notifications they ask for on the stream (the Tasks extension:
// taskIds, and notifications/tasks). The runtime serves
// subscriptions/listen (for a handler with a Bus) and calls Listen for a
// stream whose filter has one of the extension's members. A member of the
// filter that neither the core nor a served extension defines is ignored,
// and not acknowledged. The core's own members, and a member an extension
// served before it defines, are not the extension's.
type ListenExtension interface {
	Extension
	// ListenFilter returns the names of the filter members the extension
	// defines, such as "taskIds".
	ListenFilter() []string
	// Listen starts the extension's part of a listen stream. ctx is the
	// request's (ClientDeclares and PrincipalOf work on it) and ends with
	// the stream; asked is an object of the extension's members that the
	// request's filter has. Listen returns an object of the members it
	// grants, which the acknowledgement's filter carries (nil or {} for
	// none), or an error that answers the request instead (such as
	// MissingExtensionError). From its call until ctx ends, it calls send
	// with each notification for the stream: its method, and its params
	// (an object, or nil for none; the runtime adds the subscription's id
	// to _meta). send does not block and may be called from any
	// goroutine; the notifications are sent in the order given, after the
	// acknowledgement, and a stream holds at most 256 a client has not read
	// yet, dropping the oldest past that.
	Listen(ctx context.Context, asked jsontext.Value, send func(method string, params jsontext.Value)) (granted jsontext.Value, err error)
}

// ExtensionHandler is implemented by a Handler that serves extensions. The
// runtime looks a method up in the handler's extensions when the revision's
// table does not have it, for stateless requests and for the requests of a
// legacy session whose revision has capabilities.extensions (none of those
// before 2026-07-28 has); a method of no extension stays -32601 (method not
// found). Extensions is called for each such request, from many goroutines
// at once.
type ExtensionHandler interface {
	Handler
	Extensions() []Extension
}

// findExtension returns the extension of h that serves method, and its
// table entry, or nil.
func findExtension(h Handler, method string) (Extension, *wire.Method) {
	eh, ok := h.(ExtensionHandler)
	if !ok {
		return nil, nil
	}
	for _, x := range eh.Extensions() {
		if x == nil {
			continue
		}
		for _, m := range x.Methods() {
			if m.Name == method {
				return x, &m
			}
		}
	}
	return nil, nil
}

// revisionExtensions caches hasExtensions by revision.
var revisionExtensions sync.Map // *revision.Revision -> bool

// hasExtensions reports whether the capabilities of rev have the
// "extensions" member (2026-07-28 on): its ServerCapabilities keeps it
// through a decode and an encode (unknown members are dropped).
func hasExtensions(rev *revision.Revision) bool {
	if rev == nil {
		return false
	}
	if v, ok := revisionExtensions.Load(rev); ok {
		return v.(bool)
	}
	has := false
	if rev.New != nil {
		if c, ok := rev.New("ServerCapabilities"); ok {
			if wire.Unmarshal([]byte(`{"extensions":{}}`), c) == nil {
				b, err := c.AppendJSON(nil)
				has = err == nil && wire.Has(b, "extensions")
			}
		}
	}
	revisionExtensions.Store(rev, has)
	return has
}

// ClientDeclares reports whether the request of ctx declared extension id
// in its client capabilities: on a stateless request, those of its _meta
// (_meta["io.modelcontextprotocol/clientCapabilities"].extensions); on a
// legacy session, those of initialize when the session's revision has
// extensions (none before 2026-07-28 has). A capability whose value is
// false or null is not declared.
func ClientDeclares(ctx context.Context, id string) bool {
	ri, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return false
	}
	var caps jsontext.Value
	switch {
	case ri.mod() != nil:
		caps = ri.mod().caps
	case ri.s != nil && hasExtensions(ri.s.Revision()):
		caps = ri.s.PeerCapabilities()
	default:
		return false
	}
	exts, ok := wire.Member(caps, "extensions")
	if !ok {
		return false
	}
	v, ok := wire.Member(exts, id)
	if !ok {
		return false
	}
	return v.Kind() != 'n' && v.Kind() != 'f'
}

// MissingExtensionError returns error -32021 (MissingRequiredClientCapability)
// for a request whose handling needs the extension id, which it did not
// declare, with data {"requiredCapabilities":{"extensions":{id:{}}}}.
// (MissingCapabilityError splits its path on dots, which an extension id
// contains.)
func MissingExtensionError(id string) *jsonrpc.Error {
	e := wire.NewEncoder(nil)
	e.BeginObject()
	e.Name(`"requiredCapabilities":`)
	e.BeginObject()
	e.Name(`"extensions":`)
	e.BeginObject()
	q, _ := jsontext.AppendQuote(nil, id)
	e.Name(string(q) + ":")
	e.BeginObject()
	e.EndObject()
	e.EndObject()
	e.EndObject()
	e.EndObject()
	data, _ := e.Bytes()
	return &jsonrpc.Error{Code: MissingRequiredClientCapability, Message: "this request needs the client to declare the extension " + id + " in capabilities.extensions, which it did not", Data: data}
}

// Asker answers Ask for a handler that runs outside a request round (a
// task): Ask calls it instead of answering with an InputRequiredResult
// (stateless) or sending the requests (legacy). It returns the answers by
// the keys of reqs.
type Asker func(ctx context.Context, reqs map[string]InputRequest) (map[string]jsontext.Value, error)

type askerKey struct{}

// WithAsker returns ctx whose Ask calls a.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

type detachedKey struct{}

// Detach returns a context with the values of ctx, the request a handler
// answers included, but not its cancellation or deadline: for a handler
// that goes on after its request was answered (a task). The request's
// stream is gone by then, so in it ReportProgress and Log send nothing and
// return nil.
func Detach(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), detachedKey{}, true)
}

// detached reports whether ctx was made by Detach.
func detached(ctx context.Context) bool {
	return ctx.Value(detachedKey{}) != nil
}
