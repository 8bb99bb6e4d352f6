package protocol_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/protocol/corpus"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// revision is what the tests need of one generated package.
type revision struct {
	name    string
	new     func(string) (wire.Codec, bool)
	methods func() []wire.Method
}

var revisions = []revision{
	{"2025-03-26", mcp20250326.New, mcp20250326.Methods},
	{"2025-06-18", mcp20250618.New, mcp20250618.Methods},
	{"2025-11-25", mcp20251125.New, mcp20251125.Methods},
}

// jsonValue parses JSON into a generic value for comparison.
func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// roundTrip decodes data into c, encodes it again and returns the encoding.
func roundTrip(t *testing.T, c wire.Codec, data []byte) []byte {
	t.Helper()
	if err := wire.Unmarshal(data, c); err != nil {
		t.Fatalf("decode: %v\n%s", err, data)
	}
	out, err := c.AppendJSON(nil)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	// Generated types promise valid JSON without duplicate names
	// (wire.ValidJSON): encoders embed it unchecked.
	if _, ok := c.(wire.ValidJSON); !ok {
		t.Errorf("%T is not a wire.ValidJSON", c)
	}
	if !jsontext.Value(out).IsValid() {
		t.Fatalf("encode: not valid JSON: %s", out)
	}
	return out
}

func messageDefs(r revision) map[string]wire.Method {
	m := map[string]wire.Method{}
	for _, x := range r.methods() {
		m[x.Message] = x
	}
	return m
}

// TestCorpusRoundTrip decodes every valid corpus message with the generated
// types, encodes it again and compares the two as JSON values. Requests and
// notifications are checked three ways: as a JSONRPCMessage, as their own
// definition (the envelope members jsonrpc and id are the runtime's), and
// their params through the method table.
func TestCorpusRoundTrip(t *testing.T) {
	for _, r := range revisions {
		t.Run(r.name, func(t *testing.T) {
			cases, err := corpus.Valid(r.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) == 0 {
				t.Fatal("no valid corpus cases")
			}
			msgs := messageDefs(r)
			for _, c := range cases {
				t.Run(c.Name, func(t *testing.T) {
					codec, ok := r.new(c.Def)
					if !ok {
						t.Fatalf("the package has no definition %s", c.Def)
					}
					want := jsonValue(t, c.JSON)
					m, isMsg := msgs[c.Def]
					if !isMsg {
						if _, variantIsMsg := msgs[c.Variant]; variantIsMsg {
							// A request or notification union: the envelope
							// members are the runtime's.
							obj := want.(map[string]any)
							delete(obj, "jsonrpc")
							delete(obj, "id")
						}
						got := jsonValue(t, roundTrip(t, codec, c.JSON))
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("round trip of %s changed the value (-want +got):\n%s", c.Def, diff)
						}
						switch {
						case c.Def == "ServerResult" || c.Def == "ClientResult":
							// Results carry no tag: alone they decode as the
							// open Result (see the plan); typed decoding goes
							// through the method table, so check the variant's
							// own type too.
							vc, ok := r.new(c.Variant)
							if !ok {
								t.Fatalf("the package has no definition %s", c.Variant)
							}
							if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, vc, c.JSON))); diff != "" {
								t.Errorf("round trip as %s changed the value (-want +got):\n%s", c.Variant, diff)
							}
						case c.Variant != "":
							checkVariant(t, codec, c.Variant)
						}
						return
					}
					// As a JSON-RPC message: everything is kept.
					env, _ := r.new("JSONRPCMessage")
					if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, env, c.JSON))); diff != "" {
						t.Errorf("JSONRPCMessage round trip changed the value (-want +got):\n%s", diff)
					}
					// As its own definition: all but the envelope.
					obj := want.(map[string]any)
					delete(obj, "jsonrpc")
					delete(obj, "id")
					if diff := cmp.Diff(any(obj), jsonValue(t, roundTrip(t, codec, c.JSON))); diff != "" {
						t.Errorf("%s round trip changed the value (-want +got):\n%s", c.Def, diff)
					}
					// Params through the method table.
					params, has := obj["params"]
					if !has {
						if m.ParamsRequired {
							t.Errorf("method %s requires params, but the case has none", m.Name)
						}
						return
					}
					if m.NewParams == nil {
						t.Fatalf("method %s has no params in the table", m.Name)
					}
					raw, _ := json.Marshal(params)
					if diff := cmp.Diff(params, jsonValue(t, roundTrip(t, m.NewParams(), raw))); diff != "" {
						t.Errorf("params round trip changed the value (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}

// checkVariant asserts that a decoded union chose the variant named by the
// corpus case.
func checkVariant(t *testing.T, codec wire.Codec, variant string) {
	t.Helper()
	v := reflect.ValueOf(codec).Elem().FieldByName("Value")
	if !v.IsValid() || v.IsNil() {
		t.Fatalf("%T is not a set union", codec)
	}
	typ := v.Elem().Type()
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	// 2025-03-26 spells its two batch shapes inline in JSONRPCMessage's
	// anyOf, not as references to JSONRPCBatchRequest/Response, so their
	// variants are named by position.
	switch variant {
	case "JSONRPCBatchRequest":
		variant = "JSONRPCMessageArray"
	case "JSONRPCBatchResponse":
		variant = "JSONRPCMessageArray5"
	}
	if want := plan.GoName(variant); typ.Name() != want {
		t.Errorf("decoded as variant %s, want %s", typ.Name(), want)
	}
}

// TestCorpusRejects decodes every invalid corpus message and checks the
// error names the expected JSON pointer and reason.
func TestCorpusRejects(t *testing.T) {
	for _, r := range revisions {
		t.Run(r.name, func(t *testing.T) {
			cases, err := corpus.InvalidCases(r.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) == 0 {
				t.Fatal("no invalid corpus cases")
			}
			for _, c := range cases {
				t.Run(c.Name, func(t *testing.T) {
					codec, ok := r.new(c.Def)
					if !ok {
						t.Fatalf("the package has no definition %s", c.Def)
					}
					err := wire.Unmarshal([]byte(c.Text), codec)
					if err == nil {
						t.Fatalf("decoded without error: %s", c.Text)
					}
					var we *wire.Error
					if !errors.As(err, &we) {
						t.Fatalf("error %v is not a *wire.Error", err)
					}
					if we.Pointer != c.Pointer || !strings.Contains(we.Msg, c.Contains) {
						t.Errorf("error %q: want pointer %q and a message containing %q", err, c.Pointer, c.Contains)
					}
				})
			}
		})
	}
}
