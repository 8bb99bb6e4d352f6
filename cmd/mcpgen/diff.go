package main

import (
	"fmt"

	"github.com/mcpgen/mcpgen/generator/diff"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/schema"
)

var diffCmd = &command{
	name:    "diff",
	summary: "compare two protocol revisions and classify each change as breaking or not",
	run:     runDiff,
}

const diffSynopsis = "mcpgen diff [--format text|json|markdown] [--fail-on breaking|none] OLD NEW"

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

Exit status: 0 when the report is written, 1 when a schema cannot be had or
read, and with --fail-on breaking when a change breaks either pairing (the
report is written all the same); 2 for bad usage, including a schema file
that does not exist.`

type diffFlags struct {
	format string
	failOn string
}

func runDiff(e *env, args []string) int {
	var f diffFlags
	fset := newFlagSet("diff")
	fset.StringVar(&f.format, "format", "text", "output `FORMAT`: text, json or markdown")
	fset.StringVar(&f.failOn, "fail-on", "none", "exit 1 when a change of this `LEVEL` is found: breaking, or none")
	if code := parseFlags(e, fset, args, diffSynopsis, diffDescription); code >= 0 {
		return code
	}
	bad := func(format string, args ...any) int {
		return usageError(e, fset, fmt.Errorf(format, args...))
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
	r := diff.Compare(revs[0], revs[1])
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
