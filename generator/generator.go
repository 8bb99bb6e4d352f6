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
	// Extension, when set, makes SchemaPath the schema of an extension bound
	// to Revision, its core revision: the output is the extension's package
	// (see Extension).
	Extension *Extension
}

// Extension says what an extension's package is bound to. Its schema's
// definitions that the core schema also defines must have the same shape
// there (descriptions aside) and are the core package's types; the others
// are generated, with the extension's methods and the core methods whose
// results it widens.
type Extension struct {
	// ID is the extension's identifier, such as
	// "io.modelcontextprotocol/tasks".
	ID string
	// CoreSchemaPath is the schema file of the core revision.
	CoreSchemaPath string
	// CorePackage is the import path of the core revision's package; ""
	// means the one mcpgen ships, such as
	// github.com/mcpgen/mcpgen/protocol/mcp20260728.
	CorePackage string
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
