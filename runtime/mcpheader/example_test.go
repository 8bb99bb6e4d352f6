package mcpheader_test

import (
	"errors"
	"fmt"
	"log"
	"maps"
	"net/http"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

// A client reads the annotations of a tool from tools/list and writes the
// headers of a call; the server checks them against the body.
func Example() {
	inputSchema := jsontext.Value(`{
		"type": "object",
		"properties": {
			"region": {"type": "string", "x-mcp-header": "Region"},
			"limit": {"type": "integer", "x-mcp-header": "Limit"},
			"query": {"type": "string"}
		},
		"required": ["region", "query"]
	}`)
	tool, err := mcpheader.ParseTool(inputSchema)
	if err != nil {
		log.Fatal(err) // a client drops such a tool from its tools/list view
	}
	params := jsontext.Value(`{"name":"execute_sql","arguments":{"region":"Zürich","limit":10,"query":"SELECT 1"}}`)

	// Client side.
	h := http.Header{}
	h.Set(mcpheader.HeaderProtocolVersion, "2026-07-28")
	if err := mcpheader.Set(h, "tools/call", params, tool); err != nil {
		log.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		fmt.Printf("%s: %s\n", k, h.Get(k))
	}

	// Server side: the same body with these headers passes; a proxy that
	// rewrote the body's region does not.
	fmt.Println(mcpheader.Check(h, "tools/call", params, tool))
	tampered := jsontext.Value(`{"name":"execute_sql","arguments":{"region":"us-east1","limit":10,"query":"SELECT 1"}}`)
	err = mcpheader.Check(h, "tools/call", tampered, tool)
	fmt.Println(errors.Is(err, mcpheader.ErrMismatch), err)
	// Output:
	// Mcp-Method: tools/call
	// Mcp-Name: execute_sql
	// Mcp-Param-Limit: 10
	// Mcp-Param-Region: =?base64?WsO8cmljaA==?=
	// Mcp-Protocol-Version: 2026-07-28
	// <nil>
	// true header mismatch: Mcp-Param-Region: the value "Zürich" does not match params/arguments/region "us-east1"
}

func ExampleEncode() {
	for _, v := range []string{"us-west1", " padded ", "Hello, 世界", "=?base64?literal?="} {
		fmt.Println(mcpheader.Encode(v))
	}
	// Output:
	// us-west1
	// =?base64?IHBhZGRlZCA=?=
	// =?base64?SGVsbG8sIOS4lueVjA==?=
	// =?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=
}

func ExampleDecode() {
	for _, h := range []string{"=?base64?SGVsbG8=?=", "SGVsbG8=", "=?base64?SGVsbG8?="} {
		v, err := mcpheader.Decode(h)
		fmt.Printf("%q %v\n", v, err)
	}
	// Output:
	// "Hello" <nil>
	// "SGVsbG8=" <nil>
	// "" the Base64 between "=?base64?" and "?=": illegal base64 data at input byte 4
}

// ParseTool names the annotation that breaks a rule, so that a client can
// log why it drops the tool.
func ExampleParseTool() {
	_, err := mcpheader.ParseTool(jsontext.Value(`{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}}`))
	fmt.Println(err)
	_, err = mcpheader.ParseTool(jsontext.Value(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}}`))
	fmt.Println(err)
	// Output:
	// x-mcp-header at /properties/score/x-mcp-header: the property's type is "number"; x-mcp-header needs type string, integer or boolean
	// x-mcp-header at /properties/tags/items/x-mcp-header: its property is not reached from the schema root through "properties" alone
}

// A server that has read a request's params once, for its own needs, hands
// CheckMembers the members the headers mirror rather than the params.
func ExampleCheckMembers() {
	h := http.Header{}
	h.Set(mcpheader.HeaderMethod, "tools/call")
	h.Set(mcpheader.HeaderName, "echo")
	name := jsontext.Value(`"echo"`) // params.name: NameField("tools/call") is "name"
	args := jsontext.Value(`{"text":"hi"}`)
	fmt.Println(mcpheader.NameField("tools/call"), mcpheader.CheckMembers(h, "tools/call", name, args, nil))
	fmt.Println(mcpheader.CheckMembers(h, "tools/call", jsontext.Value(`"other"`), args, nil))
	// Output:
	// name <nil>
	// header mismatch: Mcp-Name: the value "echo" does not match the body's params.name "other"
}
