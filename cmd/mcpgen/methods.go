package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/model"
	genplan "github.com/mcpgen/mcpgen/generator/plan"
	"github.com/mcpgen/mcpgen/schema"
)

var methodsCmd = &command{
	name:    "methods",
	summary: "print the method table (or the union plans) of one protocol revision",
	run:     runMethods,
}

const methodsSynopsis = "mcpgen methods --revision R [--schema FILE] [--format text|json] [--plan]"

const methodsDescription = `
Methods prints the method table of protocol revision R, as the generated
package's Methods() has it, one line per method after a header line:

	METHOD KIND DIRECTION PARAMS RESULTS GATE

KIND is request, notification, or embedded request (2026-07-28's
elicitation/create, sampling/createMessage and roots/list: never JSON-RPC
messages, they travel inside a result's inputRequests, their results in the
retried request's inputResponses); DIRECTION is client→server, server→client
or both; PARAMS is the schema name of the params type, "(optional)" after it
when params may be omitted, "-" when there are none; RESULTS are the schema
names a response may carry, the normal one first, comma-separated ("-" for
notifications); GATE is the capability the method needs, <side>:<path> with
side server, client or receiver (whichever side receives a method that goes
both ways), such as server:tools, or "-".

With --format json the table is a JSON array with one object per method,
sorted by name, whose members are always present:

	name            the method, such as "tools/call"
	kind            "request", "notification" or "embedded request"
	direction       "client→server", "server→client" or "both"
	message         schema name of the request or notification
	params          schema name of the params type, or null
	paramsRequired  whether params must be present
	results         schema names of the results ([] for notifications)
	response        schema name of the method's response definition, such
	                as "CallToolResultResponse" (2026-07-28), or null
	gate            the capability path, such as "tools", or null
	gateSide        "server", "client", "receiver", or null

With --plan, the discrimination plan of every union (how its variants are
told apart on the wire, as the goldens pin it) is printed instead, as text.

The schema is located as by "mcpgen generate" (see "mcpgen generate --help"):
without --schema, the pinned schema of R, materialized if missing.

Exit status: 0 on success, 1 when the schema cannot be had or read, 2 for
bad usage, including a --schema FILE that does not exist.`

// methodsFlags are the flags of mcpgen methods.
type methodsFlags struct {
	revision string
	schema   string
	format   string
	plan     bool
}

func runMethods(e *env, args []string) int {
	var f methodsFlags
	fset := newFlagSet("methods")
	fset.StringVar(&f.revision, "revision", "", "protocol revision `R`, such as 2025-06-18 (required)")
	fset.StringVar(&f.schema, "schema", "", "schema `FILE` to read (default: the pinned schema of the revision, located as by generate)")
	fset.StringVar(&f.format, "format", "text", "output `FORMAT`: text (aligned columns) or json (an array of objects)")
	fset.BoolVar(&f.plan, "plan", false, "print the union discrimination plans instead of the method table (text only)")
	if code := parseFlags(e, fset, args, methodsSynopsis, methodsDescription); code >= 0 {
		return code
	}
	bad := func(format string, args ...any) int {
		return usageError(e, fset, fmt.Errorf(format, args...))
	}
	switch {
	case fset.NArg() > 0:
		return bad("unexpected arguments %q", fset.Args())
	case f.revision == "":
		return bad("--revision is required")
	case !schema.IsRevision(f.revision):
		return bad("--revision %q is not of the form YYYY-MM-DD", f.revision)
	case fset.Changed("schema") && f.schema == "":
		return bad("--schema is empty")
	case f.format != "text" && f.format != "json":
		return bad("--format %q is neither text nor json", f.format)
	case f.plan && f.format != "text":
		return bad("--plan prints text only; drop --format %s", f.format)
	}
	if err := checkPinned(f.revision, f.schema); err != nil {
		return bad("%w", err)
	}
	if f.schema != "" {
		if err := checkPath("--schema", f.schema, false); err != nil {
			return bad("%w", err)
		}
	}

	fail := func(err error) int {
		fmt.Fprintf(e.stderr, "mcpgen methods: %v\n", err)
		return exitFail
	}
	schemaPath, err := schemaFor(e, f.revision, f.schema, false)
	if err != nil {
		return fail(err)
	}
	doc, err := load.File(schemaPath)
	if err != nil {
		return fail(err)
	}
	m, err := model.Build(f.revision, doc)
	if err != nil {
		return fail(err)
	}
	switch {
	case f.plan:
		p, perr := genplan.Build(m)
		if perr != nil {
			return fail(perr)
		}
		s := p.String()
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		_, err = io.WriteString(e.stdout, s)
	case f.format == "json":
		err = writeMethodsJSON(e.stdout, m.Methods)
	default:
		err = writeMethodsText(e.stdout, m.Methods)
	}
	if err != nil {
		return fail(err)
	}
	return exitOK
}

// methodJSON is one method in the --format json output; see
// methodsDescription.
type methodJSON struct {
	Name           string   `json:"name"`
	Kind           string   `json:"kind"`
	Direction      string   `json:"direction"`
	Message        string   `json:"message"`
	Params         *string  `json:"params"`
	ParamsRequired bool     `json:"paramsRequired"`
	Results        []string `json:"results"`
	Response       *string  `json:"response"`
	Gate           *string  `json:"gate"`
	GateSide       *string  `json:"gateSide"`
}

func writeMethodsJSON(w io.Writer, methods []*model.Method) error {
	out := make([]methodJSON, 0, len(methods))
	for _, m := range methods {
		j := methodJSON{
			Name:           m.Name,
			Kind:           m.Kind.String(),
			Direction:      m.Direction.String(),
			ParamsRequired: m.Params != nil && m.ParamsRequired,
			Results:        resultNames(m),
		}
		if m.Message != nil {
			j.Message = m.Message.Name
		}
		if m.Params != nil {
			p := typeName(m.Params)
			j.Params = &p
		}
		if m.Response != nil {
			r := m.Response.Name
			j.Response = &r
		}
		if m.Gate != "" {
			gate, side := m.Gate, m.GateSide()
			j.Gate, j.GateSide = &gate, &side
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func writeMethodsText(w io.Writer, methods []*model.Method) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METHOD\tKIND\tDIRECTION\tPARAMS\tRESULTS\tGATE")
	for _, m := range methods {
		params := "-"
		if m.Params != nil {
			params = typeName(m.Params)
			if !m.ParamsRequired {
				params += " (optional)"
			}
		}
		results := "-"
		if names := resultNames(m); len(names) > 0 {
			results = strings.Join(names, ", ")
		}
		gate := "-"
		if m.Gate != "" {
			gate = m.GateSide() + ":" + m.Gate
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Kind, m.Direction, params, results, gate)
	}
	return tw.Flush()
}

// resultNames returns the schema names of m's results, never nil.
func resultNames(m *model.Method) []string {
	names := make([]string, 0, len(m.Results))
	for _, d := range m.Results {
		names = append(names, d.Name)
	}
	return names
}

// typeName names a type expression: the schema name of a declaration, else
// a short description of the JSON it is.
func typeName(t *model.Type) string {
	switch t.Kind {
	case model.Ref:
		return t.Decl.Name
	case model.String:
		return "string"
	case model.Integer:
		return "integer"
	case model.Number:
		return "number"
	case model.Boolean:
		return "boolean"
	case model.Array:
		return "[]" + typeName(t.Elem)
	case model.Map:
		return "map[string]" + typeName(t.Elem)
	case model.RawValue:
		return "any"
	case model.RawObject:
		return "object"
	case model.ID:
		return "string|integer"
	}
	return "?"
}
