package wire_test

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// tricky is an object whose strings hold braces, brackets, quotes, escaped
// quotes, backslashes, commas and colons, to trip naive scanners.
const tricky = `{ "a\"}" : "{\"name\":1}" , "b" : [ "]", {"name":"x\\"} , "\\\"" ] ,` +
	"\n\t" + `"c\\" : { "d" : "}" } , "name" : "v\"}\\" , "n" : -1.5e+3 , "t" : true , "z" : null }`

func TestMember(t *testing.T) {
	tests := []struct {
		name string
		v    string
		key  string
		want string // "" for absent
	}{
		{"simple", `{"a":1}`, "a", `1`},
		{"absent", `{"a":1}`, "b", ``},
		{"empty object", `{}`, "a", ``},
		{"white space", " \n{ \"a\" :\t[1, 2] }\r\n", "a", `[1, 2]`},
		{"second", `{"a":1,"b":"x"}`, "b", `"x"`},
		{"after nested", `{"a":{"b":{"c":[{}]}},"b":2}`, "b", `2`},
		{"nested not found at top", `{"a":{"b":1}}`, "b", ``},
		{"escaped name", `{"n\u0061me":1}`, "name", `1`},
		{"escaped quote in name", `{"a\"b":1}`, `a"b`, `1`},
		{"escaped backslash in name", `{"a\\b":1}`, `a\b`, `1`},
		{"escape is not its text", `{"a\nb":1}`, `a\nb`, ``},
		{"escape matches its value", `{"a\nb":1}`, "a\nb", `1`},
		{"case sensitive", `{"Name":1}`, "name", ``},
		{"empty name", `{"":0}`, "", `0`},
		{"not an object", `[{"a":1}]`, "a", ``},
		{"scalar", `"a"`, "a", ``},
		{"empty", ``, "a", ``},
		{"tricky a", tricky, `a"}`, `"{\"name\":1}"`},
		{"tricky b", tricky, "b", `[ "]", {"name":"x\\"} , "\\\"" ]`},
		{"tricky c", tricky, `c\`, `{ "d" : "}" }`},
		{"tricky name", tricky, "name", `"v\"}\\"`},
		{"tricky n", tricky, "n", `-1.5e+3`},
		{"tricky t", tricky, "t", `true`},
		{"tricky z", tricky, "z", `null`},
		{"tricky d", tricky, "d", ``},
		{"tricky x", tricky, "x", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := wire.Member(jsontext.Value(tt.v), tt.key)
			if ok != (tt.want != "") {
				t.Fatalf("Member(%s, %q) found = %v, want %v", tt.v, tt.key, ok, tt.want != "")
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Member(%s, %q) (-want +got):\n%s", tt.v, tt.key, diff)
			}
		})
	}
}

func TestMemberString(t *testing.T) {
	tests := []struct {
		v, key  string
		want    string
		present bool
	}{
		{`{"type":"text"}`, "type", "text", true},
		{`{"type":"t\u0065xt"}`, "type", "text", true},
		{`{"type":"a\"b\\c"}`, "type", `a"b\c`, true},
		{`{"type":""}`, "type", "", true},
		{`{"type":1}`, "type", "1", true},
		{`{"type":{"a":1}}`, "type", `{"a":1}`, true},
		{`{"type":null}`, "type", "null", true},
		{`{"other":"text"}`, "type", "", false},
		{tricky, "name", `v"}\`, true},
		{tricky, `a"}`, `{"name":1}`, true},
	}
	for _, tt := range tests {
		got, present := wire.MemberString(jsontext.Value(tt.v), tt.key)
		if diff := cmp.Diff([]any{tt.want, tt.present}, []any{got, present}); diff != "" {
			t.Errorf("MemberString(%s, %q) (-want +got):\n%s", tt.v, tt.key, diff)
		}
		tag, present := wire.MemberTag(jsontext.Value(tt.v), tt.key)
		if diff := cmp.Diff([]any{tt.want, tt.present}, []any{string(tag), present}); diff != "" {
			t.Errorf("MemberTag(%s, %q) (-want +got):\n%s", tt.v, tt.key, diff)
		}
		if !present && tag != nil {
			t.Errorf("MemberTag(%s, %q) = %q for an absent member", tt.v, tt.key, tag)
		}
	}
}

// TestMemberTagAliases checks that MemberTag does not copy strings without
// escapes, and never returns the quotes.
func TestMemberTagAliases(t *testing.T) {
	v := jsontext.Value(`{"type":"text","esc":"t\u0065xt","n":-1}`)
	tag, _ := wire.MemberTag(v, "type")
	if string(tag) != "text" || &tag[0] != &v[9] {
		t.Errorf("MemberTag(type) = %q, not aliasing v", tag)
	}
	if tag, _ := wire.MemberTag(v, "esc"); string(tag) != "text" {
		t.Errorf("MemberTag(esc) = %q", tag)
	}
	if tag, _ := wire.MemberTag(v, "n"); string(tag) != "-1" {
		t.Errorf("MemberTag(n) = %q", tag)
	}
	if allocs := testing.AllocsPerRun(100, func() { wire.MemberTag(v, "type") }); allocs != 0 {
		t.Errorf("MemberTag allocates %v times", allocs)
	}
}

func TestHas(t *testing.T) {
	const v = `{"a":{"b":[10,{"c":null},[0,[1]]],"e":{}},"x":[],"3":"three","s":"{\"a\":1}"}`
	tests := []struct {
		path []string
		want bool
	}{
		{nil, true},
		{[]string{"a"}, true},
		{[]string{"a", "b"}, true},
		{[]string{"a", "b", "0"}, true},
		{[]string{"a", "b", "1", "c"}, true},
		{[]string{"a", "b", "2", "1", "0"}, true},
		{[]string{"a", "b", "2", "1", "1"}, false},
		{[]string{"a", "b", "3"}, false},
		{[]string{"a", "b", "-1"}, false},
		{[]string{"a", "b", "x"}, false},
		{[]string{"a", "b", ""}, false},
		{[]string{"a", "b", "0", "c"}, false},
		{[]string{"a", "e"}, true},
		{[]string{"a", "e", "f"}, false},
		{[]string{"a", "c"}, false},
		{[]string{"x"}, true},
		{[]string{"x", "0"}, false},
		{[]string{"3"}, true},
		{[]string{"s"}, true},
		{[]string{"s", "a"}, false},
		{[]string{"b"}, false},
		{[]string{"A"}, false},
	}
	for _, tt := range tests {
		if got := wire.Has(jsontext.Value(v), tt.path...); got != tt.want {
			t.Errorf("Has(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	// Arrays at the top, and white space around elements.
	arr := jsontext.Value(` [ 1 , { "k" : [ ] } , "]" ] `)
	for _, tt := range []struct {
		path []string
		want bool
	}{
		{[]string{"0"}, true},
		{[]string{"1", "k"}, true},
		{[]string{"2"}, true},
		{[]string{"3"}, false},
		{[]string{"1", "k", "0"}, false},
	} {
		if got := wire.Has(arr, tt.path...); got != tt.want {
			t.Errorf("Has(%s, %q) = %v, want %v", arr, tt.path, got, tt.want)
		}
	}
	if wire.Has(nil, "a") {
		t.Error("Has(nil, a)")
	}
}

func TestSetMember(t *testing.T) {
	tests := []struct {
		name  string
		v     string
		key   string
		val   string
		want  string
		isNil bool
	}{
		{"nil", "", "progressToken", `1`, `{"progressToken":1}`, true},
		{"empty", `{}`, "a", `"x"`, `{"a":"x"}`, false},
		{"empty with space", ` { } `, "a", `1`, `{"a":1}`, false},
		{"add", `{"b":2}`, "a", `1`, `{"b":2,"a":1}`, false},
		{"replace", `{"a":0}`, "a", `1`, `{"a":1}`, false},
		{"replace first", `{"a":0,"b":2,"c":3}`, "a", `1`, `{"b":2,"c":3,"a":1}`, false},
		{"replace middle", `{"a":0,"b":2,"c":3}`, "b", `[1]`, `{"a":0,"c":3,"b":[1]}`, false},
		{"replace last", `{"a":0,"b":2,"c":3}`, "c", `{}`, `{"a":0,"b":2,"c":{}}`, false},
		{"replace escaped", `{"n\u0061me":0,"x":1}`, "name", `2`, `{"x":1,"name":2}`, false},
		{"keep formatting of others", `{ "x" : [ 1 , 2 ] , "a" : 0 }`, "a", `1`, `{"x":[ 1 , 2 ],"a":1}`, false},
		{"keep escapes of others", `{"\u0078":"\u00e9"}`, "a", `1`, `{"\u0078":"\u00e9","a":1}`, false},
		{"new name escaped", `{}`, `a"b`, `1`, `{"a\"b":1}`, false},
		{"tricky", tricky, "name", `"w"`,
			`{"a\"}":"{\"name\":1}","b":[ "]", {"name":"x\\"} , "\\\"" ],"c\\":{ "d" : "}" },"n":-1.5e+3,"t":true,"z":null,"name":"w"}`, false},
		{"tricky add", tricky, "new", `null`,
			`{"a\"}":"{\"name\":1}","b":[ "]", {"name":"x\\"} , "\\\"" ],"c\\":{ "d" : "}" },"name":"v\"}\\","n":-1.5e+3,"t":true,"z":null,"new":null}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v jsontext.Value
			if !tt.isNil {
				v = jsontext.Value(tt.v)
			}
			before := string(v)
			got, err := wire.SetMember(v, tt.key, []byte(tt.val))
			if err != nil {
				t.Fatalf("SetMember: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("SetMember(%s, %q, %s) (-want +got):\n%s", tt.v, tt.key, tt.val, diff)
			}
			if !got.IsValid() {
				t.Errorf("SetMember returned invalid JSON %s", got)
			}
			if string(v) != before {
				t.Errorf("SetMember modified its input: %s", v)
			}
			if m, ok := wire.Member(got, tt.key); !ok || string(m) != tt.val {
				t.Errorf("Member after SetMember = %s, %v", m, ok)
			}
		})
	}
}

func TestSetMemberErrors(t *testing.T) {
	tests := []struct {
		name, v, key, val, msg string
	}{
		{"array", `[]`, "a", `1`, "not a JSON object"},
		{"string", `"{}"`, "a", `1`, "not a JSON object"},
		{"invalid", `{"a":}`, "a", `1`, "not a JSON object"},
		{"truncated", `{"a":1`, "a", `1`, "not a JSON object"},
		{"duplicate names", `{"a":1,"a":2}`, "b", `1`, "not a JSON object"},
		{"invalid value", `{}`, "a", `{`, "not valid JSON"},
		{"empty value", `{}`, "a", ``, "value is empty"},
		{"two values", `{}`, "a", `1 2`, "not valid JSON"},
		{"invalid UTF-8 name", `{}`, "a\xff", `1`, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wire.SetMember(jsontext.Value(tt.v), tt.key, []byte(tt.val))
			var p string
			if tt.msg != "not a JSON object" {
				p = "" // encoder errors have no member path here
			}
			wantErr(t, err, p, tt.msg)
		})
	}
}

// TestProbeInvalid checks that the probe functions, which generated code also
// calls on raw values that applications set (such as _meta), neither panic
// nor loop on invalid JSON.
func TestProbeInvalid(t *testing.T) {
	for _, v := range []string{
		`{`, `{"`, `{"a`, `{"a"`, `{"a":`, `{"a":"`, `{"a":"x`, `{"a":1`, `{"a":[`, `{"a":{`,
		`{"a" 1}`, `{"a":1,`, `{"a":1,"`, `{,}`, `{:}`, `{1:2}`, `{"a"}`, `{"a\`, `{"a":"\`,
		`[`, `[}`, `[,`, `[1`, `[1,`, `["`, `["\`, `[{`, `]`, `}`, `{]`, `[:]`, `[::`, `{"a"::}`,
	} {
		for _, key := range []string{"a", "b", ""} {
			wire.Member(jsontext.Value(v), key)
			wire.MemberString(jsontext.Value(v), key)
			wire.MemberTag(jsontext.Value(v), key)
			wire.Has(jsontext.Value(v), key, "0")
			wire.Has(jsontext.Value(v), "0", key)
			wire.Has(jsontext.Value(v), "-1")
			wire.Has(jsontext.Value(v), "5")
			if _, err := wire.SetMember(jsontext.Value(v), key, []byte("1")); err == nil {
				t.Errorf("SetMember(%s) accepted invalid JSON", v)
			}
		}
	}
}

// TestMetaProgressTokenPattern is how generated code uses Member and
// SetMember on an application-set _meta.
func TestMetaProgressTokenPattern(t *testing.T) {
	for _, meta := range []string{``, `{}`, `{"other":{"progressToken":5}}`, `{"progressToken":"old","x":1}`} {
		m, err := wire.SetMember(jsontext.Value(meta), "progressToken", []byte(`7`))
		if err != nil {
			t.Fatal(err)
		}
		raw, ok := wire.Member(m, "progressToken")
		var id wire.ID
		if !ok || wire.Unmarshal(raw, &id) != nil || id != wire.IntID(7) {
			t.Errorf("%s: got %s from %s", meta, raw, m)
		}
		if meta != "" && meta != "{}" {
			for _, k := range []string{"other", "x"} {
				a, okA := wire.Member(jsontext.Value(meta), k)
				b, okB := wire.Member(m, k)
				if okA != okB || string(a) != string(b) {
					t.Errorf("%s: member %q changed: %s -> %s", meta, k, a, b)
				}
			}
		}
	}
	// A truncated _meta set by an application must not crash the reader.
	if _, ok := wire.Member(jsontext.Value(`{"progressToken"`), "progressToken"); ok {
		t.Error("found a member in truncated JSON")
	}
}

func TestMergeMembers(t *testing.T) {
	tests := []struct {
		v, add, want string
	}{
		{"", `{"a":1}`, `{"a":1}`},
		{`{}`, `{"a":1,"b":[2]}`, `{"a":1,"b":[2]}`},
		{`{"a":0}`, `{"a":1,"b":2}`, `{"a":0,"b":2}`},
		{` { "x" : true } `, `{"y":null}`, ` { "x" : true ,"y":null}`},
		{`{"a\u0062":0}`, `{"ab":1}`, `{"a\u0062":0}`},
		{`{"a":0}`, ``, `{"a":0}`},
	}
	for _, tt := range tests {
		got, err := wire.MergeMembers(jsontext.Value(tt.v), jsontext.Value(tt.add))
		if err != nil {
			t.Errorf("MergeMembers(%s, %s): %v", tt.v, tt.add, err)
			continue
		}
		if string(got) != tt.want || !got.IsValid() {
			t.Errorf("MergeMembers(%s, %s) = %s, want %s", tt.v, tt.add, got, tt.want)
		}
	}
	for _, bad := range [][2]string{{`[1]`, `{}`}, {`{}`, `[]`}, {`{`, `{}`}} {
		if _, err := wire.MergeMembers(jsontext.Value(bad[0]), jsontext.Value(bad[1])); err == nil {
			t.Errorf("MergeMembers(%s, %s): no error", bad[0], bad[1])
		}
	}
}

func TestDeleteMembers(t *testing.T) {
	tests := []struct {
		name  string
		v     string
		names []string
		want  string
		err   bool
	}{
		{"one", `{"a":1,"b":2,"c":3}`, []string{"b"}, `{"a":1,"c":3}`, false},
		{"first and last", `{"a":1,"b":2,"c":3}`, []string{"a", "c"}, `{"b":2}`, false},
		{"all", `{"a":1,"b":2}`, []string{"b", "a"}, `{}`, false},
		{"absent", `{"a":1}`, []string{"z"}, `{"a":1}`, false},
		{"none named", `{"a":1}`, nil, `{"a":1}`, false},
		{"nil is empty", ``, []string{"a"}, `{}`, false},
		{"spaces", " { \"a\" : [1, {\"b\":2}] ,\n \"b\" : \"}\" } ", []string{"b"}, `{"a":[1, {"b":2}]}`, false},
		{"escaped name", `{"a\/b":1,"c":2}`, []string{"a/b"}, `{"c":2}`, false},
		{"nested kept", `{"a":{"b":1},"b":2}`, []string{"b"}, `{"a":{"b":1}}`, false},
		{"tricky values", `{"k":` + tricky + `,"x":1}`, []string{"x"}, `{"k":` + tricky + `}`, false},
		{"array", `[1]`, []string{"a"}, ``, true},
		{"invalid", `{"a":`, []string{"a"}, ``, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wire.DeleteMembers(jsontext.Value(tt.v), tt.names...)
			if (err != nil) != tt.err {
				t.Fatalf("DeleteMembers(%q, %q) error %v, want error %v", tt.v, tt.names, err, tt.err)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("DeleteMembers(%q, %q) = %s, want %s", tt.v, tt.names, got, tt.want)
			}
		})
	}
}
