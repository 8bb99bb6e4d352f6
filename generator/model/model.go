// Package model is mcpgen's language-neutral intermediate representation of
// one protocol revision: named declarations (objects, unions, enums, aliases)
// and the method table. It is built from a loaded schema by Build; every later
// stage (plan, emit, diff) reads only the model.
package model

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/generator/load"
)

// DeclKind says what a declaration is.
type DeclKind int

// The declaration kinds.
const (
	// Object is a JSON object with known members (allOf flattened).
	Object DeclKind = iota + 1
	// Union is an anyOf: exactly one of several variants.
	Union
	// Enum is a string with a fixed set of values.
	Enum
	// Alias is another name for a type (a $ref, a scalar, a map, raw JSON).
	Alias
)

func (k DeclKind) String() string {
	switch k {
	case Object:
		return "object"
	case Union:
		return "union"
	case Enum:
		return "enum"
	case Alias:
		return "alias"
	}
	return "invalid"
}

// Revision is the model of one protocol revision.
type Revision struct {
	// Name is the revision, such as "2025-06-18".
	Name string
	// SHA256 is the hex sha256 of the schema file.
	SHA256 string
	// Source is the schema file's name, for error messages.
	Source string
	// Schema is the schema document itself.
	Schema []byte
	// Decls are every declaration: the definitions in file order, each
	// followed by the anonymous types hoisted out of it.
	Decls []*Decl
	// Methods are the protocol's methods, sorted by name.
	Methods []*Method
	// Batching reports whether JSON-RPC batches are part of the revision.
	Batching bool
	// Errors are the named JSON-RPC errors of the revision (definitions with a
	// constant error code), sorted by code.
	Errors []*ErrorType
	// TableUse names every hand-table entry that applied to this revision
	// (see UnusedTableEntries).
	TableUse map[string]bool
	// Extension is set in the model of an extension (BuildExtension): then
	// Decls hold the core revision's declarations too (Extension.External),
	// and Methods only the extension's own.
	Extension *Extension
}

// ErrorType is a definition that describes one JSON-RPC error: either the
// error object itself (a constant "code") or a whole error response (an
// "error" member whose "code" is constant).
type ErrorType struct {
	Decl *Decl
	Code int64
	// Object is the error object's declaration: Decl itself, or the type of
	// Decl's "error" member.
	Object *Decl
	// Data is the type of the error object's "data" member, nil when it has
	// none or any JSON is allowed.
	Data *Type
}

// Lookup returns the declaration with the schema name name.
func (r *Revision) Lookup(name string) *Decl {
	for _, d := range r.Decls {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Method returns the method called name.
func (r *Revision) Method(name string) *Method {
	for _, m := range r.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Decl is a named type. Definitions keep their schema name; anonymous types
// are named by their path: the enclosing name followed by the member's name
// ("CallToolRequest" + "params" → "CallToolRequestParams"), "Item" for array
// items, "Value" for map values and "Variant" plus a position for union
// members.
type Decl struct {
	Name string
	// Pointer is the schema's JSON pointer, such as "#/definitions/Tool".
	Pointer string
	// Doc is the schema's description.
	Doc string
	// Anonymous reports a type hoisted out of another one.
	Anonymous bool
	Kind      DeclKind

	// Object
	Fields []*Field
	Consts []*Const
	// Open reports an object that declares additionalProperties: the members
	// it does not know are kept.
	Open bool
	// ExtraType is the type of the members an open object does not name when
	// additionalProperties gives one ({"type": "string"}); nil keeps them as
	// raw JSON.
	ExtraType *Type
	// Closed reports an object with additionalProperties false: a member it
	// does not know is an error.
	Closed bool
	// hasID reports a message whose JSON-RPC envelope has an "id": a
	// request.
	hasID bool
	// Message reports a request or notification definition (a required const
	// "method"). Its envelope members jsonrpc and id, which 2025-11-25 embeds,
	// are dropped: the JSON-RPC envelope belongs to the runtime.
	Message bool

	// Union
	Variants []*Type

	// Enum
	Values []string

	// Alias
	Target *Type

	// Checks are the assertions of an object's, a union's or an enum's own
	// schema (minProperties, dependentRequired, pattern…), nil when none. An
	// alias's are its Target's. Validation enforces them; the codecs do not
	// (the keyword table says where the codecs check).
	Checks *Checks

	// Annotations of the definition's schema.
	Annotations
}

// Annotations are the schema's annotation keywords that reach the Go code
// (see load.Keywords): the emitter turns them into doc comments.
type Annotations struct {
	// Deprecated is the "deprecated" keyword.
	Deprecated bool
	// Default is the "default" value, compact JSON; nil when absent.
	Default jsontext.Value
	// ReadOnly and WriteOnly are the keywords of those names.
	ReadOnly, WriteOnly bool
	// Extensions are the "x-…" keywords, in schema order.
	Extensions []*load.Extension
}

func annotations(s *load.Schema) Annotations {
	return Annotations{Deprecated: s.Deprecated, Default: s.Default, ReadOnly: s.ReadOnly, WriteOnly: s.WriteOnly, Extensions: s.Extensions}
}

// Field is an object member that carries data.
type Field struct {
	Name     string
	Doc      string
	Type     *Type
	Required bool
	// Meta reports the "_meta" member: it is kept as raw JSON, and MetaKeys
	// are the members the schema declares in it (such as progressToken).
	Meta     bool
	MetaKeys []*Field
	// MetaDecl is the definition that declares the MetaKeys when the member
	// refers to one (2026-07-28's RequestMetaObject), "" when they are
	// declared inline.
	MetaDecl string
	// Annotations of the member's schema.
	Annotations
}

// Const is an object member with a single allowed value, such as
// "type": "text". Encoders write it; decoders check it.
type Const struct {
	Name     string
	Doc      string
	Value    jsontext.Value
	Required bool
}

// TypeKind says what a type expression is.
type TypeKind int

// The type kinds.
const (
	Ref       TypeKind = iota + 1 // a Decl
	String                        // a JSON string
	Integer                       // a JSON integer
	Number                        // a JSON number
	Boolean                       // true or false
	Array                         // Elem is the element type
	Map                           // an object with arbitrary names; Elem is the value type
	RawValue                      // any JSON value, kept as bytes
	RawObject                     // any JSON object, kept as bytes
	ID                            // a string or an integer (RequestId, ProgressToken)
)

// Type is a type expression.
type Type struct {
	Kind TypeKind
	Decl *Decl // Ref
	Elem *Type // Array, Map
	// Nullable reports that null is allowed too (type: [T, "null"]).
	Nullable bool
	// Format is the string format, such as "uri".
	Format string
	// ObjectConsts are the required constant members a RawObject must have
	// (such as "type": "object" on an embedded JSON Schema).
	ObjectConsts []*Const
	// Values, when not nil, are the values an enum that is not a string enum
	// allows (integers, numbers, booleans, or any JSON for a mix), compact
	// JSON. The codecs check them.
	Values []jsontext.Value
	// Checks are the schema's assertions on the value (maxItems, minimum…),
	// nil when it has none. The table load.Keywords says which the decoders
	// enforce; validation enforces all of them.
	Checks *Checks
}

// Checks are the assertion keywords of a schema (see load.Keywords).
type Checks = load.Checks

// MethodKind tells requests from notifications.
type MethodKind int

// The method kinds.
const (
	Request MethodKind = iota + 1
	Notification
	// Embedded is a request that is never a JSON-RPC message: it travels
	// inside a result (2026-07-28's inputRequests), and its result inside a
	// later request (inputResponses), matched by key.
	Embedded
)

func (k MethodKind) String() string {
	switch k {
	case Request:
		return "request"
	case Embedded:
		return "embedded request"
	}
	return "notification"
}

// Answered reports whether a method of kind k has results: a request or an
// embedded request.
func (k MethodKind) Answered() bool { return k == Request || k == Embedded }

// Direction says who sends a method.
type Direction int

// The directions. Both is ClientToServer|ServerToClient.
const (
	ClientToServer Direction = 1 << iota
	ServerToClient
	Both = ClientToServer | ServerToClient
)

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

// Method is one JSON-RPC method of the revision.
type Method struct {
	Name      string
	Kind      MethodKind
	Direction Direction
	// Message is the request or notification declaration.
	Message *Decl
	// Params is the params type, nil when the message has none.
	Params *Type
	// ParamsRequired reports that params must be present.
	ParamsRequired bool
	// Results are the declarations a response may carry: the first is the
	// normal result; more come from the response wrapper (such as
	// InputRequiredResult in 2026-07-28's CallToolResultResponse) or from
	// the params (CreateTaskResult for task-augmented requests).
	Results []*Decl
	// Response is the method's own response definition, such as
	// CallToolResultResponse (2026-07-28), nil when the revision has none.
	Response *Decl
	// AnyResult is the union of Results as the response declares it (the
	// type of Response's "result" member), nil when Response is nil or its
	// result is a single definition.
	AnyResult *Decl
	// Gate is the capability the receiver must have declared, as a dotted
	// path in its capabilities object ("tools", "resources.subscribe"); "" when
	// the method is not gated.
	Gate string
	// GateInferred reports a gate inferred from the capability names rather
	// than taken from the gate table.
	GateInferred bool
	// Why explains Results when they come from a table.
	Why string

	gateSide string
}
