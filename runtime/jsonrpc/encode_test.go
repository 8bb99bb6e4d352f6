package jsonrpc_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		m    *jsonrpc.Message
		want string
	}{
		{"request", &jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "tools/call", Params: raw(`{"name":"x"}`)},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`},
		{"request without params", &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("a\"é"), Method: "ping"},
			`{"jsonrpc":"2.0","id":"a\"é","method":"ping"}`},
		{"request with empty params", &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(-9223372036854775808), Method: "ping", Params: raw(`{}`)},
			`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping","params":{}}`},
		{"notification", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "notifications/initialized"},
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"notification with params", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "n", Params: raw(` { "a" : 1 } `)},
			`{"jsonrpc":"2.0","method":"n","params": { "a" : 1 } }`},
		{"response", &jsonrpc.Message{Kind: jsonrpc.Response, ID: wire.IntID(9223372036854775807), Result: raw(`{}`)},
			`{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}`},
		{"error response", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: wire.StringID("x"), Error: &jsonrpc.Error{Code: -32601, Message: "no such method", Data: raw(`"tools/x"`)}},
			`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no such method","data":"tools/x"}}`},
		{"error response, id null", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: jsonrpc.Errorf(jsonrpc.ParseError, "bad %s", "json")},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad json"}}`},
		{"error data null", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: id1, Error: &jsonrpc.Error{Code: 1, Data: raw(`null`)}},
			`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"","data":null}}`},
		{"members of other kinds are ignored", &jsonrpc.Message{Kind: jsonrpc.Response, ID: id1, Method: "m", Params: raw(`{}`), Result: raw(`{"a":1}`), Error: &jsonrpc.Error{}},
			`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`},
		{"line breaks compacted", &jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "m", Params: raw("{\n  \"a\": \"x\\ny\",\r\n  \"b\": [ 1 ]\n}")},
			`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"x\ny","b":[1]}}`},
		{"line breaks compacted in data", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: id1, Error: &jsonrpc.Error{Code: 1, Message: "m", Data: raw("[\n1\n]")}},
			`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":[1]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonrpc.Encode(tc.m)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("Encode =\n%s\nwant\n%s", got, tc.want)
			}
			got, err = tc.m.AppendJSON([]byte("prefix:"))
			if err != nil || string(got) != "prefix:"+tc.want {
				t.Errorf("AppendJSON = %s, %v", got, err)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		m       *jsonrpc.Message
		pointer string
		msg     string
	}{
		{"nil", nil, "", "encode: nil message"},
		{"no kind", &jsonrpc.Message{ID: id1, Method: "m"}, "", "encode: message kind 0 is not valid"},
		{"unknown kind", &jsonrpc.Message{Kind: 9}, "", "encode: message kind 9 is not valid"},
		{"request without id", &jsonrpc.Message{Kind: jsonrpc.Request, Method: "m"}, "/id", "encode: ID is not set"},
		{"request without method", &jsonrpc.Message{Kind: jsonrpc.Request, ID: id1}, "/method", "encode: method is empty"},
		{"method not UTF-8", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m\xff"}, "/method", "encode: string \"m\\xff\" is not valid UTF-8"},
		{"string id not UTF-8", &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("\xff"), Method: "m"}, "/id", "encode: ID \"\\xff\" is not valid UTF-8"},
		{"params array", &jsonrpc.Message{Kind: jsonrpc.Request, ID: id1, Method: "m", Params: raw(`[1]`)}, "/params", "encode: want object, got array"},
		{"params null", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m", Params: raw(`null`)}, "/params", "encode: want object, got null"},
		{"params empty, not nil", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m", Params: raw(``)}, "/params", "encode: value is empty"},
		{"params invalid", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m", Params: raw(`{"a":}`)}, "/params", "encode: value is not valid JSON: \"{\\\"a\\\":}\""},
		{"params with duplicates", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m", Params: raw(`{"a":1,"a":2}`)}, "/params", "encode: value is not valid JSON: \"{\\\"a\\\":1,\\\"a\\\":2}\""},
		{"params invalid with line break", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m", Params: raw("{\n")}, "/params", "encode: value is not valid JSON: \"{\\n\""},
		{"params trailing data", &jsonrpc.Message{Kind: jsonrpc.Notification, Method: "m", Params: raw(`{} {}`)}, "/params", "encode: value is not valid JSON: \"{} {}\""},
		{"notification with id", &jsonrpc.Message{Kind: jsonrpc.Notification, ID: wire.StringID("x"), Method: "m"}, "/id", "encode: a notification has no id (ID is \"x\")"},
		{"response without id", &jsonrpc.Message{Kind: jsonrpc.Response, Result: raw(`{}`)}, "/id", "encode: ID is not set"},
		{"response without result", &jsonrpc.Message{Kind: jsonrpc.Response, ID: id1}, "/result", "encode: a response needs a result ({} is the empty result)"},
		{"result array", &jsonrpc.Message{Kind: jsonrpc.Response, ID: id1, Result: raw(`[]`)}, "/result", "encode: want object, got array"},
		{"error response without error", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, ID: id1}, "/error", "encode: an error response needs an Error"},
		{"error message not UTF-8", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: &jsonrpc.Error{Message: "\xc3"}}, "/error/message", "encode: string \"\\xc3\" is not valid UTF-8"},
		{"error data invalid", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: &jsonrpc.Error{Data: raw(`nul`)}}, "/error/data", "encode: value is not valid JSON: \"nul\""},
		{"error data empty, not nil", &jsonrpc.Message{Kind: jsonrpc.ErrorResponse, Error: &jsonrpc.Error{Data: raw(``)}}, "/error/data", "encode: value is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("keep")
			got, err := tc.m.AppendJSON(prefix)
			if err == nil {
				t.Fatalf("AppendJSON = %s, want an error", got)
			}
			if string(got) != "keep" {
				t.Errorf("AppendJSON returned %q on error, want b unchanged", got)
			}
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("error %T %v is not a *wire.Error", err, err)
			}
			if diff := cmp.Diff(&wire.Error{Pointer: tc.pointer, Msg: tc.msg}, we); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAppendBatch(t *testing.T) {
	msgs := []*jsonrpc.Message{
		{Kind: jsonrpc.Request, ID: id1, Method: "tools/list"},
		{Kind: jsonrpc.Notification, Method: "notifications/initialized"},
		{Kind: jsonrpc.Response, ID: wire.StringID("s"), Result: raw(`{}`)},
	}
	got, err := jsonrpc.AppendBatch([]byte("x"), msgs)
	if err != nil {
		t.Fatal(err)
	}
	const want = `x[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"s","result":{}}]`
	if string(got) != want {
		t.Errorf("AppendBatch =\n%s\nwant\n%s", got, want)
	}
	items, batch, err := jsonrpc.Decode(got[1:], true)
	if err != nil || !batch {
		t.Fatalf("Decode = %v, %v", batch, err)
	}
	for i, it := range items {
		if diff := cmp.Diff(msgs[i], it.Msg, cmpOpts...); diff != "" {
			t.Errorf("message %d (-sent +decoded):\n%s", i, diff)
		}
	}

	for _, tc := range []struct {
		name    string
		msgs    []*jsonrpc.Message
		pointer string
		msg     string
	}{
		{"empty", nil, "", "encode: a batch must not be empty"},
		{"bad element", []*jsonrpc.Message{msgs[0], {Kind: jsonrpc.Request, ID: id1, Method: "m", Params: raw(`[]`)}}, "/1/params", "encode: want object, got array"},
		{"nil element", []*jsonrpc.Message{msgs[0], msgs[1], nil}, "/2", "encode: nil message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonrpc.AppendBatch([]byte("keep"), tc.msgs)
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("AppendBatch = %s, %v; want a *wire.Error", got, err)
			}
			if string(got) != "keep" {
				t.Errorf("AppendBatch returned %q on error", got)
			}
			if diff := cmp.Diff(&wire.Error{Pointer: tc.pointer, Msg: tc.msg}, we); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	e := jsonrpc.Errorf(jsonrpc.InvalidParams, "%s: want %s", "/params", "object")
	if diff := cmp.Diff(&jsonrpc.Error{Code: -32602, Message: "/params: want object"}, e); diff != "" {
		t.Errorf("Errorf (-want +got):\n%s", diff)
	}
	if got, want := e.Error(), "jsonrpc error -32602: /params: want object"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	// An *Error is a Go error that handlers can return and callers unwrap.
	wrapped := fmt.Errorf("calling tools/call: %w", e)
	var back *jsonrpc.Error
	if !errors.As(wrapped, &back) || back != e {
		t.Errorf("errors.As through %%w failed")
	}

	de := &jsonrpc.DecodeError{Code: jsonrpc.ParseError, Msg: "invalid character 'x'"}
	if got, want := de.Error(), "jsonrpc: parse error (-32700): invalid character 'x'"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if diff := cmp.Diff(&jsonrpc.Error{Code: -32700, Message: "invalid character 'x'"}, de.RPCError()); diff != "" {
		t.Errorf("RPCError (-want +got):\n%s", diff)
	}
	de = &jsonrpc.DecodeError{Code: jsonrpc.InvalidRequest, Pointer: "/id", Msg: "duplicate"}
	if got, want := de.Error(), "jsonrpc: invalid request (-32600): /id: duplicate"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}

	for k, want := range map[jsonrpc.Kind]string{
		jsonrpc.Request: "request", jsonrpc.Notification: "notification", jsonrpc.Response: "response",
		jsonrpc.ErrorResponse: "error response", 0: "Kind(0)", 7: "Kind(7)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// appenderFunc adapts a function to wire.Appender.
type appenderFunc func(b []byte) ([]byte, error)

func (f appenderFunc) AppendJSON(b []byte) ([]byte, error) { return f(b) }

func rawResult(s string) wire.Appender {
	return appenderFunc(func(b []byte) ([]byte, error) { return append(b, s...), nil })
}

// TestAppendResponse checks that encoding a result in place gives the bytes
// of the Response message with that result, and the same errors.
func TestAppendResponse(t *testing.T) {
	tests := []struct {
		name    string
		id      wire.ID
		result  string
		wantErr string // "" for success
	}{
		{"empty object", id1, `{}`, ""},
		{"string id", wire.StringID("a\"é"), `{"content":[{"type":"text","text":"hi"}]}`, ""},
		{"line breaks compacted", id1, "{\n\"a\" : [1,\r\n2]\n}", ""},
		{"white space kept", id1, `{ "a" : 1 }`, ""},
		{"array", id1, `[1]`, "/result: encode: want object, got array"},
		{"string", id1, `"x"`, "/result: encode: want object, got string"},
		{"nothing", id1, ``, "/result: encode: a response needs a result ({} is the empty result)"},
		{"invalid JSON", id1, `{"a":}`, `/result: encode: value is not valid JSON: "{\"a\":}"`},
		{"no id", wire.ID{}, `{}`, "/id: encode: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("prefix")
			got, err := jsonrpc.AppendResponse(prefix, tc.id, rawResult(tc.result))
			if tc.wantErr != "" {
				if err == nil || len(err.Error()) < len(tc.wantErr) || err.Error()[:len(tc.wantErr)] != tc.wantErr {
					t.Fatalf("err = %v, want one starting %q", err, tc.wantErr)
				}
				if string(got) != "prefix" {
					t.Errorf("on error b = %q, want it unchanged", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := (&jsonrpc.Message{Kind: jsonrpc.Response, ID: tc.id, Result: raw(tc.result)}).AppendJSON([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("AppendResponse differs from Message.AppendJSON (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("appender error", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := jsonrpc.AppendResponse(nil, id1, appenderFunc(func(b []byte) ([]byte, error) {
			return b, wire.Errorf("/content/0", "encode: %v", boom)
		}))
		if err == nil || err.Error() != "/result/content/0: encode: boom" {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestAppendCall checks that encoding params in place gives the bytes of
// the Request or Notification message with those params.
func TestAppendCall(t *testing.T) {
	tests := []struct {
		name       string
		id         wire.ID
		method     string
		params     wire.Appender // nil for none
		wantParams bool
		wantErr    string
	}{
		{"request", id1, "tools/call", rawResult(`{"name":"echo"}`), true, ""},
		{"request without params", wire.StringID("x"), "ping", nil, false, ""},
		{"params append nothing", id1, "ping", rawResult(``), false, ""},
		{"notification", wire.ID{}, "notifications/initialized", nil, false, ""},
		{"notification with params", wire.ID{}, "notifications/progress", rawResult("{\n\"progress\": 1}"), true, ""},
		{"empty method", id1, "", nil, false, "/method: encode: method is empty"},
		{"params array", id1, "m", rawResult(`[]`), false, "/params: encode: want object, got array"},
		{"params invalid", id1, "m", rawResult(`{"a"}`), false, `/params: encode: value is not valid JSON: "{\"a\"}"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, withParams, err := jsonrpc.AppendCall([]byte("prefix"), tc.id, tc.method, tc.params)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if string(got) != "prefix" {
					t.Errorf("on error b = %q, want it unchanged", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if withParams != tc.wantParams {
				t.Errorf("withParams = %v, want %v", withParams, tc.wantParams)
			}
			m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: tc.id, Method: tc.method}
			if !tc.id.IsValid() {
				m.Kind = jsonrpc.Notification
			}
			if tc.wantParams {
				p, _ := tc.params.AppendJSON(nil)
				m.Params = raw(string(p))
			}
			want, err := m.AppendJSON([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("AppendCall differs from Message.AppendJSON (-want +got):\n%s", diff)
			}
		})
	}
}

// validObject appends a fixed JSON object and says it is valid by
// construction, as generated types do.
type validObject string

func (v validObject) AppendJSON(b []byte) ([]byte, error) { return append(b, v...), nil }
func (validObject) ValidJSON()                            {}

// TestAppendAllocations guards the encoding of every call and answer: into
// a buffer large enough, AppendCall and AppendResponse allocate nothing
// (their Encoder stays on the stack).
func TestAppendAllocations(t *testing.T) {
	buf := make([]byte, 0, 512)
	obj := validObject(`{"name":"echo","arguments":{"text":"hello"}}`)
	tests := []struct {
		name   string
		append func() ([]byte, error)
	}{
		{"AppendCall", func() ([]byte, error) {
			b, _, err := jsonrpc.AppendCall(buf[:0], wire.IntID(7), "tools/call", obj)
			return b, err
		}},
		{"AppendCall notification", func() ([]byte, error) {
			b, _, err := jsonrpc.AppendCall(buf[:0], wire.ID{}, "notifications/progress", obj)
			return b, err
		}},
		{"AppendResponse", func() ([]byte, error) { return jsonrpc.AppendResponse(buf[:0], wire.StringID("r-1"), obj) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.append(); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = tt.append() }); n != 0 {
				t.Errorf("%v allocations, want 0", n)
			}
		})
	}
}
