package wire

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The schema's assertions that generated codecs check (the keywords the
// generator's table marks as checked by the decoders: minLength, maxLength,
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf on
// integers, minItems, maxItems, minProperties and maxProperties on maps).
//
// Each check is a function that returns the problem with a value, or "" when
// there is none, so that the happy path costs a comparison and no allocation.
// A decoder turns a problem into an *Error at the value just read with Check;
// an encoder refuses to write the value with Encoder.Check:
//
//	if err := wire.Check(d, wire.Items(len(s0), 0, 100)); err != nil {
//		return err
//	}
//	e.Check("CompleteResultCompletion.values", wire.Items(len(x.Values), 0, 100))
//
// The problems name the rule and its limit: "101 items, want at most 100
// (maxItems)".

// Number is the Go type of a JSON integer or number in generated code.
type Number interface{ ~int64 | ~float64 }

// Check returns problem as an *Error at the value d has just read (its
// JSON pointer names the value, or the array or object whose end was just
// read), or nil when problem is "".
func Check(d *jsontext.Decoder, problem string) error {
	if problem == "" {
		return nil
	}
	return &Error{Pointer: string(d.StackPointer()), Msg: problem}
}

// Check records problem as the encoding error, for the value what (a Go
// type and member, such as "Tool.name"), unless problem is "". Generated
// encoders call it before writing a value, so that a Go program cannot send
// what the peer's strict decoder would refuse.
func (e *Encoder) Check(what, problem string) {
	if problem != "" {
		e.Fail(what + ": " + problem)
	}
}

// Length checks minLength and maxLength: the length of s in Unicode code
// points, as JSON Schema counts it, must be at least min and, unless max is
// negative, at most max.
func Length(s string, min, max int64) string {
	// A code point takes 1 to 4 bytes: the byte length often decides.
	b := int64(len(s))
	if (max < 0 || b <= max) && (min <= 0 || min <= math.MaxInt64/utf8.UTFMax && b >= min*utf8.UTFMax) {
		return ""
	}
	n := int64(utf8.RuneCountInString(s))
	switch {
	case n < min:
		return count(n, "character") + ", want at least " + strconv.FormatInt(min, 10) + " (minLength)"
	case max >= 0 && n > max:
		return count(n, "character") + ", want at most " + strconv.FormatInt(max, 10) + " (maxLength)"
	}
	return ""
}

// Items checks minItems and maxItems: an array of n items must have at least
// min and, unless max is negative, at most max.
func Items(n int, min, max int64) string {
	return counted(int64(n), min, max, "item", "Items")
}

// Properties checks minProperties and maxProperties: an object of n members
// must have at least min and, unless max is negative, at most max.
func Properties(n int, min, max int64) string {
	return counted(int64(n), min, max, "member", "Properties")
}

func counted(n, min, max int64, noun, keyword string) string {
	switch {
	case n < min:
		return count(n, noun) + ", want at least " + strconv.FormatInt(min, 10) + " (min" + keyword + ")"
	case max >= 0 && n > max:
		return count(n, noun) + ", want at most " + strconv.FormatInt(max, 10) + " (max" + keyword + ")"
	}
	return ""
}

func count(n int64, noun string) string {
	s := strconv.FormatInt(n, 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// Minimum checks minimum: v must be at least min. An integer is compared
// exactly, a number as its float64.
func Minimum[N Number](v N, min float64) string {
	if compare(v, min) >= 0 {
		return ""
	}
	return format(v) + ", want at least " + formatBound(min) + " (minimum)"
}

// Maximum checks maximum: v must be at most max.
func Maximum[N Number](v N, max float64) string {
	if compare(v, max) <= 0 {
		return ""
	}
	return format(v) + ", want at most " + formatBound(max) + " (maximum)"
}

// ExclusiveMinimum checks exclusiveMinimum: v must be more than min.
func ExclusiveMinimum[N Number](v N, min float64) string {
	if compare(v, min) > 0 {
		return ""
	}
	return format(v) + ", want more than " + formatBound(min) + " (exclusiveMinimum)"
}

// ExclusiveMaximum checks exclusiveMaximum: v must be less than max.
func ExclusiveMaximum[N Number](v N, max float64) string {
	if compare(v, max) < 0 {
		return ""
	}
	return format(v) + ", want less than " + formatBound(max) + " (exclusiveMaximum)"
}

// MultipleOf checks multipleOf on an integer with an integral divisor m,
// which must be positive: v must be a multiple of m. (A number, or a
// fractional divisor, needs exact decimal arithmetic: validation checks
// those.)
func MultipleOf(v, m int64) string {
	if m <= 0 || v%m == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10) + ", want a multiple of " + strconv.FormatInt(m, 10) + " (multipleOf)"
}

// isInteger reports whether N is the integer kind of Number.
func isInteger[N Number]() bool {
	half := 0.5
	return float64(N(half)) != half
}

// compare compares v with the bound b: exactly for an integer, as float64
// for a number.
func compare[N Number](v N, b float64) int {
	if !isInteger[N]() {
		return cmp.Compare(float64(v), b)
	}
	return compareInt(int64(v), b)
}

// compareInt compares the integer i with the float b exactly, without
// rounding i to a float64.
func compareInt(i int64, b float64) int {
	switch {
	case math.IsNaN(b):
		return 0
	case b >= 1<<63:
		return -1
	case b < -(1 << 63):
		return 1
	}
	t := math.Trunc(b) // in [-2^63, 2^63): exact as an int64
	if n := int64(t); n != i {
		return cmp.Compare(i, n)
	}
	return cmp.Compare(0, b-t)
}

func format[N Number](v N) string {
	if isInteger[N]() {
		return strconv.FormatInt(int64(v), 10)
	}
	return formatBound(float64(v))
}

// formatBound writes a number as Encoder.Float does: 100, 0.5, 1e-7, 1e+21.
func formatBound(f float64) string {
	var e Encoder
	e.Float(f)
	return string(e.buf)
}

// OneOf returns the problem with a value that is none of allowed (an enum
// of integers, numbers or booleans), or "".
func OneOf[T int64 | float64 | bool | string](v T, allowed ...T) string {
	for _, a := range allowed {
		if v == a {
			return ""
		}
	}
	return fmt.Sprintf("%v is not one of %v (enum)", v, allowed)
}

// OneOfJSON returns the problem with a JSON value that equals none of
// allowed, compact JSON texts (an enum that mixes kinds or allows null), or
// "". Numbers are equal when their values are (1 and 1.0).
func OneOfJSON(v jsontext.Value, allowed ...string) string {
	c := v
	if !bytes.Equal(bytes.TrimSpace(v), v) || v.Kind() == '{' || v.Kind() == '[' {
		c = v.Clone()
		if err := c.Compact(); err != nil {
			return "not valid JSON"
		}
	}
	for _, a := range allowed {
		if string(c) == a {
			return ""
		}
		if c.Kind() == '0' && len(a) > 0 && (a[0] == '-' || a[0] >= '0' && a[0] <= '9') {
			x, err1 := strconv.ParseFloat(string(c), 64)
			y, err2 := strconv.ParseFloat(a, 64)
			if err1 == nil && err2 == nil && x == y {
				return ""
			}
		}
	}
	return fmt.Sprintf("%s is not one of %s (enum)", c, strings.Join(allowed, ", "))
}
