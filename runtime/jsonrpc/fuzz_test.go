package jsonrpc_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

var decodeSeeds = []string{
	``, ` `, `{}`, `[]`, `[{}]`, `null`, `1`, `"x"`, `[1,[],{}]`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[]}`,
	`{"jsonrpc":"2.0","method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","result":{},"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":2}}`,
	`{"jsonrpc":"2.0","id":1,"error":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`,
	`{"jsonrpc":"1.0","id":true,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
	`{"jsonrpc":"2.0","method":"m","params":{"a":1,"a":2}}`,
	`{"jsonrpc":"2.0","Method":"m"}`,
	`{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`,
	`{"jsonrpc":"2.0","id":-1e2,"method":"m"}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\n\"a\" : [ 1 ,\r\n2 ]\n}}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"m\"}",
	`{"jsonrpc":"2.0","id":"\ud800","method":"m"}`,
	`{"jsonrpc":"2.0","method":"m"} x`,
	`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id":1,"result":{"a":[{}]}}]`,
	`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","method":}]`,
	`{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat(`[`, wire.MaxDepth) + strings.Repeat(`]`, wire.MaxDepth) + `}`,
	`{"jsonrpc":"2.0","method":"m","params":{"a":` + strings.Repeat(`[`, wire.MaxDepth-2) + strings.Repeat(`]`, wire.MaxDepth-2) + `}}`,
}

// rawEqual compares raw JSON values ignoring white space, which the encoder
// may remove.
var rawEqual = cmp.Comparer(func(a, b jsontext.Value) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	ca, cb := jsontext.Value(bytes.Clone(a)), jsontext.Value(bytes.Clone(b))
	if ca.Compact() != nil || cb.Compact() != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca, cb)
})

// FuzzDecode feeds arbitrary payloads to Decode. It must never panic; it
// must reject invalid JSON with a *DecodeError; every item has exactly one of
// Msg and Err, with codes and pointers as documented; and every message it
// accepts must encode, alone and as a batch, and decode back to an equal
// value, encoding the same way again.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	for _, tc := range validCases {
		f.Add([]byte(tc.in), false)
		f.Add([]byte("["+tc.in+"]"), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, batching bool) {
		items, batch, err := jsonrpc.Decode(data, batching)
		if err != nil {
			checkDecodeError(t, data, batching, items, batch, err)
			return
		}
		if !jsontext.Value(data).IsValid() {
			t.Fatalf("Decode accepted invalid JSON %q", data)
		}
		if len(items) == 0 || batch && !batching || !batch && len(items) != 1 {
			t.Fatalf("Decode(%q, %v) = %d items, batch %v", data, batching, len(items), batch)
		}
		var msgs []*jsonrpc.Message
		for i, it := range items {
			checkItem(t, data, it)
			if it.Msg == nil {
				continue
			}
			msgs = append(msgs, it.Msg)
			b, err := jsonrpc.Encode(it.Msg)
			if err != nil {
				t.Fatalf("%q item %d: Encode(%+v): %v", data, i, it.Msg, err)
			}
			if bytes.ContainsAny(b, "\r\n") {
				t.Fatalf("encoding %q has a line break", b)
			}
			again, batch, err := jsonrpc.Decode(b, false)
			if err != nil || batch || len(again) != 1 {
				t.Fatalf("%q item %d encoded as %q: Decode = %v, %v, %v", data, i, b, again, batch, err)
			}
			if diff := cmp.Diff(it, again[0], cmpOpts[0], rawEqual); diff != "" {
				t.Fatalf("%q item %d encoded as %q (-first +second):\n%s", data, i, b, diff)
			}
			b2, err := jsonrpc.Encode(again[0].Msg)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("encoding not stable: %q then %q, %v", b, b2, err)
			}
		}
		if len(msgs) == 0 {
			return
		}
		b, err := jsonrpc.AppendBatch(nil, msgs)
		if err != nil {
			t.Fatalf("AppendBatch: %v", err)
		}
		again, batch, err := jsonrpc.Decode(b, true)
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) && de.Msg == "nesting too deep" {
			// The depth limit counts the batch array: a message that nests
			// exactly wire.MaxDepth deep fits alone, not in a batch.
			return
		}
		if err != nil || !batch || len(again) != len(msgs) {
			t.Fatalf("batch %q: Decode = %v, %v, %v", b, again, batch, err)
		}
		for i, it := range again {
			if diff := cmp.Diff(msgs[i], it.Msg, cmpOpts[0], rawEqual); diff != "" {
				t.Fatalf("batch %q message %d (-first +second):\n%s", b, i, diff)
			}
		}
	})
}

func checkDecodeError(t *testing.T, data []byte, batching bool, items []jsonrpc.Item, batch bool, err error) {
	t.Helper()
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("Decode(%q): error %T %v is not a *DecodeError", data, err, err)
	}
	if items != nil || batch {
		t.Fatalf("Decode(%q) = %v, %v with error %v", data, items, batch, err)
	}
	if de.Msg == "" || de.Pointer != "" && de.Pointer[0] != '/' {
		t.Fatalf("Decode(%q): bad error %+v", data, de)
	}
	switch de.Code {
	case jsonrpc.ParseError:
		// Valid JSON is a parse error only when it nests too deep.
		if jsontext.Value(data).IsValid() && de.Msg != "nesting too deep" {
			t.Fatalf("Decode(%q): valid JSON rejected as %v", data, err)
		}
	case jsonrpc.InvalidRequest:
		if !jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true)) {
			t.Fatalf("Decode(%q): invalid JSON rejected as %v", data, err)
		}
	default:
		t.Fatalf("Decode(%q): code %d", data, de.Code)
	}
	if re := de.RPCError(); !utf8.ValidString(re.Message) || re.Code != de.Code {
		t.Fatalf("Decode(%q): RPCError() = %+v", data, re)
	}
}

func checkItem(t *testing.T, data []byte, it jsonrpc.Item) {
	t.Helper()
	if (it.Msg == nil) == (it.Err == nil) {
		t.Fatalf("Decode(%q): item %+v has not exactly one of Msg and Err", data, it)
	}
	if it.Err != nil {
		switch it.Err.Code {
		case jsonrpc.InvalidRequest:
		case jsonrpc.InvalidParams:
			if it.Kind != jsonrpc.Request && it.Kind != jsonrpc.Notification {
				t.Fatalf("Decode(%q): InvalidParams for a %v", data, it.Kind)
			}
		default:
			t.Fatalf("Decode(%q): item error code %d", data, it.Err.Code)
		}
		if it.Err.Message == "" || !utf8.ValidString(it.Err.Message) || len(it.Err.Message) > 512 || it.Err.Data != nil {
			t.Fatalf("Decode(%q): item error %+v", data, it.Err)
		}
		return
	}
	m := it.Msg
	if m.Kind != it.Kind || m.ID != it.ID || m.Kind < jsonrpc.Request || m.Kind > jsonrpc.ErrorResponse {
		t.Fatalf("Decode(%q): item %+v, message %+v", data, it, m)
	}
	switch m.Kind {
	case jsonrpc.Request, jsonrpc.Notification:
		if m.Method == "" || m.Result != nil || m.Error != nil || m.Kind == jsonrpc.Request != m.ID.IsValid() {
			t.Fatalf("Decode(%q): bad %v %+v", data, m.Kind, m)
		}
	case jsonrpc.Response:
		if m.Result == nil || !m.ID.IsValid() || m.Method != "" || m.Params != nil || m.Error != nil {
			t.Fatalf("Decode(%q): bad response %+v", data, m)
		}
	case jsonrpc.ErrorResponse:
		if m.Error == nil || m.Method != "" || m.Params != nil || m.Result != nil {
			t.Fatalf("Decode(%q): bad error response %+v", data, m)
		}
	}
}
