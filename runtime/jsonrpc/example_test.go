package jsonrpc_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A receiver decodes a payload, then answers each item: invalid requests get
// an error response with the ID that could be read (null otherwise), and
// notifications and responses are never answered.
func ExampleDecode() {
	payload := []byte(`[
		{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}},
		{"jsonrpc":"2.0","id":2,"method":"tools/call","params":["echo"]},
		{"jsonrpc":"2.0","method":"notifications/progress","params":[]},
		{"jsonrpc":"2.0","Method":"ping","id":3},
		42
	]`)
	items, batch, err := jsonrpc.Decode(payload, true)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("batch:", batch)
	for _, it := range items {
		switch {
		case it.Msg != nil:
			fmt.Printf("%v %s %s\n", it.Msg.Kind, it.Msg.Method, it.Msg.Params)
		case it.Kind == jsonrpc.Notification || it.Kind == jsonrpc.Response || it.Kind == jsonrpc.ErrorResponse:
			fmt.Println("drop:", it.Err)
		default:
			b, _ := jsonrpc.Encode(&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: it.ID, Error: it.Err})
			fmt.Printf("answer: %s\n", b)
		}
	}

	_, _, err = jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`), false)
	fmt.Println(err)
	// Output:
	// batch: true
	// request tools/call {"name":"echo"}
	// answer: {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"/1/params: want object, got array"}}
	// drop: jsonrpc error -32602: /2/params: want object, got array
	// answer: {"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"/3: not a request, notification or response: no method, result or error member"}}
	// answer: {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"/4: want object, got number"}}
	// jsonrpc: invalid request (-32600): /id: duplicate object member name (at byte offset 24)
}

// A sender encodes a request with its params, and the receiver its answer
// with the result, each in one buffer: what the params or result append
// goes straight into the message.
func ExampleAppendCall() {
	params := session.Raw(`{"name":"echo","arguments":{"text":"hi"}}`)
	req, withParams, err := jsonrpc.AppendCall(nil, wire.IntID(7), "tools/call", params)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(withParams, string(req))

	result := session.Raw(`{"content":[{"type":"text","text":"hi"}]}`)
	resp, err := jsonrpc.AppendResponse(nil, wire.IntID(7), result)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(string(resp))
	// Output:
	// true {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
	// {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}
}
