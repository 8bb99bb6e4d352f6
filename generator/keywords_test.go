package generator_test

import (
	"encoding/json"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/load"
)

// keywordCases are the golden cases that exercise every assertion and
// annotation keyword of the table, with a test of what the generated codecs
// do with each (checks_test.go.txt).
var keywordCases = []string{"keywords", "keywords_2020_12"}

// TestKeywordCasesCoverTable keeps the keyword table true: each keyword
// case uses every assertion and annotation keyword (and an extension
// keyword), its test checks that the decoders refuse a value that breaks each
// assertion the table marks Decoder (the errors name the keyword), and that
// they accept one that breaks only an assertion left to validation.
func TestKeywordCasesCoverTable(t *testing.T) {
	for _, name := range keywordCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(repoRoot, "golden", "cases", name)
			b, err := os.ReadFile(filepath.Join(dir, "schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			var root map[string]any
			if err := json.Unmarshal(b, &root); err != nil {
				t.Fatal(err)
			}
			used := map[string]bool{}
			schemaKeywords(root, true, used)
			test, err := os.ReadFile(filepath.Join(dir, "checks_test.go.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range append(load.Keywords, load.ExtensionKeyword) {
				if k.Treatment != load.Assertion && k.Treatment != load.Annotation {
					continue
				}
				if k.Name == load.ExtensionKeyword.Name {
					if !used["x-"] {
						t.Errorf("schema.json uses no extension keyword x-…")
					}
					continue
				}
				if !used[k.Name] {
					t.Errorf("schema.json does not use the %s keyword %q", k.Treatment, k.Name)
				}
				switch {
				case k.Decoder && !strings.Contains(string(test), "("+k.Name+")"):
					t.Errorf("checks_test.go.txt has no error naming (%s), which the decoders check", k.Name)
				case k.Treatment == load.Assertion && !k.Decoder && !strings.Contains(string(test), k.Name+" is left to validation"):
					t.Errorf("checks_test.go.txt has no case %q", k.Name+" is left to validation")
				}
			}
		})
	}
}

// schemaKeywords records the keywords of the schema s and of its
// subschemas in used; top is the schema file's root. Every extension
// keyword counts as "x-".
func schemaKeywords(s any, top bool, used map[string]bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		if strings.HasPrefix(k, "x-") {
			used["x-"] = true
		} else {
			used[k] = true
		}
		switch k {
		case "properties", "definitions", "$defs":
			if k != "properties" && !top {
				continue
			}
			for _, sub := range v.(map[string]any) {
				schemaKeywords(sub, false, used)
			}
		case "items", "additionalProperties", "contentSchema":
			schemaKeywords(v, false, used)
		case "anyOf", "oneOf", "allOf":
			for _, sub := range v.([]any) {
				schemaKeywords(sub, false, used)
			}
		}
	}
}

// TestDeprecatedParagraphs checks that every "Deprecated:" the keyword cases'
// types get is a paragraph of its own, as gopls and staticcheck require to
// flag uses of the declaration or field.
func TestDeprecatedParagraphs(t *testing.T) {
	for _, name := range keywordCases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(repoRoot, "golden", "cases", name, "types.go.golden")
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			mentions, paragraphs := 0, 0
			for _, cg := range f.Comments {
				text := cg.Text()
				mentions += strings.Count(text, "Deprecated:")
				var p comment.Parser
				for _, b := range p.Parse(text).Content {
					para, ok := b.(*comment.Paragraph)
					if !ok || len(para.Text) == 0 {
						continue
					}
					if plain, ok := para.Text[0].(comment.Plain); ok && strings.HasPrefix(string(plain), "Deprecated: ") {
						paragraphs++
					}
				}
			}
			// Name, Level and Pick are deprecated, and the members Old and Label.
			if mentions != 5 || paragraphs != mentions {
				t.Errorf("%d mentions of Deprecated:, %d paragraphs starting with it; want 5 of each", mentions, paragraphs)
			}
		})
	}
}
