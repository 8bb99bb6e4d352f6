package redis

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/session"
)

func TestEventRoundTrip(t *testing.T) {
	tests := []session.Event{
		{Method: session.ToolsListChanged},
		{Method: session.ResourceUpdated, URI: "file:///ü.txt"},
		{Method: "notifications/tasks", Data: jsontext.Value(`{"taskId":"t","n":[1,2]}`)},
	}
	for _, ev := range tests {
		t.Run(ev.Method, func(t *testing.T) {
			msg, err := encodeEvent("origin", ev)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			origin, got, err := decodeEvent(msg)
			if err != nil {
				t.Fatalf("decode %s: %v", msg, err)
			}
			if origin != "origin" || got.Method != ev.Method || got.URI != ev.URI || !bytes.Equal(got.Data, ev.Data) {
				t.Errorf("decode(encode(%+v)) = %q, %+v", ev, origin, got)
			}
		})
	}
	if _, err := encodeEvent("o", session.Event{}); err == nil {
		t.Error("an event with no method was encoded")
	}
}

// FuzzDecodeEvent checks that no message makes the decoder panic, and that
// what it accepts encodes back to a message that decodes the same.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"origin":"o","method":"notifications/tools/list_changed"}`,
		`{"v":1,"origin":"o","method":"notifications/resources/updated","uri":"file:///a"}`,
		`{"v":1,"origin":"o","method":"notifications/tasks","data":{"a":[1,"x",null]}}`,
		`{"v":1,"origin":"o","method":"m","data":null,"extra":true}`,
		`{"v":2}`, `[]`, `null`, ``, `{"v":1,"origin":"o","method":"m","method":"n"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		origin, ev, err := decodeEvent(msg)
		if err != nil {
			return
		}
		again, err := encodeEvent(origin, ev)
		if err != nil {
			t.Fatalf("an accepted message %q does not encode: %v", msg, err)
		}
		origin2, ev2, err := decodeEvent(again)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", again, err)
		}
		if origin2 != origin || ev2.Method != ev.Method || ev2.URI != ev.URI || !bytes.Equal(ev2.Data, ev.Data) {
			t.Fatalf("%q decodes to %q %+v, re-encoded to %q %+v", msg, origin, ev, origin2, ev2)
		}
	})
}
