package wire

import "github.com/go-json-experiment/json/jsontext"

// Members reads the members of a JSON object one at a time, in one pass and
// without decoding or allocating: it is for a caller that needs several
// members of the same object, where a Member call for each would scan the
// object once per member. Like Member, it assumes valid JSON (such as a
// value a jsontext.Decoder has read) and stops, without panicking, at
// anything else.
//
//	ms := wire.ScanMembers(params)
//	for ms.Next() {
//		if ms.NameIs("name") { name = ms.Value() }
//	}
type Members struct {
	v     []byte
	i     int
	name  []byte
	value jsontext.Value
}

// ScanMembers returns a Members positioned before the first member of the
// object v. If v is not an object, Next reports false at once.
func ScanMembers(v jsontext.Value) Members {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return Members{}
	}
	return Members{v: v, i: i + 1}
}

// Next moves to the next member and reports whether there is one.
func (m *Members) Next() bool {
	v, i := m.v, skipSpace(m.v, m.i)
	if i >= len(v) || v[i] == '}' {
		m.v = nil
		return false
	}
	if v[i] == ',' {
		i = skipSpace(v, i+1)
	}
	if i >= len(v) || v[i] != '"' {
		m.v = nil
		return false
	}
	end := skipString(v, i)
	if end >= len(v) {
		m.v = nil
		return false
	}
	name := v[i : end+1]
	i = skipSpace(v, end+1)
	if i >= len(v) || v[i] != ':' {
		m.v = nil
		return false
	}
	start := skipSpace(v, i+1)
	i = skipValue(v, start)
	m.name, m.value, m.i = name, v[start:i], i
	return true
}

// Name returns the current member's name as it is written, quotes and
// escapes included.
func (m *Members) Name() []byte { return m.name }

// NameIs reports whether the current member's name, unescaped, is name.
func (m *Members) NameIs(name string) bool { return nameEquals(m.name, name) }

// Value returns the current member's value, which aliases the object.
func (m *Members) Value() jsontext.Value { return m.value }
