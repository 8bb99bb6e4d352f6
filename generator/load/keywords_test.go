package load_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator/load"
)

var update = flag.Bool("update", false, "rewrite the keyword table in docs/schema-keywords.md")

// keywordDoc is the documentation page whose table is load.KeywordTable().
var keywordDoc = filepath.Join("..", "..", "docs", "schema-keywords.md")

const (
	tableBegin = "<!-- keyword table: begin -->\n"
	tableEnd   = "<!-- keyword table: end -->\n"
)

// TestKeywordDoc checks that the table of docs/schema-keywords.md is the
// keyword table; -update rewrites it.
func TestKeywordDoc(t *testing.T) {
	b, err := os.ReadFile(keywordDoc)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	before, rest, ok := strings.Cut(page, tableBegin)
	if !ok {
		t.Fatalf("%s has no line %q", keywordDoc, strings.TrimSpace(tableBegin))
	}
	_, after, ok := strings.Cut(rest, tableEnd)
	if !ok {
		t.Fatalf("%s has no line %q after the table", keywordDoc, strings.TrimSpace(tableEnd))
	}
	want := before + tableBegin + load.KeywordTable() + tableEnd + after
	if *update {
		if err := os.WriteFile(keywordDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := cmp.Diff(strings.SplitAfter(want, "\n"), strings.SplitAfter(page, "\n")); d != "" {
		t.Errorf("%s is out of date (-want +got; run go test ./generator/load -update):\n%s", keywordDoc, d)
	}
}

// TestKeywordTable checks the table's own consistency: one entry per name,
// Decoder only on assertions, Doc only on annotations, a reason for each.
func TestKeywordTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range append(load.Keywords, load.ExtensionKeyword) {
		switch {
		case seen[k.Name]:
			t.Errorf("%s: listed twice", k.Name)
		case k.Decoder && k.Treatment != load.Assertion:
			t.Errorf("%s: Decoder on a %s", k.Name, k.Treatment)
		case k.Doc && k.Treatment != load.Annotation:
			t.Errorf("%s: Doc on a %s", k.Name, k.Treatment)
		case k.Why == "":
			t.Errorf("%s: no reason", k.Name)
		}
		seen[k.Name] = true
		got, ok := load.LookupKeyword(k.Name)
		if k.Name == load.ExtensionKeyword.Name {
			got, ok = load.LookupKeyword("x-mcp-header")
			got.Name = k.Name
		}
		if !ok || got != k {
			t.Errorf("LookupKeyword(%q) = %+v, %v; want %+v", k.Name, got, ok, k)
		}
	}
	if _, ok := load.LookupKeyword("minimun"); ok {
		t.Error(`LookupKeyword("minimun") succeeds; want a misspelling refused`)
	}
}
