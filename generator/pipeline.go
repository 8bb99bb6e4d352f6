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
	files, err := emit.Emit(p, emit.Options{Package: cfg.Package, Source: "schema/" + cfg.Revision + "/" + filepath.Base(cfg.SchemaPath), Templates: tmpl})
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
