package otelmcp

import (
	"context"
	"errors"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The attributes of the convention this package records.
const (
	attrMethod          = "mcp.method.name"
	attrErrorType       = "error.type"
	attrToolName        = "gen_ai.tool.name"
	attrPromptName      = "gen_ai.prompt.name"
	attrOperation       = "gen_ai.operation.name"
	attrRequestID       = "jsonrpc.request.id"
	attrResourceURI     = "mcp.resource.uri"
	attrStatusCode      = "rpc.response.status_code"
	attrProtocolVersion = "mcp.protocol.version"
	attrSessionID       = "mcp.session.id"
	attrNetTransport    = "network.transport"
	attrNetProtocol     = "network.protocol.name"
	attrNetVersion      = "network.protocol.version"
	attrServerAddress   = "server.address"
	attrServerPort      = "server.port"
	attrClientAddress   = "client.address"
	attrClientPort      = "client.port"
	attrToolArguments   = "gen_ai.tool.call.arguments"
	attrToolResult      = "gen_ai.tool.call.result"
)

// The values of error.type besides JSON-RPC error codes.
const (
	// errToolError is a tools/call result with isError set.
	errToolError = "tool_error"
	// errCancelled is a request cancelled before its answer: by the
	// caller's context on the sending side, by notifications/cancelled
	// (or the end of the session) on the receiving side.
	errCancelled = "cancelled"
	// errTimeout is a request whose deadline (the context's, or the
	// session's CallTimeout) passed before its answer.
	errTimeout = "timeout"
	// errOther is any other failure: the connection lost, a result that
	// could not be read.
	errOther = "_OTHER"
)

// message is what one observed message is described by.
type message struct {
	method   string
	outgoing bool
	params   jsontext.Value

	tool, prompt, uri string // the target, when the method has one
	id                string // jsonrpc.request.id; "" for none
	version           string // mcp.protocol.version; "" until known
	versionSet        bool   // version was among the start attributes
	sessionID         string // mcp.session.id; "" for none
	sessionIDSet      bool   // sessionID was among the start attributes
	legacy            bool   // the message belongs to a legacy session
	net               transport.Info
	peerAddr          string // the client's address (server side) or the server's (client side)
	peerPort          int
	st                *sessionState
	r                 *session.Request
}

// describe reads what the convention records of r, before it is handled.
func describe(ctx context.Context, r *session.Request, st *sessionState) *message {
	m := &message{method: r.Method, outgoing: r.Outgoing, params: r.Params, st: st, r: r}
	if r.ID.IsValid() {
		m.id = idString(r.ID)
	}
	if r.Revision != nil {
		m.version = r.Revision.Name
	}
	switch r.Method {
	case "tools/call":
		m.tool, _ = stringMember(r.Params, "name")
	case "prompts/get":
		m.prompt, _ = stringMember(r.Params, "name")
	case "completion/complete":
		if ref, ok := wire.Member(r.Params, "ref"); ok {
			if t, _ := stringMember(ref, "type"); t == "ref/prompt" {
				m.prompt, _ = stringMember(ref, "name")
			}
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated":
		m.uri, _ = stringMember(r.Params, "uri")
	}
	if r.Session != nil {
		m.net = transport.Describe(r.Session.Transport())
	}
	m.legacy = r.Era == session.EraLegacy || (r.Era == session.EraUnknown && r.Method == "initialize")
	if m.legacy {
		m.sessionID = st.sessionID(m.net.SessionID)
	}
	if r.Session == nil || r.Session.Role() == session.Server {
		// On a server, the HTTP request that carried the request (the one
		// handled, or the one whose handler sends) says more than the
		// session's transport: its own protocol and the client's address.
		if h, ok := session.HTTPRequestOf(ctx); ok {
			sid := m.net.SessionID
			m.net = h.Info()
			m.net.SessionID = sid
		}
	}
	m.peerAddr, m.peerPort = m.net.Address, m.net.Port
	return m
}

// setID records the id of an outgoing request, known once it is sent.
func (m *message) setID(id wire.ID) {
	if id.IsValid() {
		m.id = idString(id)
	}
}

// finish completes m once the message was handled: the revision an
// initialize negotiated, and the session id a client learns from its
// answer.
func (m *message) finish(o outcome, res jsontext.Value) {
	if m.method != "initialize" || o.errorType != "" {
		return
	}
	if v, ok := stringMember(res, "protocolVersion"); ok && m.version == "" {
		m.version = v
	}
	if m.sessionID == "" && m.r.Session != nil {
		m.sessionID = m.st.sessionID(transport.Describe(m.r.Session.Transport()).SessionID)
	}
}

// nameTarget is what follows the method in the span name, "" for none.
func (m *message) nameTarget(opts Options) string {
	switch {
	case m.tool != "":
		return m.tool
	case m.prompt != "":
		return m.prompt
	case m.uri != "" && opts.ResourceURIInSpanName:
		return m.uri
	}
	return ""
}

// spanName is "{mcp.method.name} {target}", or the method alone.
func (m *message) spanName(opts Options) string {
	if t := m.nameTarget(opts); t != "" {
		return m.method + " " + t
	}
	return m.method
}

// common are the attributes spans and operation metrics share.
func (m *message) common(kv []attribute.KeyValue) []attribute.KeyValue {
	kv = m.target(kv)
	if m.version != "" {
		kv = append(kv, attribute.String(attrProtocolVersion, m.version))
	}
	return m.network(kv)
}

// target adds the method and what it acts on: the attributes a sampler
// sees as a span starts.
func (m *message) target(kv []attribute.KeyValue) []attribute.KeyValue {
	kv = append(kv, attribute.String(attrMethod, m.method))
	if m.tool != "" {
		kv = append(kv, attribute.String(attrToolName, m.tool), attribute.String(attrOperation, "execute_tool"))
	}
	if m.prompt != "" {
		kv = append(kv, attribute.String(attrPromptName, m.prompt))
	}
	return kv
}

// network adds the network attributes, and the peer's address: the
// server's on the sending side of a client... (server.*), the client's on a
// server (client.*).
func (m *message) network(kv []attribute.KeyValue) []attribute.KeyValue {
	if m.net.Network != "" {
		kv = append(kv, attribute.String(attrNetTransport, m.net.Network))
	}
	if m.net.Protocol != "" {
		kv = append(kv, attribute.String(attrNetProtocol, m.net.Protocol))
		if m.net.ProtocolVersion != "" {
			kv = append(kv, attribute.String(attrNetVersion, m.net.ProtocolVersion))
		}
	}
	return kv
}

// startAttrs are the attributes a span starts with, for samplers: the
// method and its target.
func (m *message) startAttrs() []attribute.KeyValue {
	return m.target(make([]attribute.KeyValue, 0, 4))
}

// moreAttrs are the attributes a recording span gets once started.
func (m *message) moreAttrs() []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 10)
	if m.version != "" {
		kv = append(kv, attribute.String(attrProtocolVersion, m.version))
		m.versionSet = true
	}
	kv = m.network(kv)
	if m.id != "" {
		kv = append(kv, attribute.String(attrRequestID, m.id))
	}
	if m.uri != "" {
		kv = append(kv, attribute.String(attrResourceURI, m.uri))
	}
	if m.sessionID != "" {
		kv = append(kv, attribute.String(attrSessionID, m.sessionID))
		m.sessionIDSet = true
	}
	return m.peer(kv, m.role())
}

// role says whose address the peer's is: the server's when this side
// sends as a client... The convention's server.* are the server's wherever
// observed, client.* the client's: a client records server.*, a server
// client.*, whichever way the message goes.
func (m *message) role() session.Role {
	if m.r.Session != nil {
		return m.r.Session.Role()
	}
	return session.Server // a Stateless serves requests
}

// peer adds the peer's address and port.
func (m *message) peer(kv []attribute.KeyValue, role session.Role) []attribute.KeyValue {
	if m.peerAddr == "" {
		return kv
	}
	if role == session.Client {
		kv = append(kv, attribute.String(attrServerAddress, m.peerAddr))
		if m.peerPort > 0 {
			kv = append(kv, attribute.Int(attrServerPort, m.peerPort))
		}
		return kv
	}
	kv = append(kv, attribute.String(attrClientAddress, m.peerAddr))
	if m.peerPort > 0 {
		kv = append(kv, attribute.Int(attrClientPort, m.peerPort))
	}
	return kv
}

// pointKey is what an operation duration's attributes are made of.
type pointKey struct {
	method, tool, prompt, version, uri string
	network, protocol, protocolVersion string
	errorType, statusCode              string
	serverAddr                         string
	serverPort                         int
	client                             bool
}

// metricOption returns the record option with the attributes of m's
// operation duration.
func (in *instruments) metricOption(m *message, o outcome) metric.RecordOption {
	k := pointKey{method: m.method, tool: m.tool, prompt: m.prompt, version: m.version,
		network: m.net.Network, protocol: m.net.Protocol, protocolVersion: m.net.ProtocolVersion,
		errorType: o.errorType, statusCode: o.statusCode, client: m.role() == session.Client}
	if in.opts.ResourceURIInMetrics {
		k.uri = m.uri
	}
	if k.client {
		k.serverAddr, k.serverPort = m.peerAddr, m.peerPort
	}
	in.pointsMu.RLock()
	opt, ok := in.points[k]
	in.pointsMu.RUnlock()
	if ok {
		return opt
	}
	opt = metric.WithAttributeSet(m.metricAttrs(in.opts, o))
	in.pointsMu.Lock()
	if len(in.points) < maxPoints {
		if in.points == nil {
			in.points = map[pointKey]metric.RecordOption{}
		}
		in.points[k] = opt
	}
	in.pointsMu.Unlock()
	return opt
}

// metricAttrs are the attributes of an operation duration: the span's
// without the request id, the session id and (unless opted in) the
// resource URI; client.* are not among the server metric's.
func (m *message) metricAttrs(opts Options, o outcome) attribute.Set {
	kv := m.common(make([]attribute.KeyValue, 0, 12))
	if o.errorType != "" {
		kv = append(kv, attribute.String(attrErrorType, o.errorType))
		if o.statusCode != "" {
			kv = append(kv, attribute.String(attrStatusCode, o.statusCode))
		}
	}
	if opts.ResourceURIInMetrics && m.uri != "" {
		kv = append(kv, attribute.String(attrResourceURI, m.uri))
	}
	if m.role() == session.Client {
		kv = m.peer(kv, session.Client)
	}
	return attribute.NewSet(kv...)
}

// recordArguments sets the tool's arguments on span.
func (m *message) recordArguments(span trace.Span) {
	if m.method != "tools/call" {
		return
	}
	if args, ok := wire.Member(m.params, "arguments"); ok {
		span.SetAttributes(attribute.String(attrToolArguments, string(args)))
	}
}

// outcome is how a message ended: error.type, rpc.response.status_code and
// the status description; all empty for a success.
type outcome struct {
	errorType, statusCode, message string
}

// outcomeOf classifies the end of r: a JSON-RPC error by its code, a tool's
// own error (isError) as tool_error; on the handling side, a request whose
// context ended as cancelled and any other error as the -32603 the peer
// gets; on the sending side, a passed deadline as timeout, a cancellation
// as cancelled, anything else as _OTHER.
func outcomeOf(ctx context.Context, r *session.Request, res jsontext.Value, err error, outgoing bool) outcome {
	if err == nil {
		if r.Method == "tools/call" && isToolError(res) {
			return outcome{errorType: errToolError}
		}
		return outcome{}
	}
	// The handling side's context ended: the peer cancelled the request
	// (or closed its subscription), or the session ended. The engine has
	// turned the handler's error into the -32603 it would have sent.
	cancelled := (!outgoing && ctx.Err() != nil) || (outgoing && errors.Is(err, context.Canceled))
	if cancelled && r.Method == "subscriptions/listen" {
		// A subscription ends when its client closes it: no failure.
		return outcome{}
	}
	if cancelled && !outgoing {
		return outcome{errorType: errCancelled, message: err.Error()}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		code := strconv.FormatInt(je.Code, 10)
		return outcome{errorType: code, statusCode: code, message: je.Message}
	}
	if !outgoing {
		// The handling side: the handler failed and the peer gets -32603.
		code := strconv.FormatInt(jsonrpc.InternalError, 10)
		return outcome{errorType: code, statusCode: code, message: err.Error()}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return outcome{errorType: errTimeout, message: err.Error()}
	case errors.Is(err, context.Canceled):
		return outcome{errorType: errCancelled, message: err.Error()}
	}
	return outcome{errorType: errOther, message: err.Error()}
}

// isToolError reports whether a CallToolResult has isError true.
func isToolError(res jsontext.Value) bool {
	v, ok := wire.Member(res, "isError")
	return ok && string(v) == "true"
}

// stringMember returns the member name of the object v when it is a JSON
// string.
func stringMember(v jsontext.Value, name string) (string, bool) {
	raw, ok := wire.Member(v, name)
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	return wire.MemberString(v, name)
}

// idString is jsonrpc.request.id: a string id as it is, a number in
// decimal.
func idString(id wire.ID) string {
	if s, ok := id.Str(); ok {
		return s
	}
	n, _ := id.Int()
	return strconv.FormatInt(n, 10)
}
