package model

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/internal/schematest"
)

// tasksDocs loads the core 2026-07-28 schema and the Tasks extension's, the
// latter with edit applied to its text first.
func tasksDocs(t *testing.T, edit func(string) string) (core, ext *load.Document) {
	t.Helper()
	core, err := load.Bytes("schema/2026-07-28/schema.json", schematest.Data(t, "2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	data := string(readFile(t, schematest.Extension(t, "ext-tasks")))
	if edit != nil {
		mutated := edit(data)
		if mutated == data {
			t.Fatal("the edit changed nothing: the schema is not what the test expects")
		}
		data = mutated
	}
	ext, err = load.Bytes("ext-tasks/schema.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return core, ext
}

// TestBuildExtension checks the model of the Tasks extension: every
// redefinition is the core's declaration, the extension's own are not
// external, and the methods and the widened tools/call.
func TestBuildExtension(t *testing.T) {
	core, ext := tasksDocs(t, nil)
	r, err := BuildExtension("2026-07-28", core, ext, "io.modelcontextprotocol/tasks")
	if err != nil {
		t.Fatal(err)
	}
	x := r.Extension
	if len(x.Redefined) != 56 {
		t.Errorf("%d redefinitions, want 56", len(x.Redefined))
	}
	for _, d := range x.Redefined {
		if !x.External[d] {
			t.Errorf("redefinition %s is not the core's declaration", d.Name)
		}
	}
	var own []string
	for _, d := range r.Decls {
		if !x.External[d] && !d.Anonymous {
			own = append(own, d.Name)
		}
	}
	// The 20 definitions of the extension, and the union of the answers of
	// the widened tools/call.
	if len(own) != 21 || own[len(own)-1] != "CallToolResults" {
		t.Errorf("own declarations %d: %v", len(own), own)
	}
	task := r.Lookup("Task")
	if f := task.Field("status"); f == nil || f.Type.Kind != Ref || f.Type.Decl != r.Lookup("TaskStatus") {
		t.Errorf("Task.status is not TaskStatus")
	}
	if f := task.Field("ttlMs"); f == nil || !f.Required || !f.Type.Nullable || f.Type.Kind != Integer {
		t.Errorf("Task.ttlMs: %+v", f)
	}
	for i, v := range r.Lookup("DetailedTask").Variants {
		want := []string{"WorkingTask", "InputRequiredTask", "CompletedTask", "FailedTask", "CancelledTask"}[i]
		if v.Decl.Name != want {
			t.Errorf("DetailedTask variant %d is %s, want %s", i, v.Decl.Name, want)
		}
		if g := r.Lookup("GetTaskResult").Variants[i].Decl.Name; g != "GetTaskResult"+want {
			t.Errorf("GetTaskResult variant %d is %s", i, g)
		}
	}
	if c := r.Lookup("TasksExtensionCapability"); c.Kind != Object || !c.Closed || len(c.Fields) != 0 {
		t.Errorf("TasksExtensionCapability: %v closed %v", c.Kind, c.Closed)
	}
	var methods []string
	for _, m := range r.Methods {
		res := ""
		if len(m.Results) > 0 {
			res = m.Results[0].Name
		}
		methods = append(methods, m.Name+" "+m.Kind.String()+" "+m.Direction.String()+" "+res)
	}
	want := "notifications/tasks notification server→client |tasks/cancel request client→server CancelTaskResult|tasks/get request client→server GetTaskResult|tasks/update request client→server UpdateTaskResult"
	if got := strings.Join(methods, "|"); got != want {
		t.Errorf("methods:\n got %s\nwant %s", got, want)
	}
	if len(x.Augmented) != 1 || x.Augmented[0].Name != "tools/call" || len(x.Augmented[0].Results) != 3 || x.Augmented[0].AnyResult.Name != "CallToolResults" {
		t.Errorf("augmented: %+v", x.Augmented)
	}
}

// TestRedefinitionDiffers checks that a redefinition whose shape differs
// from the core's is an error naming it, the path of the first difference
// and both shapes; and that a description alone is no difference.
func TestRedefinitionDiffers(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(string) string
		wantErr []string
	}{{
		name: "a member's type",
		edit: func(s string) string {
			return strings.Replace(s, `"The error type that occurred.",
          "type": "integer"`, `"The error type that occurred.",
          "type": "number"`, 1)
		},
		wantErr: []string{"#/$defs/Error", "core 2026-07-28 definition Error", "at /properties/code/type", `extension {"type":"number"}`, `core {"type":"integer"}`},
	}, {
		name: "a required member more",
		edit: func(s string) string {
			return strings.Replace(s, `"required": [
        "code",
        "message"
      ],`, `"required": [
        "code",
        "data",
        "message"
      ],`, 1)
		},
		wantErr: []string{"definition Error", "at /required"},
	}, {
		name: "a description only",
		edit: func(s string) string {
			return strings.Replace(s, `"The error type that occurred."`, `"What went wrong."`, 1)
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, ext := tasksDocs(t, tt.edit)
			_, err := BuildExtension("2026-07-28", core, ext, "io.modelcontextprotocol/tasks")
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var re *RedefinitionError
			if !errors.As(err, &re) || re.Name != "Error" {
				t.Fatalf("error %v, want a *RedefinitionError of Error", err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
