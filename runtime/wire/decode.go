package wire

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Unmarshaler is implemented by every generated type: it decodes one JSON
// value from d, strictly.
type Unmarshaler interface {
	UnmarshalJSONFrom(d *jsontext.Decoder) error
}

type decoder struct {
	buf bytes.Buffer
	dec jsontext.Decoder
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// Unmarshal decodes the single JSON value in data into u. Anything but
// white space after the value is an error. On error, u may be partly filled.
func Unmarshal(data []byte, u Unmarshaler) error {
	return unmarshal(data, u)
}

// unmarshal is Unmarshal with decoder options (see UnmarshalKeepUnknown).
func unmarshal(data []byte, u Unmarshaler, opts ...jsontext.Options) error {
	p := getDecoder(data, opts...)
	err := u.UnmarshalJSONFrom(&p.dec)
	if err == nil {
		if _, terr := p.dec.ReadToken(); terr != io.EOF {
			if terr == nil {
				err = Errorf("", "unexpected data after the JSON value (at byte offset %d)", p.dec.InputOffset())
			} else {
				err = convert(&p.dec, terr)
			}
		}
	} else {
		err = convert(&p.dec, err)
	}
	putDecoder(p)
	return err
}

// getDecoder returns a pooled decoder reading data; putDecoder returns it.
func getDecoder(data []byte, opts ...jsontext.Options) *decoder {
	p := decoders.Get().(*decoder)
	p.buf = *bytes.NewBuffer(data)
	p.dec.Reset(&p.buf, opts...)
	return p
}

// putDecoder returns p, from getDecoder, to the pool, holding no data.
func putDecoder(p *decoder) {
	p.buf = bytes.Buffer{}
	p.dec.Reset(&p.buf)
	decoders.Put(p)
}

// UnmarshalAt decodes raw, a value that was read from d, into u, in d's
// mode (see UnmarshalKeepUnknown). Errors carry the pointer of raw within
// d's document.
func UnmarshalAt(d *jsontext.Decoder, raw jsontext.Value, u Unmarshaler) error {
	err := Unmarshal(raw, u)
	if err != nil && KeepsUnknown(d) {
		// Only a failed strict decode looks at the mode: valid values
		// cost nothing more.
		err = unmarshal(raw, u, keepUnknown)
	}
	if err != nil {
		return Prefix(string(d.StackPointer()), err)
	}
	return nil
}

// typeError consumes the value at d and reports that it is not of kind want.
func typeError(d *jsontext.Decoder, want string) error {
	got := d.PeekKind()
	if err := d.SkipValue(); err != nil {
		return convert(d, err)
	}
	return &Error{Pointer: string(d.StackPointer()), Msg: "want " + want + ", got " + KindName(got)}
}

// BeginObject reads the '{' that starts an object.
func BeginObject(d *jsontext.Decoder) error {
	if d.PeekKind() != '{' {
		return typeError(d, "object")
	}
	if _, err := d.ReadToken(); err != nil {
		return convert(d, err)
	}
	if d.StackDepth() > MaxDepth {
		return &Error{Pointer: string(d.StackPointer()), Msg: "nesting too deep"}
	}
	return nil
}

// NextName reads the next member name of the current object. At the end of
// the object it consumes the '}' and returns ok == false. The returned bytes
// are valid until the next read from d.
func NextName(d *jsontext.Decoder) (name []byte, ok bool, err error) {
	if d.PeekKind() == '}' {
		if _, err := d.ReadToken(); err != nil {
			return nil, false, convert(d, err)
		}
		return nil, false, nil
	}
	v, err := d.ReadValue()
	if err != nil {
		return nil, false, convert(d, err)
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1], true, nil
	}
	u, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return nil, false, convert(d, err)
	}
	return u, true, nil
}

// Skip consumes the next value, for members the type does not know. Like
// ReadValue, it checks that the value nests no deeper than MaxDepth.
func Skip(d *jsontext.Decoder) error {
	_, err := ReadUnionValue(d)
	return err
}

// Missing reports a required member that was not present. It is called after
// the object's closing '}' has been read, so the pointer names the object.
func Missing(d *jsontext.Decoder, name string) error {
	return &Error{Pointer: string(d.StackPointer()), Msg: "missing required field " + strconv.Quote(name)}
}

// BeginArray reads the '[' that starts an array.
func BeginArray(d *jsontext.Decoder) error {
	if d.PeekKind() != '[' {
		return typeError(d, "array")
	}
	if _, err := d.ReadToken(); err != nil {
		return convert(d, err)
	}
	if d.StackDepth() > MaxDepth {
		return &Error{Pointer: string(d.StackPointer()), Msg: "nesting too deep"}
	}
	return nil
}

// More reports whether the current array has another element. At the end it
// consumes the ']' and returns false.
func More(d *jsontext.Decoder) (bool, error) {
	if d.PeekKind() == ']' {
		if _, err := d.ReadToken(); err != nil {
			return false, convert(d, err)
		}
		return false, nil
	}
	return true, nil
}

// ReadString reads a JSON string.
func ReadString(d *jsontext.Decoder) (string, error) {
	if d.PeekKind() != '"' {
		return "", typeError(d, "string")
	}
	t, err := d.ReadToken()
	if err != nil {
		return "", convert(d, err)
	}
	return t.String(), nil
}

// ReadBool reads true or false.
func ReadBool(d *jsontext.Decoder) (bool, error) {
	if k := d.PeekKind(); k != 't' && k != 'f' {
		return false, typeError(d, "boolean")
	}
	t, err := d.ReadToken()
	if err != nil {
		return false, convert(d, err)
	}
	return t.Bool(), nil
}

// ReadNull reads null if it is next and reports whether it did.
func ReadNull(d *jsontext.Decoder) (bool, error) {
	if d.PeekKind() != 'n' {
		return false, nil
	}
	if _, err := d.ReadToken(); err != nil {
		return false, convert(d, err)
	}
	return true, nil
}

// ReadInt reads a JSON number that is an integer in the int64 range. As in
// JSON Schema, a number with a zero fractional part (1.0, 1e2) is an integer.
func ReadInt(d *jsontext.Decoder) (int64, error) {
	if d.PeekKind() != '0' {
		return 0, typeError(d, "integer")
	}
	v, err := d.ReadValue()
	if err != nil {
		return 0, convert(d, err)
	}
	if n, ok := parseInt(v); ok {
		return n, nil
	}
	return 0, &Error{Pointer: string(d.StackPointer()), Msg: "want integer, got " + string(v)}
}

// parseInt parses an integer literal, or a float literal with an integral
// value in range. The value is computed exactly, never through a float64.
func parseInt(v []byte) (int64, bool) {
	s := v
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) > 0 && len(s) <= 18 {
		var n int64
		digits := true
		for _, c := range s {
			if c < '0' || c > '9' {
				digits = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if digits {
			if neg {
				n = -n
			}
			return n, true
		}
	}
	neg, digits, exp, ok := decimal(v)
	if ok && len(digits) == 0 {
		return 0, true
	}
	if !ok || exp < 0 || int64(len(digits))+exp > 19 {
		return 0, false
	}
	b := make([]byte, 0, 20)
	if neg {
		b = append(b, '-')
	}
	b = append(b, digits...)
	for range exp {
		b = append(b, '0')
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// decimal splits the JSON number v into its sign and the digits and exponent
// of its exact value, ±digits × 10^exp, with neither leading nor trailing
// zeros in digits. Zero has no digits, exponent 0 and no sign. ok is false if
// v is not a JSON number, or if it is not zero and the exponent written in it
// is 10^16 or more in magnitude.
func decimal(v []byte) (neg bool, digits []byte, exp int64, ok bool) {
	i := 0
	if i < len(v) && v[i] == '-' {
		neg, i = true, i+1
	}
	start := i
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == start {
		return false, nil, 0, false
	}
	digits = append(digits, v[start:i]...)
	if i < len(v) && v[i] == '.' {
		i++
		start = i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		if i == start {
			return false, nil, 0, false
		}
		digits = append(digits, v[start:i]...)
		exp = -int64(i - start)
	}
	huge := false
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		eneg := false
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			eneg, i = v[i] == '-', i+1
		}
		start = i
		var e int64
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			if e >= 1e15 {
				huge = true
			} else {
				e = e*10 + int64(v[i]-'0')
			}
			i++
		}
		if i == start {
			return false, nil, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(v) {
		return false, nil, 0, false
	}
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 {
		return false, nil, 0, true
	}
	if huge {
		return false, nil, 0, false
	}
	return neg, digits, exp, true
}

// ReadFloat reads a JSON number as a float64.
func ReadFloat(d *jsontext.Decoder) (float64, error) {
	if d.PeekKind() != '0' {
		return 0, typeError(d, "number")
	}
	v, err := d.ReadValue()
	if err != nil {
		return 0, convert(d, err)
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, &Error{Pointer: string(d.StackPointer()), Msg: "number " + string(v) + " is out of range"}
	}
	return f, nil
}

// ReadValue reads any JSON value and returns a copy of its bytes, checked to
// nest no deeper than MaxDepth.
func ReadValue(d *jsontext.Decoder) (jsontext.Value, error) {
	depth := d.StackDepth()
	v, err := d.ReadValue()
	if err != nil {
		return nil, convert(d, err)
	}
	if tooDeep(depth, v) {
		return nil, &Error{Pointer: string(d.StackPointer()), Msg: "nesting too deep"}
	}
	return bytes.Clone(v), nil
}

// ReadObjectValue is ReadValue for a value that must be a JSON object.
func ReadObjectValue(d *jsontext.Decoder) (jsontext.Value, error) {
	if d.PeekKind() != '{' {
		return nil, typeError(d, "object")
	}
	return ReadValue(d)
}

// ReadUnionValue reads the value of a union for discrimination. Unlike
// ReadValue it does not copy: the bytes are valid until the next read from d.
func ReadUnionValue(d *jsontext.Decoder) (jsontext.Value, error) {
	depth := d.StackDepth()
	v, err := d.ReadValue()
	if err != nil {
		return nil, convert(d, err)
	}
	if tooDeep(depth, v) {
		return nil, &Error{Pointer: string(d.StackPointer()), Msg: "nesting too deep"}
	}
	return v, nil
}

// KindError reports that the union value just read from d has a JSON kind
// none of the union's variants accepts.
func KindError(d *jsontext.Decoder, union string, got jsontext.Kind, want string) error {
	return &Error{Pointer: string(d.StackPointer()), Msg: union + ": want " + want + ", got " + KindName(got)}
}

// TagError reports a discriminator member of the union value just read from d
// that is missing (present == false) or has no matching variant.
func TagError(d *jsontext.Decoder, union, member, tag string, present bool) error {
	p := string(d.StackPointer())
	if !present {
		return &Error{Pointer: p, Msg: union + ": missing required field " + strconv.Quote(member)}
	}
	return &Error{Pointer: p + "/" + escapeToken(member), Msg: union + ": unknown " + member + " " + strconv.Quote(tag)}
}

// NoVariant reports a union value that matched none of the variants.
func NoVariant(d *jsontext.Decoder, union, why string) error {
	return &Error{Pointer: string(d.StackPointer()), Msg: union + ": " + why}
}

// EnumError reports a string that is not one of an enum's values.
func EnumError(d *jsontext.Decoder, got string, want []string) error {
	msg := "want one of "
	for i, w := range want {
		if i > 0 {
			msg += ", "
		}
		msg += strconv.Quote(w)
	}
	return &Error{Pointer: string(d.StackPointer()), Msg: msg + "; got " + strconv.Quote(got)}
}

// ConstError reports a member whose value must be a constant.
func ConstError(d *jsontext.Decoder, got, want string) error {
	return &Error{Pointer: string(d.StackPointer()), Msg: "want " + want + ", got " + got}
}

// ReadConst reads a value that must equal the JSON text want (such as
// `"text"` or `-32042`), compared as JSON values.
func ReadConst(d *jsontext.Decoder, want string) error {
	v, err := d.ReadValue()
	if err != nil {
		return convert(d, err)
	}
	if constEqual(v, want) {
		return nil
	}
	return ConstError(d, string(v), want)
}

// constEqual reports whether the valid JSON value v equals the JSON text
// want: strings compare by their unescaped contents, numbers by their exact
// values, and other values byte by byte.
func constEqual(v []byte, want string) bool {
	if string(v) == want {
		return true
	}
	if jsontext.Value(v).Kind() == '"' && bytes.IndexByte(v, '\\') >= 0 {
		if u, err := jsontext.AppendUnquote(nil, v); err == nil {
			if q, err := jsontext.AppendQuote(nil, u); err == nil && string(q) == want {
				return true
			}
		}
	}
	if jsontext.Value(v).Kind() == '0' && want != "" && (want[0] == '-' || want[0] >= '0' && want[0] <= '9') {
		negA, a, expA, okA := decimal(v)
		negB, b, expB, okB := decimal([]byte(want))
		return okA && okB && negA == negB && bytes.Equal(a, b) && expA == expB
	}
	return false
}

func escapeToken(s string) string {
	if !bytes.ContainsAny([]byte(s), "~/") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}

// UnknownMember reports a member that a closed object (additionalProperties
// false) does not allow. The member's value is consumed first, so that the
// pointer names it.
func UnknownMember(d *jsontext.Decoder, name []byte) error {
	n := string(name)
	if err := d.SkipValue(); err != nil {
		return convert(d, err)
	}
	return &Error{Pointer: string(d.StackPointer()), Msg: "unknown member " + strconv.Quote(n) + " (the object allows no others)"}
}

// tooDeep reports whether the value v, read at depth, nests past MaxDepth. A
// value of n bytes nests at most n/2 levels, so short values need no scan.
func tooDeep(depth int, v []byte) bool {
	if depth+len(v)/2 <= MaxDepth {
		return false
	}
	return depth+nesting(v) > MaxDepth
}
