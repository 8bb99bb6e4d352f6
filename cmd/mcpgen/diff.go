package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	genplan "github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/schema"
	"github.com/spf13/pflag"
)

var diffCmd = &command{
	name:    "diff",
	summary: "compare two protocol revisions and classify each change as breaking or not",
	run:     runDiff,
}

const diffSynopsis = "mcpgen diff [--format text|json|markdown] [--fail-on breaking|none] OLD NEW\n\tmcpgen diff --core R [--format ...] [--fail-on ...] OLD NEW\n\tmcpgen diff --core R EXT"

const diffDescription = `
Diff compares the wire shapes of two protocol revisions, OLD and NEW, each a
revision name (such as 2025-06-18, located as by "mcpgen generate") or the
path of a schema file. It walks every method's params and result, the
JSON-RPC envelope and the named definitions, resolving references and
flattening allOf; union variants are matched by discriminator or name, never
by position, so a type that is only renamed (or that was inline and is named
now) is reported once, as definition-renamed.

Every change has a rule ID (such as field-added-required or variant-added)
and two verdicts, breaking or compatible: for an old client talking to a new
server, and for an old server talking to a new client, decided by the
direction the value travels. The rules and their verdicts are listed in the
documentation of package generator/diff.

The text and markdown reports group the changes by whom they break and fold
repeated findings (the same member added to many definitions, the variants
added to one union) into one line. With --format json the report is one
object, never folded:

	old, new   the revisions compared
	summary    {changes, breakingOldClient, breakingOldServer}: counts
	changes    an array of objects, each with the members
	  rule       the rule ID, such as "variant-added"
	  group      envelope, methods, capabilities, types or definitions
	  subject    the method, declaration or capability side that changed
	  member     its member, variant, enum value or capability path, or ""
	  detail     what the change is, such as "optional string", or ""
	  path       where it first shows on the wire, such as
	             "tools/list result.tools[]", or ""
	  direction  the directions the value travels: "client→server",
	             "server→client", "both", or "" for definitions
	  oldClient  "breaking" or "compatible": an old client, a new server
	  oldServer  "breaking" or "compatible": an old server, a new client

With --core R, OLD and NEW are extension schemas bound to the core revision
R (a pinned extension such as ext-tasks, or the path of a schema file), and
the report compares the extension's methods and definitions. With --core R
and one extension EXT, diff lists instead the definitions EXT repeats from
R, each mapped to the core package's type (a repetition whose shape differs
is an error naming the definition, the path of the difference and both
shapes, exit status 1), and the definitions EXT adds.

Exit status: 0 when the report is written, 1 when a schema cannot be had or
read, and with --fail-on breaking when a change breaks either pairing (the
report is written all the same); 2 for bad usage, including a schema file
that does not exist.`

type diffFlags struct {
	format string
	failOn string
	core   string
}

func runDiff(e *env, args []string) int {
	var f diffFlags
	fset := newFlagSet("diff")
	fset.StringVar(&f.format, "format", "text", "output `FORMAT`: text, json or markdown")
	fset.StringVar(&f.failOn, "fail-on", "none", "exit 1 when a change of this `LEVEL` is found: breaking, or none")
	fset.StringVar(&f.core, "core", "", "compare extension schemas bound to the core revision `R`, such as 2026-07-28; with one argument, list its redefinitions")
	if code := parseFlags(e, fset, args, diffSynopsis, diffDescription); code >= 0 {
		return code
	}
	bad := func(format string, args ...any) int {
		return usageError(e, fset, fmt.Errorf(format, args...))
	}
	if f.core != "" {
		return runDiffExtension(e, fset, f)
	}
	switch {
	case fset.NArg() != 2:
		return bad("want two arguments, OLD and NEW, got %d", fset.NArg())
	case f.format != "text" && f.format != "json" && f.format != "markdown":
		return bad("--format %q is not text, json or markdown", f.format)
	case f.failOn != "breaking" && f.failOn != "none":
		return bad("--fail-on %q is neither breaking nor none", f.failOn)
	}
	for _, a := range fset.Args() {
		if a == "" {
			return bad("an empty argument is neither a revision nor a file")
		}
		if schema.IsRevision(a) {
			if err := checkPinned(a, ""); err != nil {
				return bad("%s: %w", a, err)
			}
		} else if err := checkPath("schema file", a, false); err != nil {
			return bad("%w", err)
		}
	}
	fail := func(err error) int {
		fmt.Fprintf(e.stderr, "mcpgen diff: %v\n", err)
		return exitFail
	}
	var revs [2]*model.Revision
	for i, a := range fset.Args() {
		m, err := loadSide(e, a)
		if err != nil {
			return fail(err)
		}
		revs[i] = m
	}
	return writeDiff(e, f, diff.Compare(revs[0], revs[1]))
}

// writeDiff writes the report r as f says and returns the exit status.
func writeDiff(e *env, f diffFlags, r *diff.Report) int {
	fail := func(err error) int {
		fmt.Fprintf(e.stderr, "mcpgen diff: %v\n", err)
		return exitFail
	}
	var err error
	switch f.format {
	case "json":
		err = r.WriteJSON(e.stdout)
	case "markdown":
		err = r.WriteMarkdown(e.stdout)
	default:
		err = r.WriteText(e.stdout)
	}
	if err != nil {
		return fail(err)
	}
	if f.failOn == "breaking" && r.Breaking() {
		return exitFail
	}
	return exitOK
}

// loadSide builds the model of one side of a diff: a pinned revision, or a
// schema file (named by its path).
func loadSide(e *env, arg string) (*model.Revision, error) {
	path := arg
	if schema.IsRevision(arg) {
		p, err := schemaFor(e, arg, "", false)
		if err != nil {
			return nil, err
		}
		path = p
	}
	doc, err := load.File(path)
	if err != nil {
		return nil, err
	}
	return model.Build(arg, doc)
}

// runDiffExtension is mcpgen diff --core R: two extension schemas, or the
// redefinitions of one.
func runDiffExtension(e *env, fset *pflag.FlagSet, f diffFlags) int {
	bad := func(format string, args ...any) int {
		return usageError(e, fset, fmt.Errorf(format, args...))
	}
	switch {
	case !schema.IsRevision(f.core):
		return bad("--core %q is not of the form YYYY-MM-DD", f.core)
	case fset.NArg() != 1 && fset.NArg() != 2:
		return bad("with --core, want two extension schemas, OLD and NEW, or one to list its redefinitions; got %d arguments", fset.NArg())
	case f.format != "text" && f.format != "json" && f.format != "markdown":
		return bad("--format %q is not text, json or markdown", f.format)
	case f.failOn != "breaking" && f.failOn != "none":
		return bad("--fail-on %q is neither breaking nor none", f.failOn)
	}
	if err := checkPinned(f.core, ""); err != nil {
		return bad("--core: %w", err)
	}
	for _, a := range fset.Args() {
		if isExtensionFile(a) {
			if err := checkPath("extension schema file", a, false); err != nil {
				return bad("%w", err)
			}
		} else if _, err := schema.LookupExtension(a); err != nil {
			return bad("%w", err)
		}
	}
	fail := func(err error) int {
		fmt.Fprintf(e.stderr, "mcpgen diff: %v\n", err)
		return exitFail
	}
	corePath, err := schemaFor(e, f.core, "", false)
	if err != nil {
		return fail(err)
	}
	coreDoc, err := load.File(corePath)
	if err != nil {
		return fail(err)
	}
	var revs []*model.Revision
	for _, a := range fset.Args() {
		path := a
		if !isExtensionFile(a) {
			if path, err = ensureSchema(e, a, false); err != nil {
				return fail(err)
			}
		}
		doc, err := load.File(path)
		if err != nil {
			return fail(err)
		}
		m, err := model.BuildExtension(f.core, coreDoc, doc, a)
		if err != nil {
			return fail(err)
		}
		m.Name = a
		revs = append(revs, m)
	}
	if len(revs) == 2 {
		return writeDiff(e, f, diff.Compare(revs[0], revs[1]))
	}
	x := revs[0].Extension
	type entry struct {
		Name string `json:"name"`
		Core string `json:"core,omitempty"`
	}
	var redefined, own []entry
	corePkg := "mcp" + strings.ReplaceAll(f.core, "-", "")
	for _, d := range x.Redefined {
		redefined = append(redefined, entry{d.Name, corePkg + "." + genplan.GoName(d.Name)})
	}
	for _, d := range revs[0].Decls {
		if !x.External[d] && !d.Anonymous {
			own = append(own, entry{Name: d.Name})
		}
	}
	if f.format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			Extension string  `json:"extension"`
			Core      string  `json:"core"`
			Redefined []entry `json:"redefined"`
			Own       []entry `json:"own"`
		}{fset.Arg(0), f.core, redefined, own})
	} else {
		var b strings.Builder
		fmt.Fprintf(&b, "%s repeats %d definitions of %s, each of the same shape, mapped to the core package's type:\n", fset.Arg(0), len(redefined), f.core)
		for _, r := range redefined {
			fmt.Fprintf(&b, "  %s → %s\n", r.Name, r.Core)
		}
		fmt.Fprintf(&b, "and adds %d definitions:\n", len(own))
		for _, o := range own {
			fmt.Fprintf(&b, "  %s\n", o.Name)
		}
		_, err = io.WriteString(e.stdout, b.String())
	}
	if err != nil {
		return fail(err)
	}
	return exitOK
}

// isExtensionFile reports whether the argument names an extension schema
// file rather than a pinned extension (such as ext-tasks).
func isExtensionFile(a string) bool {
	return strings.ContainsAny(a, `/\`) || strings.HasSuffix(a, ".json")
}
