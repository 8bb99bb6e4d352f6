// Package templates holds the text templates for the file-level scaffolding
// of generated packages, such as the package documentation. Data-driven Go
// code is built with jennifer, not templates; these are the parts a user may
// want to word differently, and `mcpgen generate --templates DIR` overrides
// them file by file.
package templates

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"text/template"
)

//go:embed *.tmpl
var builtin embed.FS

// Names are the templates of a generated package.
var Names = []string{"client.go.tmpl", "doc.go.tmpl", "modern_server.go.tmpl", "server.go.tmpl", "tools.go.tmpl"}

// Init is the template of the go:generate stub that mcpgen init writes;
// see Read.
const Init = "init.go.tmpl"

// Read returns the text of the template name: the file of that name in dir
// when dir is not "" and has it, else the built-in one.
func Read(dir, name string) ([]byte, error) {
	if dir != "" {
		b, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case err == nil:
			return b, nil
		case !os.IsNotExist(err):
			return nil, fmt.Errorf("templates: %w", err)
		}
	}
	b, err := builtin.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	return b, nil
}

// Load returns the templates: the built-in ones, each replaced by the file of
// the same name in dir when dir is not "" and has it.
func Load(dir string) (*template.Template, error) {
	root := template.New("templates").Option("missingkey=error")
	for _, name := range Names {
		text, err := Read(dir, name)
		if err != nil {
			return nil, err
		}
		if _, err := root.New(name).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("templates: %s: %w", name, err)
		}
	}
	return root, nil
}
