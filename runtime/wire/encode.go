package wire

import (
	"math"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Appender is implemented by every generated type: it appends the JSON
// encoding of the value to b.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// ValidJSON is implemented by generated types: their AppendJSON either fails
// or appends exactly one valid JSON value, whose raw members were checked as
// they were written (see Encoder.Raw). Encoders that embed such a value in a
// larger document need not check it again.
type ValidJSON interface {
	Appender
	ValidJSON()
}

// Marshal returns the JSON encoding of a.
func Marshal(a Appender) ([]byte, error) {
	return a.AppendJSON(nil)
}

// Encoder appends JSON to a buffer, keeping the first error. Generated code
// writes object members with Name and values with the typed methods; commas
// are inserted automatically.
type Encoder struct {
	buf  []byte
	more bool // a value was written at this level: the next one needs a comma
	err  error
	// The member names entered (Enter): the first ones in shallow, the rest
	// in deep. A slice into shallow would point the Encoder at itself and
	// move every Encoder to the heap.
	shallow [4]string
	deep    []string
	depth   int
}

// NewEncoder returns an Encoder appending to b. A nil b starts a buffer
// sized for a typical MCP message, so that encoding it grows the buffer once
// at most instead of every few members.
func NewEncoder(b []byte) Encoder {
	if b == nil {
		b = make([]byte, 0, 512)
	}
	return Encoder{buf: b}
}

// Bytes returns the encoded bytes and the first error.
func (e *Encoder) Bytes() ([]byte, error) { return e.buf, e.err }

// Err returns the first error.
func (e *Encoder) Err() error { return e.err }

// Fail records err (the first one wins), with the pointer of the current
// member.
func (e *Encoder) Fail(msg string) {
	if e.err == nil {
		e.err = &Error{Pointer: e.pointer(), Msg: "encode: " + msg}
	}
}

// Failed reports whether an error was recorded.
func (e *Encoder) Failed() bool { return e.err != nil }

// BeginObject writes '{'.
func (e *Encoder) BeginObject() {
	e.comma()
	e.buf = append(e.buf, '{')
	e.more = false
}

// EndObject writes '}'.
func (e *Encoder) EndObject() {
	e.buf = append(e.buf, '}')
	e.more = true
}

// BeginArray writes '['.
func (e *Encoder) BeginArray() {
	e.comma()
	e.buf = append(e.buf, '[')
	e.more = false
}

// EndArray writes ']'.
func (e *Encoder) EndArray() {
	e.buf = append(e.buf, ']')
	e.more = true
}

func (e *Encoder) comma() {
	if e.more {
		e.buf = append(e.buf, ',')
		e.more = false
	}
}

// Name writes a member name given as JSON text with its colon, such as
// `"uri":`, as generated code precomputes it.
func (e *Encoder) Name(quotedWithColon string) {
	e.comma()
	e.buf = append(e.buf, quotedWithColon...)
}

// Key writes a member name that is only known at run time.
func (e *Encoder) Key(name string) {
	e.comma()
	b, err := jsontext.AppendQuote(e.buf, name)
	if err != nil {
		e.Fail("member name " + strconv.Quote(name) + " is not valid UTF-8")
		return
	}
	e.buf = append(b, ':')
}

// String writes a JSON string.
func (e *Encoder) String(s string) {
	e.comma()
	b, err := jsontext.AppendQuote(e.buf, s)
	if err != nil {
		e.Fail("string " + strconv.Quote(s) + " is not valid UTF-8")
		return
	}
	e.buf = b
	e.more = true
}

// Literal writes JSON text that is known to be valid, such as a
// precomputed constant.
func (e *Encoder) Literal(text string) {
	e.comma()
	e.buf = append(e.buf, text...)
	e.more = true
}

// Bool writes true or false.
func (e *Encoder) Bool(v bool) {
	if v {
		e.Literal("true")
	} else {
		e.Literal("false")
	}
}

// Null writes null.
func (e *Encoder) Null() { e.Literal("null") }

// Int writes an integer.
func (e *Encoder) Int(n int64) {
	e.comma()
	e.buf = strconv.AppendInt(e.buf, n, 10)
	e.more = true
}

// Float writes a number, in the shortest form that reads back as the same
// float64. NaN and infinities are errors.
func (e *Encoder) Float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.Fail("number " + strconv.FormatFloat(f, 'g', -1, 64) + " cannot be encoded in JSON")
		return
	}
	e.comma()
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(e.buf)
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, 64)
	if format == 'e' {
		// Shorten e-07 to e-7, as JavaScript and encoding/json write it.
		if m := len(e.buf); m-n >= 4 && e.buf[m-4] == 'e' && e.buf[m-3] == '-' && e.buf[m-2] == '0' {
			e.buf[m-2] = e.buf[m-1]
			e.buf = e.buf[:m-1]
		}
	}
	e.more = true
}

// Raw writes a JSON value given as bytes after checking that it is valid.
// An empty value is an error: required raw members must be set.
func (e *Encoder) Raw(v jsontext.Value) {
	if len(v) == 0 {
		e.Fail("value is empty")
		return
	}
	if !v.IsValid() {
		e.Fail("value is not valid JSON: " + strconv.Quote(string(v)))
		return
	}
	e.comma()
	e.buf = append(e.buf, v...)
	e.more = true
}

// RawObject is Raw for a value that must be a JSON object.
func (e *Encoder) RawObject(v jsontext.Value) {
	if len(v) > 0 && v.Kind() != '{' {
		e.Fail("want object, got " + KindName(v.Kind()))
		return
	}
	e.Raw(v)
}

// Value writes a value that encodes itself.
func (e *Encoder) Value(a Appender) {
	e.comma()
	b, err := a.AppendJSON(e.buf)
	if err != nil {
		if e.err == nil {
			e.err = Prefix(e.pointer(), err)
		}
		return
	}
	e.buf = b
	e.more = true
}

// Enter records that the following value is member (or element) name, for the
// pointer of encoding errors. Leave undoes it.
func (e *Encoder) Enter(name string) {
	if e.depth < len(e.shallow) {
		e.shallow[e.depth] = name
	} else {
		e.deep = append(e.deep, name)
	}
	e.depth++
}

// Leave undoes the last Enter.
func (e *Encoder) Leave() {
	e.depth--
	if e.depth >= len(e.shallow) {
		e.deep = e.deep[:e.depth-len(e.shallow)]
	}
}

// pointer returns the JSON pointer of the member entered last.
func (e *Encoder) pointer() string {
	p := ""
	for i := range e.depth {
		s := ""
		if i < len(e.shallow) {
			s = e.shallow[i]
		} else {
			s = e.deep[i-len(e.shallow)]
		}
		p += "/" + escapeToken(s)
	}
	return p
}

// SortedKeys returns the keys of m in order, so that maps encode
// deterministically.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// RequireConst checks that the raw object v, about to be or just written,
// has the member name with the JSON value want; an empty v is left to the
// required-member checks.
func (e *Encoder) RequireConst(v jsontext.Value, name, want string) {
	if len(v) == 0 || !v.IsValid() {
		return
	}
	if m, ok := Member(v, name); !ok || !constEqual(m, want) {
		e.Fail("raw object must have " + strconv.Quote(name) + ": " + want)
	}
}

// MetaAppender is implemented by generated types whose _meta has required
// members, such as the request params of 2026-07-28, whose envelope the
// session engine fills in: AppendJSONWithMeta encodes the value with the
// members of meta added to its _meta where it lacks them.
type MetaAppender interface {
	Appender
	AppendJSONWithMeta(b []byte, meta jsontext.Value) ([]byte, error)
}
