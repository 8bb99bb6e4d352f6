package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpgen/mcpgen/schema"
)

var schemaCmd = &command{
	name:    "schema",
	summary: "materialize the pinned schema files, verifying their sha256",
	run:     runSchema,
}

const schemaSynopsis = "mcpgen schema [--revision R ...] [--extension NAME ...] [--mirror DIR] [--offline]"

const schemaDescription = `
Schema writes schema/<rev>/schema.json in the repository for each pinned
revision, verifying the sha256 recorded in schema/<rev>/pin.json, and
schema/<name>/schema.json for each pinned extension schema (such as
ext-tasks, the Tasks extension, bound to its core revision). The bytes
come from the mirror directory if it has the file, else from the file already
there if its sha256 is right, else from the pinned official URL.

The mirror directory, laid out <rev>/schema.json (and <name>/schema.json),
is --mirror DIR, else $MCPGEN_SCHEMA_MIRROR, else ../shared/schema beside
the repository if that exists. Without network access, point either at a copy of the files:

	MCPGEN_SCHEMA_MIRROR=/path/to/schemas go run ./cmd/mcpgen schema

Exit status: 0 when every revision was materialized, 1 when one was not, 2
for bad usage (an unknown revision, a --mirror or $MCPGEN_SCHEMA_MIRROR that
is not a directory).`

// schemaFlags are the flags of mcpgen schema.
type schemaFlags struct {
	revisions  []string
	extensions []string
	mirror     string
	offline    bool
}

func runSchema(e *env, args []string) int {
	var f schemaFlags
	fset := newFlagSet("schema")
	fset.StringSliceVar(&f.revisions, "revision", nil, "revision `R` to materialize, repeatable or comma-separated (default: every pinned revision and extension)")
	fset.StringSliceVar(&f.extensions, "extension", nil, "extension schema `NAME` to materialize, such as ext-tasks, repeatable or comma-separated (default: every pinned extension when no --revision is given)")
	fset.StringVar(&f.mirror, "mirror", "", "directory laid out `DIR`/<rev>/schema.json to copy from (default: $MCPGEN_SCHEMA_MIRROR, else ../shared/schema beside the repository, if it exists)")
	fset.BoolVar(&f.offline, "offline", false, "never download; fail if neither the mirror nor the repository has the file")
	if code := parseFlags(e, fset, args, schemaSynopsis, schemaDescription); code >= 0 {
		return code
	}
	if fset.NArg() > 0 {
		return usageError(e, fset, fmt.Errorf("unexpected arguments %q", fset.Args()))
	}
	var revs []string
	for _, rev := range f.revisions {
		if !slices.Contains(revs, rev) {
			revs = append(revs, rev)
		}
	}
	for _, rev := range revs {
		if _, err := schema.Lookup(rev); err != nil {
			return usageError(e, fset, fmt.Errorf("--revision: %w", err))
		}
	}
	var exts []string
	for _, name := range f.extensions {
		if _, err := schema.LookupExtension(name); err != nil {
			return usageError(e, fset, fmt.Errorf("--extension: %w", err))
		}
		if !slices.Contains(exts, name) {
			exts = append(exts, name)
		}
	}
	if len(revs) == 0 && len(exts) == 0 {
		revs, exts = schema.Revisions(), schema.Extensions()
	}
	revs = append(revs, exts...)

	mirror, mirrorFrom := f.mirror, "--mirror"
	if mirror == "" {
		mirror, mirrorFrom = os.Getenv(mirrorEnv), mirrorEnv
	}
	if mirror != "" {
		if err := checkPath(mirrorFrom, mirror, true); err != nil {
			return usageError(e, fset, err)
		}
	}
	root, err := findRoot()
	if err != nil {
		fmt.Fprintf(e.stderr, "mcpgen schema: %v\n", err)
		return exitFail
	}
	if mirror == "" {
		mirror = schema.DefaultMirror(root)
	}
	code := exitOK
	for _, rev := range revs {
		res, err := schema.MaterializeResult(e.ctx, rev, schema.Options{Root: root, Mirror: mirror, Offline: f.offline})
		if err != nil {
			fmt.Fprintf(e.stderr, "mcpgen schema: %v; set %s (or pass --mirror DIR) to a directory holding %s\n", err, mirrorEnv, filepath.Join(rev, "schema.json"))
			code = exitFail
			continue
		}
		fmt.Fprintf(e.stdout, "%s: %s (sha256 ok, from %s)\n", rev, relPath(root, res.Path), res.Source)
	}
	return code
}

// relPath returns path relative to root if it is inside it, else path.
func relPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}
