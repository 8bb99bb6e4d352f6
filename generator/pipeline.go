package generator

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/templates"
)

func generate(cfg Config) ([]File, error) {
	doc, err := load.File(cfg.SchemaPath)
	if err != nil {
		return nil, err
	}
	m, err := model.Build(cfg.Revision, doc)
	if err != nil {
		return nil, err
	}
	p, err := plan.Build(m)
	if err != nil {
		return nil, err
	}
	tmpl, err := templates.Load(cfg.Templates)
	if err != nil {
		return nil, err
	}
	files, err := emit.Emit(p, emit.Options{Package: cfg.Package, Source: "schema/" + cfg.Revision + "/" + filepath.Base(cfg.SchemaPath), Templates: tmpl, Links: links(cfg.Revision)})
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", cfg.Revision, err)
	}
	var out []File
	for _, f := range files {
		out = append(out, File{Name: f.Name, Content: f.Content})
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// shippedPackage is the import path of the package mcpgen ships for
// revision rev, such as github.com/mcpgen/mcpgen/protocol/mcp20251125.
func shippedPackage(rev string) string {
	return schema.ModulePath + "/protocol/mcp" + strings.ReplaceAll(rev, "-", "")
}

// links returns the packages a package of revision rev links (see
// emit.Options.Links): those mcpgen ships, one per pinned revision, of the
// revisions before rev. The package of a stateless revision, whether in
// this module or generated into another, thus links the initialize era;
// emit ignores them for a revision with initialize.
func links(rev string) []string {
	var out []string
	for _, r := range schema.Revisions() {
		if r < rev {
			out = append(out, shippedPackage(r))
		}
	}
	return out
}
