package wire_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// rec is a tiny hand-written type that uses wire the way generated code does:
// an object with a required string, optional scalars, a raw value, arrays,
// a recursive member, a map, constants, an ID and a union-like member.
type rec struct {
	S    string           // "s", required
	I    *int64           // "i"
	F    *float64         // "f"
	B    *bool            // "b"
	Raw  jsontext.Value   // "raw": any JSON value
	Obj  jsontext.Value   // "obj": a JSON object
	List []int64          // "list"
	Strs []string         // "strs"
	Sub  *rec             // "sub"
	Tree tree             // "tree": nested arrays
	ID   *wire.ID         // "id"
	Opt  *string          // "opt": string or null
	Kind bool             // "kind": the constant "rec"
	Code bool             // "code": the constant -32042
	M    map[string]int64 // "m"
	U    *rec             // "u": decoded through ReadUnionValue and UnmarshalAt
}

// tree is arbitrarily nested arrays, decoded recursively with BeginArray.
type tree []tree

var (
	_ wire.Codec = (*rec)(nil)
	_ wire.Codec = (*tree)(nil)
	_ wire.Codec = (*wire.ID)(nil)
)

func (x *rec) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginObject(d); err != nil {
		return err
	}
	*x = rec{}
	seenS := false
	for {
		name, ok, err := wire.NextName(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(name) {
		case "s":
			if x.S, err = wire.ReadString(d); err != nil {
				return err
			}
			seenS = true
		case "i":
			n, err := wire.ReadInt(d)
			if err != nil {
				return err
			}
			x.I = &n
		case "f":
			f, err := wire.ReadFloat(d)
			if err != nil {
				return err
			}
			x.F = &f
		case "b":
			b, err := wire.ReadBool(d)
			if err != nil {
				return err
			}
			x.B = &b
		case "raw":
			if x.Raw, err = wire.ReadValue(d); err != nil {
				return err
			}
		case "obj":
			if x.Obj, err = wire.ReadObjectValue(d); err != nil {
				return err
			}
		case "list":
			if err := wire.BeginArray(d); err != nil {
				return err
			}
			x.List = []int64{}
			for {
				more, err := wire.More(d)
				if err != nil {
					return err
				}
				if !more {
					break
				}
				n, err := wire.ReadInt(d)
				if err != nil {
					return err
				}
				x.List = append(x.List, n)
			}
		case "strs":
			if err := wire.BeginArray(d); err != nil {
				return err
			}
			x.Strs = []string{}
			for {
				more, err := wire.More(d)
				if err != nil {
					return err
				}
				if !more {
					break
				}
				s, err := wire.ReadString(d)
				if err != nil {
					return err
				}
				x.Strs = append(x.Strs, s)
			}
		case "sub":
			x.Sub = new(rec)
			if err := x.Sub.UnmarshalJSONFrom(d); err != nil {
				return err
			}
		case "tree":
			x.Tree = tree{}
			if err := x.Tree.UnmarshalJSONFrom(d); err != nil {
				return err
			}
		case "id":
			x.ID = new(wire.ID)
			if err := x.ID.UnmarshalJSONFrom(d); err != nil {
				return err
			}
		case "opt":
			null, err := wire.ReadNull(d)
			if err != nil {
				return err
			}
			if !null {
				s, err := wire.ReadString(d)
				if err != nil {
					return err
				}
				x.Opt = &s
			}
		case "kind":
			if err := wire.ReadConst(d, `"rec"`); err != nil {
				return err
			}
			x.Kind = true
		case "code":
			if err := wire.ReadConst(d, `-32042`); err != nil {
				return err
			}
			x.Code = true
		case "m":
			if err := wire.BeginObject(d); err != nil {
				return err
			}
			x.M = map[string]int64{}
			for {
				k, ok, err := wire.NextName(d)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				key := string(k)
				n, err := wire.ReadInt(d)
				if err != nil {
					return err
				}
				x.M[key] = n
			}
		case "u":
			raw, err := wire.ReadUnionValue(d)
			if err != nil {
				return err
			}
			if raw.Kind() != '{' {
				return wire.KindError(d, "U", raw.Kind(), "object")
			}
			x.U = new(rec)
			if err := wire.UnmarshalAt(d, raw, x.U); err != nil {
				return err
			}
		default:
			if err := wire.Skip(d); err != nil {
				return err
			}
		}
	}
	if !seenS {
		return wire.Missing(d, "s")
	}
	return nil
}

func (x *rec) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginObject()
	e.Name(`"s":`)
	e.String(x.S)
	if x.I != nil {
		e.Name(`"i":`)
		e.Int(*x.I)
	}
	if x.F != nil {
		e.Name(`"f":`)
		e.Enter("f")
		e.Float(*x.F)
		e.Leave()
	}
	if x.B != nil {
		e.Name(`"b":`)
		e.Bool(*x.B)
	}
	if x.Raw != nil {
		e.Name(`"raw":`)
		e.Enter("raw")
		e.Raw(x.Raw)
		e.Leave()
	}
	if x.Obj != nil {
		e.Name(`"obj":`)
		e.Enter("obj")
		e.RawObject(x.Obj)
		e.Leave()
	}
	if x.List != nil {
		e.Name(`"list":`)
		e.BeginArray()
		for _, n := range x.List {
			e.Int(n)
		}
		e.EndArray()
	}
	if x.Strs != nil {
		e.Name(`"strs":`)
		e.Enter("strs")
		e.BeginArray()
		for i, s := range x.Strs {
			e.Enter(strconv.Itoa(i))
			e.String(s)
			e.Leave()
		}
		e.EndArray()
		e.Leave()
	}
	if x.Sub != nil {
		e.Name(`"sub":`)
		e.Enter("sub")
		e.Value(x.Sub)
		e.Leave()
	}
	if x.Tree != nil {
		e.Name(`"tree":`)
		e.Value(x.Tree)
	}
	if x.ID != nil {
		e.Name(`"id":`)
		e.Enter("id")
		e.ID(*x.ID)
		e.Leave()
	}
	if x.Opt != nil {
		e.Name(`"opt":`)
		e.String(*x.Opt)
	}
	if x.Kind {
		e.Name(`"kind":`)
		e.Literal(`"rec"`)
	}
	if x.Code {
		e.Name(`"code":`)
		e.Literal(`-32042`)
	}
	if x.M != nil {
		e.Name(`"m":`)
		e.Enter("m")
		e.BeginObject()
		for _, k := range wire.SortedKeys(x.M) {
			e.Key(k)
			e.Int(x.M[k])
		}
		e.EndObject()
		e.Leave()
	}
	if x.U != nil {
		e.Name(`"u":`)
		e.Enter("u")
		e.Value(x.U)
		e.Leave()
	}
	e.EndObject()
	return e.Bytes()
}

func (t *tree) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginArray(d); err != nil {
		return err
	}
	*t = tree{}
	for {
		more, err := wire.More(d)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		var c tree
		if err := c.UnmarshalJSONFrom(d); err != nil {
			return err
		}
		*t = append(*t, c)
	}
}

func (t tree) AppendJSON(b []byte) ([]byte, error) {
	e := wire.NewEncoder(b)
	e.BeginArray()
	for _, c := range t {
		e.Value(c)
	}
	e.EndArray()
	return e.Bytes()
}

// fn adapts a function to wire.Unmarshaler, to test the Read* functions
// one at a time.
type fn func(d *jsontext.Decoder) error

func (f fn) UnmarshalJSONFrom(d *jsontext.Decoder) error { return f(d) }

// app adapts a function to wire.Appender.
type app func(b []byte) ([]byte, error)

func (f app) AppendJSON(b []byte) ([]byte, error) { return f(b) }

// cmpOpts compares IDs by value, and trees directly: cmp's slice diffing is
// exponential in the depth of nested slices.
var cmpOpts = []cmp.Option{
	cmp.Comparer(func(a, b wire.ID) bool { return a == b }),
	cmp.Comparer(treeEqual),
}

func treeEqual(a, b tree) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !treeEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func ptr[T any](v T) *T { return &v }

// wantErr checks that err is a *wire.Error at pointer whose message contains
// msg.
func wantErr(t *testing.T, err error, pointer, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %q at %q", msg, pointer)
	}
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("got error %T %v, want a *wire.Error", err, err)
	}
	if diff := cmp.Diff(pointer, we.Pointer); diff != "" {
		t.Errorf("pointer of %q (-want +got):\n%s", err, diff)
	}
	if !strings.Contains(we.Msg, msg) {
		t.Errorf("message %q does not contain %q", we.Msg, msg)
	}
}

// deep returns n nested arrays (open and close), or objects when obj is set.
func deep(n int, obj bool) string {
	if obj {
		return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
	}
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}
