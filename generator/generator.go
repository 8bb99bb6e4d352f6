// Package generator turns an MCP revision's JSON Schema into a Go package.
//
// The pipeline is load → model → plan → emit (see DESIGN.md). Generate runs all
// of it; the stages live in the sub-packages load, model, plan and emit.
package generator

// Config says what to generate.
type Config struct {
	// Revision is the protocol revision, such as "2025-06-18".
	Revision string
	// SchemaPath is the schema.json file to read.
	SchemaPath string
	// Package is the Go package name of the output, such as "mcp20250618".
	Package string
	// Templates is a directory whose templates replace the built-in ones of
	// package templates, file by file; "" uses the built-in ones.
	Templates string
}

// File is one generated Go file.
type File struct {
	// Name is the base name, such as "types.go".
	Name string
	// Content is gofmt-clean Go source.
	Content []byte
}

// Generate reads cfg.SchemaPath and returns the generated files, sorted by name.
// The output is deterministic: the same input gives byte-identical files.
func Generate(cfg Config) ([]File, error) {
	return generate(cfg)
}
