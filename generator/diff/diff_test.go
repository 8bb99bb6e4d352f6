package diff_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/internal/schematest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const goldenDir = "../../golden/diff"

func build(t *testing.T, rev, path string) *model.Revision {
	t.Helper()
	doc, err := load.File(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Build(rev, doc)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkGolden compares got with the file path, or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s is out of date (-want +got; run go test -update):\n%s", path, d)
	}
}

// TestRules runs each rule's fixture, golden/diff/rules/<rule>/{previous,
// current}.json, and checks the exact findings in expected.txt; the fixture
// must exercise its own rule.
func TestRules(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join(goldenDir, "rules"))
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, d := range dirs {
		have = append(have, d.Name())
	}
	var ids []string
	for _, r := range diff.Rules() {
		ids = append(ids, r.ID)
		if !slices.Contains(have, r.ID) {
			t.Errorf("rule %s has no fixture in %s/rules", r.ID, goldenDir)
		}
	}
	for _, name := range have {
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(ids, name) {
				t.Fatalf("fixture for an unknown rule %q", name)
			}
			dir := filepath.Join(goldenDir, "rules", name)
			r := diff.Compare(build(t, "previous", filepath.Join(dir, "previous.json")), build(t, "current", filepath.Join(dir, "current.json")))
			if !slices.ContainsFunc(r.Changes, func(c *diff.Change) bool { return c.Rule == name }) {
				t.Errorf("the fixture does not exercise rule %s", name)
			}
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join(dir, "expected.txt"), b.String())
		})
	}
}

// TestRuleVerdicts pins the verdict table of the package comment.
func TestRuleVerdicts(t *testing.T) {
	for _, r := range diff.Rules() {
		if r.Group == "definitions" || r.Group == "capabilities" {
			if r.OldSender || r.NewSender {
				t.Errorf("%s: informational rules never break", r.ID)
			}
		}
	}
	var doc bytes.Buffer
	src, err := os.ReadFile("diff.go")
	if err != nil {
		t.Fatal(err)
	}
	doc.Write(src)
	for _, r := range diff.Rules() {
		if !strings.Contains(doc.String(), "//\t"+r.ID+" ") {
			t.Errorf("rule %s is missing from the table in the package comment", r.ID)
		}
	}
}

// realSchema returns the official schema of rev: the repository's
// materialized copy, or $MCPGEN_SCHEMA_MIRROR's (see schematest).
func realSchema(t *testing.T, rev string) string {
	t.Helper()
	return schematest.File(t, rev)
}

// maxReportLines keeps the committed reports readable. 2025-11-25 →
// 2026-07-28, the biggest change yet (about 190 findings), fits by folding:
// methods that come or go together, the same alternative result of
// several methods, the same retyping of several members, and _meta keys
// across the params that declare them; so the limit stays.
const maxReportLines = 70

// TestRealReports checks the committed reports between consecutive
// revisions, in text and markdown.
func TestRealReports(t *testing.T) {
	for _, p := range [][2]string{{"2024-11-05", "2025-03-26"}, {"2025-03-26", "2025-06-18"}, {"2025-06-18", "2025-11-25"}, {"2025-11-25", "2026-07-28"}} {
		t.Run(p[0]+"_"+p[1], func(t *testing.T) {
			r := diff.Compare(build(t, p[0], realSchema(t, p[0])), build(t, p[1], realSchema(t, p[1])))
			var text, md bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteMarkdown(&md); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(text.String(), "\n"); n > maxReportLines {
				t.Errorf("the text report has %d lines, more than %d: fold more", n, maxReportLines)
			}
			base := filepath.Join(goldenDir, p[0]+"_"+p[1])
			checkGolden(t, base+".txt", text.String())
			checkGolden(t, base+".md", md.String())
		})
	}
}

// TestNamedParams checks that the move from inline params to named *Params
// types in 2025-11-25 shows as renames, never as removals.
func TestNamedParams(t *testing.T) {
	r := diff.Compare(build(t, "2025-06-18", realSchema(t, "2025-06-18")), build(t, "2025-11-25", realSchema(t, "2025-11-25")))
	renamed := false
	for _, c := range r.Changes {
		switch {
		case c.Rule == "definition-removed", c.Rule == "method-removed", c.Rule == "notification-removed",
			strings.HasPrefix(c.Rule, "field-removed") && strings.HasSuffix(c.Subject, "RequestParams") && !strings.HasPrefix(c.Subject, "JSONRPC"),
			strings.HasPrefix(c.Rule, "field-removed") && strings.HasSuffix(c.Subject, "NotificationParams") && !strings.HasPrefix(c.Subject, "JSONRPC"):
			t.Errorf("spurious removal: %+v", *c)
		case c.Rule == "definition-renamed" && c.Subject == "CallToolRequestParams":
			renamed = c.Detail == "was inline CallToolRequest.params"
		case c.Rule == "definition-renamed" && c.Subject == "ResourceTemplateReference":
			t.Errorf("ResourceTemplateReference was renamed in 2025-06-18, not again: %+v", *c)
		}
	}
	if !renamed {
		t.Error("CallToolRequestParams is not reported as renamed from inline CallToolRequest.params")
	}
}

// TestVariantsByName checks that union variants are matched by
// discriminator, not by position: reordering them changes nothing.
func TestVariantsByName(t *testing.T) {
	dir := filepath.Join(goldenDir, "rules", "variant-added")
	prev := build(t, "previous", filepath.Join(dir, "previous.json"))
	cur := build(t, "current", filepath.Join(dir, "previous.json"))
	u := cur.Lookup("Content")
	slices.Reverse(u.Variants)
	if r := diff.Compare(prev, cur); len(r.Changes) != 0 {
		t.Errorf("reordered variants give changes: %+v", r.Changes)
	}
}

func TestJSONAndBreaking(t *testing.T) {
	dir := filepath.Join(goldenDir, "rules", "field-added-required")
	r := diff.Compare(build(t, "previous", filepath.Join(dir, "previous.json")), build(t, "current", filepath.Join(dir, "current.json")))
	j := r.ToJSON()
	if !r.Breaking() || j.Summary.BreakingOldClient != 1 || j.Summary.BreakingOldServer != 0 {
		t.Fatalf("a required request member added must break old clients only: %+v", j)
	}
	c := j.Changes[0]
	if c.Rule != "field-added-required" || c.Direction != "client→server" || c.OldClient != "breaking" || c.OldServer != "compatible" || c.Path != "things/get params" {
		t.Errorf("change = %+v", c)
	}
}

// TestModernChanges checks the findings that make 2026-07-28 what it is,
// with their verdicts, apart from how the report folds them.
func TestModernChanges(t *testing.T) {
	r := diff.Compare(build(t, "2025-11-25", realSchema(t, "2025-11-25")), build(t, "2026-07-28", realSchema(t, "2026-07-28")))
	type want struct {
		rule, subject, member string
		oldClient, oldServer  bool
	}
	for _, w := range []want{
		// Every request carries its version and capabilities in _meta:
		// old clients do not send them.
		{"field-added-required", "CallToolRequestParams", `_meta["io.modelcontextprotocol/protocolVersion"]`, true, false},
		{"field-added-required", "CallToolRequestParams", `_meta["io.modelcontextprotocol/clientCapabilities"]`, true, false},
		{"field-became-required", "CallToolRequestParams", "_meta", true, false},
		{"field-added-optional", "CallToolRequestParams", `_meta["io.modelcontextprotocol/clientInfo"]`, false, false},
		// The server asks inside results, whether or not the client asked.
		{"result-alternative-unasked", "tools/call", "InputRequiredResult", true, false},
		{"method-kind-changed", "elicitation/create", "", true, true},
		{"method-kind-changed", "roots/list", "", true, true},
		{"method-kind-changed", "sampling/createMessage", "", true, true},
		// Results say what they are, and may be cached.
		{"field-added-required", "CallToolResult", "resultType", false, true},
		{"field-added-required", "ListToolsResult", "cacheScope", false, true},
		{"method-added", "server/discover", "", false, true},
		{"method-removed", "initialize", "", true, false},
		{"notification-removed", "notifications/progress", "", false, false},
	} {
		i := slices.IndexFunc(r.Changes, func(c *diff.Change) bool {
			return c.Rule == w.rule && c.Subject == w.subject && c.Member == w.member
		})
		if i < 0 {
			t.Errorf("no %s on %s %s", w.rule, w.subject, w.member)
			continue
		}
		if c := r.Changes[i]; c.OldClient != w.oldClient || c.OldServer != w.oldServer {
			t.Errorf("%s on %s %s: breaks old clients %v, old servers %v; want %v, %v", w.rule, w.subject, w.member, c.OldClient, c.OldServer, w.oldClient, w.oldServer)
		}
	}
	// An inline enum is told by its values, wherever it is spelled.
	i := slices.IndexFunc(r.Changes, func(c *diff.Change) bool { return c.Subject == "ReadResourceResult" && c.Member == "cacheScope" })
	switch {
	case i < 0:
		t.Error("no change of ReadResourceResult.cacheScope")
	case r.Changes[i].Detail != `"private"|"public"`:
		t.Errorf("ReadResourceResult.cacheScope: detail %q, want its values", r.Changes[i].Detail)
	}
}
