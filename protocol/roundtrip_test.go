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
	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// revision is what the tests need of one generated package.
type revision struct {
	name    string
	new     func(string) (wire.Codec, bool)
	methods func() []wire.Method
}

var revisions = []revision{
	{"2024-11-05", mcp20241105.New, mcp20241105.Methods},
	{"2025-03-26", mcp20250326.New, mcp20250326.Methods},
	{"2025-06-18", mcp20250618.New, mcp20250618.Methods},
	{"2025-11-25", mcp20251125.New, mcp20251125.Methods},
	{"2026-07-28", mcp20260728.New, mcp20260728.Methods},
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
					if !isMsg && c.Def == "ClientNotification" && !isUnion(codec) {
						// 2026-07-28's ClientNotification is no union but
						// notifications/cancelled spelled out a second time:
						// a message definition the table does not name.
						method, _ := want.(map[string]any)["method"].(string)
						m, isMsg = methodNamed(r, method)
					}
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
						case (c.Def == "ServerResult" || c.Def == "ClientResult") && c.Variant != "":
							// (2026-07-28's ClientResult is the plain Result,
							// no union.)
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
							checkVariant(t, codec, c.Def, c.Variant)
						}
						return
					}
					if m.Embedded {
						// Never a JSON-RPC message: it travels, bare, as a
						// value of a result's inputRequests.
						in, ok := r.new("InputRequest")
						if !ok {
							t.Fatalf("method %s is embedded, but the package has no InputRequest", m.Name)
						}
						if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, in, c.JSON))); diff != "" {
							t.Errorf("InputRequest round trip changed the value (-want +got):\n%s", diff)
						}
						checkVariant(t, in, "InputRequest", c.Def)
					} else {
						// As a JSON-RPC message: everything is kept.
						env, _ := r.new("JSONRPCMessage")
						if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, env, c.JSON))); diff != "" {
							t.Errorf("JSONRPCMessage round trip changed the value (-want +got):\n%s", diff)
						}
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

// isUnion reports whether codec is a generated union (a struct whose Value
// holds the variant).
func isUnion(codec wire.Codec) bool {
	v := reflect.ValueOf(codec).Elem()
	return v.Kind() == reflect.Struct && v.FieldByName("Value").IsValid()
}

// methodNamed returns the method called name from the revision's table.
func methodNamed(r revision, name string) (wire.Method, bool) {
	for _, m := range r.methods() {
		if m.Name == name {
			return m, true
		}
	}
	return wire.Method{}, false
}

// checkVariant asserts that a decoded union (of definition union) chose the
// variant named by the corpus case.
func checkVariant(t *testing.T, codec wire.Codec, union, variant string) {
	t.Helper()
	v := reflect.ValueOf(codec).Elem().FieldByName("Value")
	if !v.IsValid() || v.IsNil() {
		t.Fatalf("%T is not a set union", codec)
	}
	typ := v.Elem().Type()
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if strings.HasPrefix(variant, "anyOf/") {
		// A member spelled inline with no definition of its own (2026-07-28's
		// JSONValue {"type": ["string", "integer", "boolean"]}) is a type named
		// after the union, one per JSON type.
		if want := plan.GoName(union); !strings.HasPrefix(typ.Name(), want) || typ.Name() == want {
			t.Errorf("decoded as variant %s, want a %s… member type", typ.Name(), want)
		}
		return
	}
	switch variant {
	// 2025-03-26 spells its two batch shapes inline in JSONRPCMessage's
	// anyOf, not as references to JSONRPCBatchRequest/Response, so their
	// variants are named by position.
	case "JSONRPCBatchRequest":
		variant = "JSONRPCMessageArray"
	case "JSONRPCBatchResponse":
		variant = "JSONRPCMessageArray5"
	// 2026-07-28's JSONValue spells its array member inline, equal to (but
	// not a reference to) JSONArray, so it is named after the union.
	case "JSONArray":
		if union == "JSONValue" {
			variant = "JSONValueArray"
		}
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
