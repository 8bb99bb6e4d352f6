package validate_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/validate"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// TestFixedResultType checks the resultType rule for a result that fixes its
// own resultType, as an extension's does (the Tasks extension's
// CreateTaskResult, "task", added to tools/call): the core's schema with a
// definition DeferredResult (allOf Result and resultType "deferred") added,
// and tools/call answering it too.
func TestFixedResultType(t *testing.T) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(mcp20260728.Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	var defs map[string]json.RawMessage
	if err := json.Unmarshal(doc["$defs"], &defs); err != nil {
		t.Fatal(err)
	}
	defs["DeferredResult"] = json.RawMessage(`{"allOf":[{"$ref":"#/$defs/Result"},{"type":"object","properties":{"resultType":{"type":"string","const":"deferred"},"ticket":{"type":"integer"}},"required":["resultType","ticket"]}]}`)
	b, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	doc["$defs"] = b
	schema, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	methods := mcp20260728.Methods()
	i := slices.IndexFunc(methods, func(m wire.Method) bool { return m.Name == "tools/call" })
	methods[i].Results = append(slices.Clone(methods[i].Results), "DeferredResult")
	v, err := validate.New(mcp20260728.Revision, schema, validate.WithMethods(methods))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		result string
		want   []problem
	}{
		{"the fixed value selects its result", `{"resultType":"deferred","ticket":7}`, nil},
		{"which is checked", `{"resultType":"deferred","ticket":"7"}`, []problem{{1, "/result/ticket", validate.RuleSchema, "expected integer"}}},
		{"complete is still the method's result", `{"resultType":"complete","ticket":7}`, []problem{{1, "/result", validate.RuleSchema, "content"}}},
		{"another value names what may answer", `{"resultType":"later","ticket":7}`, []problem{{1, "/result/resultType", validate.RuleResult, `unknown resultType "later": want "complete", "input_required", "deferred"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := v.Stream()
			var got []problem
			for _, p := range []string{modernCall, `{"jsonrpc":"2.0","id":2,"result":` + tt.result + `}`} {
				for _, r := range s.Payload([]byte(p), 0, validate.AnySide) {
					for _, pr := range r.Problems {
						got = append(got, problem{r.Index, pr.Pointer, pr.Rule, pr.Reason})
					}
				}
			}
			ok := len(got) == len(tt.want)
			for i := 0; ok && i < len(got); i++ {
				w, g := tt.want[i], got[i]
				ok = w.index == g.index && w.pointer == g.pointer && w.rule == g.rule && strings.Contains(g.reason, w.reason)
			}
			if !ok {
				t.Errorf("problems %+v, want %+v", got, tt.want)
			}
		})
	}
}
