package validate_test

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/validate"
)

// brokenSchemas are schema documents jsonschema/v5 cannot compile. Before
// New compiled eagerly, the first definition compiled reported the error
// and the next one panicked (santhosh-tekuri/jsonschema#91).
var brokenSchemas = []struct {
	name   string
	schema string
	want   []string // substrings of the error: where, which keyword, why
}{
	{"missing $ref target", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"type":"object"},"B":{"type":"object","properties":{"x":{"$ref":"#/definitions/Missing"}}},"C":{"type":"string"}}}`,
		[]string{"#/definitions/B/properties/x/$ref", `keyword "$ref"`, "#/definitions/Missing", "not in the schema"}},
	{"bad regex", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"type":"object"},"B":{"type":"string","pattern":"(["},"C":{"type":"string"}}}`,
		[]string{"#/definitions/B/pattern", `keyword "pattern"`, "regex"}},
	{"bad type 2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"A":{"type":"object"},"B":{"type":"strin"},"C":{"type":"string"}}}`,
		[]string{"#/$defs/B/type", `keyword "type"`}},
	{"ref outside", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"$ref":"https://example.com/x.json"}}}`,
		[]string{"#/definitions/A", "https://example.com/x.json", "not allowed"}},
}

// TestBrokenSchema checks that a schema that does not compile is an error
// of New naming the place and keyword, every time, and never a panic.
func TestBrokenSchema(t *testing.T) {
	for _, tt := range brokenSchemas {
		t.Run(tt.name, func(t *testing.T) {
			for try := range 2 { // a failed compilation is not cached half done
				v, err := validate.New("2025-06-18", []byte(tt.schema))
				if err == nil {
					// Before the fix: New succeeds, every definition is
					// compiled on first use, and the second one panics.
					for _, d := range []string{"A", "B", "C"} {
						t.Errorf("try %d: New succeeded; Definition(%s) = %v", try, d, v.Definition(d, []byte(`"x"`)))
					}
					return
				}
				msg := err.Error()
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("try %d: error %q does not contain %q", try, msg, w)
					}
				}
				if strings.Contains(msg, "\n") {
					t.Errorf("try %d: error %q is not one line", try, msg)
				}
			}
		})
	}
}
