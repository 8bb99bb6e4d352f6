package wire_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestLength(t *testing.T) {
	tests := []struct {
		name     string
		s        string
		min, max int64
		want     string
	}{
		{"no bounds", "anything", 0, -1, ""},
		{"empty at min 0", "", 0, 3, ""},
		{"at min", "ab", 2, -1, ""},
		{"at max", "abc", 0, 3, ""},
		{"below min", "a", 2, -1, "1 character, want at least 2 (minLength)"},
		{"empty below min", "", 1, 5, "0 characters, want at least 1 (minLength)"},
		{"above max", "abcd", 0, 3, "4 characters, want at most 3 (maxLength)"},
		// Code points, not bytes: "é" is 2 bytes, "😀" 4 bytes, one each.
		{"multibyte within max", "éé😀", 0, 3, ""},
		{"multibyte above max", "éé😀x", 0, 3, "4 characters, want at most 3 (maxLength)"},
		{"multibyte below min", "😀", 2, -1, "1 character, want at least 2 (minLength)"},
		{"multibyte at min", "😀😀", 2, 2, ""},
		{"bytes enough for min only as bytes", "éé", 3, -1, "2 characters, want at least 3 (minLength)"},
		{"huge min", "abc", math.MaxInt64, -1, "3 characters, want at least 9223372036854775807 (minLength)"},
		{"max 0", "x", 0, 0, "1 character, want at most 0 (maxLength)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wire.Length(tt.s, tt.min, tt.max); got != tt.want {
				t.Errorf("Length(%q, %d, %d) = %q, want %q", tt.s, tt.min, tt.max, got, tt.want)
			}
		})
	}
}

func TestItemsProperties(t *testing.T) {
	tests := []struct {
		name     string
		check    func(n int, min, max int64) string
		n        int
		min, max int64
		want     string
	}{
		{"items within", wire.Items, 100, 1, 100, ""},
		{"items no max", wire.Items, 1000, 0, -1, ""},
		{"items above max", wire.Items, 101, 0, 100, "101 items, want at most 100 (maxItems)"},
		{"items below min", wire.Items, 0, 1, -1, "0 items, want at least 1 (minItems)"},
		{"one item", wire.Items, 1, 2, -1, "1 item, want at least 2 (minItems)"},
		{"properties within", wire.Properties, 2, 1, 2, ""},
		{"properties above max", wire.Properties, 3, 0, 2, "3 members, want at most 2 (maxProperties)"},
		{"properties below min", wire.Properties, 1, 2, -1, "1 member, want at least 2 (minProperties)"},
		{"properties none", wire.Properties, 0, 1, -1, "0 members, want at least 1 (minProperties)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.check(tt.n, tt.min, tt.max); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNumberBounds(t *testing.T) {
	const big = 1 << 62
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"int at minimum", wire.Minimum(int64(0), 0), ""},
		{"int below minimum", wire.Minimum(int64(-1), 0), "-1, want at least 0 (minimum)"},
		{"int below fractional minimum", wire.Minimum(int64(0), 0.5), "0, want at least 0.5 (minimum)"},
		{"int above fractional minimum", wire.Minimum(int64(1), 0.5), ""},
		{"int below negative fractional minimum", wire.Minimum(int64(-1), -0.5), "-1, want at least -0.5 (minimum)"},
		{"int above negative fractional minimum", wire.Minimum(int64(0), -0.5), ""},
		// 2^53+1 is no float64: an integer compared as a float would pass.
		{"int exact beyond 2^53", wire.Maximum(int64(1<<53+1), 1<<53), "9007199254740993, want at most 9007199254740992 (maximum)"},
		{"int at 2^53", wire.Maximum(int64(1<<53), 1<<53), ""},
		{"int below huge bound", wire.Maximum(int64(math.MaxInt64), 1e19), ""},
		{"int above very negative bound", wire.Minimum(int64(math.MinInt64), -1e19), ""},
		{"int min int64 at bound", wire.Minimum(int64(math.MinInt64), -(1 << 63)), ""},
		{"int max int64 below 2^63", wire.ExclusiveMaximum(int64(math.MaxInt64), 1<<63), ""},
		{"int at maximum", wire.Maximum(int64(big), big), ""},
		{"int above maximum", wire.Maximum(int64(101), 100), "101, want at most 100 (maximum)"},
		{"float at maximum", wire.Maximum(1.0, 1), ""},
		{"float above maximum", wire.Maximum(1.5, 1), "1.5, want at most 1 (maximum)"},
		{"float below minimum", wire.Minimum(-0.25, 0), "-0.25, want at least 0 (minimum)"},
		{"float tiny", wire.Minimum(1e-7, 1e-6), "1e-7, want at least 0.000001 (minimum)"},
		{"exclusive minimum equal", wire.ExclusiveMinimum(int64(0), 0), "0, want more than 0 (exclusiveMinimum)"},
		{"exclusive minimum above", wire.ExclusiveMinimum(0.001, 0), ""},
		{"exclusive minimum float equal", wire.ExclusiveMinimum(2.5, 2.5), "2.5, want more than 2.5 (exclusiveMinimum)"},
		{"exclusive maximum equal", wire.ExclusiveMaximum(1.0, 1), "1, want less than 1 (exclusiveMaximum)"},
		{"exclusive maximum below", wire.ExclusiveMaximum(int64(0), 1), ""},
		{"exclusive maximum int fraction", wire.ExclusiveMaximum(int64(1), 1.5), ""},
		{"exclusive maximum int above fraction", wire.ExclusiveMaximum(int64(2), 1.5), "2, want less than 1.5 (exclusiveMaximum)"},
		{"multiple", wire.MultipleOf(15, 5), ""},
		{"multiple zero", wire.MultipleOf(0, 7), ""},
		{"multiple negative", wire.MultipleOf(-10, 5), ""},
		{"not multiple", wire.MultipleOf(7, 5), "7, want a multiple of 5 (multipleOf)"},
		{"not multiple negative", wire.MultipleOf(-7, 5), "-7, want a multiple of 5 (multipleOf)"},
		{"multiple min int64", wire.MultipleOf(math.MinInt64, 2), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// TestCheckPointer checks that a decoder's error names the value just read:
// a scalar member, an array element, or an array or object whose end was
// just read.
func TestCheckPointer(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		read    func(d *jsontext.Decoder) error
		pointer string
		msg     string
	}{
		{"string member", `{"name":"abcd"}`, func(d *jsontext.Decoder) error {
			must(t, wire.BeginObject(d))
			nextName(t, d)
			s, err := wire.ReadString(d)
			must(t, err)
			return wire.Check(d, wire.Length(s, 0, 3))
		}, "/name", "4 characters, want at most 3 (maxLength)"},
		{"array of the end", `{"completion":{"values":["a","b","c"]}}`, func(d *jsontext.Decoder) error {
			must(t, wire.BeginObject(d))
			nextName(t, d)
			must(t, wire.BeginObject(d))
			nextName(t, d)
			must(t, wire.BeginArray(d))
			n := 0
			for {
				more, err := wire.More(d)
				must(t, err)
				if !more {
					break
				}
				_, err = wire.ReadString(d)
				must(t, err)
				n++
			}
			return wire.Check(d, wire.Items(n, 0, 2))
		}, "/completion/values", "3 items, want at most 2 (maxItems)"},
		{"element", `[1,2,30]`, func(d *jsontext.Decoder) error {
			must(t, wire.BeginArray(d))
			for {
				more, err := wire.More(d)
				must(t, err)
				if !more {
					return nil
				}
				v, err := wire.ReadInt(d)
				must(t, err)
				if err := wire.Check(d, wire.Maximum(v, 10)); err != nil {
					return err
				}
			}
		}, "/2", "30, want at most 10 (maximum)"},
		{"map", `{"m":{"a":1,"b":2}}`, func(d *jsontext.Decoder) error {
			must(t, wire.BeginObject(d))
			nextName(t, d)
			must(t, wire.BeginObject(d))
			n := 0
			for {
				_, ok, err := wire.NextName(d)
				must(t, err)
				if !ok {
					break
				}
				must(t, wire.Skip(d))
				n++
			}
			return wire.Check(d, wire.Properties(n, 3, -1))
		}, "/m", "2 members, want at least 3 (minProperties)"},
		{"top level", `"x"`, func(d *jsontext.Decoder) error {
			s, err := wire.ReadString(d)
			must(t, err)
			return wire.Check(d, wire.Length(s, 2, -1))
		}, "", "1 character, want at least 2 (minLength)"},
		{"no problem", `5`, func(d *jsontext.Decoder) error {
			v, err := wire.ReadInt(d)
			must(t, err)
			return wire.Check(d, wire.MultipleOf(v, 5))
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := jsontext.NewDecoder(strings.NewReader(tt.json))
			err := tt.read(d)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("error %v is not a *wire.Error", err)
			}
			if we.Pointer != tt.pointer || we.Msg != tt.msg {
				t.Errorf("error at %q: %q; want at %q: %q", we.Pointer, we.Msg, tt.pointer, tt.msg)
			}
		})
	}
}

func TestEncoderCheck(t *testing.T) {
	tests := []struct {
		name  string
		write func(e *wire.Encoder)
		want  string // the error; "" for none
		json  string // the output when there is no error
	}{
		{"passes", func(e *wire.Encoder) {
			e.BeginArray()
			e.Check("T.n", wire.Maximum(int64(3), 3))
			e.Int(3)
			e.EndArray()
		}, "", "[3]"},
		{"refused", func(e *wire.Encoder) {
			e.Check("CompleteResultCompletion.values", wire.Items(101, 0, 100))
		}, "encode: CompleteResultCompletion.values: 101 items, want at most 100 (maxItems)", ""},
		{"inside an entered member", func(e *wire.Encoder) {
			e.Enter("result")
			e.Check("Tool.name", wire.Length("", 1, -1))
			e.Leave()
		}, "/result: encode: Tool.name: 0 characters, want at least 1 (minLength)", ""},
		{"first error wins", func(e *wire.Encoder) {
			e.Check("A.a", wire.Minimum(-1.0, 0))
			e.Check("B.b", wire.Minimum(-2.0, 0))
		}, "encode: A.a: -1, want at least 0 (minimum)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wire.NewEncoder(nil)
			tt.write(&e)
			b, err := e.Bytes()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.want == "":
				if string(b) != tt.json {
					t.Errorf("wrote %s, want %s", b, tt.json)
				}
			case err == nil:
				t.Fatalf("no error, want %q", tt.want)
			case err.Error() != tt.want:
				t.Errorf("error %q, want %q", err, tt.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func nextName(t *testing.T, d *jsontext.Decoder) {
	t.Helper()
	if _, ok, err := wire.NextName(d); err != nil || !ok {
		t.Fatalf("NextName: %v, %v", ok, err)
	}
}

// TestChecksDoNotAllocate pins the cost of a passing check: generated code
// makes one per bounded value.
func TestChecksDoNotAllocate(t *testing.T) {
	e := wire.NewEncoder(nil)
	d := jsontext.NewDecoder(strings.NewReader(`"x"`))
	n := testing.AllocsPerRun(100, func() {
		e.Check("T.a", wire.Length("héllo", 1, 10))
		e.Check("T.b", wire.Items(3, 1, 100))
		e.Check("T.c", wire.Properties(3, 0, 5))
		e.Check("T.d", wire.Minimum(int64(5), 0))
		e.Check("T.e", wire.Maximum(0.5, 1))
		e.Check("T.f", wire.ExclusiveMinimum(0.5, 0))
		e.Check("T.g", wire.ExclusiveMaximum(int64(0), 1))
		e.Check("T.h", wire.MultipleOf(10, 5))
		if err := wire.Check(d, wire.Length("abc", 0, 3)); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("passing checks allocate %v times, want 0", n)
	}
}

func TestOneOf(t *testing.T) {
	if p := wire.OneOf(int64(2), 1, 2, 3); p != "" {
		t.Errorf("OneOf(2; 1, 2, 3) = %q", p)
	}
	if p := wire.OneOf(int64(5), 1, 2, 3); p != "5 is not one of [1 2 3] (enum)" {
		t.Errorf("OneOf(5; 1, 2, 3) = %q", p)
	}
	if p := wire.OneOf(true, false); p == "" {
		t.Error("OneOf(true; false) passed")
	}
	tests := []struct {
		v       string
		allowed []string
		ok      bool
	}{
		{`"a"`, []string{`"a"`, `1`, `null`}, true},
		{`null`, []string{`"a"`, `1`, `null`}, true},
		{`1.0`, []string{`"a"`, `1`, `null`}, true},
		{`1e0`, []string{`1`}, true},
		{`2`, []string{`"a"`, `1`, `null`}, false},
		{`"b"`, []string{`"a"`}, false},
		{`{ "k" : 1 }`, []string{`{"k":1}`}, true},
		{` "a" `, []string{`"a"`}, true},
	}
	for _, tt := range tests {
		p := wire.OneOfJSON(jsontext.Value(tt.v), tt.allowed...)
		if (p == "") != tt.ok {
			t.Errorf("OneOfJSON(%s; %v) = %q, want ok %v", tt.v, tt.allowed, p, tt.ok)
		}
	}
}
