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
	if cfg.Extension != nil {
		return generateExtension(cfg)
	}
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
	return sorted(files), nil
}

func sorted(files []emit.File) []File {
	var out []File
	for _, f := range files {
		out = append(out, File{Name: f.Name, Content: f.Content})
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// generateExtension generates the package of the extension cfg.Extension.
func generateExtension(cfg Config) ([]File, error) {
	x := cfg.Extension
	if x.ID == "" {
		return nil, fmt.Errorf("generate the extension %s: no extension id given", cfg.SchemaPath)
	}
	p, err := ExtensionPlan(cfg.Revision, x.CoreSchemaPath, cfg.SchemaPath, x.ID)
	if err != nil {
		return nil, err
	}
	core := x.CorePackage
	if core == "" {
		core = shippedPackage(cfg.Revision)
	}
	source := "schema/" + filepath.Base(filepath.Dir(cfg.SchemaPath)) + "/" + filepath.Base(cfg.SchemaPath)
	files, err := emit.Emit(p, emit.Options{Package: cfg.Package, Source: source, Core: core})
	if err != nil {
		return nil, fmt.Errorf("generate the extension %s: %w", x.ID, err)
	}
	return sorted(files), nil
}

// ExtensionPlan loads the schema of the core revision core (corePath) and of
// the extension id (extPath), builds the extension's model
// (model.BuildExtension) and plans it.
func ExtensionPlan(core, corePath, extPath, id string) (*plan.Plan, error) {
	coreDoc, err := load.File(corePath)
	if err != nil {
		return nil, err
	}
	extDoc, err := load.File(extPath)
	if err != nil {
		return nil, err
	}
	m, err := model.BuildExtension(core, coreDoc, extDoc, id)
	if err != nil {
		return nil, err
	}
	return plan.Build(m)
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
