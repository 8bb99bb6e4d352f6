package toolschema

import (
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json"
)

// PromptArgument is one argument of a typed prompt, as a prompt lists it.
type PromptArgument struct {
	// Name is the argument's name: the field's json name.
	Name string
	// Description is the field's description tag, or "".
	Description string
	// Required is set for a field that is not a pointer, has neither
	// omitempty nor omitzero, and has no default.
	Required bool
}

// PromptArgs decodes the arguments of a prompt into In. MCP prompt
// arguments are strings, so In must be a struct whose fields are strings
// or pointers to strings; its struct tags are read as For reads them
// (json, description, enum, format, pattern, minLength, maxLength,
// default). It is safe for concurrent use.
type PromptArgs[In any] struct {
	args  []PromptArgument
	input *Input[In]
}

// NewPromptArgs returns the PromptArgs of In, or an error naming the field
// of In that is not a string.
func NewPromptArgs[In any]() (*PromptArgs[In], error) {
	t := reflect.TypeFor[In]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("prompt arguments: %s is not a struct", t)
	}
	var args []PromptArgument
	if err := promptFields(t, &args, map[reflect.Type]bool{t: true}); err != nil {
		return nil, err
	}
	in, err := NewInput[In](nil)
	if err != nil {
		return nil, fmt.Errorf("prompt arguments: %w", err)
	}
	props, _ := in.schema.doc["properties"].(map[string]any)
	for i, a := range args {
		p, _ := props[a.Name].(map[string]any)
		if _, ok := p["default"]; ok {
			args[i].Required = false
		}
	}
	return &PromptArgs[In]{args: args, input: in}, nil
}

// promptFields appends the arguments of struct t's fields, in order,
// flattening embedded structs as encoding/json does.
func promptFields(t reflect.Type, args *[]PromptArgument, seen map[reflect.Type]bool) error {
	return structFields(t, seen, func(owner reflect.Type, f reflect.StructField, name, opts string) error {
		ft, pointer := f.Type, f.Type.Kind() == reflect.Pointer
		if pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.String {
			return fmt.Errorf("prompt arguments: %s.%s has type %s; prompt arguments are strings", owner, f.Name, f.Type)
		}
		*args = append(*args, PromptArgument{
			Name:        name,
			Description: f.Tag.Get("description"),
			Required:    !pointer && !hasOption(opts, "omitempty") && !hasOption(opts, "omitzero"),
		})
		return nil
	})
}

// Arguments returns the prompt's arguments in the order of In's fields.
func (p *PromptArgs[In]) Arguments() []PromptArgument {
	return append([]PromptArgument(nil), p.args...)
}

// Decode checks a prompts/get call's arguments against In's schema
// (defaults filled in, unknown names refused, every tag's rule checked)
// and decodes them; an error lists what broke, as Input.Decode's does.
func (p *PromptArgs[In]) Decode(args map[string]string) (In, error) {
	b, err := json.Marshal(args, json.Deterministic(true))
	if err != nil {
		var zero In
		return zero, fmt.Errorf("arguments: %w", err)
	}
	return p.input.Decode(b)
}
