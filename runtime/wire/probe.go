package wire

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The functions in this file look inside a JSON value that a jsontext.Decoder
// has already validated, to choose a union variant before decoding it. They
// assume valid JSON and never fail on it; on invalid JSON their results are
// unspecified, but they do not panic.

// nesting returns how deeply v nests objects and arrays (0 for a scalar).
func nesting(v []byte) int {
	depth, max := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			i = skipString(v, i)
		case '{', '[':
			depth++
			if depth > max {
				max = depth
			}
		case '}', ']':
			depth--
		}
	}
	return max
}

// skipString returns the index of the closing quote of the string opening at
// i, or len(v) if the string is not terminated.
func skipString(v []byte, i int) int {
	for i++; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(v)
}

func skipSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at i.
func skipValue(v []byte, i int) int {
	i = skipSpace(v, i)
	if i >= len(v) {
		return i
	}
	switch v[i] {
	case '"':
		return min(skipString(v, i)+1, len(v))
	case '{', '[':
		depth := 0
		for ; i < len(v); i++ {
			switch v[i] {
			case '"':
				i = skipString(v, i)
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(v)
	default:
		for i < len(v) && v[i] != ',' && v[i] != '}' && v[i] != ']' && v[i] != ' ' && v[i] != '\t' && v[i] != '\n' && v[i] != '\r' {
			i++
		}
		return i
	}
}

// nameEquals reports whether the quoted JSON string q equals name.
func nameEquals[S string | []byte](q []byte, name S) bool {
	if bytes.IndexByte(q, '\\') < 0 {
		return len(q) == len(name)+2 && string(q[1:len(q)-1]) == string(name)
	}
	u, err := jsontext.AppendUnquote(nil, q)
	return err == nil && string(u) == string(name)
}

// Member returns the value of the member name of the object v.
func Member(v jsontext.Value, name string) (jsontext.Value, bool) {
	return member(v, name)
}

// member is Member for a name that is a string or bytes, which need not be
// converted (and copied) to a string.
func member[S string | []byte](v jsontext.Value, name S) (jsontext.Value, bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(v, i)
		if i >= len(v) || v[i] == '}' {
			return nil, false
		}
		if v[i] == ',' {
			i = skipSpace(v, i+1)
		}
		// Invalid JSON (which applications can put in raw members) ends the
		// search rather than crashing it.
		if i >= len(v) || v[i] != '"' {
			return nil, false
		}
		end := skipString(v, i)
		if end >= len(v) {
			return nil, false
		}
		key := v[i : end+1]
		i = skipSpace(v, end+1)
		if i >= len(v) || v[i] != ':' {
			return nil, false
		}
		start := skipSpace(v, i+1)
		i = skipValue(v, start)
		if nameEquals(key, name) {
			return v[start:i], true
		}
	}
}

// element returns element n of the array v.
func element(v jsontext.Value, n int) (jsontext.Value, bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil, false
	}
	i++
	for k := 0; ; k++ {
		i = skipSpace(v, i)
		if i >= len(v) || v[i] == ']' {
			return nil, false
		}
		if v[i] == ',' {
			i = skipSpace(v, i+1)
		}
		start := i
		i = skipValue(v, start)
		if i == start {
			return nil, false // invalid JSON
		}
		if k == n {
			return v[start:i], true
		}
	}
}

// MemberString returns the member name of the object v if it is a string,
// unquoted. present reports whether the member exists at all.
func MemberString(v jsontext.Value, name string) (s string, present bool) {
	m, ok := Member(v, name)
	if !ok {
		return "", false
	}
	if len(m) == 0 || m[0] != '"' {
		return string(m), true
	}
	if len(m) >= 2 && m[len(m)-1] == '"' {
		if inner := m[1 : len(m)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return string(inner), true // nothing to unescape: one allocation
		}
	}
	u, err := jsontext.AppendUnquote(nil, m)
	if err != nil {
		return string(m), true
	}
	return string(u), true
}

// MemberTag returns the member name of the object v for comparison with a
// union's tag values: a string's contents (unescaped only when it has
// escapes, so usually without allocating), or the JSON text of any other
// value. The bytes alias v unless unescaping was needed.
func MemberTag(v jsontext.Value, name string) (tag []byte, present bool) {
	m, ok := Member(v, name)
	if !ok {
		return nil, false
	}
	if len(m) < 2 || m[0] != '"' {
		return m, true
	}
	for _, c := range m {
		if c == '\\' {
			if u, err := jsontext.AppendUnquote(nil, m); err == nil {
				return u, true
			}
			return m, true
		}
	}
	return m[1 : len(m)-1], true
}

// Has reports whether the path of member names (or, on arrays, decimal
// element indexes) leads to a value inside v.
func Has(v jsontext.Value, path ...string) bool {
	for _, p := range path {
		var ok bool
		if i := skipSpace(v, 0); i < len(v) && v[i] == '[' {
			n, err := strconv.Atoi(p)
			if err != nil {
				return false
			}
			v, ok = element(v, n)
		} else {
			v, ok = Member(v, p)
		}
		if !ok {
			return false
		}
	}
	return true
}

// RequireConst checks that the object v, just read from d, has the member
// name with the JSON value want (such as `"object"`).
func RequireConst(d *jsontext.Decoder, v jsontext.Value, name, want string) error {
	m, ok := Member(v, name)
	if !ok {
		return &Error{Pointer: string(d.StackPointer()), Msg: "missing required field " + strconv.Quote(name)}
	}
	if !constEqual(m, want) {
		return &Error{Pointer: string(d.StackPointer()) + "/" + escapeToken(name), Msg: "want " + want + ", got " + string(m)}
	}
	return nil
}

// SetMember returns the object v with member name set to the JSON value
// val, replacing an existing member. A nil v is the empty object.
func SetMember(v jsontext.Value, name string, val []byte) (jsontext.Value, error) {
	if len(v) == 0 {
		v = jsontext.Value("{}")
	}
	if !v.IsValid() || v.Kind() != '{' {
		return v, Errorf("", "not a JSON object")
	}
	out := make([]byte, 1, len(v)+len(name)+len(val)+8) // room for it all: one allocation
	out[0] = '{'
	e := Encoder{buf: out}
	for ms := ScanMembers(v); ms.Next(); {
		if ms.NameIs(name) {
			continue
		}
		e.comma()
		e.buf = append(e.buf, ms.Name()...)
		e.buf = append(e.buf, ':')
		e.buf = append(e.buf, ms.Value()...)
		e.more = true
	}
	e.Key(name)
	e.Raw(val)
	e.buf = append(e.buf, '}')
	return e.Bytes()
}

// MergeMembers returns the object v with the members of the object add that
// v lacks appended, in add's order; v's own members are kept as they are.
// A nil v is the empty object; a nil add changes nothing.
func MergeMembers(v, add jsontext.Value) (jsontext.Value, error) {
	if len(v) == 0 {
		v = jsontext.Value("{}")
	}
	if !v.IsValid() || v.Kind() != '{' {
		return v, Errorf("", "not a JSON object")
	}
	if len(add) == 0 {
		return v, nil
	}
	if !add.IsValid() || add.Kind() != '{' {
		return v, Errorf("", "the members to add are not a JSON object")
	}
	out := make([]byte, 0, len(v)+len(add)+1) // room for it all: one allocation
	out = append(out, v[:len(v)-skipTrailing(v)]...)
	more := skipSpace(out, skipSpace(out, 0)+1) < len(out)
	for ms := ScanMembers(add); ms.Next(); {
		key := ms.Name()
		name := key[1 : len(key)-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var err error
			if name, err = jsontext.AppendUnquote(nil, key); err != nil {
				return v, Errorf("", "a member name to add: %v", err)
			}
		}
		if _, ok := member(v, name); ok {
			continue
		}
		if more {
			out = append(out, ',')
		}
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, ms.Value()...)
		more = true
	}
	return append(out, '}'), nil
}

// DeleteMembers returns the object v without its members named in names,
// the others kept as they are, in order. A nil v is the empty object.
func DeleteMembers(v jsontext.Value, names ...string) (jsontext.Value, error) {
	if len(v) == 0 {
		v = jsontext.Value("{}")
	}
	if !v.IsValid() || v.Kind() != '{' {
		return v, Errorf("", "not a JSON object")
	}
	out := make([]byte, 1, len(v))
	out[0] = '{'
	more := false
	for ms := ScanMembers(v); ms.Next(); {
		if slices.ContainsFunc(names, ms.NameIs) {
			continue
		}
		if more {
			out = append(out, ',')
		}
		out = append(out, ms.Name()...)
		out = append(out, ':')
		out = append(out, ms.Value()...)
		more = true
	}
	return append(out, '}'), nil
}

// skipTrailing returns how many bytes of the object v, from its end, are
// its closing brace and the spaces around it.
func skipTrailing(v []byte) int {
	n := 0
	for n < len(v) && (v[len(v)-1-n] == ' ' || v[len(v)-1-n] == '\t' || v[len(v)-1-n] == '\n' || v[len(v)-1-n] == '\r') {
		n++
	}
	return n + 1
}
