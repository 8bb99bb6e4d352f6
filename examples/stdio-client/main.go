// Command stdio-client is a small MCP client to point at any server: it
// lists what the server offers, calls a tool with JSON arguments, reads a
// resource or gets a prompt. It starts the server as a command and talks to
// it over stdio, or talks to a server at a URL over HTTP (Streamable HTTP,
// or the older HTTP+SSE transport).
//
// It is a client of both eras: it tries 2026-07-28 (stateless) first and
// falls back to initialize when the server does not speak it; --revision
// pins one revision. When the server asks the user a question
// (elicitation), it asks on the terminal: the question on stderr, the
// answer from stdin. --answer KEY=VALUE answers without asking, and
// --no-input never reads stdin.
//
//	go run ./examples/stdio-client list -- go run ./examples/stdio-server
//	go run ./examples/stdio-client call echo '{"text":"hi"}' -- go run ./examples/stdio-server
//	go run ./examples/stdio-client --url http://127.0.0.1:8080/mcp read mcpgen://readme
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/revision"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/spf13/pflag"
)

const usage = `usage: stdio-client [flags] [COMMAND [ARG...]] -- SERVER-COMMAND [ARG...]
       stdio-client [flags] --url URL [COMMAND [ARG...]]

A small MCP client. It starts SERVER-COMMAND and talks to it over stdio, or
talks to the server at URL over HTTP (Streamable HTTP, else HTTP+SSE).

Commands:
  list                 list the tools, prompts, resources and resource
                       templates (the default)
  call TOOL [JSON]     call a tool; JSON is its arguments, an object
                       (default {})
  read URI             read a resource
  prompt NAME [JSON]   get a prompt; JSON is its arguments, an object of
                       strings (default {})

When the server asks a question (elicitation), the client asks you: the
question on stderr, your answer from stdin. An empty answer takes the
default, or leaves an optional field out.

Exit status: 0 done, 1 failed (a tool's error result too), 2 bad usage.

Examples:
  stdio-client -- go run ./examples/stdio-server
  stdio-client call echo '{"text":"hi"}' -- ./my-server --its-flag
  stdio-client --url http://127.0.0.1:8080/mcp read mcpgen://readme
  stdio-client --no-input --answer name=Ada call hello -- ./my-server

Flags:
`

// config is what the command line says.
type config struct {
	command  string         // list, call, read or prompt
	target   string         // the tool or prompt name, or the resource URI
	args     jsontext.Value // the arguments of call or prompt, an object
	server   []string       // the server command, or nil
	url      string         // the server URL, or ""
	revision string
	header   http.Header
	answers  map[string]string
	noInput  bool
	json     bool
	timeout  time.Duration
}

// parseArgs reads the command line. It returns done when it printed the
// help, and an error for a usage error.
func parseArgs(args []string, stdout io.Writer) (c config, done bool, err error) {
	fs := pflag.NewFlagSet("stdio-client", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.url, "url", "", "talk to the MCP server at `URL` instead of starting a command")
	fs.StringVar(&c.revision, "revision", "", "speak only revision `R`, such as 2025-06-18 (default: 2026-07-28, else the newest the server has)")
	headers := fs.StringArray("header", nil, "send the HTTP header `NAME:VALUE` with every request, such as an API key (repeatable; with --url)")
	answers := fs.StringArray("answer", nil, "answer `KEY=VALUE`: VALUE for the field KEY of the server's questions, without asking (repeatable)")
	fs.BoolVar(&c.noInput, "no-input", false, "never read stdin: answer questions from --answer only, and decline the rest")
	fs.BoolVar(&c.json, "json", false, "print results as JSON")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "give up after `D` in all, questions included")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return c, false, err
	}
	if *help {
		fmt.Fprint(stdout, usage+fs.FlagUsages())
		return c, true, nil
	}
	words := fs.Args()
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		words, c.server = words[:dash], words[dash:]
		if len(c.server) == 0 {
			return c, false, errors.New("no server command after --")
		}
	}
	if c.revision != "" {
		if _, ok := revision.Lookup(c.revision); !ok {
			return c, false, fmt.Errorf("--revision %s: unknown revision; this client speaks %s", c.revision, strings.Join(revisionNames(), ", "))
		}
	}
	c.header = http.Header{}
	for _, h := range *headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return c, false, fmt.Errorf("--header %q: want NAME:VALUE", h)
		}
		c.header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	c.answers = map[string]string{}
	for _, a := range *answers {
		key, value, ok := strings.Cut(a, "=")
		if !ok || key == "" {
			return c, false, fmt.Errorf("--answer %q: want KEY=VALUE", a)
		}
		c.answers[key] = value
	}
	if len(words) == 0 {
		words = []string{"list"}
	}
	c.command, words = words[0], words[1:]
	nargs := map[string][2]int{"list": {0, 0}, "call": {1, 2}, "read": {1, 1}, "prompt": {1, 2}}
	n, ok := nargs[c.command]
	if !ok {
		return c, false, fmt.Errorf("unknown command %q: want list, call, read or prompt (a server command goes after --)", c.command)
	}
	if len(words) < n[0] || len(words) > n[1] {
		return c, false, fmt.Errorf("%s: want %s", c.command, map[string]string{
			"list": "no arguments", "call": "TOOL [JSON]", "read": "URI", "prompt": "NAME [JSON]",
		}[c.command])
	}
	switch {
	case c.url == "" && c.server == nil:
		return c, false, errors.New("no server: give its command after --, or --url URL")
	case c.url != "" && c.server != nil:
		return c, false, errors.New("give either a server command after -- or --url, not both")
	case c.url != "" && !strings.HasPrefix(c.url, "http://") && !strings.HasPrefix(c.url, "https://"):
		return c, false, fmt.Errorf("--url %q: want an http:// or https:// URL", c.url)
	case len(*headers) > 0 && c.url == "":
		return c, false, errors.New("--header needs --url: headers go with HTTP requests")
	}
	if len(words) > 0 {
		c.target = words[0]
	}
	c.args = jsontext.Value("{}")
	if len(words) == 2 {
		c.args = jsontext.Value(words[1])
		kind, into := "a JSON object", any(new(map[string]any))
		if c.command == "prompt" {
			kind, into = "a JSON object of strings", new(map[string]string)
		}
		if err := json.Unmarshal(c.args, into); err != nil {
			return c, false, fmt.Errorf("%s %s: the arguments must be %s: %v", c.command, c.target, kind, err)
		}
	}
	return c, false, nil
}

// revisionNames returns the names of the revisions linked in, newest
// first.
func revisionNames() []string {
	var names []string
	for _, r := range revision.All() {
		names = append(names, r.Name)
	}
	return names
}

func main() {
	c, done, err := parseArgs(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stdio-client: %v; see --help\n", err)
		os.Exit(2)
	}
	if done {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "stdio-client: %v\n", err)
		os.Exit(1)
	}
}

// run connects as c says, runs its command, and prints the outcome on
// stdout. Questions go to stderr, their answers come from stdin.
func run(ctx context.Context, c config, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var t mcp.Transport
	if c.url != "" {
		t = mcp.HTTP(c.url, &mcp.HTTPClientOptions{Header: c.header})
	} else {
		// Connect starts the server. Its stderr goes to ours. A server
		// that stops reading its standard input makes a write fail after
		// 30 s, which ends the session, rather than block it.
		t = stdio.NewCommand(exec.Command(c.server[0], c.server[1:]...), stdio.WithStderr(stderr), stdio.WithWriteTimeout(30*time.Second))
	}
	opts := &mcp.ClientOptions{
		Info:    mcp.Implementation{Name: "mcpgen-stdio-client", Version: "1.0.0"},
		Handler: newAsker(stdin, stderr, c.answers, c.noInput), // an Elicitor
		// Both modes of elicitation: more than the empty object that an
		// Elicitor declares by itself.
		Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ClientCapabilitiesElicitation{Form: mcp.JSONObject{}, URL: mcp.JSONObject{}}},
	}
	if c.revision != "" {
		opts.Session.Revisions = []string{c.revision}
	}
	cs, err := mcp.Connect(ctx, t, opts)
	if err != nil {
		return err
	}
	defer cs.Close()
	switch c.command {
	case "call":
		return call(ctx, cs, c, stdout)
	case "read":
		return read(ctx, cs, c, stdout)
	case "prompt":
		return prompt(ctx, cs, c, stdout)
	}
	return list(ctx, cs, stdout)
}

// list prints what the server offers, of what it declared.
func list(ctx context.Context, cs *mcp.ClientSession, stdout io.Writer) error {
	var info mcp.Implementation
	if err := wire.Unmarshal(cs.PeerInfo(), &info); err != nil {
		return fmt.Errorf("the server's serverInfo: %w", err)
	}
	fmt.Fprintf(stdout, "server %s %s, revision %s (%s era)\n", info.Name, info.Version, cs.Revision().Name, cs.Era())
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	// section prints a heading and its rows, their cells aligned.
	section := func(heading string, rows [][]string) {
		fmt.Fprintln(w, heading)
		if len(rows) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		for _, cells := range rows {
			for len(cells) > 1 && cells[len(cells)-1] == "" {
				cells = cells[:len(cells)-1]
			}
			fmt.Fprintln(w, "  "+strings.Join(cells, "\t"))
		}
	}
	caps := cs.PeerCapabilities()
	if session.HasCapability(caps, "tools") {
		var rows [][]string
		for t, err := range cs.AllTools(ctx) {
			if err != nil {
				return err
			}
			rows = append(rows, []string{t.Name, oneLine(deref(t.Description))})
		}
		section("tools:", rows)
	}
	if session.HasCapability(caps, "prompts") {
		var rows [][]string
		for p, err := range cs.AllPrompts(ctx) {
			if err != nil {
				return err
			}
			var args []string
			for _, a := range p.Arguments {
				if a.Required != nil && *a.Required {
					args = append(args, a.Name+"*")
				} else {
					args = append(args, a.Name)
				}
			}
			rows = append(rows, []string{p.Name, strings.Join(args, " "), oneLine(deref(p.Description))})
		}
		section("prompts (* marks a required argument):", rows)
	}
	if session.HasCapability(caps, "resources") {
		var rows [][]string
		for r, err := range cs.AllResources(ctx) {
			if err != nil {
				return err
			}
			rows = append(rows, []string{r.URI, r.Name, deref(r.MIMEType)})
		}
		section("resources:", rows)
		rows = nil
		for r, err := range cs.AllResourceTemplates(ctx) {
			if err != nil {
				return err
			}
			rows = append(rows, []string{r.URITemplate, r.Name, deref(r.MIMEType)})
		}
		section("resource templates:", rows)
	}
	return nil
}

// call calls the tool and prints its content; a result that is an error
// is printed too, and fails.
func call(ctx context.Context, cs *mcp.ClientSession, c config, stdout io.Writer) error {
	res, err := cs.CallToolArgs(ctx, c.target, c.args)
	if err != nil {
		return err
	}
	if c.json {
		if err := printJSON(stdout, res); err != nil {
			return err
		}
	} else {
		for _, b := range res.Content {
			printBlock(stdout, b)
		}
		if len(res.Content) == 0 && res.StructuredContent != nil {
			fmt.Fprintln(stdout, string(res.StructuredContent))
		}
	}
	if res.Failed() {
		return fmt.Errorf("tool %s returned an error result", c.target)
	}
	return nil
}

// read reads the resource and prints its contents.
func read(ctx context.Context, cs *mcp.ClientSession, c config, stdout io.Writer) error {
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: c.target})
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(stdout, res)
	}
	for _, item := range res.Contents {
		switch v := item.Value.(type) {
		case *mcp.TextResourceContents:
			fmt.Fprintln(stdout, v.Text)
		case *mcp.BlobResourceContents:
			fmt.Fprintf(stdout, "[%s: %s, %d base64 characters]\n", v.URI, deref(v.MIMEType), len(v.Blob))
		}
	}
	return nil
}

// prompt gets the prompt and prints its messages.
func prompt(ctx context.Context, cs *mcp.ClientSession, c config, stdout io.Writer) error {
	var args map[string]string
	if err := json.Unmarshal(c.args, &args); err != nil {
		return err // parseArgs checked them
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: c.target, Arguments: args})
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(stdout, res)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(stdout, "%s: ", m.Role)
		printBlock(stdout, m.Content)
	}
	return nil
}

// printBlock prints a content block: a text block as its text, any other
// as a line that says what it is.
func printBlock(w io.Writer, b mcp.ContentBlock) {
	switch v := b.Value.(type) {
	case *mcp.TextContent:
		fmt.Fprintln(w, v.Text)
	case *mcp.ImageContent:
		fmt.Fprintf(w, "[image %s, %d base64 characters]\n", v.MIMEType, len(v.Data))
	case *mcp.AudioContent:
		fmt.Fprintf(w, "[audio %s, %d base64 characters]\n", v.MIMEType, len(v.Data))
	case *mcp.ResourceLink:
		fmt.Fprintf(w, "[link to %s]\n", v.URI)
	case *mcp.EmbeddedResource:
		switch r := v.Resource.Value.(type) {
		case *mcp.TextResourceContents:
			fmt.Fprintf(w, "[resource %s]\n%s\n", r.URI, r.Text)
		case *mcp.BlobResourceContents:
			fmt.Fprintf(w, "[resource %s, %d base64 characters]\n", r.URI, len(r.Blob))
		}
	default:
		fmt.Fprintf(w, "[a content block of a kind this client does not know]\n")
	}
}

// printJSON prints v as one line of JSON.
func printJSON(w io.Writer, v wire.Appender) error {
	b, err := v.AppendJSON(nil)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// oneLine returns the first line of s.
func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
