package wire_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestEncoderCommas(t *testing.T) {
	tests := []struct {
		name  string
		write func(e *wire.Encoder)
		want  string
	}{
		{"empty object", func(e *wire.Encoder) { e.BeginObject(); e.EndObject() }, `{}`},
		{"empty array", func(e *wire.Encoder) { e.BeginArray(); e.EndArray() }, `[]`},
		{"scalars in array", func(e *wire.Encoder) {
			e.BeginArray()
			e.Int(1)
			e.String("a")
			e.Bool(true)
			e.Bool(false)
			e.Null()
			e.Float(1.5)
			e.Literal(`"lit"`)
			e.Raw(jsontext.Value(`{"r":[1]}`))
			e.ID(wire.IntID(3))
			e.EndArray()
		}, `[1,"a",true,false,null,1.5,"lit",{"r":[1]},3]`},
		{"members", func(e *wire.Encoder) {
			e.BeginObject()
			e.Name(`"a":`)
			e.Int(1)
			e.Key("b")
			e.String("x")
			e.Name(`"c":`)
			e.Null()
			e.EndObject()
		}, `{"a":1,"b":"x","c":null}`},
		{"nested", func(e *wire.Encoder) {
			e.BeginObject()
			e.Name(`"a":`)
			e.BeginObject()
			e.Name(`"b":`)
			e.BeginArray()
			e.BeginArray()
			e.EndArray()
			e.BeginObject()
			e.EndObject()
			e.BeginArray()
			e.Int(1)
			e.Int(2)
			e.EndArray()
			e.EndArray()
			e.Name(`"c":`)
			e.BeginObject()
			e.EndObject()
			e.EndObject()
			e.Name(`"d":`)
			e.BeginArray()
			e.BeginObject()
			e.Name(`"e":`)
			e.Int(0)
			e.EndObject()
			e.BeginObject()
			e.EndObject()
			e.EndArray()
			e.Key("f")
			e.Value(app(func(b []byte) ([]byte, error) { return append(b, `[true]`...), nil }))
			e.Key("g")
			e.Value(tree{{}, {{}}})
			e.EndObject()
		}, `{"a":{"b":[[],{},[1,2]],"c":{}},"d":[{"e":0},{}],"f":[true],"g":[[],[[]]]}`},
		{"values in array", func(e *wire.Encoder) {
			e.BeginArray()
			e.Value(&rec{S: "a"})
			e.Value(&rec{S: "b", List: []int64{}})
			e.EndArray()
		}, `[{"s":"a"},{"s":"b","list":[]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wire.NewEncoder(nil)
			tt.write(&e)
			got, err := e.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !jsontext.Value(got).IsValid() {
				t.Errorf("invalid JSON %s", got)
			}
			if e.Failed() || e.Err() != nil {
				t.Errorf("Failed = %v, Err = %v", e.Failed(), e.Err())
			}
		})
	}
}

func TestEncoderAppends(t *testing.T) {
	e := wire.NewEncoder([]byte("prefix:"))
	e.Int(1)
	got, err := e.Bytes()
	if err != nil || string(got) != "prefix:1" {
		t.Errorf("got %q, %v", got, err)
	}
	b, err := wire.Marshal(&rec{S: "x", I: ptr(int64(-1))})
	if err != nil || string(b) != `{"s":"x","i":-1}` {
		t.Errorf("Marshal: %s, %v", b, err)
	}
}

func TestEncoderFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, `0`},
		{math.Copysign(0, -1), `-0`},
		{1, `1`},
		{-1, `-1`},
		{0.1, `0.1`},
		{1.5, `1.5`},
		{1e20, `100000000000000000000`},
		{1e21, `1e+21`},
		{-1e21, `-1e+21`},
		{1e-6, `0.000001`},
		{1e-7, `1e-7`},
		{123456789, `123456789`},
		{9007199254740993, `9007199254740992`},
		{1 << 62, `4611686018427388000`},
		{math.MaxFloat64, `1.7976931348623157e+308`},
		{math.SmallestNonzeroFloat64, `5e-324`},
		{-math.SmallestNonzeroFloat64, `-5e-324`},
		{1.0 / 3, `0.3333333333333333`},
		{123456.789e3, `123456789`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := wire.NewEncoder(nil)
			e.Float(tt.f)
			got, err := e.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Float(%v) (-want +got):\n%s", tt.f, diff)
			}
			// It reads back as the same float64.
			var back float64
			err = wire.Unmarshal(got, fn(func(d *jsontext.Decoder) (err error) {
				back, err = wire.ReadFloat(d)
				return err
			}))
			if err != nil {
				t.Fatal(err)
			}
			if back != tt.f || math.Signbit(back) != math.Signbit(tt.f) {
				t.Errorf("Float(%v) read back as %v", tt.f, back)
			}
		})
	}
}

// TestEncoderFloatRoundTrip checks the round trip on a spread of values.
func TestEncoderFloatRoundTrip(t *testing.T) {
	var fs []float64
	for exp := -330; exp <= 310; exp += 7 {
		for _, m := range []float64{1, 1.1, 2.5, 9.999999999999999, 4.9406564584124654} {
			fs = append(fs, m*math.Pow(10, float64(exp)), -m*math.Pow(10, float64(exp)))
		}
	}
	for i := range 64 {
		fs = append(fs, math.Float64frombits(uint64(i)*0x0123456789abcdef&^(0x7ff<<52)|uint64(i%0x7fe)<<52))
	}
	for _, f := range fs {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		e := wire.NewEncoder(nil)
		e.Float(f)
		b, err := e.Bytes()
		if err != nil {
			t.Fatalf("Float(%v): %v", f, err)
		}
		back, err := strconv.ParseFloat(string(b), 64)
		if err != nil || back != f {
			t.Errorf("Float(%v) = %s, reads back as %v, %v", f, b, back, err)
		}
		if !jsontext.Value(b).IsValid() {
			t.Errorf("Float(%v) = %s is not valid JSON", f, b)
		}
	}
}

func TestEncoderErrors(t *testing.T) {
	tests := []struct {
		name    string
		write   func(e *wire.Encoder)
		pointer string
		msg     string
	}{
		{"NaN", func(e *wire.Encoder) { e.Float(math.NaN()) }, "", "encode: number NaN cannot be encoded in JSON"},
		{"+Inf", func(e *wire.Encoder) { e.Float(math.Inf(1)) }, "", "encode: number +Inf cannot be encoded in JSON"},
		{"-Inf", func(e *wire.Encoder) { e.Float(math.Inf(-1)) }, "", "encode: number -Inf cannot be encoded in JSON"},
		{"invalid UTF-8 string", func(e *wire.Encoder) { e.String("a\xffb") }, "", `encode: string "a\xffb" is not valid UTF-8`},
		{"invalid UTF-8 key", func(e *wire.Encoder) { e.Key("\xc3") }, "", `encode: member name "\xc3" is not valid UTF-8`},
		{"raw empty", func(e *wire.Encoder) { e.Raw(nil) }, "", "encode: value is empty"},
		{"raw invalid", func(e *wire.Encoder) { e.Raw(jsontext.Value(`{"a":}`)) }, "", `encode: value is not valid JSON: "{\"a\":}"`},
		{"raw two values", func(e *wire.Encoder) { e.Raw(jsontext.Value(`1 2`)) }, "", "not valid JSON"},
		{"raw duplicate names", func(e *wire.Encoder) { e.Raw(jsontext.Value(`{"a":1,"a":2}`)) }, "", "not valid JSON"},
		{"raw invalid UTF-8", func(e *wire.Encoder) { e.Raw(jsontext.Value("\"\xff\"")) }, "", "not valid JSON"},
		{"raw object array", func(e *wire.Encoder) { e.RawObject(jsontext.Value(`[]`)) }, "", "encode: want object, got array"},
		{"raw object string", func(e *wire.Encoder) { e.RawObject(jsontext.Value(`"{}"`)) }, "", "encode: want object, got string"},
		{"raw object garbage", func(e *wire.Encoder) { e.RawObject(jsontext.Value(`x`)) }, "", "encode: want object, got invalid JSON"},
		{"raw object empty", func(e *wire.Encoder) { e.RawObject(nil) }, "", "encode: value is empty"},
		{"raw object invalid", func(e *wire.Encoder) { e.RawObject(jsontext.Value(`{`)) }, "", "not valid JSON"},
		{"zero ID", func(e *wire.Encoder) { e.ID(wire.ID{}) }, "", "encode: ID is not set"},
		{"invalid UTF-8 ID", func(e *wire.Encoder) { e.ID(wire.StringID("\xff")) }, "", "is not valid UTF-8"},
		{"path", func(e *wire.Encoder) {
			e.BeginObject()
			e.Name(`"a":`)
			e.Enter("a/b")
			e.BeginArray()
			e.Enter("3")
			e.Float(math.NaN())
			e.Leave()
			e.EndArray()
			e.Leave()
			e.EndObject()
		}, "/a~1b/3", "NaN"},
		{"path left", func(e *wire.Encoder) {
			e.Enter("a")
			e.Leave()
			e.Enter("b~")
			e.String("\xff")
		}, "/b~0", "not valid UTF-8"},
		{"value error is prefixed", func(e *wire.Encoder) {
			e.Enter("outer")
			e.Value(&rec{Sub: &rec{F: ptr(math.Inf(1))}})
		}, "/outer/sub/f", "encode: number +Inf"},
		{"value plain error is wrapped", func(e *wire.Encoder) {
			e.Enter("x")
			e.Value(app(func(b []byte) ([]byte, error) { return b, errors.New("boom") }))
		}, "/x", "boom"},
		{"ID error is prefixed", func(e *wire.Encoder) {
			e.Enter("id")
			e.ID(wire.ID{})
		}, "/id", "encode: ID is not set"},
		{"first error wins", func(e *wire.Encoder) {
			e.Enter("first")
			e.Float(math.NaN())
			e.Leave()
			e.Enter("second")
			e.String("\xff")
			e.Raw(nil)
			e.Value(app(func(b []byte) ([]byte, error) { return b, errors.New("boom") }))
			e.ID(wire.ID{})
			e.Fail("later")
		}, "/first", "NaN"},
		{"first value error wins", func(e *wire.Encoder) {
			e.Enter("v")
			e.Value(app(func(b []byte) ([]byte, error) { return b, errors.New("boom") }))
			e.ID(wire.ID{})
			e.Float(math.NaN())
		}, "/v", "boom"},
		{"first ID error wins", func(e *wire.Encoder) {
			e.ID(wire.ID{})
			e.Value(app(func(b []byte) ([]byte, error) { return b, errors.New("boom") }))
		}, "", "ID is not set"},
		{"fail", func(e *wire.Encoder) {
			e.Enter("k")
			e.Fail("custom")
		}, "/k", "encode: custom"},
		{"deep path", func(e *wire.Encoder) {
			for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
				e.Enter(n)
			}
			e.Fail("deep")
		}, "/a/b/c/d/e/f", "encode: deep"},
		{"deep path left", func(e *wire.Encoder) {
			for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
				e.Enter(n)
			}
			for range 3 {
				e.Leave()
			}
			e.Enter("x")
			e.Enter("y")
			e.Fail("back")
		}, "/a/b/c/x/y", "encode: back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wire.NewEncoder(nil)
			tt.write(&e)
			if !e.Failed() {
				t.Error("Failed() = false")
			}
			_, err := e.Bytes()
			if err != e.Err() {
				t.Errorf("Bytes error %v != Err %v", err, e.Err())
			}
			wantErr(t, err, tt.pointer, tt.msg)
		})
	}
}

func TestEncoderMarshalErrors(t *testing.T) {
	tests := []struct {
		name    string
		v       *rec
		pointer string
		msg     string
	}{
		{"string", &rec{S: "\xff"}, "", "not valid UTF-8"},
		{"float", &rec{F: ptr(math.NaN())}, "/f", "NaN"},
		{"raw", &rec{Raw: jsontext.Value(`nul`)}, "/raw", "not valid JSON"},
		{"obj", &rec{Obj: jsontext.Value(`[]`)}, "/obj", "want object, got array"},
		{"strs element", &rec{Strs: []string{"ok", "\xff"}}, "/strs/1", "not valid UTF-8"},
		{"sub", &rec{Sub: &rec{Sub: &rec{Raw: jsontext.Value(`{`)}}}, "/sub/sub/raw", "not valid JSON"},
		{"id", &rec{ID: &wire.ID{}}, "/id", "ID is not set"},
		{"map key", &rec{M: map[string]int64{"ok": 1, "\xff": 2}}, "/m", "member name"},
		{"union", &rec{U: &rec{F: ptr(math.Inf(-1))}}, "/u/f", "-Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wire.Marshal(tt.v)
			wantErr(t, err, tt.pointer, tt.msg)
		})
	}
}

func TestEncoderKeyEscaping(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"plain", `"plain":`},
		{"", `"":`},
		{`a"b`, `"a\"b":`},
		{`a\b`, `"a\\b":`},
		{"a\nb\tc\x00", `"a\nb\tc\u0000":`},
		{"é😀", `"é😀":`},
		{"<&>", `"<&>":`},
		{"/", `"/":`},
		{"\u2028", "\"\u2028\":"},
	}
	for _, tt := range tests {
		e := wire.NewEncoder(nil)
		e.Key(tt.key)
		got, err := e.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("Key(%q) (-want +got):\n%s", tt.key, diff)
		}
		// It is a name that decodes back to the key.
		obj := "{" + string(got) + "0}"
		var names []string
		err = wire.Unmarshal([]byte(obj), fn(func(d *jsontext.Decoder) error {
			if err := wire.BeginObject(d); err != nil {
				return err
			}
			for {
				n, ok, err := wire.NextName(d)
				if err != nil || !ok {
					return err
				}
				names = append(names, string(n))
				if err := wire.Skip(d); err != nil {
					return err
				}
			}
		}))
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		if diff := cmp.Diff([]string{tt.key}, names); diff != "" {
			t.Errorf("Key(%q) read back (-want +got):\n%s", tt.key, diff)
		}
	}
}

func TestEncoderStringRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", `"\`, "\x00\x1f\x7f", "é😀", "\u2028\u2029", "<script>&amp;", "\ufffd", "日本語"} {
		e := wire.NewEncoder(nil)
		e.String(s)
		b, err := e.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		var back string
		err = wire.Unmarshal(b, fn(func(d *jsontext.Decoder) (err error) {
			back, err = wire.ReadString(d)
			return err
		}))
		if err != nil || back != s {
			t.Errorf("String(%q) = %s, read back as %q, %v", s, b, back, err)
		}
	}
}

func TestEncoderRawWhiteSpace(t *testing.T) {
	e := wire.NewEncoder(nil)
	e.BeginArray()
	e.Raw(jsontext.Value(" 1 "))
	e.RawObject(jsontext.Value(" {} "))
	e.EndArray()
	got, err := e.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !jsontext.Value(got).IsValid() {
		t.Errorf("invalid JSON %q", got)
	}
}

func TestEncoderInt(t *testing.T) {
	e := wire.NewEncoder(nil)
	e.BeginArray()
	for _, n := range []int64{0, -1, math.MaxInt64, math.MinInt64} {
		e.Int(n)
	}
	e.EndArray()
	got, _ := e.Bytes()
	if diff := cmp.Diff(`[0,-1,9223372036854775807,-9223372036854775808]`, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var x rec
	if err := wire.Unmarshal([]byte(`{"s":"","list":`+string(got)+`}`), &x); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{0, -1, math.MaxInt64, math.MinInt64}, x.List); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSortedKeys(t *testing.T) {
	got := wire.SortedKeys(map[string]int{"b": 1, "a": 2, "": 3, "B": 4, "é": 5})
	if diff := cmp.Diff([]string{"", "B", "a", "b", "é"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := wire.SortedKeys(map[string]bool(nil)); len(got) != 0 {
		t.Errorf("nil map: %q", got)
	}
}

func TestMarshalDeterministic(t *testing.T) {
	x := &rec{S: "x", M: map[string]int64{"z": 1, "a": 2, "m": 3, "é": 4, "A": 5}}
	want := `{"s":"x","m":{"A":5,"a":2,"m":3,"z":1,"é":4}}`
	for range 20 {
		got, err := wire.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

func TestEncoderRequireConst(t *testing.T) {
	tests := []struct {
		name string
		v    string
		msg  string // "" for no error
	}{
		{"equal", `{"type":"object","properties":{}}`, ""},
		{"white space", ` { "a" : 1 , "type" : "object" } `, ""},
		{"escaped value", `{"type":"obj\u0065ct"}`, ""},
		{"escaped name", `{"t\u0079pe":"object"}`, ""},
		{"empty is left to required checks", ``, ""},
		{"invalid is left to Raw", `{"type":`, ""},
		{"missing", `{"properties":{}}`, `encode: raw object must have "type": "object"`},
		{"nested only", `{"a":{"type":"object"}}`, `encode: raw object must have "type": "object"`},
		{"different", `{"type":"array"}`, `encode: raw object must have "type": "object"`},
		{"case", `{"type":"Object"}`, `encode: raw object must have "type": "object"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wire.NewEncoder(nil)
			e.Enter("inputSchema")
			e.RequireConst(jsontext.Value(tt.v), "type", `"object"`)
			e.Leave()
			if tt.msg == "" {
				if err := e.Err(); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantErr(t, e.Err(), "/inputSchema", tt.msg)
		})
	}
}

// TestRequireConstRoundTrip checks that what the decoder's RequireConst
// accepts, the encoder's RequireConst accepts too.
func TestRequireConstRoundTrip(t *testing.T) {
	for _, in := range []string{`{"type":"object"}`, `{"type":"obj\u0065ct"}`, `{"typ\u0065":"object","x":1}`} {
		var raw jsontext.Value
		err := wire.Unmarshal([]byte(in), fn(func(d *jsontext.Decoder) (err error) {
			if raw, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
			return wire.RequireConst(d, raw, "type", `"object"`)
		}))
		if err != nil {
			t.Fatalf("decode %s: %v", in, err)
		}
		e := wire.NewEncoder(nil)
		e.RequireConst(raw, "type", `"object"`)
		e.RawObject(raw)
		if _, err := e.Bytes(); err != nil {
			t.Errorf("encode %s: %v", raw, err)
		}
	}
}
