package wire_test

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

var unmarshalSeeds = []string{
	``, ` `, `{}`, `[]`, `null`, `1`, `"x"`, `1.5`, `-0`, `1e400`,
	`{"s":"x"}`,
	`{"s":"héllo","i":-5,"f":0.5,"b":true}`,
	`{"s":"","i":9223372036854775807,"f":-1.7976931348623157e308,"b":false}`,
	`{"s":"","i":-9223372036854775808,"f":5e-324}`,
	`{"s":"","i":1e2,"f":-0,"list":[1,-5,1.0,1e2,0,-0]}`,
	`{"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}`,
	`{"s":"","raw":{ "a" : [1, {"}":"{"}] }}`,
	`{"s":"","obj":{"x":1},"strs":["a","","c"]}`,
	`{"s":"a","sub":{"s":"b","i":2,"sub":{"s":"c"}}}`,
	`{"s":"","tree":[[],[[]],[]]}`,
	`{"s":"","id":"abc"}`, `{"s":"","id":7}`, `{"s":"","id":1.0}`,
	`{"s":"","opt":null}`, `{"s":"","opt":"v"}`,
	`{"s":"","kind":"r\u0065c","code":-32042.0}`,
	`{"s":"","m":{"b":2,"a":1,"":0,"a\u0000":3,"\u00e9":4}}`,
	`{"s":"","u":{"s":"in","list":[3]}}`,
	`{"x":{"s":1},"s":"y","Z":[1,{"a":[]}],"S":"ignored"}`,
	`{"\u0073":"esc"}`,
	`{"s":"a","s":"b"}`,
	"{\"s\":\"a\xffb\"}",
	`{"s":"\ud800"}`,
	`{"s":""} {"s":""}`,
	`{"s":"","list":[1,2`,
	`{"s":"","i":1.0000000000000000001}`,
	`{"s":"","i":9223372036854775808}`,
	`{"s":"","i":-9223372036854775809}`,
	`{"s":"","i":1000000000000000001}`,
	`{"s":"","code":-3.2042e4}`,
	deepRec(wire.MaxDepth),
	deepRec(wire.MaxDepth + 1),
	deepTree(wire.MaxDepth),
	`{"s":"","raw":` + deep(wire.MaxDepth, false) + `}`,
	`{"s":"","zzz":` + deep(wire.MaxDepth, true) + `}`,
}

// FuzzUnmarshal feeds arbitrary bytes to Unmarshal into rec and into ID. It
// must never panic, fail only with *wire.Error, accept only valid JSON, and
// whatever it accepts must encode and decode back to the same value, encoding
// the same way again.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range unmarshalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRoundTrip(t, data, func() wire.Codec { return new(rec) })
		checkRoundTrip(t, data, func() wire.Codec { return new(wire.ID) })
		checkRoundTrip(t, data, func() wire.Codec { return new(tree) })

		// Any value: ReadValue accepts exactly the valid JSON values that nest
		// no deeper than MaxDepth, and Raw writes them back.
		var raw jsontext.Value
		err := wire.Unmarshal(data, fn(func(d *jsontext.Decoder) (err error) {
			raw, err = wire.ReadValue(d)
			return err
		}))
		if err != nil {
			checkError(t, data, err)
			return
		}
		if !raw.IsValid() || !jsontext.Value(data).IsValid() {
			t.Fatalf("ReadValue accepted invalid JSON %q", data)
		}
		e := wire.NewEncoder(nil)
		e.Raw(raw)
		if b, err := e.Bytes(); err != nil || !bytes.Equal(b, raw) {
			t.Fatalf("Raw(%q) = %q, %v", raw, b, err)
		}
	})
}

func checkRoundTrip(t *testing.T, data []byte, newValue func() wire.Codec) {
	t.Helper()
	x := newValue()
	if err := wire.Unmarshal(data, x); err != nil {
		checkError(t, data, err)
		return
	}
	if !jsontext.Value(data).IsValid() {
		t.Fatalf("%T accepted invalid JSON %q", x, data)
	}
	b, err := wire.Marshal(x)
	if err != nil {
		t.Fatalf("Marshal(%T decoded from %q): %v", x, data, err)
	}
	y := newValue()
	if err := wire.Unmarshal(b, y); err != nil {
		t.Fatalf("Unmarshal(%q) (encoded from %q): %v", b, data, err)
	}
	if diff := cmp.Diff(x, y, cmpOpts...); diff != "" {
		t.Fatalf("%q -> %q: decoded values differ (-first +second):\n%s", data, b, diff)
	}
	b2, err := wire.Marshal(y)
	if err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("encoding is not stable: %q then %q, %v", b, b2, err)
	}
}

func checkError(t *testing.T, data []byte, err error) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("Unmarshal(%q): error %T %v is not a *wire.Error", data, err, err)
	}
	if we.Msg == "" {
		t.Fatalf("Unmarshal(%q): error without a message", data)
	}
	if we.Pointer != "" && we.Pointer[0] != '/' {
		t.Fatalf("Unmarshal(%q): bad pointer %q", data, we.Pointer)
	}
}

// FuzzProbe checks the probe functions. On any input they must not panic; on
// valid JSON objects and arrays they must agree with jsontext, and SetMember
// must produce valid JSON that keeps the other members.
func FuzzProbe(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, ` { "a" : [ 1 , 2 ] , "b" : { "a" : "}" } } `,
		`{"n\u0061me":1,"x":"\"}"}`, `{"a\nb":1}`, `{"a\\nb":2}`, tricky,
		`{"progressToken":"old","x":{"progressToken":1}}`,
		`[1,{"a":[]},"]"]`, `[]`, `"{}"`, `{"a"`, `[}`, `{"a":"\`,
	} {
		for _, name := range []string{"a", "name", "progressToken", `a"b`, "a\nb", `a\nb`, ""} {
			f.Add([]byte(s), name, []byte(`"v"`))
		}
	}
	f.Add([]byte(`{}`), "a", []byte(` [ 1 ] `))
	f.Add([]byte(`{}`), "a", []byte(`{`))
	f.Add([]byte(`{}`), "a", []byte(``))
	f.Add([]byte(`{}`), "a\xff", []byte(`1`))
	f.Fuzz(func(t *testing.T, v []byte, name string, val []byte) {
		// No panics, whatever the input.
		wire.Member(v, name)
		wire.MemberString(v, name)
		wire.MemberTag(v, name)
		wire.Has(v, name)
		wire.Has(v, name, "0")
		wire.Has(v, "0", name)
		wire.Has(v, "1", "-1")
		out, err := wire.SetMember(v, name, val)

		value := jsontext.Value(v)
		if !value.IsValid() {
			if len(v) > 0 && err == nil {
				t.Fatalf("SetMember accepted invalid JSON %q", v)
			}
			return
		}
		switch value.Kind() {
		case '[':
			elems := elements(t, v)
			for i, e := range elems {
				if !wire.Has(v, strconv.Itoa(i)) {
					t.Fatalf("Has(%q, %d) = false", v, i)
				}
				if ek := jsontext.Value(e).Kind(); ek == '{' || ek == '[' {
					// Has looks inside the element it found.
					var inner string
					if ek == '{' {
						if ns, _ := members(t, []byte(e)); len(ns) > 0 {
							inner = ns[0]
						}
					} else if len(elements(t, []byte(e))) > 0 {
						inner = "0"
					}
					if inner != "" && !wire.Has(v, strconv.Itoa(i), inner) {
						t.Fatalf("Has(%q, %d, %q) = false", v, i, inner)
					}
				}
			}
			if wire.Has(v, strconv.Itoa(len(elems))) {
				t.Fatalf("element %d found in %q of %d elements", len(elems), v, len(elems))
			}
		case '{':
			names, vals := members(t, v)
			for i, n := range names {
				got, ok := wire.Member(v, n)
				if !ok || string(got) != vals[i] {
					t.Fatalf("Member(%q, %q) = %q, %v; want %q", v, n, got, ok, vals[i])
				}
				if !wire.Has(v, n) {
					t.Fatalf("Has(%q, %q) = false", v, n)
				}
				s, present := wire.MemberString(v, n)
				want := vals[i]
				if want[0] == '"' {
					u, _ := jsontext.AppendUnquote(nil, want)
					want = string(u)
				}
				if !present || s != want {
					t.Fatalf("MemberString(%q, %q) = %q, %v; want %q", v, n, s, present, want)
				}
				if tag, present := wire.MemberTag(v, n); !present || string(tag) != want {
					t.Fatalf("MemberTag(%q, %q) = %q, %v; want %q", v, n, tag, present, want)
				}
			}
			idx := indexOf(names, name)
			if _, ok := wire.Member(v, name); ok != (idx >= 0) {
				t.Fatalf("Member(%q, %q) found = %v", v, name, ok)
			}

			valValid := len(val) > 0 && jsontext.Value(val).IsValid()
			if err != nil {
				if valValid && utf8.ValidString(name) {
					t.Fatalf("SetMember(%q, %q, %q): %v", v, name, val, err)
				}
				return
			}
			if !valValid || !utf8.ValidString(name) {
				t.Fatalf("SetMember(%q, %q, %q) accepted bad input: %q", v, name, val, out)
			}
			if !out.IsValid() {
				t.Fatalf("SetMember(%q, %q, %q) = %q, not valid JSON", v, name, val, out)
			}
			got, ok := wire.Member(out, name)
			if !ok || string(got) != strings.Trim(string(val), " \t\r\n") {
				t.Fatalf("SetMember(%q, %q, %q) = %q: member is %q, %v", v, name, val, out, got, ok)
			}
			outNames, outVals := members(t, out)
			var wantNames, wantVals []string
			for i, n := range names {
				if n != name {
					wantNames = append(wantNames, n)
					wantVals = append(wantVals, vals[i])
				}
			}
			wantNames = append(wantNames, name)
			wantVals = append(wantVals, string(got))
			if diff := cmp.Diff([][]string{wantNames, wantVals}, [][]string{outNames, outVals}); diff != "" {
				t.Fatalf("SetMember(%q, %q, %q) = %q (-want +got):\n%s", v, name, val, out, diff)
			}
		default:
			if err == nil {
				t.Fatalf("SetMember accepted a non-object %q", v)
			}
			if _, ok := wire.Member(v, name); ok {
				t.Fatalf("Member found %q in a non-object %q", name, v)
			}
		}
	})
}

// members returns the names and raw values of the object v, per jsontext.
func members(t *testing.T, v []byte) (names, vals []string) {
	t.Helper()
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		t.Fatal(err)
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.String())
		raw, err := d.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, string(raw))
	}
	return names, vals
}

// elements returns the raw elements of the array v, per jsontext.
func elements(t *testing.T, v []byte) []string {
	t.Helper()
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		t.Fatal(err)
	}
	var elems []string
	for d.PeekKind() != ']' {
		raw, err := d.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		elems = append(elems, string(raw))
	}
	return elems
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// FuzzMergeMembers: on valid objects, the result is a valid object that
// has every member of both; on anything else, an error, never a panic.
func FuzzMergeMembers(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"b":2,"a":3}`))
	f.Add([]byte(` { } `), []byte(`{"\u0061":null}`))
	f.Add([]byte(`[]`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, v, add []byte) {
		got, err := wire.MergeMembers(v, add)
		if err != nil {
			return
		}
		if !got.IsValid() || got.Kind() != '{' {
			t.Fatalf("MergeMembers(%q, %q) = %q: not a valid object", v, add, got)
		}
		var m map[string]jsontext.Value
		if json.Unmarshal(add, &m) == nil {
			for k := range m {
				if !wire.Has(got, k) {
					t.Fatalf("MergeMembers(%q, %q) = %q lacks %q", v, add, got, k)
				}
			}
		}
	})
}
