package toolschema

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

type forecastIn struct {
	City string `json:"city" description:"City name"`
	Days int    `json:"days" minimum:"1" maximum:"7" default:"3"`
	Unit string `json:"unit,omitempty" enum:"metric,imperial"`
}

type inner struct {
	When  time.Time `json:"when"`
	Level *int      `json:"level" enum:"1,2"`
}

type Embedded struct {
	Tag string `json:"tag,omitzero" format:"email"`
}

type everything struct {
	Embedded
	B     bool             `json:"b"`
	U     uint8            `json:"u"`
	F     float64          `json:"f,omitempty"`
	Bytes []byte           `json:"bytes,omitempty"`
	Tags  []string         `json:"tags" enum:"a,b"`
	Pair  [2]int           `json:"pair"`
	M     map[string]inner `json:"m,omitempty"`
	Raw   jsontext.Value   `json:"raw,omitempty"`
	Any   any              `json:"any,omitempty"`
	Name  string           // no tag: the Go name

	Skip   string            `json:"-"`
	hidden string            // unexported: not a member
	Opt    *string           `json:"opt"`
	Deeper map[string]string `json:"deeper,omitempty" description:"free-form"`
}

type recursive struct {
	Next *recursive `json:"next"`
}

var _ = everything{hidden: "never encoded"}

func TestFor(t *testing.T) {
	tests := []struct {
		name string
		got  func() (jsontext.Value, error)
		want string
	}{
		{"forecast", For[forecastIn], `{"additionalProperties":false,"properties":{"city":{"description":"City name","type":"string"},"days":{"default":3,"maximum":7,"minimum":1,"type":"integer"},"unit":{"enum":["metric","imperial"],"type":"string"}},"required":["city"],"type":"object"}`},
		{"scalar", For[string], `{"type":"string"}`},
		{"pointer", For[*int], `{"type":["integer","null"]}`},
		{"everything", For[everything], `{"additionalProperties":false,"properties":{"Name":{"type":"string"},"any":{},"b":{"type":"boolean"},"bytes":{"contentEncoding":"base64","type":"string"},"deeper":{"additionalProperties":{"type":"string"},"description":"free-form","type":"object"},"f":{"type":"number"},"m":{"additionalProperties":{"additionalProperties":false,"properties":{"level":{"enum":[1,2,null],"type":["integer","null"]},"when":{"format":"date-time","type":"string"}},"required":["when"],"type":"object"},"type":"object"},"opt":{"type":["string","null"]},"pair":{"items":{"type":"integer"},"maxItems":2,"minItems":2,"type":"array"},"raw":{},"tag":{"format":"email","type":"string"},"tags":{"items":{"enum":["a","b"],"type":"string"},"type":"array"},"u":{"minimum":0,"type":"integer"}},"required":["b","u","tags","pair","Name"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.got()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			if _, err := Compile(got); err != nil {
				t.Errorf("the inferred schema does not compile: %v", err)
			}
		})
	}
}

func TestForErrors(t *testing.T) {
	type badDefault struct {
		N int `json:"n" default:"x"`
	}
	type badBound struct {
		N int `json:"n" maximum:"seven"`
	}
	type badMap struct {
		M map[int]string `json:"m"`
	}
	type badKind struct {
		C chan int `json:"c"`
	}
	type wrongDefault struct {
		N int `json:"n" default:"\"3\""`
	}
	type badPattern struct {
		S string `json:"s" pattern:"(["`
	}
	type badLength struct {
		S string `json:"s" maxLength:"-1"`
	}
	tests := []struct {
		name string
		got  func() (jsontext.Value, error)
		want string
	}{
		{"recursive", For[recursive], "recursive types are not supported"},
		{"default not JSON", For[badDefault], "badDefault.N: default \"x\""},
		{"default of another type", For[wrongDefault], "is not a int"},
		{"bound", For[badBound], "maximum \"seven\" is not a JSON number"},
		{"pattern", For[badPattern], "badPattern.S: pattern \"([\""},
		{"length", For[badLength], "maxLength \"-1\" is not a non-negative integer"},
		{"map key", For[badMap], "a map key must be a string"},
		{"chan", For[badKind], "a chan has no JSON Schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.got()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestCompile(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		dialect string
		wantErr string
	}{
		{"no $schema is 2020-12", `{"type":"object"}`, Draft2020, ""},
		{"2020-12 declared", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, Draft2020, ""},
		{"draft-07 declared", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"a":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/a"}}}`, Draft07, ""},
		{"draft-07 without #", `{"$schema":"https://json-schema.org/draft-07/schema","type":"object"}`, Draft07, ""},
		{"draft-04 refused", `{"$schema":"http://json-schema.org/draft-04/schema#"}`, "", `/$schema: unsupported dialect "http://json-schema.org/draft-04/schema#"`},
		{"2019-09 refused", `{"$schema":"https://json-schema.org/draft/2019-09/schema"}`, "", `unsupported dialect "https://json-schema.org/draft/2019-09/schema"`},
		{"$schema not a string", `{"$schema":7}`, "", "unsupported dialect 7"},
		{"invalid in its dialect", `{"type":"objekt"}`, "", "/type: not valid in its dialect"},
		{"invalid in draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","required":"a"}`, "", "/required: not valid in its dialect"},
		{"network $ref never fetched", `{"$ref":"https://example.com/s.json"}`, "", "schemas are never fetched"},
		{"file $ref never fetched", `{"properties":{"a":{"$ref":"other.json"}}}`, "", "schemas are never fetched"},
		{"missing local $ref", `{"$ref":"#/$defs/nope"}`, "", "nope"},
		{"duplicate member", `{"type":"object","type":"string"}`, "", "not strict JSON"},
		{"not an object", `true`, "", "not a JSON object"},
		{"empty", ``, "", "empty"},
		{"too deep", strings.Repeat(`{"not":`, MaxDepth+1) + `{}` + strings.Repeat(`}`, MaxDepth+1), "", "nested more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.dialect, s.Dialect()); diff != "" {
				t.Errorf("dialect (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateFormatAsserted(t *testing.T) {
	for _, schema := range []string{
		`{"type":"string","format":"email"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`,
	} {
		s, err := Compile([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate([]byte(`"a@example.com"`)); err != nil {
			t.Errorf("%s: a valid email: %v", schema, err)
		}
		var ve *ValidationError
		if err := s.Validate([]byte(`"not an email"`)); !errors.As(err, &ve) || ve.Problems[0].Keyword != "format" {
			t.Errorf("%s: not an email: err = %v, want a format problem", schema, err)
		}
	}
}

func TestInputDecode(t *testing.T) {
	in, err := NewInput[forecastIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    string
		want    forecastIn
		wantErr string
	}{
		{"default applied", `{"city":"Oslo"}`, forecastIn{City: "Oslo", Days: 3}, ""},
		{"all given", `{"city":"Oslo","days":7,"unit":"metric"}`, forecastIn{City: "Oslo", Days: 7, Unit: "metric"}, ""},
		{"above maximum", `{"city":"Oslo","days":99}`, forecastIn{}, "/days: must be <= 7"},
		{"below minimum", `{"city":"Oslo","days":0}`, forecastIn{}, "/days: must be >= 1"},
		{"missing required", `{}`, forecastIn{}, "/city: required"},
		{"absent arguments", ``, forecastIn{}, "/city: required"},
		{"null arguments", `null`, forecastIn{}, "/city: required"},
		{"unknown member", `{"city":"Oslo","cty":"x"}`, forecastIn{}, "/cty: unknown member"},
		{"case differs", `{"City":"Oslo"}`, forecastIn{}, "/City: unknown member; /city: required"},
		{"wrong type", `{"city":5}`, forecastIn{}, "/city: expected string, but got number"},
		{"not in enum", `{"city":"Oslo","unit":"kelvin"}`, forecastIn{}, "/unit: value must be one of"},
		{"fraction", `{"city":"Oslo","days":2.5}`, forecastIn{}, "/days: expected integer"},
		{"duplicate member", `{"city":"Oslo","city":"Bergen"}`, forecastIn{}, "not strict JSON"},
		{"not an object", `[1]`, forecastIn{}, "/: expected object"},
		{"two values", `{} {}`, forecastIn{}, "more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := in.Decode([]byte(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// The string tags: pattern, minLength and maxLength are checked, on a
// field and on the elements of a list.
func TestInputStringTags(t *testing.T) {
	type in struct {
		ID   string   `json:"id" pattern:"^[0-9]+$"`
		Name string   `json:"name,omitempty" minLength:"2" maxLength:"4"`
		Tags []string `json:"tags,omitempty" pattern:"^[a-z]+$"`
	}
	input, err := NewInput[in](nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ args, wantErr string }{
		{`{"id":"42","name":"Ada","tags":["x"]}`, ""},
		{`{"id":"x"}`, "/id: does not match pattern"},
		{`{"id":"1","name":"A"}`, "/name: length must be >= 2"},
		{`{"id":"1","name":"Adaline"}`, "/name: length must be <= 4"},
		{`{"id":"1","tags":["ok","No"]}`, "/tags/1: does not match pattern"},
	} {
		_, err := input.Decode([]byte(tt.args))
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("Decode(%s) = %v, want %q", tt.args, err, tt.wantErr)
		}
	}
}

func TestInputHandWritten(t *testing.T) {
	type args struct {
		Q     string `json:"q"`
		Limit int    `json:"limit"`
		Opts  struct {
			Deep bool `json:"deep"`
		} `json:"opts"`
	}
	schema := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
		"properties":{"q":{"type":"string","minLength":1},"limit":{"type":"integer","default":10},
		"opts":{"type":"object","properties":{"deep":{"type":"boolean","default":true}}}},"required":["q"]}`
	in, err := NewInput[args]([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	got, err := in.Decode([]byte(`{"q":"x","opts":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := args{Q: "x", Limit: 10}
	want.Opts.Deep = true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if _, err := in.Decode([]byte(`{"q":""}`)); err == nil || !strings.Contains(err.Error(), "/q: length must be >= 1") {
		t.Errorf("empty q: err = %v", err)
	}
	// The schema allows members the Go type lacks: decoding refuses them.
	if _, err := in.Decode([]byte(`{"q":"x","extra":1}`)); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("extra member: err = %v", err)
	}
	if _, err := NewInput[args]([]byte(`{"type":"array"}`)); err == nil || !strings.Contains(err.Error(), `input schema: the top-level type is "array"; an MCP tool schema must have "type": "object"`) {
		t.Errorf("array input schema: err = %v", err)
	}
}

// An output schema may be of any type (2026-07-28 allows it); CheckObject
// says when it is not an object, for the revisions that require one. An
// input schema must always be an object.
func TestCheckObject(t *testing.T) {
	tests := []struct {
		name   string
		schema func() (*Schema, error)
		want   string // "" for an object
	}{
		{"slice", func() (*Schema, error) { o, err := NewOutput[[]string](nil); return schemaOf(o, err) }, `the top-level type is "array"`},
		{"int", func() (*Schema, error) { o, err := NewOutput[int](nil); return schemaOf(o, err) }, `the top-level type is "integer"`},
		{"no type", func() (*Schema, error) { return Compile([]byte(`{"properties":{}}`)) }, `no top-level "type"`},
		{"map", func() (*Schema, error) { o, err := NewOutput[map[string]int](nil); return schemaOf(o, err) }, ""},
		{"struct", func() (*Schema, error) { o, err := NewOutput[struct{ A int }](nil); return schemaOf(o, err) }, ""},
	}
	for _, tt := range tests {
		s, err := tt.schema()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		err = s.CheckObject()
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: CheckObject() = %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: CheckObject() = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := NewInput[int](nil); err == nil || !strings.Contains(err.Error(), `input schema: the top-level type is "integer"`) || !strings.Contains(err.Error(), "use a struct") {
		t.Errorf("NewInput[int]: err = %v", err)
	}
}

func schemaOf[T any](o *Output[T], err error) (*Schema, error) {
	if err != nil {
		return nil, err
	}
	return o.Schema(), nil
}

func TestOutputEncode(t *testing.T) {
	type result struct {
		City    string `json:"city"`
		Days    int    `json:"days" minimum:"1"`
		Summary string `json:"summary"`
	}
	out, err := NewOutput[result](nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := out.Encode(result{City: "Oslo", Days: 3, Summary: "sun"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"city":"Oslo","days":3,"summary":"sun"}`, string(got)); diff != "" {
		t.Errorf("encoded (-want +got):\n%s", diff)
	}
	if _, err := out.Encode(result{City: "Oslo"}); err == nil || !strings.Contains(err.Error(), "/days: must be >= 1") {
		t.Errorf("days 0: err = %v", err)
	}
}

func TestQuoted(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`'a'`, []string{"a"}},
		{`'a', 'b'`, []string{"a", "b"}},
		{`'it\'s', 'x"y', 'c, d'`, []string{"it's", `x"y`, "c, d"}},
		{`'unterminated`, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, quoted(tt.in)); diff != "" {
			t.Errorf("quoted(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// A field with a default is optional in what is decoded (the default fills
// it in) and required in what is encoded (its value is always written).
func TestOutputForDefaults(t *testing.T) {
	type T struct {
		Name string `json:"name"`
		Days int    `json:"days" default:"3"`
	}
	for _, tc := range []struct {
		name string
		get  func() (jsontext.Value, error)
		want []string
	}{
		{"input", For[T], []string{"name"}},
		{"output", OutputFor[T], []string{"name", "days"}},
	} {
		s, err := tc.get()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(s, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got.Required); diff != "" {
			t.Errorf("%s schema %s: required (-want +got):\n%s", tc.name, s, diff)
		}
	}
}
