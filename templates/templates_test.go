package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadBuiltin(t *testing.T) {
	tt, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	data := map[string]any{"Package": "mcp", "Revision": "2025-03-26", "Source": "s", "SHA256": "x", "Methods": 24, "Batching": true}
	if err := tt.ExecuteTemplate(&b, "doc.go.tmpl", data); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// Package mcp is the Model Context Protocol, revision 2025-03-26", "24 methods", "batches", "\npackage mcp\n"} {
		if !strings.Contains(b.String()+"\n", want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestLoadOverride(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.go.tmpl"), []byte("// Package {{.Package}} is ours.\npackage {{.Package}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tt, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tt.ExecuteTemplate(&b, "doc.go.tmpl", map[string]any{"Package": "p"}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "// Package p is ours.\npackage p\n" {
		t.Errorf("got %q", b.String())
	}
	// A template that does not parse is an error naming it.
	if err := os.WriteFile(filepath.Join(dir, "doc.go.tmpl"), []byte("{{.Package"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "doc.go.tmpl") {
		t.Errorf("Load of a broken template: err = %v", err)
	}
}
