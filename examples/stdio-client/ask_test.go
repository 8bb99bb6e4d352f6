package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

func ptr[T any](v T) *T { return &v }

func TestConvert(t *testing.T) {
	def := func(v mcp.PrimitiveSchemaDefinitionValue) mcp.PrimitiveSchemaDefinition {
		return mcp.PrimitiveSchemaDefinition{Value: v}
	}
	tests := []struct {
		name    string
		def     mcp.PrimitiveSchemaDefinition
		in      string
		want    mcp.ElicitResultContentValueValue
		wantErr string
	}{
		{"string", def(&mcp.StringSchema{}), "Ada", mcp.ElicitResultContentValueString("Ada"), ""},
		{"string too short", def(&mcp.StringSchema{MinLength: ptr[int64](4)}), "Ada", nil, "want at least 4 characters"},
		{"string too long", def(&mcp.StringSchema{MaxLength: ptr[int64](2)}), "Ada", nil, "want at most 2 characters"},
		{"integer", def(&mcp.NumberSchema{Type: mcp.NumberSchemaTypeInteger}), "42", mcp.ElicitResultContentValueInteger(42), ""},
		{"not a number", def(&mcp.NumberSchema{}), "many", nil, "want a whole number"},
		{"out of range", def(&mcp.NumberSchema{Minimum: ptr(1.0), Maximum: ptr(7.0)}), "8", nil, "want a number from 1 to 7"},
		{"yes", def(&mcp.BooleanSchema{}), "Yes", mcp.ElicitResultContentValueBoolean(true), ""},
		{"n", def(&mcp.BooleanSchema{}), "n", mcp.ElicitResultContentValueBoolean(false), ""},
		{"maybe", def(&mcp.BooleanSchema{}), "maybe", nil, "want yes or no"},
		{"enum", def(&mcp.UntitledSingleSelectEnumSchema{Enum: []string{"calm", "busy"}}), "busy", mcp.ElicitResultContentValueString("busy"), ""},
		{"not in enum", def(&mcp.UntitledSingleSelectEnumSchema{Enum: []string{"calm", "busy"}}), "loud", nil, "want one of calm, busy"},
		{"titled enum", def(&mcp.TitledSingleSelectEnumSchema{OneOf: []mcp.TitledSingleSelectEnumSchemaOneOfItem{{Const: "r", Title: "Red"}}}), "r", mcp.ElicitResultContentValueString("r"), ""},
		{"legacy enum", def(&mcp.LegacyTitledEnumSchema{Enum: []string{"a"}}), "b", nil, "want one of a"},
		{"multi", def(&mcp.UntitledMultiSelectEnumSchema{Items: mcp.UntitledMultiSelectEnumSchemaItems{Enum: []string{"a", "b", "c"}}}), "a, c", mcp.ElicitResultContentValueArray{"a", "c"}, ""},
		{"multi, one wrong", def(&mcp.TitledMultiSelectEnumSchema{Items: mcp.TitledMultiSelectEnumSchemaItems{AnyOf: []mcp.TitledMultiSelectEnumSchemaItemsAnyOfItem{{Const: "a", Title: "A"}}}}), "a,z", nil, `"z" is not one of a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convert(tt.def, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("convert(%q) = %v, %v; want error %q", tt.in, got.Value, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Value); diff != "" {
				t.Errorf("convert(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// The form is asked field by field, required fields first; a wrong answer
// is asked again, an empty one takes the default or skips the field.
func TestForm(t *testing.T) {
	form := &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message: "About you",
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
			Properties: map[string]mcp.PrimitiveSchemaDefinition{
				"name":  {Value: &mcp.StringSchema{Title: ptr("Your name")}},
				"age":   {Value: &mcp.NumberSchema{Type: mcp.NumberSchemaTypeInteger, Minimum: ptr(0.0)}},
				"style": {Value: &mcp.UntitledSingleSelectEnumSchema{Enum: []string{"calm", "busy"}, Default: ptr("calm")}},
				"notes": {Value: &mcp.StringSchema{}},
			},
			Required: []string{"name", "age"},
		},
	}}
	content := func(kv ...any) map[string]mcp.ElicitResultContentValue {
		m := map[string]mcp.ElicitResultContentValue{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = mcp.ElicitResultContentValue{Value: kv[i+1].(mcp.ElicitResultContentValueValue)}
		}
		return m
	}
	tests := []struct {
		name      string
		stdin     string
		answers   map[string]string
		noInput   bool
		want      *mcp.ElicitResult
		wantAsked []string // the prompts written, in order
	}{
		{
			name:  "typed",
			stdin: "Ada\nold\n36\n\n\n",
			want:  &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content("name", mcp.ElicitResultContentValueString("Ada"), "age", mcp.ElicitResultContentValueInteger(36), "style", mcp.ElicitResultContentValueString("calm"))},
			wantAsked: []string{"Your name (text): ", "age (a whole number): ", "age (a whole number): ",
				"notes (text, optional): ", "style (one of calm, busy, optional, default calm): "},
		},
		{
			name:    "from --answer",
			stdin:   "\nbusy\n",
			answers: map[string]string{"name": "Eve", "age": "7"},
			want:    &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content("name", mcp.ElicitResultContentValueString("Eve"), "age", mcp.ElicitResultContentValueInteger(7), "style", mcp.ElicitResultContentValueString("busy"))},
		},
		{
			name:    "no input, answered",
			answers: map[string]string{"name": "Eve", "age": "7"},
			noInput: true,
			want:    &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content("name", mcp.ElicitResultContentValueString("Eve"), "age", mcp.ElicitResultContentValueInteger(7), "style", mcp.ElicitResultContentValueString("calm"))},
		},
		{
			name:    "no input, a required field unanswered",
			answers: map[string]string{"name": "Eve"},
			noInput: true,
			want:    &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline},
		},
		{
			name:  "end of input",
			stdin: "Ada\n",
			want:  &mcp.ElicitResult{Action: mcp.ElicitResultActionCancel},
		},
		{
			name:  "three wrong answers",
			stdin: "Ada\nx\ny\nz\n",
			want:  &mcp.ElicitResult{Action: mcp.ElicitResultActionDecline},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			a := newAsker(strings.NewReader(tt.stdin), &out, tt.answers, tt.noInput)
			got, err := a.Elicit(context.Background(), form)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s\noutput:\n%s", diff, out.String())
			}
			if !strings.Contains(out.String(), "The server asks: About you") {
				t.Errorf("output %q lacks the question", out.String())
			}
			if tt.noInput && strings.Contains(out.String(), "Your name (text): ") {
				t.Errorf("--no-input prompted:\n%s", out.String())
			}
			rest := out.String()
			for _, p := range tt.wantAsked {
				i := strings.Index(rest, p)
				if i < 0 {
					t.Fatalf("the prompt %q is missing, or out of order, in:\n%s", p, out.String())
				}
				rest = rest[i+len(p):]
			}
		})
	}
}

// A URL question is shown and accepted once the user presses Enter;
// --no-input declines it.
func TestURLQuestion(t *testing.T) {
	q := &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestURLParams{Message: "Log in", URL: "https://example.com/login"}}
	for _, tt := range []struct {
		noInput bool
		stdin   string
		want    mcp.ElicitResultAction
	}{
		{false, "\n", mcp.ElicitResultActionAccept},
		{false, "", mcp.ElicitResultActionCancel},
		{true, "\n", mcp.ElicitResultActionDecline},
	} {
		var out bytes.Buffer
		got, err := newAsker(strings.NewReader(tt.stdin), &out, nil, tt.noInput).Elicit(context.Background(), q)
		if err != nil || got.Action != tt.want {
			t.Errorf("no-input %v, stdin %q: %+v, %v; want %s", tt.noInput, tt.stdin, got, err, tt.want)
		}
		if !strings.Contains(out.String(), "https://example.com/login") {
			t.Errorf("the URL was not shown: %q", out.String())
		}
	}
}
