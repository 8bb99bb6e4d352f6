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
	tests := []struct {
		name      string
		data      map[string]any
		want, not []string
	}{
		{"legacy", map[string]any{"Package": "mcp", "Revision": "2025-03-26", "Source": "s", "SHA256": "x", "Methods": 24, "Batching": true, "Handshake": true, "Embedded": 0, "Errors": 0},
			[]string{"// Package mcp is the Model Context Protocol, revision 2025-03-26", "24 methods", "batches", "\npackage mcp\n"},
			[]string{"named errors", "no initialize", "embedded"}},
		{"stateless", map[string]any{"Package": "mcp", "Revision": "2026-07-28", "Source": "s", "SHA256": "x", "Methods": 21, "Batching": false, "Handshake": false, "Embedded": 3, "Errors": 8},
			[]string{"21 methods", "8 named errors", "no initialize handshake", "3 embedded requests", "\npackage mcp\n"},
			[]string{"batches"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.ExecuteTemplate(&b, "doc.go.tmpl", tc.data); err != nil {
				t.Fatal(err)
			}
			out := b.String() + "\n"
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, not := range tc.not {
				if strings.Contains(out, not) {
					t.Errorf("output has %q:\n%s", not, out)
				}
			}
		})
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
