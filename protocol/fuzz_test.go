package protocol_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/protocol/corpus"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// unionDefs are the named unions the union fuzz target exercises; a
// revision without one of them is skipped for it.
var unionDefs = []string{
	"ContentBlock", "SamplingMessageContentBlock", "PrimitiveSchemaDefinition", "EnumSchema",
	"SingleSelectEnumSchema", "MultiSelectEnumSchema", "ElicitRequestParams", "JSONRPCMessage",
	"JSONRPCResponse", "ClientRequest", "ServerRequest", "ClientNotification",
	"ServerNotification", "ClientResult", "ServerResult",
	// 2026-07-28: the embedded requests and their results, JSON values, and
	// the results chosen by resultType.
	"InputRequest", "InputResponse", "JSONValue", "CallToolResultResponse",
}

// stable checks the decoder on arbitrary input: it must not panic, and
// whatever it accepts must encode, and decode again to the same encoding.
func stable(t *testing.T, name string, fresh func() wire.Codec, data []byte) {
	stableWith(t, name, wire.Unmarshal, fresh, data)
}

// stableWith is stable with the decoding function unmarshal (wire.Unmarshal
// or wire.UnmarshalKeepUnknown).
func stableWith(t *testing.T, name string, unmarshal func([]byte, wire.Unmarshaler) error, fresh func() wire.Codec, data []byte) {
	c := fresh()
	if err := unmarshal(data, c); err != nil {
		return
	}
	out, err := c.AppendJSON(nil)
	if err != nil {
		t.Fatalf("%s: decoded %q but cannot encode it: %v", name, data, err)
	}
	again := fresh()
	if err := unmarshal(out, again); err != nil {
		t.Fatalf("%s: re-encoding %q gave %q, which does not decode: %v", name, data, out, err)
	}
	out2, err := again.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(out), string(out2)); diff != "" {
		t.Fatalf("%s: encoding is not stable:\n%s", name, diff)
	}
}

func addCorpus(f *testing.F, withIndex bool) {
	for _, r := range revisions {
		cases, err := corpus.Valid(r.name)
		if err != nil {
			f.Fatal(err)
		}
		for i, c := range cases {
			if withIndex {
				f.Add(uint8(i), []byte(c.JSON))
			} else {
				f.Add([]byte(c.JSON))
			}
		}
	}
}

// FuzzMessage feeds arbitrary bytes to the top-level message decoder
// (JSONRPCMessage) of every revision.
func FuzzMessage(f *testing.F) {
	addCorpus(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range revisions {
			stable(t, r.name+" JSONRPCMessage", func() wire.Codec { c, _ := r.new("JSONRPCMessage"); return c }, data)
		}
	})
}

// FuzzUnions feeds arbitrary bytes to one generated union decoder, chosen by
// which.
func FuzzUnions(f *testing.F) {
	addCorpus(f, true)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := unionDefs[int(which)%len(unionDefs)]
		for _, r := range revisions {
			if _, ok := r.new(name); !ok {
				continue
			}
			stable(t, r.name+" "+name, func() wire.Codec { c, _ := r.new(name); return c }, data)
		}
	})
}

// FuzzParams feeds arbitrary bytes to the params decoder of every method.
func FuzzParams(f *testing.F) {
	addCorpus(f, true)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		for _, r := range revisions {
			ms := r.methods()
			m := ms[int(which)%len(ms)]
			if m.NewParams != nil {
				stable(t, r.name+" "+m.Name+" params", m.NewParams, data)
			}
		}
	})
}

// FuzzTasks feeds arbitrary bytes to one decoder of protocol/ext/tasks,
// chosen by which (see tasksDecoders: every definition the package
// declares, and the params and results of its method table and of the
// widened tools/call), strictly and keeping unknown variants. Seeds are the
// extension's corpus: each valid case given to the decoder of its
// definition (and a message's params to its params decoder, a result to the
// table's decoders of it), each refused text to the decoder that refuses it.
func FuzzTasks(f *testing.F) {
	decoders := tasksDecoders(f)
	index := map[string]uint8{}
	for i, d := range decoders {
		index[d.name] = uint8(i)
	}
	add := func(decoder string, data []byte) {
		i, ok := index[decoder]
		if !ok {
			f.Fatalf("no decoder %q", decoder)
		}
		f.Add(i, data)
	}
	valid, err := corpus.Valid(tasksCorpus)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range valid {
		add(c.Def, c.JSON)
		m, isMsg, ok := tasksMethod(c.Def)
		switch {
		case !ok:
		case isMsg:
			var msg struct{ Params json.RawMessage }
			if err := json.Unmarshal(c.JSON, &msg); err != nil {
				f.Fatal(err)
			}
			add(m.Name+" params", msg.Params)
		default:
			add(m.Name+" result "+c.Def, c.JSON)
			if m.NewAnyResult != nil {
				add(m.Name+" any result", c.JSON)
			}
		}
	}
	invalid, err := corpus.InvalidCases(tasksCorpus)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range invalid {
		add(c.Def, []byte(c.Text))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		d := decoders[int(which)%len(decoders)]
		stable(t, "tasks "+d.name, d.fresh, data)
		stableWith(t, "tasks "+d.name+" (keeping unknown variants)", wire.UnmarshalKeepUnknown, d.fresh, data)
	})
}
