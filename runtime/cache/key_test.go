package cache

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

func TestMethods(t *testing.T) {
	want := []string{"prompts/list", "resources/list", "resources/read", "resources/templates/list", "server/discover", "tools/list"}
	got := Methods()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Methods() mismatch (-want +got):\n%s", diff)
	}
	got[0] = "tools/call"
	if Methods()[0] != "prompts/list" {
		t.Error("changing the slice Methods returned changed the next one")
	}
	for _, m := range want {
		if !Cacheable(m) {
			t.Errorf("Cacheable(%q) = false, want true", m)
		}
	}
	for _, m := range []string{"tools/call", "prompts/get", "completion/complete", "subscriptions/listen", "initialize", "ping", "", "tools/list ", "Tools/list"} {
		if Cacheable(m) {
			t.Errorf("Cacheable(%q) = true, want false", m)
		}
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params string
		want   string
		// err, when not "", is a substring of the error; notCacheable says
		// it wraps ErrNotCacheable.
		err          string
		notCacheable bool
	}{
		{name: "absent params", method: "tools/list", params: "", want: `tools/list {}`},
		{name: "blank params", method: "tools/list", params: " \n", want: `tools/list {}`},
		{name: "empty object", method: "tools/list", params: `{}`, want: `tools/list {}`},
		{name: "meta only", method: "tools/list", params: `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, want: `tools/list {}`},
		{name: "cursor", method: "tools/list", params: `{"_meta":{},"cursor":"abc"}`, want: `tools/list {"cursor":"abc"}`},
		{name: "whitespace and order", method: "prompts/list", params: " {\n \"z\" : 1 , \"cursor\" : \"c\", \"_meta\": {\"a\": [1, 2]}, \"a\":{\"y\":true,\"x\":null}}", want: `prompts/list {"a":{"x":null,"y":true},"cursor":"c","z":1}`},
		{name: "string escapes shortest", method: "tools/list", params: `{"cursor":"\u0061\/b"}`, want: `tools/list {"cursor":"a/b"}`},
		{name: "escaped name", method: "tools/list", params: `{"\u0063ursor":"a"}`, want: `tools/list {"cursor":"a"}`},
		{name: "escaped _meta", method: "tools/list", params: `{"\u005fmeta":{"x":1}}`, want: `tools/list {}`},
		{name: "numbers keep their spelling", method: "tools/list", params: `{"n":9007199254740993,"f":1.0}`, want: `tools/list {"f":1.0,"n":9007199254740993}`},
		{name: "uri", method: "resources/read", params: `{"_meta":{},"uri":"file:///a.txt"}`, want: `resources/read {"uri":"file:///a.txt"}`},
		{name: "discover", method: "server/discover", params: `{"_meta":{}}`, want: `server/discover {}`},
		{name: "templates", method: "resources/templates/list", params: `{"cursor":"2"}`, want: `resources/templates/list {"cursor":"2"}`},
		{name: "resources list", method: "resources/list", params: `{}`, want: `resources/list {}`},
		{name: "nested _meta counts", method: "tools/list", params: `{"x":{"_meta":1}}`, want: `tools/list {"x":{"_meta":1}}`},

		{name: "not cacheable method", method: "tools/call", params: `{"name":"x"}`, err: `method "tools/call"`, notCacheable: true},
		{name: "retry with inputResponses", method: "resources/read", params: `{"uri":"a:b","inputResponses":{}}`, err: "inputResponses", notCacheable: true},
		{name: "retry with requestState", method: "resources/read", params: `{"uri":"a:b","requestState":"s"}`, err: "requestState", notCacheable: true},
		{name: "retry on a list", method: "tools/list", params: `{"requestState":""}`, err: "requestState", notCacheable: true},

		{name: "null params", method: "tools/list", params: `null`, err: "want a JSON object, got null"},
		{name: "array params", method: "tools/list", params: `[]`, err: "want a JSON object, got an array"},
		{name: "duplicate names", method: "tools/list", params: `{"cursor":"a","cursor":"b"}`, err: "duplicate"},
		{name: "duplicate _meta", method: "tools/list", params: `{"_meta":{},"_meta":{}}`, err: "duplicate"},
		{name: "invalid UTF-8", method: "tools/list", params: "{\"cursor\":\"\xff\"}", err: "UTF-8"},
		{name: "truncated", method: "tools/list", params: `{"cursor":"a"`, err: "tools/list params"},
		{name: "two values", method: "tools/list", params: `{} {}`, err: "more than one JSON value"},
		{name: "trailing garbage", method: "tools/list", params: `{}x`, err: "tools/list params"},
		{name: "read without uri", method: "resources/read", params: `{"_meta":{}}`, err: "want a string uri, got none"},
		{name: "read with number uri", method: "resources/read", params: `{"uri":5}`, err: "want a string uri, got a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Key(tt.method, jsontext.Value(tt.params))
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Key(%q, %s): %v", tt.method, tt.params, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Key(%q, %s) mismatch (-want +got):\n%s", tt.method, tt.params, diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Key(%q, %s) = %q, %v; want an error containing %q", tt.method, tt.params, got, err, tt.err)
			}
			if errors.Is(err, ErrNotCacheable) != tt.notCacheable {
				t.Errorf("errors.Is(%v, ErrNotCacheable) = %v, want %v", err, !tt.notCacheable, tt.notCacheable)
			}
		})
	}
}

// TestKeyEquality checks which requests share a key and which do not.
func TestKeyEquality(t *testing.T) {
	tests := []struct {
		name       string
		methodA, a string
		methodB, b string
		same       bool
	}{
		{"member order", "tools/list", `{"cursor":"c","x":1}`, "tools/list", `{"x":1,"cursor":"c"}`, true},
		{"_meta ignored", "tools/list", `{"_meta":{"progressToken":1},"cursor":"c"}`, "tools/list", `{"cursor":"c","_meta":{"progressToken":2}}`, true},
		{"absent and empty params", "prompts/list", ``, "prompts/list", `{"_meta":{}}`, true},
		{"cursor distinguishes pages", "tools/list", `{"cursor":"1"}`, "tools/list", `{"cursor":"2"}`, false},
		{"first page and second", "tools/list", `{}`, "tools/list", `{"cursor":"2"}`, false},
		{"uri distinguishes reads", "resources/read", `{"uri":"file:///a"}`, "resources/read", `{"uri":"file:///b"}`, false},
		{"uri is case-sensitive", "resources/read", `{"uri":"file:///a"}`, "resources/read", `{"uri":"file:///A"}`, false},
		{"method distinguishes", "resources/list", `{}`, "resources/templates/list", `{}`, false},
		{"any other member counts", "tools/list", `{"cursor":"1"}`, "tools/list", `{"cursor":"1","filter":"x"}`, false},
		{"big integers stay distinct", "tools/list", `{"n":9007199254740993}`, "tools/list", `{"n":9007199254740992}`, false},
		{"long fractions stay distinct", "tools/list", `{"n":0.10000000000000000001}`, "tools/list", `{"n":0.1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ka, err := Key(tt.methodA, jsontext.Value(tt.a))
			if err != nil {
				t.Fatal(err)
			}
			kb, err := Key(tt.methodB, jsontext.Value(tt.b))
			if err != nil {
				t.Fatal(err)
			}
			if (ka == kb) != tt.same {
				t.Errorf("keys %q and %q: same = %v, want %v", ka, kb, ka == kb, tt.same)
			}
		})
	}
}
