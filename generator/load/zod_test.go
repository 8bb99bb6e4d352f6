package load

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/schematest"
)

// zodDoc wraps one definition X (and a definition Base) in a 2020-12 file.
func zodDoc(x string) []byte {
	return []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {
		"Base": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
		"X": ` + x + `}}`)
}

// TestZodLowering checks each construct of Zod's toJSONSchema dialect on a
// minimal definition: what it lowers to, or the error naming the keyword and
// its pointer when it is outside the vocabulary.
func TestZodLowering(t *testing.T) {
	const d = `"$schema": "https://json-schema.org/draft/2020-12/schema"`
	tests := []struct {
		name    string
		x       string
		check   func(t *testing.T, s *Schema)
		wantErr string
	}{{
		name: "$schema of the file's dialect on a definition is ignored",
		x:    `{` + d + `, "type": "string"}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.Types) != 1 || s.Types[0] != "string" || s.Shape != `{"type":"string"}` {
				t.Errorf("got types %v, shape %s", s.Types, s.Shape)
			}
		},
	}, {
		name:    "$schema of another dialect on a definition",
		x:       `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}`,
		wantErr: `#/$defs/X/$schema: keyword "$schema": dialect "http://json-schema.org/draft-07/schema#" differs`,
	}, {
		name:    "$schema below a definition",
		x:       `{"type": "object", "properties": {"p": {` + d + `, "type": "string"}}}`,
		wantErr: `#/$defs/X/properties/p/$schema: keyword "$schema" is only supported at the root`,
	}, {
		name: "additionalProperties not {} is false: a closed object",
		x:    `{"type": "object", "properties": {"p": {"type": "string"}}, "additionalProperties": {"not": {}}}`,
		check: func(t *testing.T, s *Schema) {
			if ap := s.AdditionalProperties; ap == nil || ap.Bool == nil || *ap.Bool {
				t.Errorf("additionalProperties = %+v, want false", ap)
			}
		},
	}, {
		name:    "not of something else",
		x:       `{"not": {"type": "string"}}`,
		wantErr: `#/$defs/X/not: keyword "not" is not supported`,
	}, {
		name:    "not next to another keyword",
		x:       `{"type": "object", "not": {}}`,
		wantErr: `#/$defs/X/not: keyword "not" is not supported`,
	}, {
		name: "propertyNames of strings is ignored",
		x:    `{"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}}`,
		check: func(t *testing.T, s *Schema) {
			if s.AdditionalProperties == nil || !s.AdditionalProperties.IsEmpty() {
				t.Errorf("additionalProperties = %+v, want {}", s.AdditionalProperties)
			}
		},
	}, {
		name:    "propertyNames with a pattern",
		x:       `{"type": "object", "propertyNames": {"type": "string", "pattern": "^a"}}`,
		wantErr: `#/$defs/X/propertyNames: keyword "propertyNames" is not supported`,
	}, {
		name: "anyOf of consts is an enum",
		x:    `{` + d + `, "anyOf": [{"type": "string", "const": "working"}, {"type": "string", "const": "failed"}]}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.AnyOf) != 0 || len(s.Types) != 1 || s.Types[0] != "string" || len(s.Enum) != 2 ||
				string(s.Enum[0]) != `"working"` || string(s.Enum[1]) != `"failed"` {
				t.Errorf("got anyOf %d, types %v, enum %q", len(s.AnyOf), s.Types, s.Enum)
			}
		},
	}, {
		name: "anyOf of consts of different types stays a union",
		x:    `{"anyOf": [{"type": "string", "const": "a"}, {"type": "integer", "const": 1}]}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.AnyOf) != 2 || len(s.Enum) != 0 {
				t.Errorf("got anyOf %d, enum %q", len(s.AnyOf), s.Enum)
			}
		},
	}, {
		name: "anyOf of a described const stays a union",
		x:    `{"anyOf": [{"type": "string", "const": "a", "description": "A."}, {"type": "string", "const": "b"}]}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.AnyOf) != 2 || len(s.Enum) != 0 {
				t.Errorf("got anyOf %d, enum %q", len(s.AnyOf), s.Enum)
			}
		},
	}, {
		name: "allOf of a $ref and an object is kept for flattening",
		x:    `{` + d + `, "allOf": [{"$ref": "#/$defs/Base"}, {"type": "object", "properties": {"b": {"type": "string"}}}]}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.AllOf) != 2 || s.AllOf[0].Ref != "Base" || len(s.AllOf[1].Properties) != 1 || len(s.AnyOf) != 0 {
				t.Errorf("got allOf %d, anyOf %d", len(s.AllOf), len(s.AnyOf))
			}
		},
	}, {
		name: "allOf of a $ref and a union distributes",
		x: `{"allOf": [{"$ref": "#/$defs/Base"}, {"anyOf": [
			{"type": "object", "properties": {"s": {"const": "x"}}},
			{"type": "object", "properties": {"s": {"const": "y"}}}]}]}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.AllOf) != 0 || len(s.AnyOf) != 2 {
				t.Fatalf("got allOf %d, anyOf %d, want 0 and 2", len(s.AllOf), len(s.AnyOf))
			}
			for i, v := range s.AnyOf {
				if len(v.AllOf) != 2 || v.AllOf[0].Ref != "Base" || v.AllOf[1].Pointer != v.Pointer {
					t.Errorf("variant %d: %+v", i, v)
				}
			}
			if s.AnyOf[1].Pointer != "#/$defs/X/allOf/1/anyOf/1" {
				t.Errorf("pointer %s", s.AnyOf[1].Pointer)
			}
		},
	}, {
		name:    "allOf of two unions",
		x:       `{"allOf": [{"anyOf": [{"type": "string"}]}, {"anyOf": [{"type": "string"}]}]}`,
		wantErr: `#/$defs/X/allOf/1: keyword "allOf": more than one part is a union`,
	}, {
		name:    "allOf of a union with other keywords",
		x:       `{"allOf": [{"$ref": "#/$defs/Base"}, {"type": "object", "anyOf": [{"type": "object"}]}]}`,
		wantErr: `#/$defs/X/allOf/1: keyword "allOf": a part that is a union`,
	}, {
		name: "anyOf integer or null with the JSON-safe bounds is read as is",
		x:    `{"anyOf": [{"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991}, {"type": "null"}]}`,
		check: func(t *testing.T, s *Schema) {
			if len(s.AnyOf) != 2 || s.AnyOf[0].Checks.Minimum == nil || *s.AnyOf[0].Checks.Minimum != -(1<<53-1) ||
				*s.AnyOf[0].Checks.Maximum != 1<<53-1 || s.AnyOf[1].Types[0] != "null" {
				t.Errorf("got %+v", s)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Bytes("x.json", zodDoc(tt.x))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			x, ok := doc.Lookup("X")
			if !ok {
				t.Fatal("no definition X")
			}
			tt.check(t, x.Schema)
		})
	}
}

// TestTasksExtension loads the Tasks extension schema and checks what its
// Zod dialect lowers to.
func TestTasksExtension(t *testing.T) {
	doc, err := File(schematest.Extension(t, "ext-tasks"))
	if err != nil {
		t.Fatal(err)
	}
	def := func(name string) *Schema {
		t.Helper()
		d, ok := doc.Lookup(name)
		if !ok {
			t.Fatalf("no definition %s", name)
		}
		return d.Schema
	}

	// tasks/get: a JSON-RPC request whose params hold a required taskId.
	get := def("GetTaskRequest")
	if len(get.AllOf) != 2 || get.AllOf[0].Ref != "JSONRPCRequest" {
		t.Fatalf("GetTaskRequest: allOf %+v", get.AllOf)
	}
	m, _ := get.AllOf[1].Property("method")
	p, _ := get.AllOf[1].Property("params")
	if m == nil || string(m.Const) != `"tasks/get"` || p == nil || !p.IsRequired("taskId") {
		t.Errorf("GetTaskRequest: method %+v, params %+v", m, p)
	}

	// Its result: Result's members and one of five task states, told apart
	// by the status constant.
	res := def("GetTaskResult")
	if len(res.AllOf) != 0 || len(res.AnyOf) != 5 {
		t.Fatalf("GetTaskResult: allOf %d, anyOf %d, want 0 and 5", len(res.AllOf), len(res.AnyOf))
	}
	var states []string
	for _, v := range res.AnyOf {
		// Result, the state, and {"resultType": "complete"}.
		if len(v.AllOf) != 3 || v.AllOf[0].Ref != "Result" || v.AllOf[2].Shape != `{"type":"object","properties":{"resultType":{"type":"string","const":"complete"}},"required":["resultType"]}` {
			t.Fatalf("GetTaskResult variant %s: allOf %+v", v.Pointer, v.AllOf)
		}
		st, _ := v.AllOf[1].Property("status")
		if st == nil {
			t.Fatalf("GetTaskResult variant %s: no status", v.Pointer)
		}
		states = append(states, string(st.Const))
		ttl, _ := v.AllOf[1].Property("ttlMs")
		if ttl == nil || len(ttl.AnyOf) != 2 || ttl.AnyOf[0].Types[0] != "integer" || ttl.AnyOf[1].Types[0] != "null" {
			t.Errorf("GetTaskResult variant %s: ttlMs %+v", v.Pointer, ttl)
		}
	}
	if got := strings.Join(states, " "); got != `"working" "input_required" "completed" "failed" "cancelled"` {
		t.Errorf("GetTaskResult states: %s", got)
	}

	// TaskStatus: an enum, and Task.status an inlined copy of it.
	status := def("TaskStatus")
	var values []string
	for _, v := range status.Enum {
		values = append(values, string(v))
	}
	if len(status.AnyOf) != 0 || len(status.Types) != 1 || status.Types[0] != "string" ||
		strings.Join(values, " ") != `"working" "input_required" "completed" "failed" "cancelled"` {
		t.Errorf("TaskStatus: types %v, enum %s, anyOf %d", status.Types, values, len(status.AnyOf))
	}
	if st, _ := def("Task").Property("status"); st == nil || st.Shape != status.Shape {
		t.Errorf("Task.status is not TaskStatus's shape")
	}

	// The capability object is closed.
	cap := def("TasksExtensionCapability")
	if ap := cap.AdditionalProperties; ap == nil || ap.Bool == nil || *ap.Bool || len(cap.Properties) != 0 {
		t.Errorf("TasksExtensionCapability: additionalProperties %+v", ap)
	}
}
