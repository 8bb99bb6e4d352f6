package toolschema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPromptArgs(t *testing.T) {
	type Base struct {
		Lang string `json:"lang,omitempty" enum:"en,fr" default:"en"`
	}
	type trip struct {
		City  string  `json:"city" description:"where to go"`
		Month *string `json:"month"`
		Base
		Style string `json:"style" default:"calm"`
	}
	p, err := NewPromptArgs[trip]()
	if err != nil {
		t.Fatal(err)
	}
	want := []PromptArgument{
		{Name: "city", Description: "where to go", Required: true},
		{Name: "month"},
		{Name: "lang"},
		{Name: "style"},
	}
	if d := cmp.Diff(want, p.Arguments()); d != "" {
		t.Errorf("Arguments (-want +got):\n%s", d)
	}
	got, err := p.Decode(map[string]string{"city": "Oslo"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(trip{City: "Oslo", Base: Base{Lang: "en"}, Style: "calm"}, got); d != "" {
		t.Errorf("Decode (-want +got):\n%s", d)
	}
	for args, wantErr := range map[string]string{
		`city=`:                "",
		`month=may`:            "/city: required",
		`city=Oslo lang=de`:    "/lang: value must be one of",
		`city=Oslo unknown=1`:  "unknown",
		`city=Oslo month=June`: "",
	} {
		m := map[string]string{}
		for kv := range strings.FieldsSeq(args) {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		_, err := p.Decode(m)
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("Decode(%s) = %v, want %q", args, err, wantErr)
		}
	}
}

func TestPromptArgsRefused(t *testing.T) {
	type days struct {
		Days int `json:"days"`
	}
	if _, err := NewPromptArgs[days](); err == nil || !strings.Contains(err.Error(), "toolschema.days.Days has type int; prompt arguments are strings") {
		t.Errorf("int field: err = %v", err)
	}
	if _, err := NewPromptArgs[string](); err == nil || !strings.Contains(err.Error(), "is not a struct") {
		t.Errorf("string: err = %v", err)
	}
}

// A prompt argument's pattern and lengths are checked as a tool's are.
func TestPromptArgsStringTags(t *testing.T) {
	type note struct {
		ID string `json:"id" pattern:"^[0-9]+$" maxLength:"3"`
	}
	p, err := NewPromptArgs[note]()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Decode(map[string]string{"id": "42"}); err != nil {
		t.Errorf("Decode(42) = %v", err)
	}
	for id, want := range map[string]string{"x": "/id: does not match pattern", "1234": "/id: length must be <= 3"} {
		if _, err := p.Decode(map[string]string{"id": id}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", id, err, want)
		}
	}
}
