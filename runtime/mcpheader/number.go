package mcpheader

import (
	"errors"
	"strconv"
	"strings"
)

// decimal is a finite decimal number, (-1)^neg × digits × 10^exp, written so
// that every number has one form: digits has no leading or trailing zeros,
// and zero is digits "" with neg false and exp 0.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExponent bounds the exponent a number may be written with. No integer
// that a header can carry comes near it; the bound keeps the arithmetic on
// exponents far from overflow.
const maxExponent = 1 << 40

var errNotDecimal = errors.New("not a decimal number")

// parseDecimal reads s, written as an optional sign, one or more digits, an
// optional fraction ('.' and one or more digits) and an optional exponent
// ('e' or 'E', an optional sign, one or more digits). Every JSON number has
// this form; so do "+42", "042" and "42.0", which JSON does not allow.
func parseDecimal(s string) (decimal, error) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	whole := s[start:i]
	if whole == "" {
		return decimal{}, errNotDecimal
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[start:i]
		if frac == "" {
			return decimal{}, errNotDecimal
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		negExp := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			negExp = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && isDigit(s[i]) {
			if exp = exp*10 + int64(s[i]-'0'); exp > maxExponent {
				return decimal{}, errors.New("exponent too large")
			}
			i++
		}
		if i == start {
			return decimal{}, errNotDecimal
		}
		if negExp {
			exp = -exp
		}
	}
	if i != len(s) {
		return decimal{}, errNotDecimal
	}
	digits := strings.TrimLeft(whole+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	if trimmed == "" {
		return decimal{}, nil
	}
	d.digits = trimmed
	d.exp = exp
	return d, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// maxSafeInteger is 2^53-1, the largest integer an IEEE 754 double holds
// exactly; x-mcp-header integers must lie within ±maxSafeInteger.
const maxSafeInteger = 1<<53 - 1

// integer returns d as an int64 if it is an integer within ±maxSafeInteger.
func (d decimal) integer() (int64, bool) {
	if d.digits == "" {
		return 0, true
	}
	if d.exp < 0 || int64(len(d.digits))+d.exp > 16 {
		return 0, false
	}
	n, err := strconv.ParseInt(d.digits+strings.Repeat("0", int(d.exp)), 10, 64)
	if err != nil || n > maxSafeInteger {
		return 0, false
	}
	if d.neg {
		n = -n
	}
	return n, true
}
