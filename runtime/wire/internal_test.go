package wire

import (
	"math/big"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

func TestDecimal(t *testing.T) {
	type result struct {
		Neg    bool
		Digits string
		Exp    int64
		OK     bool
	}
	tests := []struct {
		in   string
		want result
	}{
		{"0", result{false, "", 0, true}},
		{"-0", result{false, "", 0, true}},
		{"-0.000e-99999999999999999999", result{false, "", 0, true}},
		{"1", result{false, "1", 0, true}},
		{"-120", result{true, "12", 1, true}},
		{"1.50", result{false, "15", -1, true}},
		{"0.0012", result{false, "12", -4, true}},
		{"12.5e1", result{false, "125", 0, true}},
		{"1E+3", result{false, "1", 3, true}},
		{"1e-3", result{false, "1", -3, true}},
		{"1e0000000000000000000003", result{false, "1", 3, true}},
		{"1e999999999999999", result{false, "1", 999999999999999, true}},
		{"1e9999999999999999", result{false, "1", 9999999999999999, true}},
		{"1e10000000000000000", result{}},
		{"1e-10000000000000000", result{}},
		{"0e10000000000000000", result{false, "", 0, true}},
		// Not JSON numbers.
		{"", result{}},
		{"-", result{}},
		{"+1", result{}},
		{".5", result{}},
		{"1.", result{}},
		{"1e", result{}},
		{"1e+", result{}},
		{"1x", result{}},
		{"1.5.5", result{}},
		{"1e5e5", result{}},
		{"NaN", result{}},
	}
	for _, tt := range tests {
		neg, digits, exp, ok := decimal([]byte(tt.in))
		got := result{neg, string(digits), exp, ok}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("decimal(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestParseIntExact compares parseInt with exact rational arithmetic over
// many spellings of numbers around the int64 range and around integers.
func TestParseIntExact(t *testing.T) {
	ints := []string{"0", "1", "5", "10", "99", "123456789", "999999999999999999", "1000000000000000000",
		"1000000000000000001", "9223372036854775806", "9223372036854775807", "9223372036854775808",
		"9223372036854775809", "18446744073709551615", "92233720368547758070"}
	fracs := []string{"", ".0", ".00", ".5", ".05", ".1", ".9999999999999999999", ".0000000000000000001", ".000"}
	exps := []string{"", "e0", "e1", "e-1", "e+2", "E-2", "e18", "e-18", "e19", "e-20", "e400", "e-400"}
	minInt := new(big.Rat).SetInt64(-1 << 63)
	maxInt := new(big.Rat).SetInt64(1<<63 - 1)
	n := 0
	for _, sign := range []string{"", "-"} {
		for _, i := range ints {
			for _, f := range fracs {
				for _, e := range exps {
					s := sign + i + f + e
					r, ok := new(big.Rat).SetString(s)
					if !ok {
						t.Fatalf("big.Rat cannot parse %q", s)
					}
					wantOK := r.IsInt() && r.Cmp(minInt) >= 0 && r.Cmp(maxInt) <= 0
					var want int64
					if wantOK {
						want = r.Num().Int64()
					}
					got, gotOK := parseInt([]byte(s))
					if gotOK != wantOK || wantOK && got != want {
						t.Errorf("parseInt(%s) = %d, %v; want %d, %v", s, got, gotOK, want, wantOK)
					}
					n++
				}
			}
		}
	}
	if n < 3000 {
		t.Fatalf("only %d cases", n)
	}
}

func TestTooDeep(t *testing.T) {
	for depth := 0; depth <= MaxDepth; depth += 7 {
		for n := MaxDepth - depth - 2; n <= MaxDepth-depth+2; n++ {
			if n < 0 {
				continue
			}
			for _, v := range []string{
				strings.Repeat("[", n) + strings.Repeat("]", n),
				strings.Repeat(`{"":`, n) + "0" + strings.Repeat("}", n),
				`"` + strings.Repeat("[", 2*MaxDepth) + `"`,
				strings.Repeat(" ", 2*MaxDepth) + "1",
			} {
				if got, want := tooDeep(depth, []byte(v)), depth+nesting([]byte(v)) > MaxDepth; got != want {
					t.Errorf("tooDeep(%d, %.20s... (%d bytes)) = %v, want %v", depth, v, len(v), got, want)
				}
			}
		}
	}
}

func TestNesting(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`1`, 0},
		{`"[[["`, 0},
		{`[]`, 1},
		{`{"a":[{}]}`, 3},
		{`[[],[[]],[]]`, 3},
		{`["]","\"[",{"}":"{"}]`, 2},
		{`"\\"`, 0},
		{`["\\",[]]`, 2},
	}
	for _, tt := range tests {
		if got := nesting([]byte(tt.in)); got != tt.want {
			t.Errorf("nesting(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in   string
		i    int
		want int
	}{
		{`1,`, 0, 1},
		{`  -1.5e3 }`, 0, 8},
		{`"a\"b",`, 0, 6},
		{`{"a":"}"},`, 0, 9},
		{`[[1],[2]]]`, 0, 9},
		{`true`, 0, 4},
		{``, 0, 0},
		{`  `, 0, 2},
		// Invalid JSON stays in bounds.
		{`"abc`, 0, 4},
		{`"ab\`, 0, 4},
		{`{"a":"`, 0, 6},
		{`[[`, 0, 2},
		{`[`, 5, 5},
	}
	for _, tt := range tests {
		if got := skipValue([]byte(tt.in), tt.i); got != tt.want {
			t.Errorf("skipValue(%q, %d) = %d, want %d", tt.in, tt.i, got, tt.want)
		}
	}
}

func TestElement(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
		ok   bool
	}{
		{`[1, "a" ,{"b":[2]}, [] ]`, 0, `1`, true},
		{`[1, "a" ,{"b":[2]}, [] ]`, 1, `"a"`, true},
		{`[1, "a" ,{"b":[2]}, [] ]`, 2, `{"b":[2]}`, true},
		{`[1, "a" ,{"b":[2]}, [] ]`, 3, `[]`, true},
		{`[1, "a" ,{"b":[2]}, [] ]`, 4, ``, false},
		{`[]`, 0, ``, false},
		{`{"0":1}`, 0, ``, false},
		{`[}`, -1, ``, false},
		{`[1,`, 1, ``, false},
	}
	for _, tt := range tests {
		got, ok := element([]byte(tt.in), tt.n)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("element(%s, %d) = %s, %v; want %s, %v", tt.in, tt.n, got, ok, tt.want, tt.ok)
		}
	}
}

func TestKindName(t *testing.T) {
	for k, want := range map[byte]string{'n': "null", 't': "boolean", 'f': "boolean", '"': "string", '0': "number", '{': "object", '[': "array", 0: "invalid JSON", '}': "invalid JSON"} {
		if got := KindName(jsontext.Kind(k)); got != want {
			t.Errorf("KindName(%q) = %q, want %q", k, got, want)
		}
	}
}

func TestKindPhrase(t *testing.T) {
	for k, want := range map[byte]string{'n': "null", 't': "a boolean", '"': "a string", '0': "a number", '{': "an object", '[': "an array", 0: "invalid JSON"} {
		if got := KindPhrase(jsontext.Kind(k)); got != want {
			t.Errorf("KindPhrase(%q) = %q, want %q", k, got, want)
		}
	}
}
