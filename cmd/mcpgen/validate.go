package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/validate"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/schema"
)

var validateCmd = &command{
	name:    "validate",
	summary: "validate MCP messages (one, a batch, or a JSON Lines capture) against a revision",
	run:     runValidate,
}

const validateSynopsis = "mcpgen validate --revision R [--schema FILE] [--extension EXT] [--from client|server|any] [--format text|json] [-v] [FILE ...]"

const validateDescription = `
Validate checks JSON-RPC messages against the schema of protocol revision R.
Each FILE (standard input when there is none) holds one JSON message, a JSON
array (a batch), or a sequence of them such as JSON Lines, one message a
line, the shape of a captured stdio session. Each FILE is one session.

Each message is validated against the schema definition its shape and method
select: a tools/call request against CallToolRequest (and the JSON-RPC
envelope), a response against the result of the request with the same id
earlier in the file, else against the generic Result. Formats (uri,
date-time, ...) are asserted in every dialect. Also checked: the method
exists in R and is sent by that side; batches only where R has them
(2025-03-26); request ids unique per direction; every response answers an
earlier request; strict JSON (no duplicate member names, valid UTF-8).
From 2025-06-18, every _meta key (at any depth) has the required form and,
under a prefix reserved for MCP, is one R defines; from 2025-11-25, every
icon's src is an https: URL or a data: image and its sizes are well formed.

From 2026-07-28, a request's _meta must carry what the schema requires (the
protocol version and the client's capabilities: a request without them is
invalid); elicitation/create, sampling/createMessage and roots/list travel
only inside a result's inputRequests and are invalid as JSON-RPC messages; a
response is validated against its method's response definition
(CallToolResultResponse, ...) and its result against the one its resultType
selects ("complete" or "input_required", or with --extension a value that an
extension's result fixes, such as "task"; any other value is invalid); an
error response with a named error's code (-32022, -32021, -32020, ...)
against that error; extension identifiers need a prefix.

With --extension EXT (a pinned extension such as ext-tasks, or the path of
an extension schema bound to R), the extension's definitions and methods
join R's: its requests and notifications (tasks/get, notifications/tasks,
...) are validated against its definitions, and the answers of the core
methods it widens (tools/call answered with CreateTaskResult, which
resultType "task" selects) against those results too. Its repetitions of R's definitions must have R's shapes (see
"mcpgen diff --core"). --extension needs the schema built in for R.

A --schema FILE that does not compile is an error (exit status 2) naming the
JSON pointer and keyword at fault.

--from says who sent the messages. With any (the default), the sender of a
request is told from its method where the method goes one way only, and a
response answers the earliest unanswered request with its id.

The schema is the one built into mcpgen for R (the generated packages carry
it); --schema FILE reads another one instead, for example of a revision
mcpgen has no package for (its method table is then read from the schema).

Output, text: one line per problem of an invalid message,

	FILE:LINE: message N (KIND METHOD id ID): POINTER: REASON

(POINTER "(message)" for the message itself; with -v valid messages get a
line too), then the summary "N valid, N invalid". With --format json, one
object: {"messages": [...], "valid": N, "invalid": N}, each message with
file, index (from 0 in its file), line, element (its index in a batch),
kind, method, id, definitions, valid and problems ([{pointer, reason,
rule}]).

Exit status: 0 when every message is valid, 1 when one is not, 2 for bad
usage, an input FILE that cannot be read, or a --schema FILE that is missing
or does not compile (so that 1 always means invalid messages).`

// builtinRevisions are the revisions whose generated packages carry their
// schema and method table.
var builtinRevisions = map[string]struct {
	schema  func() []byte
	methods func() []wire.Method
}{
	mcp20241105.Revision: {mcp20241105.Schema, mcp20241105.Methods},
	mcp20250326.Revision: {mcp20250326.Schema, mcp20250326.Methods},
	mcp20250618.Revision: {mcp20250618.Schema, mcp20250618.Methods},
	mcp20251125.Revision: {mcp20251125.Schema, mcp20251125.Methods},
	mcp20260728.Revision: {mcp20260728.Schema, mcp20260728.Methods},
}

// validateFlags are the flags of mcpgen validate.
type validateFlags struct {
	revision  string
	extension string
	schema    string
	from      string
	format    string
	verbose   bool
}

// validateMessage is one message of the --format json output.
type validateMessage struct {
	File string `json:"file"`
	validate.Report
	Valid bool `json:"valid"`
}

func runValidate(e *env, args []string) int {
	var f validateFlags
	fset := newFlagSet("validate")
	fset.StringVar(&f.revision, "revision", "", "protocol revision `R`, such as 2025-06-18 (required)")
	fset.StringVar(&f.schema, "schema", "", "schema `FILE` to validate against (default: the schema built in for the revision)")
	fset.StringVar(&f.extension, "extension", "", "also validate the methods and definitions of the extension `EXT` (a pinned extension such as ext-tasks, or its schema file), bound to R")
	fset.StringVar(&f.from, "from", "any", "who sent the messages: client, server or any")
	fset.StringVar(&f.format, "format", "text", "output `FORMAT`: text or json")
	fset.BoolVarP(&f.verbose, "verbose", "v", false, "report valid messages too (text output)")
	if code := parseFlags(e, fset, args, validateSynopsis, validateDescription); code >= 0 {
		return code
	}
	bad := func(format string, args ...any) int {
		return usageError(e, fset, fmt.Errorf(format, args...))
	}
	from := map[string]validate.Side{"any": validate.AnySide, "client": validate.Client, "server": validate.Server}
	side, sideOK := from[f.from]
	builtin, isBuiltin := builtinRevisions[f.revision]
	switch {
	case f.revision == "":
		return bad("--revision is required")
	case !schema.IsRevision(f.revision):
		return bad("--revision %q is not of the form YYYY-MM-DD", f.revision)
	case fset.Changed("schema") && f.schema == "":
		return bad("--schema is empty")
	case f.schema == "" && !isBuiltin:
		return bad("--revision: mcpgen has no schema built in for %s; use --schema FILE", f.revision)
	case !sideOK:
		return bad("--from %q is not client, server or any", f.from)
	case f.format != "text" && f.format != "json":
		return bad("--format %q is neither text nor json", f.format)
	}
	if f.schema != "" {
		if err := checkPath("--schema", f.schema, false); err != nil {
			return bad("%w", err)
		}
	}

	unreadable := func(err error) int {
		fmt.Fprintf(e.stderr, "mcpgen validate: %v\n", err)
		return exitUsage
	}
	var v *validate.Validator
	var err error
	if f.extension != "" {
		if f.schema != "" || !isBuiltin {
			return bad("--extension needs the schema built in for the revision; --schema does not go with it")
		}
		if isExtensionFile(f.extension) {
			if err := checkPath("--extension", f.extension, false); err != nil {
				return bad("%w", err)
			}
		} else if _, err := schema.LookupExtension(f.extension); err != nil {
			return bad("--extension: %w", err)
		}
		v, err = extensionValidator(e, f.revision, builtin.schema(), builtin.methods(), f.extension)
	} else if f.schema != "" {
		data, rerr := os.ReadFile(f.schema)
		if rerr != nil {
			return unreadable(fmt.Errorf("--schema: %w", rerr))
		}
		v, err = validate.New(f.revision, data)
	} else {
		v, err = validate.New(f.revision, builtin.schema(), validate.WithMethods(builtin.methods()))
	}
	if err != nil {
		return unreadable(err)
	}

	// Read every input before validating any, so that an unreadable file
	// gives exit status 2 and no partial report.
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	if fset.NArg() == 0 {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return unreadable(fmt.Errorf("reading standard input: %w", err))
		}
		inputs = append(inputs, input{"stdin", data})
	}
	for _, name := range fset.Args() {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(e.stdin)
			name = "stdin"
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return unreadable(err)
		}
		inputs = append(inputs, input{name, data})
	}

	var messages []validateMessage
	nValid, nInvalid := 0, 0
	for _, in := range inputs {
		s := v.Stream()
		for _, p := range validate.Split(in.data) {
			for _, r := range s.Payload(p.Data, p.Line, side) {
				m := validateMessage{File: in.name, Report: r, Valid: r.Valid()}
				if m.Problems == nil {
					m.Problems = []validate.Problem{}
				}
				if m.Valid {
					nValid++
				} else {
					nInvalid++
				}
				messages = append(messages, m)
			}
		}
	}

	if f.format == "json" {
		if messages == nil {
			messages = []validateMessage{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(struct {
			Messages []validateMessage `json:"messages"`
			Valid    int               `json:"valid"`
			Invalid  int               `json:"invalid"`
		}{messages, nValid, nInvalid})
	} else {
		var b strings.Builder
		for _, m := range messages {
			head := fmt.Sprintf("%s:%d: message %d (%s)", m.File, m.Line, m.Index, describe(m.Report))
			if m.Valid {
				if f.verbose {
					fmt.Fprintf(&b, "%s: valid\n", head)
				}
				continue
			}
			for _, p := range m.Problems {
				fmt.Fprintf(&b, "%s: %s\n", head, p)
			}
		}
		fmt.Fprintf(&b, "%d valid, %d invalid\n", nValid, nInvalid)
		_, err = io.WriteString(e.stdout, b.String())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "mcpgen validate: %v\n", err)
		return exitFail
	}
	if nInvalid > 0 {
		return exitFail
	}
	return exitOK
}

// describe is what a text line says of a message: its kind, method, id,
// and place in a batch.
func describe(r validate.Report) string {
	parts := []string{r.Kind}
	if r.Method != "" {
		parts = append(parts, r.Method)
	}
	if r.ID != nil {
		parts = append(parts, "id "+string(r.ID))
	}
	if r.Element != nil {
		parts = append(parts, fmt.Sprintf("batch element %d", *r.Element))
	}
	return strings.Join(parts, " ")
}

// extensionValidator returns a validator of revision rev (whose schema is
// coreSchema and method table coreMethods) joined by the extension ext: the
// schema's definitions and the extension's own, the method table and the
// extension's methods, with the core methods it widens replaced by their
// widened entries.
func extensionValidator(e *env, rev string, coreSchema []byte, coreMethods []wire.Method, ext string) (*validate.Validator, error) {
	path := ext
	if !isExtensionFile(ext) {
		p, err := ensureSchema(e, ext, false)
		if err != nil {
			return nil, err
		}
		path = p
	}
	extData, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--extension: %w", err)
	}
	coreDoc, err := load.Bytes("schema/"+rev+"/schema.json", coreSchema)
	if err != nil {
		return nil, err
	}
	extDoc, err := load.Bytes(path, extData)
	if err != nil {
		return nil, err
	}
	m, err := model.BuildExtension(rev, coreDoc, extDoc, ext)
	if err != nil {
		return nil, err
	}
	// The schema: the core's, with the extension's own definitions added.
	var core, extension map[string]json.RawMessage
	if err := json.Unmarshal(coreSchema, &core); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", rev, err)
	}
	if err := json.Unmarshal(extData, &extension); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var coreDefs, extDefs map[string]json.RawMessage
	if err := json.Unmarshal(core[coreDoc.DefsKeyword], &coreDefs); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", rev, err)
	}
	if err := json.Unmarshal(extension[extDoc.DefsKeyword], &extDefs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, def := range extDefs {
		if _, ok := coreDefs[name]; !ok {
			coreDefs[name] = def
		}
	}
	defs, err := json.Marshal(coreDefs)
	if err != nil {
		return nil, err
	}
	core[coreDoc.DefsKeyword] = defs
	merged, err := json.Marshal(core)
	if err != nil {
		return nil, err
	}
	// The method table: the core's, the widened entries in place of theirs,
	// and the extension's.
	methods := slices.Clone(coreMethods)
	toWire := func(mm *model.Method) wire.Method {
		w := wire.Method{Name: mm.Name, Notification: mm.Kind == model.Notification, Embedded: mm.Kind == model.Embedded, Direction: wire.Direction(mm.Direction), Message: mm.Message.Name}
		for _, r := range mm.Results {
			w.Results = append(w.Results, r.Name)
		}
		return w
	}
	for _, mm := range m.Extension.Augmented {
		i := slices.IndexFunc(methods, func(w wire.Method) bool { return w.Name == mm.Name })
		if i >= 0 {
			// The core's response definition still checks the answer, and
			// its resultType selects the result to check it against: the
			// extension's fix their own ("task" is CreateTaskResult).
			w := toWire(mm)
			w.Response = methods[i].Response
			methods[i] = w
		}
	}
	for _, mm := range m.Methods {
		methods = append(methods, toWire(mm))
	}
	return validate.New(rev, merged, validate.WithMethods(methods))
}
