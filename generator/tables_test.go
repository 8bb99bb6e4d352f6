package generator_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/schema"
)

// TestHandTablesUsed builds every pinned revision and checks that each entry
// of the hand tables (model: raw members, result rules, gates; plan: union
// overrides) applies to at least one of them. An entry applies only where its
// names exist, so a revision never fails for lacking an entry's subject; an
// entry no known revision uses is dead and must go.
func TestHandTablesUsed(t *testing.T) {
	var revs []*model.Revision
	var plans []*plan.Plan
	for _, rev := range schema.Revisions() {
		doc, err := load.Bytes("schema/"+rev+"/schema.json", officialSchema(t, rev))
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.Build(rev, doc)
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Build(m)
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, m)
		plans = append(plans, p)
	}
	// The extensions' models use the table of extra results.
	for _, name := range schema.Extensions() {
		pin, err := schema.LookupExtension(name)
		if err != nil {
			t.Fatal(err)
		}
		core, err := load.Bytes("schema/"+pin.Core+"/schema.json", officialSchema(t, pin.Core))
		if err != nil {
			t.Fatal(err)
		}
		ext, err := load.File(schematest.Extension(t, name))
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.BuildExtension(pin.Core, core, ext, pin.ID)
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, m)
	}
	if len(revs) < 4 {
		t.Fatalf("pinned revisions = %v, want at least the four official ones", schema.Revisions())
	}
	if diff := cmp.Diff([]string(nil), model.UnusedTableEntries(revs...)); diff != "" {
		t.Errorf("model table entries no pinned revision uses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), plan.UnusedOverrides(plans...)); diff != "" {
		t.Errorf("union overrides no pinned revision uses (-want +got):\n%s", diff)
	}
	// And the check itself sees an unused entry: the newest revision alone
	// has no tasks, no ping, no batches.
	newest := revs[len(schema.Revisions())-1]
	if unused := model.UnusedTableEntries(newest); len(unused) == 0 {
		t.Errorf("UnusedTableEntries(%s) is empty; the model tables name methods that revision lacks, so it cannot be", newest.Name)
	}
	if unused := plan.UnusedOverrides(plans[0]); len(unused) == 0 {
		t.Errorf("UnusedOverrides(%s) is empty; it cannot use the 2025-11-25 enum schema entries", plans[0].Rev.Name)
	}
}
