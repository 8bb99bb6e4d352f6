package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/model"
)

func TestCompareChecks(t *testing.T) {
	i := func(n int64) *int64 { return &n }
	f := func(x float64) *float64 { return &x }
	typ := func(k model.TypeKind, c *model.Checks) *model.Type { return &model.Type{Kind: k, Checks: c} }
	str := func(c *model.Checks) *model.Type { return typ(model.String, c) }
	num := func(c *model.Checks) *model.Type { return typ(model.Number, c) }
	integer := func(c *model.Checks) *model.Type { return typ(model.Integer, c) }
	alias := func(target *model.Type) *model.Type {
		return &model.Type{Kind: model.Ref, Decl: &model.Decl{Name: "A", Kind: model.Alias, Target: target}}
	}
	tests := []struct {
		name string
		o, n *model.Type
		want checkChanges
	}{
		{"none", str(nil), str(nil), checkChanges{}},
		{"same", str(&model.Checks{MaxLength: i(3)}), str(&model.Checks{MaxLength: i(3)}), checkChanges{}},
		{"maxLength added", str(nil), str(&model.Checks{MaxLength: i(3)}), checkChanges{tightened: []string{"maxLength added (3)"}}},
		{"maxLength removed", str(&model.Checks{MaxLength: i(3)}), str(nil), checkChanges{loosened: []string{"maxLength removed (was 3)"}}},
		{"minLength 0 added is no change", str(nil), str(&model.Checks{MinLength: i(0)}), checkChanges{}},
		{"minLength raised", str(&model.Checks{MinLength: i(1)}), str(&model.Checks{MinLength: i(2)}), checkChanges{tightened: []string{"minLength 1 → 2"}}},
		{"minLength lowered", str(&model.Checks{MinLength: i(2)}), str(&model.Checks{MinLength: i(1)}), checkChanges{loosened: []string{"minLength 2 → 1"}}},
		{"pattern changed", str(&model.Checks{Pattern: "a"}), str(&model.Checks{Pattern: "b"}), checkChanges{changed: []string{`pattern "a" → "b"`}}},
		{"format is another rule's", str(&model.Checks{Format: "uri"}), str(nil), checkChanges{}},
		{"minimum raised", num(&model.Checks{Minimum: f(0)}), num(&model.Checks{Minimum: f(1)}), checkChanges{tightened: []string{"minimum 0 → 1"}}},
		{"minimum made exclusive", num(&model.Checks{Minimum: f(0)}), num(&model.Checks{ExclusiveMinimum: f(0)}), checkChanges{tightened: []string{"minimum 0 → exclusiveMinimum 0"}}},
		{"exclusive minimum made inclusive", num(&model.Checks{ExclusiveMinimum: f(0)}), num(&model.Checks{Minimum: f(0)}), checkChanges{loosened: []string{"exclusiveMinimum 0 → minimum 0"}}},
		{"exclusive below inclusive", num(&model.Checks{Minimum: f(1)}), num(&model.Checks{ExclusiveMinimum: f(0)}), checkChanges{loosened: []string{"minimum 1 → exclusiveMinimum 0"}}},
		{"the stricter of two lower bounds", num(&model.Checks{Minimum: f(0), ExclusiveMinimum: f(1)}), num(&model.Checks{ExclusiveMinimum: f(1)}), checkChanges{}},
		{"maximum lowered, minimum raised", integer(&model.Checks{Minimum: f(0), Maximum: f(10)}), integer(&model.Checks{Minimum: f(1), Maximum: f(5)}), checkChanges{tightened: []string{"minimum 0 → 1", "maximum 10 → 5"}}},
		{"maximum made exclusive", num(&model.Checks{Maximum: f(1)}), num(&model.Checks{ExclusiveMaximum: f(1)}), checkChanges{tightened: []string{"maximum 1 → exclusiveMaximum 1"}}},
		{"maximum raised", num(&model.Checks{Maximum: f(1)}), num(&model.Checks{Maximum: f(2)}), checkChanges{loosened: []string{"maximum 1 → 2"}}},
		{"maximum removed, minimum added", num(&model.Checks{Maximum: f(1)}), num(&model.Checks{Minimum: f(0)}), checkChanges{tightened: []string{"minimum added (0)"}, loosened: []string{"maximum removed (was 1)"}}},
		{"multipleOf multiplied", integer(&model.Checks{MultipleOf: f(2)}), integer(&model.Checks{MultipleOf: f(4)}), checkChanges{tightened: []string{"multipleOf 2 → 4"}}},
		{"multipleOf divided", num(&model.Checks{MultipleOf: f(0.5)}), num(&model.Checks{MultipleOf: f(0.25)}), checkChanges{loosened: []string{"multipleOf 0.5 → 0.25"}}},
		{"multipleOf neither", integer(&model.Checks{MultipleOf: f(2)}), integer(&model.Checks{MultipleOf: f(3)}), checkChanges{changed: []string{"multipleOf 2 → 3"}}},
		{"items and elements", &model.Type{Kind: model.Array, Checks: &model.Checks{MaxItems: i(100)}, Elem: str(nil)},
			&model.Type{Kind: model.Array, Checks: &model.Checks{MaxItems: i(50), UniqueItems: true}, Elem: str(&model.Checks{MinLength: i(1)})},
			checkChanges{tightened: []string{"maxItems 100 → 50", "uniqueItems added", "items minLength added (1)"}}},
		{"map values", &model.Type{Kind: model.Map, Checks: &model.Checks{MinProperties: i(1)}, Elem: integer(&model.Checks{Maximum: f(5)})},
			&model.Type{Kind: model.Map, Elem: integer(&model.Checks{Maximum: f(9)})},
			checkChanges{loosened: []string{"minProperties removed (was 1)", "values maximum 5 → 9"}}},
		{"through an alias", alias(str(&model.Checks{MaxLength: i(8)})), str(&model.Checks{MaxLength: i(4)}), checkChanges{tightened: []string{"maxLength 8 → 4"}}},
		{"another kind is field-retyped's", str(&model.Checks{MaxLength: i(8)}), integer(&model.Checks{Maximum: f(4)}), checkChanges{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compareChecks(tt.o, tt.n)
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(checkChanges{})); d != "" {
				t.Errorf("compareChecks (-want +got):\n%s", d)
			}
		})
	}
}
