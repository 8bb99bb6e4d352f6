package wire_test

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// deepRec returns n nested rec objects through "sub".
func deepRec(n int) string {
	return strings.Repeat(`{"s":"","sub":`, n-1) + `{"s":""}` + strings.Repeat("}", n-1)
}

// deepRecWant is the value of deepRec(n).
func deepRecWant(n int) *rec {
	r := &rec{}
	for i := 1; i < n; i++ {
		r = &rec{Sub: r}
	}
	return r
}

// deepTree returns n nested arrays inside {"s":"","tree":...}, counting the
// object: the innermost array is at depth n.
func deepTree(n int) string {
	return `{"s":"","tree":` + deep(n-1, false) + `}`
}

func TestUnmarshalRec(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *rec
	}{
		{"minimal", `{"s":"x"}`, &rec{S: "x"}},
		{"white space", " \t\r\n{ \"s\" : \"x\" } \n", &rec{S: "x"}},
		{"all scalars", `{"s":"héllo","i":-5,"f":0.5,"b":true}`,
			&rec{S: "héllo", I: ptr(int64(-5)), F: ptr(0.5), B: ptr(true)}},
		{"false", `{"s":"","b":false}`, &rec{B: ptr(false)}},
		{"escapes", `{"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}`, &rec{S: "a\"b\\c/d\né😀"}},
		{"raw scalar", `{"s":"","raw":12.5e3}`, &rec{Raw: jsontext.Value(`12.5e3`)}},
		{"raw null", `{"s":"","raw":null}`, &rec{Raw: jsontext.Value(`null`)}},
		{"raw object kept verbatim", `{"s":"","raw":{ "a" : [1, {"}":"{"}] }}`,
			&rec{Raw: jsontext.Value(`{ "a" : [1, {"}":"{"}] }`)}},
		{"obj", `{"s":"","obj":{"x":1}}`, &rec{Obj: jsontext.Value(`{"x":1}`)}},
		{"empty list", `{"s":"","list":[]}`, &rec{List: []int64{}}},
		{"list", `{"s":"","list":[1,-5,1.0,1e2,0,-0]}`, &rec{List: []int64{1, -5, 1, 100, 0, 0}}},
		{"strs", `{"s":"","strs":["a","","c"]}`, &rec{Strs: []string{"a", "", "c"}}},
		{"sub", `{"s":"a","sub":{"s":"b","i":2}}`, &rec{S: "a", Sub: &rec{S: "b", I: ptr(int64(2))}}},
		{"tree", `{"s":"","tree":[[],[[]],[]]}`, &rec{Tree: tree{{}, {{}}, {}}}},
		{"string id", `{"s":"","id":"abc"}`, &rec{ID: ptr(wire.StringID("abc"))}},
		{"int id", `{"s":"","id":7}`, &rec{ID: ptr(wire.IntID(7))}},
		{"opt null", `{"s":"","opt":null}`, &rec{}},
		{"opt string", `{"s":"","opt":"v"}`, &rec{Opt: ptr("v")}},
		{"const", `{"s":"","kind":"rec","code":-32042}`, &rec{Kind: true, Code: true}},
		{"const escaped and float", `{"s":"","kind":"r\u0065c","code":-32042.0}`, &rec{Kind: true, Code: true}},
		{"const exponent", `{"s":"","code":-3.2042e4}`, &rec{Code: true}},
		{"map", `{"s":"","m":{"b":2,"a":1,"":0,"a\u0000":3}}`, &rec{M: map[string]int64{"a": 1, "b": 2, "": 0, "a\x00": 3}}},
		{"empty map", `{"s":"","m":{}}`, &rec{M: map[string]int64{}}},
		{"union", `{"s":"","u":{"s":"in","list":[3]}}`, &rec{U: &rec{S: "in", List: []int64{3}}}},
		{"unknown members skipped", `{"x":{"s":1},"s":"y","Z":[1,{"a":[]}],"S":"ignored"}`, &rec{S: "y"}},
		{"escaped member name", `{"\u0073":"esc"}`, &rec{S: "esc"}},
		{"case sensitive names", `{"s":"","I":"not an int","Sub":5}`, &rec{}},
		{"max depth objects", deepRec(wire.MaxDepth), deepRecWant(wire.MaxDepth)},
		{"max depth raw", `{"s":"","raw":` + deep(wire.MaxDepth-1, false) + `}`,
			&rec{Raw: jsontext.Value(deep(wire.MaxDepth-1, false))}},
		{"max depth unknown", `{"s":"","zzz":` + deep(wire.MaxDepth-1, true) + `}`, &rec{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := new(rec)
			if err := wire.Unmarshal([]byte(tt.in), got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpOpts...); diff != "" {
				t.Errorf("Unmarshal(%s) (-want +got):\n%s", tt.in, diff)
			}
			// It encodes and decodes back to the same value.
			b, err := wire.Marshal(got)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			again := new(rec)
			if err := wire.Unmarshal(b, again); err != nil {
				t.Fatalf("Unmarshal(Marshal) %s: %v", b, err)
			}
			if diff := cmp.Diff(got, again, cmpOpts...); diff != "" {
				t.Errorf("round trip through %s (-want +got):\n%s", b, diff)
			}
		})
	}
}

func TestUnmarshalTreeMaxDepth(t *testing.T) {
	var x rec
	if err := wire.Unmarshal([]byte(deepTree(wire.MaxDepth)), &x); err != nil {
		t.Fatal(err)
	}
	depth := 2 // the object and the outermost array
	for tr := x.Tree; len(tr) > 0; tr = tr[0] {
		depth++
	}
	if depth != wire.MaxDepth {
		t.Errorf("tree depth %d, want %d", depth, wire.MaxDepth)
	}
}

func TestUnmarshalRecErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		pointer string
		msg     string
	}{
		// Wrong types, at the member's pointer.
		{"top level not object", `[]`, "", "want object, got array"},
		{"top level string", `"s"`, "", "want object, got string"},
		{"string got number", `{"s":1}`, "/s", "want string, got number"},
		{"string got null", `{"s":null}`, "/s", "want string, got null"},
		{"string got object", `{"s":{"a":[1]}}`, "/s", "want string, got object"},
		{"int got string", `{"s":"","i":"1"}`, "/i", "want integer, got string"},
		{"int got bool", `{"s":"","i":true}`, "/i", "want integer, got boolean"},
		{"float got bool", `{"s":"","f":false}`, "/f", "want number, got boolean"},
		{"bool got string", `{"s":"","b":"true"}`, "/b", "want boolean, got string"},
		{"bool got null", `{"s":"","b":null}`, "/b", "want boolean, got null"},
		{"list got object", `{"s":"","list":{}}`, "/list", "want array, got object"},
		{"list element", `{"s":"","list":[1,2,"3"]}`, "/list/2", "want integer, got string"},
		{"list element fraction", `{"s":"","list":[1,2.5]}`, "/list/1", "want integer, got 2.5"},
		{"strs element", `{"s":"","strs":["a",["b"]]}`, "/strs/1", "want string, got array"},
		{"sub member", `{"s":"","sub":{"s":"","i":"x"}}`, "/sub/i", "want integer, got string"},
		{"sub not object", `{"s":"","sub":[]}`, "/sub", "want object, got array"},
		{"tree element", `{"s":"","tree":[[],[1]]}`, "/tree/1/0", "want array, got number"},
		{"map value", `{"s":"","m":{"a/b~c":"x"}}`, "/m/a~1b~0c", "want integer, got string"},
		{"obj not object", `{"s":"","obj":[1]}`, "/obj", "want object, got array"},
		{"opt wrong", `{"s":"","opt":1}`, "/opt", "want string, got number"},
		{"id null", `{"s":"","id":null}`, "/id", "want string or integer, got null"},
		{"id fraction", `{"s":"","id":1.5}`, "/id", "want integer, got 1.5"},
		{"union kind", `{"s":"","u":[1]}`, "/u", "U: want object, got array"},
		{"union inner", `{"s":"","u":{"s":"","list":[0,true]}}`, "/u/list/1", "want integer, got boolean"},
		{"union inner missing", `{"s":"","u":{}}`, "/u", `missing required field "s"`},
		{"const mismatch", `{"s":"","kind":"Rec"}`, "/kind", `want "rec", got "Rec"`},
		{"const number mismatch", `{"s":"","code":32042}`, "/code", `want -32042, got 32042`},
		{"const kind mismatch", `{"s":"","code":"-32042"}`, "/code", `want -32042, got "-32042"`},

		// Required members.
		{"missing", `{}`, "", `missing required field "s"`},
		{"missing in sub", `{"s":"","sub":{"i":1}}`, "/sub", `missing required field "s"`},
		{"missing two levels down", `{"s":"","sub":{"sub":{}}}`, "/sub/sub", `missing required field "s"`},

		// Duplicate names, at the second occurrence.
		{"duplicate", `{"s":"a","s":"b"}`, "/s", "duplicate"},
		{"duplicate escaped", `{"s":"a","\u0073":"b"}`, "/s", "duplicate"},
		{"duplicate unknown", `{"s":"","x":1,"x":2}`, "/x", "duplicate"},
		{"duplicate nested", `{"s":"","sub":{"s":"","i":1,"i":1}}`, "/sub/i", "duplicate"},
		{"duplicate in raw", `{"s":"","raw":{"a":1,"a":2}}`, "/raw/a", "duplicate"},
		{"duplicate in map", `{"s":"","m":{"k":1,"k":2}}`, "/m/k", "duplicate"},

		// Invalid UTF-8 and bad escapes.
		{"invalid UTF-8 value", "{\"s\":\"a\xffb\"}", "/s", "invalid UTF-8"},
		{"invalid UTF-8 name", "{\"s\xff\":\"a\"}", "", "invalid UTF-8"},
		{"invalid UTF-8 in raw", "{\"s\":\"\",\"raw\":[\"\xc3\"]}", "/raw/0", "invalid UTF-8"},
		{"lone surrogate", `{"s":"\ud800"}`, "/s", "surrogate"},
		{"bad escape", `{"s":"\x"}`, "/s", "escape"},
		{"control character", "{\"s\":\"a\nb\"}", "/s", "invalid character"},

		// Syntax errors.
		{"empty input", ``, "", "unexpected end of JSON input"},
		{"only space", `   `, "", "unexpected end of JSON input"},
		{"truncated object", `{"s":"a"`, "/s", "unexpected end of JSON input"},
		{"truncated after colon", `{"s":`, "/s", "unexpected end of JSON input"},
		{"truncated string", `{"s":"ab`, "/s", "unexpected end of JSON input"},
		{"truncated list", `{"s":"","list":[1,2`, "/list/1", "unexpected end of JSON input"},
		{"truncated raw", `{"s":"","raw":{"a":[`, "/raw", "unexpected end of JSON input"},
		{"truncated name", `{"s`, "", "unexpected end of JSON input"},
		{"trailing comma", `{"s":"",}`, "", "invalid character"},
		{"missing comma", `{"s":"" "i":1}`, "", "invalid character"},
		{"single quotes", `{'s':''}`, "", "invalid character"},
		{"non-string name", `{1:2}`, "", "object member name must be a string"},
		{"bad literal", `{"s":"","b":tru}`, "/b", "invalid"},
		{"leading zero", `{"s":"","i":01}`, "", "invalid character '1' after object value"},
		{"NaN literal", `{"s":"","f":NaN}`, "/f", "invalid character"},

		// Trailing data after the value.
		{"trailing value", `{"s":""} {"s":""}`, "", "unexpected data after the JSON value"},
		{"trailing number", `{"s":""} 1`, "", "unexpected data after the JSON value"},
		{"trailing garbage", `{"s":""}x`, "", "invalid character 'x'"},
		{"trailing close", `{"s":""}}`, "", "invalid character '}'"},

		// Nesting deeper than MaxDepth.
		{"deep objects", deepRec(wire.MaxDepth + 1), strings.Repeat("/sub", wire.MaxDepth), "nesting too deep"},
		{"deep arrays", deepTree(wire.MaxDepth + 1), "/tree" + strings.Repeat("/0", wire.MaxDepth-1), "nesting too deep"},
		{"deep raw", `{"s":"","raw":` + deep(wire.MaxDepth, false) + `}`, "/raw", "nesting too deep"},
		{"deep raw objects", `{"s":"","raw":` + deep(wire.MaxDepth, true) + `}`, "/raw", "nesting too deep"},
		{"deep raw at top level of union", `{"s":"","u":` + deep(wire.MaxDepth, true) + `}`, "/u", "nesting too deep"},
		{"deep obj", `{"s":"","obj":` + deep(wire.MaxDepth, true) + `}`, "/obj", "nesting too deep"},
		{"deep unknown member", `{"s":"","zzz":` + deep(wire.MaxDepth, false) + `}`, "/zzz", "nesting too deep"},

		// Integers.
		{"int fraction", `{"s":"","i":1.5}`, "/i", "want integer, got 1.5"},
		{"int huge exponent", `{"s":"","i":1e400}`, "/i", "want integer, got 1e400"},
		{"int just above max", `{"s":"","i":9223372036854775808}`, "/i", "want integer, got 9223372036854775808"},
		{"int just below min", `{"s":"","i":-9223372036854775809}`, "/i", "want integer, got -9223372036854775809"},
		{"int tiny fraction", `{"s":"","i":1.0000000000000000001}`, "/i", "want integer"},
		{"int underflow", `{"s":"","i":1e-400}`, "/i", "want integer"},
		{"int 2^63 as float", `{"s":"","i":9.223372036854775808e18}`, "/i", "want integer"},
		{"float out of range", `{"s":"","f":1e400}`, "/f", "out of range"},
		{"float negative out of range", `{"s":"","f":-1.8e308}`, "/f", "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x rec
			err := wire.Unmarshal([]byte(tt.in), &x)
			wantErr(t, err, tt.pointer, tt.msg)
		})
	}
}

// TestUnmarshalVeryDeep checks that input nested deeper than jsontext's own
// limit fails cleanly, without the cost of decoding it.
func TestUnmarshalVeryDeep(t *testing.T) {
	for _, in := range []string{
		`{"s":"","raw":` + deep(20000, false) + `}`,
		`{"s":"","zzz":` + deep(20000, true) + `}`,
		deepRec(20000),
	} {
		var x rec
		err := wire.Unmarshal([]byte(in), &x)
		var we *wire.Error
		if !errors.As(err, &we) || !strings.Contains(we.Msg, "depth") && !strings.Contains(we.Msg, "too deep") {
			t.Errorf("got %.100v, want a depth error", err)
		}
	}
}

func TestUnmarshalEOF(t *testing.T) {
	var x rec
	err := wire.Unmarshal([]byte(`{"s":`), &x)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v, want it to wrap io.ErrUnexpectedEOF", err)
	}
	var se *jsontext.SyntacticError
	err = wire.Unmarshal([]byte(`{"s":"","s":""}`), &x)
	if !errors.As(err, &se) || !errors.Is(err, jsontext.ErrDuplicateName) {
		t.Errorf("got %v, want it to wrap a jsontext.SyntacticError for a duplicate name", err)
	}
}

// TestUnmarshalReuse checks that pooled decoders do not leak state from one
// call into the next.
func TestUnmarshalReuse(t *testing.T) {
	for range 3 {
		var x rec
		if err := wire.Unmarshal([]byte(`{"s":"a","list":[1,`), &x); err == nil {
			t.Fatal("want an error")
		}
		if err := wire.Unmarshal([]byte(`{"s":"b"}`), &x); err != nil {
			t.Fatal(err)
		}
		if x.S != "b" {
			t.Fatalf("got %q", x.S)
		}
	}
	// The decoded values do not alias the input.
	in := []byte(`{"s":"abc","raw":[1,2]}`)
	var x rec
	if err := wire.Unmarshal(in, &x); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = ' '
	}
	if x.S != "abc" || string(x.Raw) != "[1,2]" {
		t.Errorf("decoded value changed with its input: %+v", x)
	}
}

func TestUnmarshalConcurrent(t *testing.T) {
	done := make(chan error)
	for g := range 8 {
		go func() {
			var err error
			for i := range 200 {
				var x rec
				in := `{"s":"g","i":` + strconv.Itoa(g*1000+i) + `}`
				if e := wire.Unmarshal([]byte(in), &x); e != nil {
					err = e
					break
				}
				if *x.I != int64(g*1000+i) {
					err = errors.New("wrong value for " + in)
					break
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestReadInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string // substring of the error message; "" for success
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"1", 1, ""},
		{"-5", -5, ""},
		{"1.0", 1, ""},
		{"1.000", 1, ""},
		{"1e2", 100, ""},
		{"1E2", 100, ""},
		{"1e+2", 100, ""},
		{"100e-2", 1, ""},
		{"-0.0", 0, ""},
		{"0e999999999999999999999", 0, ""},
		{"0.000e-5", 0, ""},
		{"12.5e1", 125, ""},
		{"123456789012345678", 123456789012345678, ""},
		{"999999999999999999", 999999999999999999, ""},
		{"1000000000000000001", 1000000000000000001, ""},
		{"-1000000000000000001", -1000000000000000001, ""},
		{"9223372036854774807", 9223372036854774807, ""},
		{"9223372036854775807", math.MaxInt64, ""},
		{"9223372036854775807.0", math.MaxInt64, ""},
		{"922337203685477580.7e1", math.MaxInt64, ""},
		{"9.223372036854775807e18", math.MaxInt64, ""},
		{"0.9223372036854775807e19", math.MaxInt64, ""},
		{"-9223372036854775808", math.MinInt64, ""},
		{"-9223372036854775808.000", math.MinInt64, ""},
		{"-9.223372036854775808e18", math.MinInt64, ""},
		{"00", 0, "unexpected data after the JSON value"},
		{"1.5", 0, "want integer, got 1.5"},
		{"0.1", 0, "want integer, got 0.1"},
		{"-0.5", 0, "want integer, got -0.5"},
		{"1e-1", 0, "want integer, got 1e-1"},
		{"1e400", 0, "want integer, got 1e400"},
		{"-1e400", 0, "want integer, got -1e400"},
		{"1e-400", 0, "want integer, got 1e-400"},
		{"1e19", 0, "want integer, got 1e19"},
		{"1e99999999999999999999", 0, "want integer"},
		{"1e-99999999999999999999", 0, "want integer"},
		{"1.0000000000000000001", 0, "want integer"},
		{"9223372036854775808", 0, "want integer, got 9223372036854775808"},
		{"9223372036854775808.0", 0, "want integer"},
		{"-9223372036854775809", 0, "want integer, got -9223372036854775809"},
		{"18446744073709551616", 0, "want integer"},
		{"123456789012345678901234567890", 0, "want integer"},
		{`"1"`, 0, "want integer, got string"},
		{`null`, 0, "want integer, got null"},
		{`[1]`, 0, "want integer, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got int64
			err := wire.Unmarshal([]byte(tt.in), fn(func(d *jsontext.Decoder) (err error) {
				got, err = wire.ReadInt(d)
				return err
			}))
			if tt.err != "" {
				wantErr(t, err, "", tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadInt(%s) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestReadFloat(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"0", 0, ""},
		{"-0", math.Copysign(0, -1), ""},
		{"1", 1, ""},
		{"0.1", 0.1, ""},
		{"-2.5e-3", -2.5e-3, ""},
		{"1e308", 1e308, ""},
		{"1.7976931348623157e308", math.MaxFloat64, ""},
		{"5e-324", 5e-324, ""},
		{"1e-400", 0, ""},
		{"9223372036854775808", 9223372036854775808, ""},
		{"1e400", 0, "number 1e400 is out of range"},
		{"-1e400", 0, "number -1e400 is out of range"},
		{"1.8e308", 0, "out of range"},
		{`"1"`, 0, "want number, got string"},
		{`true`, 0, "want number, got boolean"},
		{`{}`, 0, "want number, got object"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got float64
			err := wire.Unmarshal([]byte(tt.in), fn(func(d *jsontext.Decoder) (err error) {
				got, err = wire.ReadFloat(d)
				return err
			}))
			if tt.err != "" {
				wantErr(t, err, "", tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
				t.Errorf("ReadFloat(%s) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestReadStringBoolNull(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`"x"`, "x"},
		{`"\u00e9\t"`, "é\t"},
		{`""`, ""},
		{`true`, true},
		{`false`, false},
		{`null`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got any
			err := wire.Unmarshal([]byte(tt.in), fn(func(d *jsontext.Decoder) error {
				null, err := wire.ReadNull(d)
				if err != nil || null {
					return err
				}
				switch d.PeekKind() {
				case '"':
					got, err = wire.ReadString(d)
				default:
					got, err = wire.ReadBool(d)
				}
				return err
			}))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadNullSyntaxError(t *testing.T) {
	for _, in := range []string{``, `nul`, `nulls`} {
		err := wire.Unmarshal([]byte(in), fn(func(d *jsontext.Decoder) error {
			null, err := wire.ReadNull(d)
			if err != nil {
				return err
			}
			if null {
				return nil
			}
			return wire.Skip(d)
		}))
		if err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

func TestNextName(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{}`, nil},
		{`{"name":1}`, []string{"name"}},
		{`{"n\u0061me":1}`, []string{"name"}},
		{`{"Name":1,"name":2,"NAME":3}`, []string{"Name", "name", "NAME"}},
		{`{"a\"b":1,"\\":2,"\/":3,"é":4,"\u00e9\u00e9":5}`, []string{`a"b`, `\`, "/", "é", "éé"}},
		{`{"":{"nested":[1,2]},"x":"}"}`, []string{"", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got []string
			err := wire.Unmarshal([]byte(tt.in), fn(func(d *jsontext.Decoder) error {
				if err := wire.BeginObject(d); err != nil {
					return err
				}
				for {
					name, ok, err := wire.NextName(d)
					if err != nil || !ok {
						return err
					}
					got = append(got, string(name))
					if err := wire.Skip(d); err != nil {
						return err
					}
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
	// Matching is up to callers, and byte-wise: "Name" is not "name".
	var x rec
	if err := wire.Unmarshal([]byte(`{"s":"","I":1}`), &x); err != nil || x.I != nil {
		t.Errorf(`"I" matched "i": %v, %+v`, err, x)
	}
	if err := wire.Unmarshal([]byte(`{"S":""}`), &x); err == nil {
		t.Errorf(`"S" satisfied required "s"`)
	}
}

func TestNextNameErrors(t *testing.T) {
	tests := []struct {
		in, pointer, msg string
	}{
		{`{"a":1,"a":2}`, "/a", "duplicate object member name"},
		{`{"a":1,"\u0061":2}`, "/a", "duplicate object member name"},
		{"{\"a\xff\":1}", "", "invalid UTF-8"},
		{`{"a":1`, "/a", "unexpected end of JSON input"},
		{`{"a"}`, "/a", "invalid character '}' after object name"},
		{`{null:1}`, "", "object member name must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			err := wire.Unmarshal([]byte(tt.in), fn(func(d *jsontext.Decoder) error {
				if err := wire.BeginObject(d); err != nil {
					return err
				}
				for {
					_, ok, err := wire.NextName(d)
					if err != nil || !ok {
						return err
					}
					if err := wire.Skip(d); err != nil {
						return err
					}
				}
			}))
			wantErr(t, err, tt.pointer, tt.msg)
		})
	}
}

func TestReadConst(t *testing.T) {
	tests := []struct {
		want, in string
		ok       bool
	}{
		{`"text"`, `"text"`, true},
		{`"text"`, `"t\u0065xt"`, true},
		{`"text"`, `"\u0074\u0065\u0078\u0074"`, true},
		{`"a/b"`, `"a\/b"`, true},
		{`"a\"b"`, `"a\u0022b"`, true},
		{`"2.0"`, `"2.0"`, true},
		{`"text"`, `"Text"`, false},
		{`"text"`, `"text "`, false},
		{`"1"`, `1`, false},
		{`-32042`, `-32042`, true},
		{`-32042`, `-32042.0`, true},
		{`-32042`, `-3.2042e4`, true},
		{`-32042`, `-320420e-1`, true},
		{`-32042`, `32042`, false},
		{`-32042`, `-32042.5`, false},
		{`-32042`, `"-32042"`, false},
		{`0`, `-0`, true},
		{`0`, `0.0e10`, true},
		{`1`, `1.0000000000000000001`, false},
		{`9007199254740993`, `9007199254740992`, false},
		{`9007199254740993`, `9007199254740993.0`, true},
		{`1e400`, `1e400`, true},
		{`1e400`, `10e399`, true},
		{`1e400`, `1e401`, false},
		{`true`, `true`, true},
		{`true`, `false`, false},
		{`null`, `null`, true},
		{`null`, `0`, false},
	}
	for _, tt := range tests {
		t.Run(tt.want+" "+tt.in, func(t *testing.T) {
			in := `{"c":` + tt.in + `}`
			err := wire.Unmarshal([]byte(in), fn(func(d *jsontext.Decoder) error {
				if err := wire.BeginObject(d); err != nil {
					return err
				}
				if _, _, err := wire.NextName(d); err != nil {
					return err
				}
				if err := wire.ReadConst(d, tt.want); err != nil {
					return err
				}
				_, _, err := wire.NextName(d)
				return err
			}))
			if tt.ok {
				if err != nil {
					t.Errorf("ReadConst(%s, %s): %v", tt.in, tt.want, err)
				}
				return
			}
			wantErr(t, err, "/c", "want "+tt.want+", got "+tt.in)
		})
	}
	// Syntax errors are reported as such.
	err := wire.Unmarshal([]byte(`"abc`), fn(func(d *jsontext.Decoder) error { return wire.ReadConst(d, `"abc"`) }))
	wantErr(t, err, "", "unexpected end of JSON input")
}

func TestUnmarshalAt(t *testing.T) {
	in := `{"a":[0,{"s":"","i":"bad"}]}`
	err := wire.Unmarshal([]byte(in), fn(func(d *jsontext.Decoder) error {
		if err := wire.BeginObject(d); err != nil {
			return err
		}
		if _, _, err := wire.NextName(d); err != nil {
			return err
		}
		if err := wire.BeginArray(d); err != nil {
			return err
		}
		if err := wire.Skip(d); err != nil {
			return err
		}
		raw, err := wire.ReadUnionValue(d)
		if err != nil {
			return err
		}
		return wire.UnmarshalAt(d, raw, new(rec))
	}))
	wantErr(t, err, "/a/1/i", "want integer, got string")

	// A successful UnmarshalAt leaves the outer decoder usable.
	var got []*rec
	err = wire.Unmarshal([]byte(`[{"s":"x"},{"s":"y"}]`), fn(func(d *jsontext.Decoder) error {
		if err := wire.BeginArray(d); err != nil {
			return err
		}
		for {
			more, err := wire.More(d)
			if err != nil || !more {
				return err
			}
			raw, err := wire.ReadUnionValue(d)
			if err != nil {
				return err
			}
			r := new(rec)
			if err := wire.UnmarshalAt(d, raw, r); err != nil {
				return err
			}
			got = append(got, r)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*rec{{S: "x"}, {S: "y"}}, got, cmpOpts...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestUnionErrors covers the error constructors that generated union and enum
// decoders use.
func TestUnionErrors(t *testing.T) {
	at := func(in string, f func(d *jsontext.Decoder, raw jsontext.Value) error) error {
		return wire.Unmarshal([]byte(in), fn(func(d *jsontext.Decoder) error {
			if err := wire.BeginObject(d); err != nil {
				return err
			}
			if _, _, err := wire.NextName(d); err != nil {
				return err
			}
			raw, err := wire.ReadUnionValue(d)
			if err != nil {
				return err
			}
			return f(d, raw)
		}))
	}
	tests := []struct {
		name, in string
		f        func(d *jsontext.Decoder, raw jsontext.Value) error
		pointer  string
		msg      string
	}{
		{"kind", `{"x":true}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.KindError(d, "Content", raw.Kind(), "object or string")
		}, "/x", "Content: want object or string, got boolean"},
		{"kind null", `{"x":null}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.KindError(d, "Content", raw.Kind(), "object")
		}, "/x", "Content: want object, got null"},
		{"tag missing", `{"x":{}}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			_, ok := wire.MemberString(raw, "type")
			return wire.TagError(d, "Content", "type", "", ok)
		}, "/x", `Content: missing required field "type"`},
		{"tag unknown", `{"x":{"type":"vid\u0065o"}}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			tag, ok := wire.MemberString(raw, "type")
			return wire.TagError(d, "Content", "type", tag, ok)
		}, "/x/type", `Content: unknown type "video"`},
		{"tag escaped pointer", `{"x":{"a/b":"c"}}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			tag, ok := wire.MemberString(raw, "a/b")
			return wire.TagError(d, "U", "a/b", tag, ok)
		}, "/x/a~1b", `U: unknown a/b "c"`},
		{"no variant", `{"x":{"a":1}}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.NoVariant(d, "U", "no variant has member a")
		}, "/x", "U: no variant has member a"},
		{"enum", `{"x":"c"}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.EnumError(d, "c", []string{"a", "b"})
		}, "/x", `want one of "a", "b"; got "c"`},
		{"const", `{"x":1}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.ConstError(d, string(raw), `"v"`)
		}, "/x", `want "v", got 1`},
		{"require const", `{"x":{"type":"array"}}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.RequireConst(d, raw, "type", `"object"`)
		}, "/x/type", `want "object", got "array"`},
		{"require const missing", `{"x":{}}`, func(d *jsontext.Decoder, raw jsontext.Value) error {
			return wire.RequireConst(d, raw, "type", `"object"`)
		}, "/x", `missing required field "type"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, at(tt.in, tt.f), tt.pointer, tt.msg)
		})
	}
}

func TestRequireConstOK(t *testing.T) {
	for _, in := range []string{
		`{"type":"object"}`,
		`{ "a" : {"type":"x"}, "type" : "object" }`,
		`{"type":"obj\u0065ct"}`,
		`{"typ\u0065":"object"}`,
	} {
		err := wire.Unmarshal([]byte(in), fn(func(d *jsontext.Decoder) error {
			raw, err := wire.ReadObjectValue(d)
			if err != nil {
				return err
			}
			return wire.RequireConst(d, raw, "type", `"object"`)
		}))
		if err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestReadValue(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`1`, `1`},
		{` "a" `, `"a"`},
		{`{"a" : [ 1 ]}`, `{"a" : [ 1 ]}`},
		{`["]]]]","[[[["]`, `["]]]]","[[[["]`},
		{deep(wire.MaxDepth, false), deep(wire.MaxDepth, false)},
		{`"` + strings.Repeat("[", 500) + `"`, `"` + strings.Repeat("[", 500) + `"`},
	}
	for _, tt := range tests {
		var got jsontext.Value
		err := wire.Unmarshal([]byte(tt.in), fn(func(d *jsontext.Decoder) (err error) {
			got, err = wire.ReadValue(d)
			return err
		}))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	err := wire.Unmarshal([]byte(deep(wire.MaxDepth+1, false)), fn(func(d *jsontext.Decoder) error {
		_, err := wire.ReadValue(d)
		return err
	}))
	wantErr(t, err, "", "nesting too deep")
	err = wire.Unmarshal([]byte(deep(wire.MaxDepth+1, true)), fn(func(d *jsontext.Decoder) error {
		_, err := wire.ReadUnionValue(d)
		return err
	}))
	wantErr(t, err, "", "nesting too deep")
	err = wire.Unmarshal([]byte(`[1,`), fn(func(d *jsontext.Decoder) error {
		_, err := wire.ReadObjectValue(d)
		return err
	}))
	wantErr(t, err, "/0", "unexpected end of JSON input")
	err = wire.Unmarshal([]byte(`{"a":`), fn(func(d *jsontext.Decoder) error {
		_, err := wire.ReadUnionValue(d)
		return err
	}))
	wantErr(t, err, "", "unexpected end of JSON input")
}

// TestDepthThroughValues checks that the depth limit counts the depth of the
// place a raw value is read at.
func TestDepthThroughValues(t *testing.T) {
	// MaxDepth-1 objects, then a raw member holding one array: exactly MaxDepth.
	prefix := strings.Repeat(`{"s":"","sub":`, wire.MaxDepth-2) + `{"s":"","raw":`
	suffix := `}` + strings.Repeat(`}`, wire.MaxDepth-2)
	var x rec
	if err := wire.Unmarshal([]byte(prefix+`[]`+suffix), &x); err != nil {
		t.Errorf("at MaxDepth: %v", err)
	}
	err := wire.Unmarshal([]byte(prefix+`[[]]`+suffix), &x)
	wantErr(t, err, strings.Repeat("/sub", wire.MaxDepth-2)+"/raw", "nesting too deep")
	if err := wire.Unmarshal([]byte(prefix+`"[[[[[[["`+suffix), &x); err != nil {
		t.Errorf("brackets in a string: %v", err)
	}
}

func TestNonWireErrorsAreConverted(t *testing.T) {
	plain := errors.New("plain")
	err := wire.Unmarshal([]byte(`{"a":[1]}`), fn(func(d *jsontext.Decoder) error {
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		return plain
	}))
	wantErr(t, err, "/a", "plain")
	if !errors.Is(err, plain) {
		t.Errorf("%v does not wrap the original error", err)
	}
	// jsontext's own syntax errors keep their pointer.
	err = wire.Unmarshal([]byte(`{"a":[1,}`), fn(func(d *jsontext.Decoder) error {
		_, err := d.ReadValue()
		return err
	}))
	wantErr(t, err, "/a/1", "invalid character")
}

func TestUnknownMember(t *testing.T) {
	closed := func(d *jsontext.Decoder) error {
		if err := wire.BeginObject(d); err != nil {
			return err
		}
		for {
			name, ok, err := wire.NextName(d)
			if err != nil || !ok {
				return err
			}
			switch string(name) {
			case "a":
				if _, err := wire.ReadInt(d); err != nil {
					return err
				}
			default:
				return wire.UnknownMember(d, name)
			}
		}
	}
	tests := []struct {
		in, pointer, msg string
	}{
		{`{"a":1,"b":{"c":[1]}}`, "/b", `unknown member "b" (the object allows no others)`},
		{`{"x/y~":null}`, "/x~1y~0", `unknown member "x/y~"`},
		{`{"\u0041":1}`, "/A", `unknown member "A"`},
		{`{"A":1}`, "/A", `unknown member "A"`},
		{`{"b":[1,`, "/b/0", "unexpected end of JSON input"},
		{`{"b":[1,}`, "/b", "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			wantErr(t, wire.Unmarshal([]byte(tt.in), fn(closed)), tt.pointer, tt.msg)
		})
	}
	if err := wire.Unmarshal([]byte(`{"a":1}`), fn(closed)); err != nil {
		t.Error(err)
	}
}
