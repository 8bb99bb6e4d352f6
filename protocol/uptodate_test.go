package protocol_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/internal/schematest"
	"github.com/mcpgen/mcpgen/schema"
)

// TestUpToDate regenerates every committed revision package, and every
// extension package (protocol/ext/<name>), and compares it byte for byte
// with what is committed.
func TestUpToDate(t *testing.T) {
	root, err := schema.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range schema.Revisions() {
		t.Run(rev, func(t *testing.T) {
			path := schematest.File(t, rev)
			pkg := "mcp" + strings.ReplaceAll(rev, "-", "")
			files, err := generator.Generate(generator.Config{Revision: rev, SchemaPath: path, Package: pkg})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "protocol", pkg)
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(dir, f.Name))
				if err != nil {
					t.Fatalf("%v (run `go generate ./protocol/...`)", err)
				}
				if diff := cmp.Diff(string(f.Content), string(got)); diff != "" {
					t.Errorf("%s/%s is stale; run `go generate ./protocol/...` (-fresh +committed):\n%s", pkg, f.Name, diff)
				}
			}
		})
	}
	for _, name := range schema.Extensions() {
		t.Run(name, func(t *testing.T) {
			pin, err := schema.LookupExtension(name)
			if err != nil {
				t.Fatal(err)
			}
			pkg := strings.TrimPrefix(name, "ext-")
			files, err := generator.Generate(generator.Config{
				Revision:   pin.Core,
				SchemaPath: schematest.Extension(t, name),
				Package:    pkg,
				Extension:  &generator.Extension{ID: pin.ID, CoreSchemaPath: schematest.File(t, pin.Core)},
			})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "protocol", "ext", pkg)
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(dir, f.Name))
				if err != nil {
					t.Fatalf("%v (run `go generate ./protocol/...`)", err)
				}
				if diff := cmp.Diff(string(f.Content), string(got)); diff != "" {
					t.Errorf("ext/%s/%s is stale; run `go generate ./protocol/...` (-fresh +committed):\n%s", pkg, f.Name, diff)
				}
			}
		})
	}
}
