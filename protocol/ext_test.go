package protocol_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/protocol/corpus"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The extension corpus, protocol/testdata/corpus/ext-tasks, holds values of
// the Tasks extension's own definitions; package corpus checks them against
// the extension's schema, cmd/mcpgen against mcpgen validate --extension,
// and these tests against the generated package protocol/ext/tasks.

// tasksCorpus is the name of the Tasks extension's corpus directory.
const tasksCorpus = "ext-tasks"

// tasksMethod returns the entry of the method table of protocol/ext/tasks
// whose message, or whose result, is the definition def (for a result, of
// the core methods it widens too), and whether def is the message.
func tasksMethod(def string) (m wire.Method, message, ok bool) {
	for _, m := range append(tasks.Methods(), tasks.AugmentedMethods()...) {
		if m.Message == def {
			return m, true, true
		}
		for _, r := range m.Results {
			if r == def {
				return m, false, true
			}
		}
	}
	return wire.Method{}, false, false
}

// TestExtensionCorpusRoundTrip decodes every valid case of the extension's
// corpus with the generated types, encodes it again and compares the two as
// JSON values; the variant of a union must be the one the case names.
// Messages are checked as their own definition (the envelope members
// jsonrpc and id are the runtime's), as a JSON-RPC message of the core
// revision (everything kept), and their params through the method table; a
// method's result through the table too, and CreateTaskResult as the answer
// of the widened tools/call, whose decoder must choose it.
func TestExtensionCorpusRoundTrip(t *testing.T) {
	cases, err := corpus.Valid(tasksCorpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			codec, ok := tasks.New(c.Def)
			if !ok {
				t.Fatalf("protocol/ext/tasks has no definition %s", c.Def)
			}
			want := jsonValue(t, c.JSON)
			m, isMsg, inTable := tasksMethod(c.Def)
			if !isMsg {
				if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, codec, c.JSON))); diff != "" {
					t.Fatalf("round trip of %s changed the value (-want +got):\n%s", c.Def, diff)
				}
				if c.Variant != "" {
					checkTasksVariant(t, codec, c.Def, c.Variant)
				}
				if !inTable {
					return
				}
				// A result: through the method table, the entry of its
				// definition and (for the widened tools/call) the decoder
				// of any of its answers.
				for i, r := range m.Results {
					if r != c.Def {
						continue
					}
					if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, m.NewResult[i](), c.JSON))); diff != "" {
						t.Errorf("%s result %s round trip changed the value (-want +got):\n%s", m.Name, r, diff)
					}
				}
				if m.NewAnyResult != nil {
					anyResult := m.NewAnyResult()
					if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, anyResult, c.JSON))); diff != "" {
						t.Errorf("%s answer round trip changed the value (-want +got):\n%s", m.Name, diff)
					}
					if got, want := reflect.TypeOf(anyResult.(*tasks.CallToolResults).Value), reflect.TypeOf(codec); got != want {
						t.Errorf("%s answer decoded as %v, want %v", m.Name, got, want)
					}
				}
				return
			}
			// As a JSON-RPC message of the core revision: everything is
			// kept, whatever the method.
			env, _ := mcp.New("JSONRPCMessage")
			if diff := cmp.Diff(want, jsonValue(t, roundTrip(t, env, c.JSON))); diff != "" {
				t.Errorf("JSONRPCMessage round trip changed the value (-want +got):\n%s", diff)
			}
			obj := want.(map[string]any)
			delete(obj, "jsonrpc")
			delete(obj, "id")
			if diff := cmp.Diff(any(obj), jsonValue(t, roundTrip(t, codec, c.JSON))); diff != "" {
				t.Errorf("%s round trip changed the value (-want +got):\n%s", c.Def, diff)
			}
			if obj["method"] != m.Name {
				t.Errorf("method %v, want %s", obj["method"], m.Name)
			}
			params, has := obj["params"]
			if !has || m.NewParams == nil || !m.ParamsRequired {
				t.Fatalf("%s: params %v, in the table %v, required %v; the extension's messages all have params", m.Name, has, m.NewParams != nil, m.ParamsRequired)
			}
			raw, _ := json.Marshal(params)
			if diff := cmp.Diff(params, jsonValue(t, roundTrip(t, m.NewParams(), raw))); diff != "" {
				t.Errorf("params round trip changed the value (-want +got):\n%s", diff)
			}
		})
	}
}

// checkTasksVariant asserts that a decoded value of the union def chose the
// variant the corpus case names: a definition WorkingTask is the type
// WorkingTask, or, in a union whose variants extend it (GetTaskResult,
// allOf Result and a status union), GetTaskResultWorkingTask. A variant
// named by its place ("anyOf/2") is a const of an enum spelled as an anyOf
// (TaskStatus), a string type whose value the round trip checks.
func checkTasksVariant(t *testing.T, codec wire.Codec, def, variant string) {
	t.Helper()
	v := reflect.ValueOf(codec).Elem()
	if strings.HasPrefix(variant, "anyOf/") {
		if v.Kind() != reflect.String {
			t.Errorf("%s is a %v, want the string type of an enum", def, v.Kind())
		}
		return
	}
	f := v.FieldByName("Value")
	if !f.IsValid() || f.IsNil() {
		t.Fatalf("%T is not a set union", codec)
	}
	got := f.Elem().Type().Elem().Name()
	if got != plan.GoName(variant) && got != plan.GoName(def)+plan.GoName(variant) {
		t.Errorf("decoded as variant %s, want %s or %s%s", got, plan.GoName(variant), plan.GoName(def), plan.GoName(variant))
	}
}

// TestExtensionCorpusRejects decodes every invalid case of the extension's
// corpus and checks that the error names the expected JSON pointer and
// reason; a result of the widened tools/call must be refused by the decoder
// of its answers too.
func TestExtensionCorpusRejects(t *testing.T) {
	cases, err := corpus.InvalidCases(tasksCorpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			codec, ok := tasks.New(c.Def)
			if !ok {
				t.Fatalf("protocol/ext/tasks has no definition %s", c.Def)
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
			if m, isMsg, ok := tasksMethod(c.Def); ok && !isMsg && m.NewAnyResult != nil {
				if err := wire.Unmarshal([]byte(c.Text), m.NewAnyResult()); err == nil {
					t.Errorf("the decoder of %s answers accepted %s", m.Name, c.Text)
				}
			}
		})
	}
}

// tasksDecoder is one decoder of protocol/ext/tasks.
type tasksDecoder struct {
	name  string
	fresh func() wire.Codec
}

// tasksDecoders returns every decoder of protocol/ext/tasks: of each
// definition of the extension's schema that the package declares (the
// others are the core package's), of CallToolResults, and of the params and
// results of its method table and of the core methods it widens.
func tasksDecoders(tb testing.TB) []tasksDecoder {
	tb.Helper()
	data, err := os.ReadFile(schematest.Extension(tb, "ext-tasks"))
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	var out []tasksDecoder
	for _, name := range append(sortedNames(doc.Defs), "CallToolResults") {
		if _, ok := tasks.New(name); ok {
			out = append(out, tasksDecoder{name, func() wire.Codec { c, _ := tasks.New(name); return c }})
		}
	}
	for _, m := range append(tasks.Methods(), tasks.AugmentedMethods()...) {
		if m.NewParams != nil {
			out = append(out, tasksDecoder{m.Name + " params", m.NewParams})
		}
		for i, r := range m.Results {
			out = append(out, tasksDecoder{m.Name + " result " + r, m.NewResult[i]})
		}
		if m.NewAnyResult != nil {
			out = append(out, tasksDecoder{m.Name + " any result", m.NewAnyResult})
		}
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestTasksDecoders checks the list the fuzz targets draw from: the 20
// definitions of the extension, CallToolResults, and the 4 methods' and the
// widened tools/call's params and results.
func TestTasksDecoders(t *testing.T) {
	var defs, table int
	for _, d := range tasksDecoders(t) {
		if strings.Contains(d.name, " ") {
			table++
		} else {
			defs++
		}
	}
	// tasks/get, tasks/update, tasks/cancel: params and a result each;
	// notifications/tasks: params; tools/call: params, 3 results, any.
	if defs != 21 || table != 3*2+1+5 {
		t.Errorf("%d definitions and %d table decoders, want 21 and 12", defs, table)
	}
}
