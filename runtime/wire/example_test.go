package wire_test

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// IDs are comparable values: the string "1" and the integer 1 are different
// IDs, so a map keyed by ID tells them apart, as JSON-RPC requires.
func ExampleID() {
	pending := map[wire.ID]string{
		wire.IntID(1):      "tools/call",
		wire.StringID("1"): "resources/read",
	}
	fmt.Println(pending[wire.IntID(1)])
	fmt.Println(pending[wire.StringID("1")])
	fmt.Println(wire.IntID(1) == wire.StringID("1"))

	var id wire.ID
	if err := id.UnmarshalJSON([]byte(`"req-7"`)); err != nil {
		fmt.Println("error:", err)
		return
	}
	s, isString := id.Str()
	fmt.Println(id, s, isString, id == wire.StringID("req-7"))
	b, _ := wire.IntID(42).AppendJSON(nil)
	fmt.Println(string(b))

	var zero wire.ID
	fmt.Println(zero.IsValid(), zero)
	// Output:
	// tools/call
	// resources/read
	// false
	// "req-7" req-7 true true
	// 42
	// false <invalid ID>
}

// idList is a JSON array of IDs, decoded the way generated code decodes
// arrays.
type idList []wire.ID

func (l *idList) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := wire.BeginArray(d); err != nil {
		return err
	}
	*l = idList{}
	for {
		more, err := wire.More(d)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		var id wire.ID
		if err := id.UnmarshalJSONFrom(d); err != nil {
			return err
		}
		*l = append(*l, id)
	}
}

// Every decoding error is a *wire.Error carrying the JSON pointer of the
// value it is about ("" for the whole document).
func ExampleUnmarshal() {
	for _, data := range []string{
		`[1, "two", 3]`,
		`[1, "two", null]`,
		`[1, 2.5]`,
		`[1, "two", 3] []`,
		`{"ids": []}`,
	} {
		var ids idList
		err := wire.Unmarshal([]byte(data), &ids)
		var we *wire.Error
		switch {
		case err == nil:
			fmt.Println("ok:", ids)
		case errors.As(err, &we):
			fmt.Printf("pointer %q: %s\n", we.Pointer, we.Msg)
		default:
			fmt.Println("error:", err)
		}
	}
	// Output:
	// ok: [1 "two" 3]
	// pointer "/2": want string or integer, got null
	// pointer "/1": want integer, got 2.5
	// pointer "": unexpected data after the JSON value (at byte offset 15)
	// pointer "": want array, got object
}

// DeleteMembers drops members from an object as it is, without decoding it:
// the others keep their order and their bytes.
func ExampleDeleteMembers() {
	meta := jsontext.Value(`{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"00-ab-cd-01"}`)
	out, err := wire.DeleteMembers(meta, "io.modelcontextprotocol/protocolVersion")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output: {"progressToken":"p-1","traceparent":"00-ab-cd-01"}
}
