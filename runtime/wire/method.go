package wire

// Codec is a value that decodes and encodes itself: every generated type
// (as a pointer) is one.
type Codec interface {
	Unmarshaler
	Appender
}

// Direction says who may send a method.
type Direction uint8

// The directions; Both is ClientToServer|ServerToClient.
const (
	ClientToServer Direction = 1 << iota
	ServerToClient
	Both = ClientToServer | ServerToClient
)

// String returns "client→server", "server→client" or "both".
func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "client→server"
	case ServerToClient:
		return "server→client"
	case Both:
		return "both"
	}
	return "none"
}

// Method describes one JSON-RPC method of a revision, as generated packages
// list them in their method tables.
type Method struct {
	// Name is the method, such as "tools/call".
	Name string
	// Notification reports a notification; otherwise it is a request.
	Notification bool
	// Embedded reports a request that is never a JSON-RPC message: it
	// travels inside a result (2026-07-28's inputRequests, keyed), and its
	// result inside the retried request's inputResponses under the same key.
	// A session must not accept it as a message.
	Embedded bool
	// Direction says who sends it.
	Direction Direction
	// Message is the schema name of the request or notification, such as
	// "CallToolRequest".
	Message string
	// ParamsRequired reports that params must be present.
	ParamsRequired bool
	// NewParams returns a new, empty params value; nil when the method takes
	// no params.
	NewParams func() Codec
	// Results are the schema names of the results a response may carry, the
	// normal one first (requests only).
	Results []string
	// NewResult returns a new, empty value of Results[i].
	NewResult []func() Codec
	// Response is the schema name of the method's own response definition
	// (2026-07-28's CallToolResultResponse), "" when the revision has none.
	Response string
	// NewAnyResult, when not nil, returns a value that decodes any of
	// Results, choosing as the revision's plan says (by "resultType" in
	// 2026-07-28); its Value field holds the decoded result.
	NewAnyResult func() Codec
	// Gate is the capability the method needs, as a dotted path in the
	// capabilities of GateSide ("server", "client", or "receiver" for methods
	// that go both ways); "" when it needs none.
	Gate     string
	GateSide string
}

// ErrorType describes a named JSON-RPC error of a revision: a schema
// definition whose error code is a constant (ParseError,
// UnsupportedProtocolVersionError…).
type ErrorType struct {
	// Code is the error code.
	Code int64
	// Name is the schema definition, such as "UnsupportedProtocolVersionError".
	Name string
	// NewData returns a new, empty value of the error's data; nil when the
	// schema allows any JSON there.
	NewData func() Codec
}
