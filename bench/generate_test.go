package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/schema"
)

// revisions are every pinned revision.
var revisions = schema.Revisions()

// schemaPath returns the schema.json of rev: the repository's materialized
// copy, else the shared mirror beside the checkout.
func schemaPath(b *testing.B, rev string) string {
	root, err := schema.FindRoot(".")
	if err != nil {
		b.Fatal(err)
	}
	p := schema.Path(root, rev)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if m := schema.DefaultMirror(root); m != "" {
		if p := filepath.Join(m, rev, "schema.json"); fileExists(p) {
			return p
		}
	}
	b.Skipf("no schema for %s (run scripts/generate first)", rev)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// BenchmarkGenerate runs generator.Generate for every pinned revision per
// operation: ns/op is the wall time to generate everything (target ≤ 2 s).
func BenchmarkGenerate(b *testing.B) {
	b.Run("all/mcpgen", func(b *testing.B) {
		paths := make([]string, len(revisions))
		for i, rev := range revisions {
			paths[i] = schemaPath(b, rev)
		}
		b.ReportAllocs()
		var worst time.Duration
		for b.Loop() {
			start := time.Now()
			for i, rev := range revisions {
				files, err := generator.Generate(generator.Config{
					Revision:   rev,
					SchemaPath: paths[i],
					Package:    "mcp" + strings.ReplaceAll(rev, "-", ""),
				})
				if err != nil {
					b.Fatal(err)
				}
				if len(files) == 0 {
					b.Fatalf("%s: no files", rev)
				}
			}
			worst = max(worst, time.Since(start))
		}
		b.ReportMetric(worst.Seconds(), "worst-s")
	})
}
