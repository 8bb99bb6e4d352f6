package mcp20251125_test

import (
	"errors"
	"fmt"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A tool result with one text block. The encoder writes the discriminator
// ("type": "text") itself, and leaves out the absent optional members.
func ExampleCallToolResult_AppendJSON() {
	res := &mcp.CallToolResult{
		Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "sunny, 22°C"}}},
	}
	b, err := res.AppendJSON(nil)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(string(b))
	// Output:
	// {"content":[{"type":"text","text":"sunny, 22°C"}]}
}

// Decoding the params of a tools/call request; _meta is kept as raw JSON,
// and its declared members have typed accessors.
func ExampleCallToolRequestParams_UnmarshalJSON() {
	data := []byte(`{"name":"get_weather","arguments":{"city":"Paris"},"_meta":{"progressToken":7}}`)
	var params mcp.CallToolRequestParams
	if err := params.UnmarshalJSON(data); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("name:", params.Name)
	fmt.Println("arguments:", string(params.Arguments))
	if tok, ok := params.MetaProgressToken(); ok {
		fmt.Println("progress token:", tok)
	}
	// Output:
	// name: get_weather
	// arguments: {"city":"Paris"}
	// progress token: 7
}

// A union decodes into the variant its discriminator names; switch on the
// type of Value to handle each.
func ExampleContentBlock_UnmarshalJSON() {
	for _, data := range []string{
		`{"type":"text","text":"hello"}`,
		`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`,
		`{"type":"video","url":"https://example.com/v.mp4"}`,
	} {
		var block mcp.ContentBlock
		if err := block.UnmarshalJSON([]byte(data)); err != nil {
			fmt.Println("error:", err)
			continue
		}
		switch v := block.Value.(type) {
		case *mcp.TextContent:
			fmt.Println("text:", v.Text)
		case *mcp.ImageContent:
			fmt.Println("image:", v.MIMEType)
		default:
			fmt.Printf("other: %T\n", v)
		}
	}
	// Output:
	// text: hello
	// image: image/png
	// error: /type: ContentBlock: unknown type "video"
}

// Decoding is strict, and every error names the JSON pointer of the value it
// is about ("" is the whole document): here a duplicate member name, a member
// of the wrong type inside a union, and a required member spelled with the
// wrong case, which does not count as the member.
func Example_strictDecoding() {
	for _, tt := range []struct {
		into wire.Codec
		data string
	}{
		{new(mcp.CallToolRequestParams), `{"name":"a","name":"b"}`},
		{new(mcp.CallToolResult), `{"content":[{"type":"text","text":42}]}`},
		{new(mcp.CallToolRequestParams), `{"Name":"get_weather"}`},
	} {
		err := wire.Unmarshal([]byte(tt.data), tt.into)
		var we *wire.Error
		if errors.As(err, &we) {
			fmt.Printf("pointer %q: %s\n", we.Pointer, we.Msg)
		}
	}
	// Output:
	// pointer "/name": duplicate object member name (at byte offset 12)
	// pointer "/content/0/text": want string, got number
	// pointer "": missing required field "name"
}

// The method table is data: who sends a method, what answers it, and which
// capability it needs.
func ExampleLookupMethod() {
	m, ok := mcp.LookupMethod(mcp.MethodToolsCall)
	if !ok {
		fmt.Println("no such method")
		return
	}
	fmt.Println("direction:", m.Direction)
	fmt.Println("results:", m.Results)
	fmt.Println("gate:", m.GateSide+":"+m.Gate)

	params := m.NewParams()
	if err := wire.Unmarshal([]byte(`{"name":"get_weather"}`), params); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("params: %T\n", params)
	// Output:
	// direction: client→server
	// results: [CallToolResult CreateTaskResult]
	// gate: server:tools
	// params: *mcp20251125.CallToolRequestParams
}

// New decodes any schema definition by name, such as a result whose type
// is known only at run time.
func ExampleNew() {
	v, ok := mcp.New("CallToolResult")
	if !ok {
		fmt.Println("no such definition")
		return
	}
	if err := wire.Unmarshal([]byte(`{"content":[{"type":"text","text":"done"}],"isError":false}`), v); err != nil {
		fmt.Println("error:", err)
		return
	}
	res := v.(*mcp.CallToolResult)
	fmt.Println(res.Content[0].Value.(*mcp.TextContent).Text, *res.IsError)
	// Output:
	// done false
}
