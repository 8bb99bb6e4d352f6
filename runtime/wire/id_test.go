package wire_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestIDRoundTrip(t *testing.T) {
	tests := []struct {
		id   wire.ID
		json string
		str  string
	}{
		{wire.StringID("abc"), `"abc"`, `"abc"`},
		{wire.StringID(""), `""`, `""`},
		{wire.StringID("1"), `"1"`, `"1"`},
		{wire.StringID("a\"\n"), `"a\"\n"`, `"a\"\n"`},
		{wire.StringID("é"), `"é"`, `"é"`},
		{wire.IntID(0), `0`, `0`},
		{wire.IntID(1), `1`, `1`},
		{wire.IntID(-7), `-7`, `-7`},
		{wire.IntID(math.MaxInt64), `9223372036854775807`, `9223372036854775807`},
		{wire.IntID(math.MinInt64), `-9223372036854775808`, `-9223372036854775808`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			if !tt.id.IsValid() {
				t.Error("IsValid() = false")
			}
			b, err := wire.Marshal(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.json, string(b)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
			mb, err := tt.id.MarshalJSON()
			if err != nil || string(mb) != tt.json {
				t.Errorf("MarshalJSON = %s, %v", mb, err)
			}
			var back wire.ID
			if err := wire.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back != tt.id {
				t.Errorf("Unmarshal(%s) = %v, want %v", b, back, tt.id)
			}
			var back2 wire.ID
			if err := back2.UnmarshalJSON(b); err != nil || back2 != tt.id {
				t.Errorf("UnmarshalJSON(%s) = %v, %v", b, back2, err)
			}
			if got := tt.id.String(); got != tt.str {
				t.Errorf("String() = %s, want %s", got, tt.str)
			}
		})
	}
}

func TestIDAccessors(t *testing.T) {
	s := wire.StringID("x")
	n := wire.IntID(5)
	var zero wire.ID
	type acc struct {
		Valid, IsString bool
		Str             string
		StrOK           bool
		Int             int64
		IntOK           bool
	}
	get := func(id wire.ID) acc {
		str, strOK := id.Str()
		i, intOK := id.Int()
		return acc{id.IsValid(), id.IsString(), str, strOK, i, intOK}
	}
	for _, tt := range []struct {
		id   wire.ID
		want acc
	}{
		{s, acc{true, true, "x", true, 0, false}},
		{n, acc{true, false, "", false, 5, true}},
		{zero, acc{false, false, "", false, 0, false}},
	} {
		if diff := cmp.Diff(tt.want, get(tt.id)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.id, diff)
		}
	}
	if got := zero.String(); got != "<invalid ID>" {
		t.Errorf("zero String() = %q", got)
	}
}

func TestIDComparable(t *testing.T) {
	m := map[wire.ID]string{}
	m[wire.StringID("1")] = "string one"
	m[wire.IntID(1)] = "int one"
	m[wire.StringID("")] = "empty string"
	m[wire.IntID(0)] = "int zero"
	if len(m) != 4 {
		t.Fatalf("got %d distinct keys, want 4: %v", len(m), m)
	}
	var a, b wire.ID
	if err := wire.Unmarshal([]byte(`1.0`), &a); err != nil {
		t.Fatal(err)
	}
	if err := wire.Unmarshal([]byte(`"\u0031"`), &b); err != nil {
		t.Fatal(err)
	}
	if m[a] != "int one" || m[b] != "string one" {
		t.Errorf("lookups by decoded IDs: %q, %q", m[a], m[b])
	}
	if wire.StringID("1") == wire.IntID(1) || wire.IntID(0) == (wire.ID{}) || wire.StringID("") == (wire.ID{}) {
		t.Error("IDs of different kinds compare equal")
	}
}

func TestIDEncodeErrors(t *testing.T) {
	_, err := wire.Marshal(wire.ID{})
	wantErr(t, err, "", "encode: ID is not set")
	_, err = wire.ID{}.MarshalJSON()
	wantErr(t, err, "", "encode: ID is not set")
	_, err = wire.Marshal(wire.StringID("a\xffb"))
	wantErr(t, err, "", `encode: ID "a\xffb" is not valid UTF-8`)
	// Through encoding/json, which calls MarshalJSON.
	if _, err := json.Marshal(struct{ ID wire.ID }{}); err == nil {
		t.Error("encoding/json marshaled a zero ID")
	}
	b, err := json.Marshal(struct{ ID wire.ID }{wire.IntID(3)})
	if err != nil || string(b) != `{"ID":3}` {
		t.Errorf("encoding/json: %s, %v", b, err)
	}
}

func TestIDDecodeErrors(t *testing.T) {
	tests := []struct {
		in, pointer, msg string
	}{
		{`null`, "", "want string or integer, got null"},
		{`true`, "", "want string or integer, got boolean"},
		{`{}`, "", "want string or integer, got object"},
		{`{"a":[1,2]}`, "", "want string or integer, got object"},
		{`[1]`, "", "want string or integer, got array"},
		{`1.5`, "", "want integer, got 1.5"},
		{`1e400`, "", "want integer, got 1e400"},
		{`9223372036854775808`, "", "want integer, got 9223372036854775808"},
		{`"a" "b"`, "", "unexpected data after the JSON value"},
		{`"a`, "", "unexpected end of JSON input"},
		{``, "", "unexpected end of JSON input"},
		{"\"\xff\"", "", "invalid UTF-8"},
		{`{"a":}`, "/a", "missing value after object name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var id wire.ID
			err := wire.Unmarshal([]byte(tt.in), &id)
			wantErr(t, err, tt.pointer, tt.msg)
			if id.IsValid() && tt.msg != "unexpected data after the JSON value" {
				t.Errorf("failed decode set %v", id)
			}
		})
	}
	// Inside a document, errors carry the member's pointer.
	var x rec
	err := wire.Unmarshal([]byte(`{"s":"","id":{"x":1}}`), &x)
	wantErr(t, err, "/id", "want string or integer, got object")
	err = wire.Unmarshal([]byte(`{"s":"","id":false}`), &x)
	wantErr(t, err, "/id", "want string or integer, got boolean")
	// Through encoding/json, which calls UnmarshalJSON.
	var s struct{ ID wire.ID }
	if err := json.Unmarshal([]byte(`{"ID":"x"}`), &s); err != nil || s.ID != wire.StringID("x") {
		t.Errorf("encoding/json: %v, %v", s.ID, err)
	}
	if err := json.Unmarshal([]byte(`{"ID":2.5}`), &s); err == nil {
		t.Error("encoding/json accepted 2.5")
	}
}
