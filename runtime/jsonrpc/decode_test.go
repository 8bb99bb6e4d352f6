package jsonrpc_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// cmpOpts compare IDs as values.
var cmpOpts = []cmp.Option{
	cmp.Comparer(func(a, b wire.ID) bool { return a == b }),
}

func raw(s string) jsontext.Value { return jsontext.Value(s) }

func ok(m *jsonrpc.Message) jsonrpc.Item {
	return jsonrpc.Item{Msg: m, ID: m.ID, Kind: m.Kind}
}

func bad(code int64, msg string, id wire.ID, kind jsonrpc.Kind) jsonrpc.Item {
	return jsonrpc.Item{Err: &jsonrpc.Error{Code: code, Message: msg}, ID: id, Kind: kind}
}

var (
	noID = wire.ID{}
	id1  = wire.IntID(1)
)

// validCases are single messages that decode; each is also round-tripped.
var validCases = []struct {
	name string
	in   string
	want *jsonrpc.Message
}{
	{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2]}}}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "tools/call", Params: raw(`{"name":"x","arguments":{"a":[1,2]}}`)}},
	{"request without params", `{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("abc"), Method: "ping"}},
	{"request with empty params", `{"jsonrpc":"2.0","id":0,"method":"ping","params":{}}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(0), Method: "ping", Params: raw(`{}`)}},
	{"request members in any order, white space", " \n{ \"params\" : { \"a\" : 1 } , \"method\":\"m\",\t\"id\":-7,\"jsonrpc\":\"2.0\" }\r\n",
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(-7), Method: "m", Params: raw(`{ "a" : 1 }`)}},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}`,
		&jsonrpc.Message{Kind: jsonrpc.Notification, Method: "notifications/progress", Params: raw(`{"progressToken":"t","progress":0.5}`)}},
	{"notification without params", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		&jsonrpc.Message{Kind: jsonrpc.Notification, Method: "notifications/initialized"}},
	{"empty result", `{"jsonrpc":"2.0","id":1,"result":{}}`,
		&jsonrpc.Message{Kind: jsonrpc.Response, ID: id1, Result: raw(`{}`)}},
	{"result", `{"jsonrpc":"2.0","id":"r","result":{"tools":[],"_meta":{"a/b":null}}}`,
		&jsonrpc.Message{Kind: jsonrpc.Response, ID: wire.StringID("r"), Result: raw(`{"tools":[],"_meta":{"a/b":null}}`)}},
	{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":{"supported":["2025-06-18"]}}}`,
		&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: id1, Error: &jsonrpc.Error{Code: -32602, Message: "bad", Data: raw(`{"supported":["2025-06-18"]}`)}}},
	{"error response, id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: &jsonrpc.Error{Code: -32700, Message: "parse error"}}},
	{"error response, no id (2025-11-25)", `{"jsonrpc":"2.0","error":{"code":-32600,"message":""}}`,
		&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: &jsonrpc.Error{Code: -32600, Message: ""}}},
	{"error data null, unknown error members", `{"jsonrpc":"2.0","id":2,"error":{"x":1,"code":5,"message":"m","data":null}}`,
		&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: wire.IntID(2), Error: &jsonrpc.Error{Code: 5, Message: "m", Data: raw(`null`)}}},
	{"error code written 1e3", `{"jsonrpc":"2.0","id":2,"error":{"code":-1e3,"message":"m"}}`,
		&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: wire.IntID(2), Error: &jsonrpc.Error{Code: -1000, Message: "m"}}},
	{"unknown members skipped, wrong case is unknown", `{"jsonrpc":"2.0","Method":"x","ID":3,"id":1,"method":"m","extra":{"deep":[{}]},"JSONRPC":1}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "m"}},
	{"escaped member names and values", `{"\u006a\u0073onrpc":"2\u002e0","i\u0064":"\u00e9","m\u0065thod":"a\/b"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("é"), Method: "a/b"}},
	{"largest integer id", `{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}`,
		&jsonrpc.Message{Kind: jsonrpc.Response, ID: wire.IntID(9223372036854775807), Result: raw(`{}`)}},
	{"smallest integer id", `{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}`,
		&jsonrpc.Message{Kind: jsonrpc.Response, ID: wire.IntID(-9223372036854775808), Result: raw(`{}`)}},
	{"integral id written 1.0", `{"jsonrpc":"2.0","id":1.0,"method":"m"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "m"}},
	{"integral id written 1e2", `{"jsonrpc":"2.0","id":1e2,"method":"m"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(100), Method: "m"}},
	{"string id that looks like an integer", `{"jsonrpc":"2.0","id":"1","method":"m"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("1"), Method: "m"}},
	{"empty string id", `{"jsonrpc":"2.0","id":"","method":"m"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID(""), Method: "m"}},
	{"unicode string id", `{"jsonrpc":"2.0","id":"héllo 世界 😀","method":"m"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("héllo 世界 😀"), Method: "m"}},
	{"escaped unicode string id", `{"jsonrpc":"2.0","id":"\ud83d\ude00\u0000\n","method":"m"}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("😀\x00\n"), Method: "m"}},
	{"unicode method and params", `{"jsonrpc":"2.0","method":"ünï/cødé","params":{"ключ":"値"}}`,
		&jsonrpc.Message{Kind: jsonrpc.Notification, Method: "ünï/cødé", Params: raw(`{"ключ":"値"}`)}},
	{"same name in different objects is no duplicate", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":2,"method":"n","params":{"id":3}}}`,
		&jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "m", Params: raw(`{"id":2,"method":"n","params":{"id":3}}`)}},
}

func TestDecodeValid(t *testing.T) {
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, batching := range []bool{false, true} {
				items, batch, err := jsonrpc.Decode([]byte(tc.in), batching)
				if err != nil {
					t.Fatalf("Decode(batching=%v): %v", batching, err)
				}
				if batch {
					t.Errorf("batch = true for an object")
				}
				if diff := cmp.Diff([]jsonrpc.Item{ok(tc.want)}, items, cmpOpts...); diff != "" {
					t.Errorf("items (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			items, _, err := jsonrpc.Decode([]byte(tc.in), false)
			if err != nil {
				t.Fatal(err)
			}
			b, err := jsonrpc.Encode(items[0].Msg)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			again, _, err := jsonrpc.Decode(b, false)
			if err != nil {
				t.Fatalf("Decode(%s): %v", b, err)
			}
			if diff := cmp.Diff(items, again, cmpOpts...); diff != "" {
				t.Errorf("%s -> %s (-first +second):\n%s", tc.in, b, diff)
			}
			b2, err := jsonrpc.Encode(again[0].Msg)
			if err != nil || string(b2) != string(b) {
				t.Errorf("encoding not stable: %s then %s, %v", b, b2, err)
			}
		})
	}
}

// TestDecodeInvalidItems covers messages that are JSON but not valid: they
// become items with Err, carrying what could be read of ID and kind.
func TestDecodeInvalidItems(t *testing.T) {
	const (
		IR = jsonrpc.InvalidRequest
		IP = jsonrpc.InvalidParams
	)
	tests := []struct {
		name string
		in   string
		want jsonrpc.Item
	}{
		// The envelope.
		{"jsonrpc missing", `{"id":1,"method":"m"}`,
			bad(IR, `missing required field "jsonrpc"`, id1, jsonrpc.Request)},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"m"}`,
			bad(IR, `/jsonrpc: want "2.0", got "1.0"`, id1, jsonrpc.Request)},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":1,"method":"m"}`,
			bad(IR, `/jsonrpc: want "2.0", got 2.0`, id1, jsonrpc.Request)},
		{"jsonrpc wrong case value", `{"jsonrpc":"2.0 ","method":"m"}`,
			bad(IR, `/jsonrpc: want "2.0", got "2.0 "`, noID, jsonrpc.Notification)},
		{"JSONRPC is not jsonrpc", `{"JSONRPC":"2.0","method":"m"}`,
			bad(IR, `missing required field "jsonrpc"`, noID, jsonrpc.Notification)},

		// The id.
		{"id boolean", `{"jsonrpc":"2.0","id":true,"method":"m"}`,
			bad(IR, `/id: want string or integer, got boolean`, noID, jsonrpc.Request)},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`,
			bad(IR, `/id: want string or integer, got object`, noID, jsonrpc.Request)},
		{"id fraction", `{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
			bad(IR, `/id: want integer, got 1.5`, noID, jsonrpc.Request)},
		{"id too large", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
			bad(IR, `/id: want integer, got 9223372036854775808`, noID, jsonrpc.Request)},
		{"id too small", `{"jsonrpc":"2.0","id":-9223372036854775809,"result":{}}`,
			bad(IR, `/id: want integer, got -9223372036854775809`, noID, jsonrpc.Response)},
		{"id huge exponent", `{"jsonrpc":"2.0","id":1e400,"method":"m"}`,
			bad(IR, `/id: want integer, got 1e400`, noID, jsonrpc.Request)},
		{"request id null", `{"jsonrpc":"2.0","id":null,"method":"m"}`,
			bad(IR, `/id: a request id must not be null`, noID, jsonrpc.Request)},
		{"result id null", `{"jsonrpc":"2.0","id":null,"result":{}}`,
			bad(IR, `/id: a result response must have a non-null id`, noID, jsonrpc.Response)},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`,
			bad(IR, `missing required field "id"`, noID, jsonrpc.Response)},

		// The method.
		{"method a number", `{"jsonrpc":"2.0","id":1,"method":5}`,
			bad(IR, `/method: want string, got number`, id1, jsonrpc.Request)},
		{"method null", `{"jsonrpc":"2.0","method":null}`,
			bad(IR, `/method: want string, got null`, noID, jsonrpc.Notification)},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`,
			bad(IR, `/method: method is empty`, id1, jsonrpc.Request)},
		{"Method is not method", `{"jsonrpc":"2.0","id":1,"Method":"tools/call"}`,
			bad(IR, `not a request, notification or response: no method, result or error member`, id1, 0)},

		// The params: the envelope is fine, so the ID is kept for the answer.
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`,
			bad(IP, `/params: want object, got array`, id1, jsonrpc.Request)},
		{"params null", `{"jsonrpc":"2.0","id":"x","method":"m","params":null}`,
			bad(IP, `/params: want object, got null`, wire.StringID("x"), jsonrpc.Request)},
		{"params string", `{"jsonrpc":"2.0","id":1,"params":"{}","method":"m"}`,
			bad(IP, `/params: want object, got string`, id1, jsonrpc.Request)},
		{"notification params array", `{"jsonrpc":"2.0","method":"m","params":[]}`,
			bad(IP, `/params: want object, got array`, noID, jsonrpc.Notification)},
		{"envelope errors win over params", `{"jsonrpc":"2.0","id":1,"params":[],"method":7}`,
			bad(IR, `/method: want string, got number`, id1, jsonrpc.Request)},
		{"missing jsonrpc wins over params", `{"id":1,"params":[],"method":"m"}`,
			bad(IR, `missing required field "jsonrpc"`, id1, jsonrpc.Request)},

		// The result and error.
		{"result array", `{"jsonrpc":"2.0","id":1,"result":[]}`,
			bad(IR, `/result: want object, got array`, id1, jsonrpc.Response)},
		{"result null", `{"jsonrpc":"2.0","id":1,"result":null}`,
			bad(IR, `/result: want object, got null`, id1, jsonrpc.Response)},
		{"error a string", `{"jsonrpc":"2.0","id":1,"error":"boom"}`,
			bad(IR, `/error: want object, got string`, id1, jsonrpc.ErrorResponse)},
		{"error code a string", `{"jsonrpc":"2.0","id":1,"error":{"code":"-1","message":"m"}}`,
			bad(IR, `/error/code: want integer, got string`, id1, jsonrpc.ErrorResponse)},
		{"error code a fraction", `{"jsonrpc":"2.0","id":1,"error":{"message":"m","code":-1.5}}`,
			bad(IR, `/error/code: want integer, got -1.5`, id1, jsonrpc.ErrorResponse)},
		{"error message a number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":1}}`,
			bad(IR, `/error/message: want string, got number`, id1, jsonrpc.ErrorResponse)},
		{"error without code", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`,
			bad(IR, `/error: missing required field "code"`, id1, jsonrpc.ErrorResponse)},
		{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`,
			bad(IR, `/error: missing required field "message"`, id1, jsonrpc.ErrorResponse)},
		{"error id boolean", `{"jsonrpc":"2.0","id":false,"error":{"code":1,"message":"m"}}`,
			bad(IR, `/id: want string or integer, got boolean`, noID, jsonrpc.ErrorResponse)},

		// Classification.
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`,
			bad(IR, `/result: a request or notification has no result`, id1, 0)},
		{"method and error", `{"jsonrpc":"2.0","method":"m","error":{"code":1,"message":"m"}}`,
			bad(IR, `/error: a request or notification has no error`, noID, 0)},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
			bad(IR, `/error: a response has a result or an error, not both`, id1, 0)},
		{"neither", `{"jsonrpc":"2.0","id":1}`,
			bad(IR, `not a request, notification or response: no method, result or error member`, id1, 0)},
		{"empty object", `{}`,
			bad(IR, `missing required field "jsonrpc"`, noID, 0)},
		{"response with params", `{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`,
			bad(IR, `/params: a response has no params`, id1, jsonrpc.Response)},
		{"error response with params", `{"jsonrpc":"2.0","id":1,"params":[],"error":{"code":1,"message":"m"}}`,
			bad(IR, `/params: a response has no params`, id1, jsonrpc.ErrorResponse)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items, batch, err := jsonrpc.Decode([]byte(tc.in), false)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if batch {
				t.Errorf("batch = true")
			}
			if diff := cmp.Diff([]jsonrpc.Item{tc.want}, items, cmpOpts...); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}

			// The same message inside a batch: the pointer gains its index.
			items, _, err = jsonrpc.Decode([]byte(`[{"jsonrpc":"2.0","method":"x"},`+tc.in+`]`), true)
			if err != nil {
				t.Fatalf("Decode in a batch: %v", err)
			}
			want := tc.want
			want.Err = &jsonrpc.Error{Code: want.Err.Code, Message: "/1" + prefixSlash(want.Err.Message)}
			if diff := cmp.Diff(want, items[1], cmpOpts...); diff != "" {
				t.Errorf("item in a batch (-want +got):\n%s", diff)
			}
		})
	}
}

// prefixSlash turns "msg" into ": msg" and "/p: msg" into itself, so that
// "/1" + it is the message at batch index 1.
func prefixSlash(msg string) string {
	if strings.HasPrefix(msg, "/") {
		return msg
	}
	return ": " + msg
}

// TestDecodePayloadErrors covers payloads rejected as a whole.
func TestDecodePayloadErrors(t *testing.T) {
	// deep nests MaxDepth objects: inside a message it is one too many.
	deep := strings.Repeat(`{"a":`, wire.MaxDepth) + `1` + strings.Repeat(`}`, wire.MaxDepth)
	tests := []struct {
		name     string
		in       string
		batching bool
		code     int64
		pointer  string
		msg      string // a prefix of DecodeError.Msg
	}{
		{"empty", ``, false, jsonrpc.ParseError, "", "unexpected end of JSON input"},
		{"white space", " \n", true, jsonrpc.ParseError, "", "unexpected end of JSON input"},
		{"truncated", `{"jsonrpc":"2.0","method":"m"`, false, jsonrpc.ParseError, "", "unexpected end of JSON input"},
		{"truncated in params", `{"jsonrpc":"2.0","method":"m","params":{"a":[1,`, false, jsonrpc.ParseError, "", "unexpected end of JSON input"},
		{"syntax", `{"jsonrpc":"2.0","method":"m",}`, false, jsonrpc.ParseError, "", "invalid character '}'"},
		{"single quotes", `{'jsonrpc':'2.0'}`, false, jsonrpc.ParseError, "", "invalid character '\\''"},
		{"trailing data", `{"jsonrpc":"2.0","method":"m"} {}`, false, jsonrpc.ParseError, "", "unexpected data after the JSON value"},
		{"two messages", `{"jsonrpc":"2.0","method":"m"}{"jsonrpc":"2.0","method":"m"}`, true, jsonrpc.ParseError, "", "unexpected data after the JSON value"},
		{"invalid UTF-8 in a name", "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"\xff\":1}", false, jsonrpc.ParseError, "", "invalid UTF-8"},
		{"invalid UTF-8 in params", "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\":\"\xc3\"}}", false, jsonrpc.ParseError, "/params/a", "invalid UTF-8"},
		{"lone surrogate", `{"jsonrpc":"2.0","id":"\ud800","method":"m"}`, false, jsonrpc.ParseError, "/id", "invalid surrogate"},
		{"syntax error in one batch element", `[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":}]`, true, jsonrpc.ParseError, "/1/method", "invalid character '}'"},
		{"nesting too deep", `{"jsonrpc":"2.0","method":"m","params":` + deep + `}`, false, jsonrpc.ParseError, "", "nesting too deep"},
		{"nesting too deep in an unknown member", `{"jsonrpc":"2.0","method":"m","x":` + deep + `}`, false, jsonrpc.ParseError, "", "nesting too deep"},
		{"nesting too deep in a batch", `[{"jsonrpc":"2.0","method":"m","params":` + deep[5:len(deep)-1] + `}]`, true, jsonrpc.ParseError, "", "nesting too deep"},

		// Duplicate member names: valid JSON syntax, rejected as a whole.
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, false, jsonrpc.InvalidRequest, "/id", "duplicate object member name"},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`, false, jsonrpc.InvalidRequest, "/method", "duplicate object member name"},
		{"duplicate jsonrpc", `{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m"}`, false, jsonrpc.InvalidRequest, "/jsonrpc", "duplicate object member name"},
		{"duplicate unknown member", `{"jsonrpc":"2.0","x":1,"method":"m","x":2}`, false, jsonrpc.InvalidRequest, "/x", "duplicate object member name"},
		{"duplicate by escape", `{"jsonrpc":"2.0","method":"a","m\u0065thod":"b"}`, false, jsonrpc.InvalidRequest, "/method", "duplicate object member name"},
		{"duplicate inside params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}}`, false, jsonrpc.InvalidRequest, "/params/name", "duplicate object member name"},
		{"duplicate deep inside params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":{"c":1,"c":1}}]}}`, false, jsonrpc.InvalidRequest, "/params/a/0/b/c", "duplicate object member name"},
		{"duplicate inside error", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}`, false, jsonrpc.InvalidRequest, "/error/code", "duplicate object member name"},
		{"duplicate in a batch element", `[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}]`, true, jsonrpc.InvalidRequest, "/1/id", "duplicate object member name"},

		// A duplicate before a syntax error: the payload is not JSON.
		{"duplicate, then truncated", `{"id":0,"id"`, false, jsonrpc.ParseError, "", "unexpected end of JSON input"},
		{"duplicate, then syntax error", `{"id":0,"id":1,"method":"m",]`, false, jsonrpc.ParseError, "", "invalid character ']' at start of string (expecting '\"') (at byte offset 28)"},
		{"duplicate, then invalid UTF-8", "{\"id\":0,\"id\":1,\"method\":\"\xff\"}", false, jsonrpc.ParseError, "/method", "invalid UTF-8 (at byte offset 25)"},
		{"duplicate, then trailing data", `{"id":0,"id":1} {}`, false, jsonrpc.ParseError, "", "unexpected data after the JSON value (at byte offset 17)"},
		{"duplicate, then trailing garbage", `{"id":0,"id":1} x`, false, jsonrpc.ParseError, "", "invalid character 'x' at start of value (at byte offset 16)"},

		// Not messages at all.
		{"batch refused", `[{"jsonrpc":"2.0","method":"m"}]`, false, jsonrpc.InvalidRequest, "", "batches are not part of this revision"},
		{"empty batch refused", `[]`, false, jsonrpc.InvalidRequest, "", "batches are not part of this revision"},
		{"empty batch", ` [ ] `, true, jsonrpc.InvalidRequest, "", "a batch must not be empty"},
		{"number", `1`, false, jsonrpc.InvalidRequest, "", "want object, got number"},
		{"null", `null`, true, jsonrpc.InvalidRequest, "", "want object or array, got null"},
		{"string", ` "{}" `, false, jsonrpc.InvalidRequest, "", "want object, got string"},
		{"boolean", `true`, true, jsonrpc.InvalidRequest, "", "want object or array, got boolean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items, batch, err := jsonrpc.Decode([]byte(tc.in), tc.batching)
			if err == nil {
				t.Fatalf("Decode accepted it: %+v", items)
			}
			if items != nil || batch {
				t.Errorf("items = %v, batch = %v on error", items, batch)
			}
			var de *jsonrpc.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v is not a *DecodeError", err, err)
			}
			if de.Code != tc.code || de.Pointer != tc.pointer || !strings.HasPrefix(de.Msg, tc.msg) {
				t.Errorf("got code %d pointer %q msg %q; want code %d pointer %q msg %q…", de.Code, de.Pointer, de.Msg, tc.code, tc.pointer, tc.msg)
			}
			re := de.RPCError()
			if re.Code != tc.code || !strings.Contains(re.Message, tc.msg) || !strings.HasPrefix(re.Message, tc.pointer) {
				t.Errorf("RPCError() = %+v", re)
			}
		})
	}
}

// TestDecodeDepthLimit checks that nesting up to wire.MaxDepth, counting the
// envelope (and the batch array), is accepted.
func TestDecodeDepthLimit(t *testing.T) {
	inner := strings.Repeat(`{"a":`, wire.MaxDepth-2) + `1` + strings.Repeat(`}`, wire.MaxDepth-2)
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"m","params":{"a":` + inner + `}}`,
		`[{"jsonrpc":"2.0","method":"m","params":` + inner + `}]`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":` + inner + `}}`,
	} {
		items, _, err := jsonrpc.Decode([]byte(in), true)
		if err != nil || items[0].Msg == nil {
			t.Errorf("Decode(%.60s…) = %+v, %v", in, items, err)
		}
	}
}

func TestDecodeDuplicateUnwraps(t *testing.T) {
	_, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","method":"m","method":"m"}`), false)
	if !errors.Is(err, jsontext.ErrDuplicateName) {
		t.Errorf("errors.Is(%v, ErrDuplicateName) = false", err)
	}
	var we *wire.Error
	if !errors.As(err, &we) || we.Pointer != "/method" {
		t.Errorf("errors.As(%v, *wire.Error) = %v", err, we)
	}
	const want = `jsonrpc: invalid request (-32600): /method: duplicate object member name (at byte offset 30)`
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestDecodeBatch(t *testing.T) {
	in := `[
		{"jsonrpc":"2.0","id":1,"method":"tools/list"},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		7,
		[],
		{"jsonrpc":"2.0","id":"b","method":"tools/call","params":[]},
		{"jsonrpc":"2.0","id":2,"result":{}},
		{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}},
		{"jsonrpc":"2.0","Method":"m"}
	]`
	items, batch, err := jsonrpc.Decode([]byte(in), true)
	if err != nil {
		t.Fatal(err)
	}
	if !batch {
		t.Error("batch = false")
	}
	want := []jsonrpc.Item{
		ok(&jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "tools/list"}),
		ok(&jsonrpc.Message{Kind: jsonrpc.Notification, Method: "notifications/initialized"}),
		bad(jsonrpc.InvalidRequest, "/2: want object, got number", noID, 0),
		bad(jsonrpc.InvalidRequest, "/3: want object, got array", noID, 0),
		bad(jsonrpc.InvalidParams, "/4/params: want object, got array", wire.StringID("b"), jsonrpc.Request),
		ok(&jsonrpc.Message{Kind: jsonrpc.Response, ID: wire.IntID(2), Result: raw(`{}`)}),
		ok(&jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: &jsonrpc.Error{Code: -32600, Message: "no"}}),
		bad(jsonrpc.InvalidRequest, "/7: not a request, notification or response: no method, result or error member", noID, 0),
	}
	if diff := cmp.Diff(want, items, cmpOpts...); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	// A batch of one is still a batch.
	items, batch, err = jsonrpc.Decode([]byte(`[{"jsonrpc":"2.0","method":"m"}]`), true)
	if err != nil || !batch || len(items) != 1 || items[0].Msg == nil {
		t.Errorf("batch of one: %+v, %v, %v", items, batch, err)
	}
}

// TestDecodeCopies checks that raw values do not alias the input.
func TestDecodeCopies(t *testing.T) {
	data := []byte(`[{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"b"}},{"jsonrpc":"2.0","id":2,"result":{"c":1}},{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x","data":[1]}}]`)
	items, _, err := jsonrpc.Decode(data, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'X'
	}
	if got := string(items[0].Msg.Params); got != `{"a":"b"}` {
		t.Errorf("Params = %s", got)
	}
	if got := string(items[1].Msg.Result); got != `{"c":1}` {
		t.Errorf("Result = %s", got)
	}
	if got := string(items[2].Msg.Error.Data); got != `[1]` {
		t.Errorf("Data = %s", got)
	}
}

// TestDecodeClipsMessages checks that error messages quoting the input are
// bounded.
func TestDecodeClipsMessages(t *testing.T) {
	long := strings.Repeat("é", 2000)
	items, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"`+long+`","method":"m"}`), false)
	if err != nil {
		t.Fatal(err)
	}
	msg := items[0].Err.Message
	if len(msg) > 512 || !strings.HasSuffix(msg, "…") || !strings.HasPrefix(msg, `/jsonrpc: want "2.0", got "éé`) {
		t.Errorf("message of %d bytes: %.80q…", len(msg), msg)
	}
	if !utf8.ValidString(msg) {
		t.Errorf("clipped message is not valid UTF-8")
	}
}
