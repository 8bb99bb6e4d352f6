package protocol_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/validate"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// checkedRevisions are the generated packages whose codecs check the
// schema's assertions, with what the tests below need of each: the schema,
// for validation, and a value that breaks a bound, for the encoder.
var checkedRevisions = []struct {
	name   string
	new    func(string) (wire.Codec, bool)
	schema func() []byte
	// tooHigh is Annotations with priority 2 (the schema says at most 1).
	tooHigh wire.Appender
	// annotatedIn, when not "", is the definition whose "annotations"
	// member spells the annotations inline, in a revision that has no
	// Annotations definition (2024-11-05: Annotated).
	annotatedIn string
}{
	{"2024-11-05", mcp20241105.New, mcp20241105.Schema, &mcp20241105.AnnotatedAnnotations{Priority: ptr(2.0)}, "Annotated"},
	{"2025-03-26", mcp20250326.New, mcp20250326.Schema, &mcp20250326.Annotations{Priority: ptr(2.0)}, ""},
	{"2025-06-18", mcp20250618.New, mcp20250618.Schema, &mcp20250618.Annotations{Priority: ptr(2.0)}, ""},
	{"2025-11-25", mcp20251125.New, mcp20251125.Schema, &mcp20251125.Annotations{Priority: ptr(2.0)}, ""},
	{"2026-07-28", mcp20260728.New, mcp20260728.Schema, &mcp20260728.Annotations{Priority: ptr(2.0)}, ""},
}

func ptr[T any](v T) *T { return &v }

// annotations returns the definition, text and pointer of a test of the
// Annotations definition as r has it: unchanged, or inside the definition
// that spells the annotations inline.
func annotations(r string, def, text, pointer string) (string, string, string) {
	for _, c := range checkedRevisions {
		if c.name == r && c.annotatedIn != "" && def == "Annotations" {
			return c.annotatedIn, `{"annotations":` + text + `}`, "/annotations" + pointer
		}
	}
	return def, text, pointer
}

// TestDecodersCheckAssertions decodes values that break an assertion the
// keyword table marks as checked by the decoders (the priorities' minimum 0
// and maximum 1 in every revision; from 2026-07-28, at most 100 completion
// values and a ttlMs of at least 0): the typed decoder refuses each, at the
// pointer where validation against the schema finds the problem too.
func TestDecodersCheckAssertions(t *testing.T) {
	values := make([]string, 101)
	for i := range values {
		values[i] = `"v"`
	}
	tests := []struct {
		name, def, text string
		pointer, msg    string
		from            string // the first revision that has the assertion; "" for all
	}{
		{"maximum", "Annotations", `{"priority":1.5}`, "/priority", "1.5, want at most 1 (maximum)", ""},
		{"minimum", "Annotations", `{"audience":["user"],"priority":-0.25}`, "/priority", "-0.25, want at least 0 (minimum)", ""},
		{"in a union variant", "CallToolResult", `{"content":[{"type":"text","text":"x"},{"type":"text","text":"y","annotations":{"priority":2}}]}`, "/content/1/annotations/priority", "2, want at most 1 (maximum)", ""},
		{"model preferences", "ModelPreferences", `{"hints":[{"name":"claude"}],"speedPriority":1.01}`, "/speedPriority", "1.01, want at most 1 (maximum)", ""},
		{"in a request", "CreateMessageRequest", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10,"modelPreferences":{"costPriority":3}}}`, "/params/modelPreferences/costPriority", "3, want at most 1 (maximum)", ""},
		{"maxItems", "CompleteResult", `{"resultType":"complete","completion":{"values":[` + strings.Join(values, ",") + `]}}`, "/completion/values", "101 items, want at most 100 (maxItems)", "2026-07-28"},
		{"integer minimum", "ListToolsResult", `{"resultType":"complete","cacheScope":"public","tools":[],"ttlMs":-1}`, "/ttlMs", "-1, want at least 0 (minimum)", "2026-07-28"},
	}
	for _, r := range checkedRevisions {
		t.Run(r.name, func(t *testing.T) {
			v, err := validate.New(r.name, r.schema())
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range tests {
				if r.name < tt.from {
					continue
				}
				t.Run(tt.name, func(t *testing.T) {
					def, text, pointer := annotations(r.name, tt.def, tt.text, tt.pointer)
					codec, ok := r.new(def)
					if !ok {
						t.Fatalf("the package has no definition %s", def)
					}
					err := wire.Unmarshal([]byte(text), codec)
					var we *wire.Error
					if !errors.As(err, &we) {
						t.Fatalf("decoding %s: error %v, want a *wire.Error", text, err)
					}
					if we.Pointer != pointer || we.Msg != tt.msg {
						t.Errorf("decoding %s: error at %q: %q; want at %q: %q", text, we.Pointer, we.Msg, pointer, tt.msg)
					}
					found := false
					ps := v.Definition(def, []byte(text))
					for _, p := range ps {
						found = found || p.Pointer == pointer
					}
					if !found {
						t.Errorf("validation finds %v, nothing at %q: the decoder refuses what the schema allows", ps, pointer)
					}
				})
			}
		})
	}
}

// TestEncodersCheckAssertions checks that a Go program cannot send what the
// peer's strict decoder refuses, and can send the bounds themselves.
func TestEncodersCheckAssertions(t *testing.T) {
	t.Run("2026-07-28 completion values", func(t *testing.T) {
		res := &mcp20260728.CompleteResult{ResultType: "complete"}
		res.Completion.Values = make([]string, 100)
		if _, err := wire.Marshal(res); err != nil {
			t.Fatalf("encoding 100 values: %v", err)
		}
		res.Completion.Values = append(res.Completion.Values, "one too many")
		_, err := wire.Marshal(res)
		if want := "encode: CompleteResultCompletion.values: 101 items, want at most 100 (maxItems)"; err == nil || err.Error() != want {
			t.Errorf("encoding 101 values: error %v, want %q", err, want)
		}
	})
	for _, r := range checkedRevisions {
		t.Run(r.name, func(t *testing.T) {
			_, err := wire.Marshal(r.tooHigh)
			typ := reflect.TypeOf(r.tooHigh).Elem().Name()
			if want := "encode: " + typ + ".priority: 2, want at most 1 (maximum)"; err == nil || err.Error() != want {
				t.Errorf("encoding priority 2: error %v, want %q", err, want)
			}
			for _, text := range []string{`{"priority":0}`, `{"priority":1}`, `{"priority":0.5}`} {
				def, text, _ := annotations(r.name, "Annotations", text, "")
				codec, ok := r.new(def)
				if !ok {
					t.Fatalf("the package has no definition %s", def)
				}
				if out := roundTrip(t, codec, []byte(text)); string(out) != text {
					t.Errorf("round trip of %s gives %s", text, out)
				}
			}
		})
	}
}
