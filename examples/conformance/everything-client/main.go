// Command everything-client is the fixture client for the official MCP
// conformance suite (@modelcontextprotocol/conformance, client mode). The
// suite starts a mock server for a scenario and runs
//
//	everything-client URL
//
// with MCP_CONFORMANCE_SCENARIO naming the scenario; the client talks to URL
// over Streamable HTTP, does what the scenario expects, and exits 0, or
// non-zero with the reason on stderr.
//
// Scenarios: initialize, tools_call, elicitation-sep1034-client-defaults,
// sse-retry and json-schema-2020-12-preservation at protocol revision
// 2025-11-25 and older; with MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28,
// the client of the stateless era (modern.go) runs tools_call,
// request-metadata, sep-2322-client-request-state, http-standard-headers,
// http-custom-headers, http-invalid-tool-headers, json-schema-ref-no-deref
// and json-schema-2020-12-preservation. The auth/* scenarios (auth.go) log
// in through runtime/oauth, list the tools and call test-tool, at either
// revision, auth/client-credentials-* as a machine client (the
// client_credentials grant), auth/wif-jwt-bearer as a workload (the JWT
// bearer grant), auth/enterprise-managed-authorization and
// auth/cross-app-access-complete-flow with enterprise-managed
// authorization (token exchange at the IdP, then the JWT bearer grant),
// auth/dpop and auth/dpop-nonce with DPoP-bound tokens (oauth.Config.DPoP).
// The Skills extension's host scenarios (sep-2640-client-*, skills.go) run
// at either revision.
//
// With EVERYTHING_CLIENT_DEBUG=1 in the environment, the transport and the
// session log their diagnostics to stderr (which the suite prints when the
// client fails).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Some mock servers answer initialize with 2025-03-26 (sse-retry) or
// 2025-06-18: protocol/mcp20260728 links every revision mcpgen ships.

var info = mcp.Implementation{Name: "mcpgen-conformance-everything-client", Version: "1.0.0"}

// logger is nil (discard) unless EVERYTHING_CLIENT_DEBUG is set.
var logger *slog.Logger

// newTransport returns the Streamable HTTP client transport for url. It
// opens the standalone GET stream while the session initializes, before
// anything else is sent, as the suite's mock servers expect.
func newTransport(url string) *streamhttp.Client {
	return streamhttp.NewClient(url, streamhttp.ClientOptions{Logger: logger})
}

// scenarios maps each scenario name to its run function.
var scenarios = map[string]func(ctx context.Context, url string) error{
	"initialize":                          runInitialize,
	"tools_call":                          runToolsCall,
	"elicitation-sep1034-client-defaults": runElicitationDefaults,
	"sse-retry":                           runSSERetry,
	"json-schema-2020-12-preservation":    runJSONSchemaPreservation,
}

// maxTools bounds the tools read from tools/list, over all its pages.
const maxTools = 1000

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=NAME everything-client URL")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if os.Getenv("EVERYTHING_CLIENT_DEBUG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	run := scenarios[name]
	modern := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION") == m26.Revision
	if modern {
		run = scenarios26[name]
	}
	if strings.HasPrefix(name, "auth/") {
		run = runAuth
		if modern {
			run = runAuth26
		}
	}
	if run == nil {
		fmt.Fprintf(os.Stderr, "everything-client: unknown scenario %q (MCP_CONFORMANCE_SCENARIO)\n", name)
		os.Exit(2)
	}
	// The suite kills the client after 30 s by default: stop a little before.
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, url); err != nil {
		fmt.Fprintf(os.Stderr, "everything-client: scenario %s: %v\n", name, err)
		os.Exit(1)
	}
}

// connect initializes a session with the server at url, declaring caps; c
// answers the server's requests (nil: none).
func connect(ctx context.Context, url string, caps mcp.ClientCapabilities, c mcp.Client) (*mcp.ClientSession, error) {
	t := newTransport(url)
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{Info: info, Capabilities: caps, Handler: c, Session: session.Options{Logger: logger}})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return cs, nil
}

// runInitialize: the handshake only (the mock checks protocolVersion and
// clientInfo).
func runInitialize(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, mcp.ClientCapabilities{}, nil)
	if err != nil {
		return err
	}
	return cs.Close()
}

// runToolsCall: list the tools and call add_numbers.
func runToolsCall(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, mcp.ClientCapabilities{}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if err := requireTool(ctx, cs, "add_numbers"); err != nil {
		return err
	}
	res, err := callTool(ctx, cs, "add_numbers", `{"a":5,"b":3}`)
	if err != nil {
		return err
	}
	fmt.Println(resultText(res))
	return nil
}

// runSSERetry: call test_reconnection, whose answer arrives only after the
// transport reconnects with GET and Last-Event-ID, having waited the retry
// interval the server sent.
func runSSERetry(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, mcp.ClientCapabilities{}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if err := requireTool(ctx, cs, "test_reconnection"); err != nil {
		return err
	}
	res, err := callTool(ctx, cs, "test_reconnection", `{}`)
	if err != nil {
		return err
	}
	fmt.Println(resultText(res))
	return nil
}

// The tools of the json-schema-2020-12-preservation scenario.
const (
	preservedTool = "json_schema_2020_12_tool" // its inputSchema uses JSON Schema 2020-12 keywords
	echoTool      = "json_schema_echo"         // records its "schema" argument
)

// runJSONSchemaPreservation: send the inputSchema of json_schema_2020_12_tool,
// exactly as tools/list gave it, back to json_schema_echo as its "schema"
// argument; the mock checks that $schema, $defs, additionalProperties and
// the SEP-2106 keywords ($anchor, allOf/anyOf, if/then/else) survived.
func runJSONSchemaPreservation(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, mcp.ClientCapabilities{}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	tool, err := findTool(ctx, cs, preservedTool)
	if err != nil {
		return err
	}
	if err := requireTool(ctx, cs, echoTool); err != nil {
		return err
	}
	args, err := echoArguments(tool.InputSchema)
	if err != nil {
		return fmt.Errorf("tool %s: %w", preservedTool, err)
	}
	res, err := callTool(ctx, cs, echoTool, string(args))
	if err != nil {
		return err
	}
	fmt.Println(resultText(res))
	return nil
}

// echoArguments returns the arguments of json_schema_echo, {"schema": S},
// with the JSON object S copied byte for byte.
func echoArguments(schema jsontext.Value) (jsontext.Value, error) {
	if !schema.IsValid() || schema.Kind() != '{' {
		return nil, fmt.Errorf("inputSchema is not a JSON object: %.80q", schema)
	}
	args, err := wire.SetMember(nil, "schema", schema)
	if err != nil {
		return nil, fmt.Errorf("building the %s arguments: %w", echoTool, err)
	}
	return args, nil
}

// runElicitationDefaults: declare elicitation, call the mock's tool, and
// accept its elicitation with every default the requested schema gives.
//
// The session is set up by hand rather than with mcp.Connect because the
// answer cannot be built from mcp.ElicitResult: the official 2025-11-25
// schema.json types ElicitResult.content values as string, integer, boolean
// or string array, so the value of a NumberSchema field of type "number",
// such as the default 95.5, has no Go value there. The handler answers
// elicitation/create with JSON it builds itself and leaves every other
// message to the generated handler.
func runElicitationDefaults(ctx context.Context, url string) error {
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ClientCapabilitiesElicitation{Form: jsontext.Value("{}")}}
	t := newTransport(url)
	s := session.New(session.Client, t, defaultsHandler{mcp.NewClientHandler(mcp.UnimplementedClient{})}, session.Options{Logger: logger})
	if _, err := s.Initialize(ctx, &mcp.InitializeRequestParams{ClientInfo: info, Capabilities: caps, ProtocolVersion: mcp.Revision}); err != nil {
		s.Close()
		return fmt.Errorf("initialize: %w", err)
	}
	cs := &mcp.ClientSession{Session: s}
	defer cs.Close()
	const tool = "test_client_elicitation_defaults"
	if err := requireTool(ctx, cs, tool); err != nil {
		return err
	}
	res, err := callTool(ctx, cs, tool, `{}`)
	if err != nil {
		return err
	}
	fmt.Println(resultText(res))
	return nil
}

// defaultsHandler accepts every form elicitation with the defaults of its
// requested schema (SEP-1034); fields without a default are left out.
type defaultsHandler struct{ session.Handler }

func (h defaultsHandler) HandleRequest(ctx context.Context, s *session.Session, method string, params jsontext.Value) (wire.Appender, error) {
	if method != mcp.MethodElicitationCreate {
		return h.Handler.HandleRequest(ctx, s, method, params)
	}
	var p mcp.ElicitRequestParams
	if err := wire.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "elicitation/create params: " + err.Error()}
	}
	form, ok := p.Value.(*mcp.ElicitRequestFormParams)
	if !ok {
		return session.Raw(`{"action":"decline"}`), nil // URL mode: nothing to fill in
	}
	content := map[string]any{}
	for name, prop := range form.RequestedSchema.Properties {
		if v, ok := schemaDefault(prop); ok {
			content[name] = v
		}
	}
	b, err := wire.EncodeValue(map[string]any{"action": "accept", "content": content})
	if err != nil {
		return nil, err
	}
	return session.Raw(b), nil
}

// schemaDefault returns the default value of a primitive schema, if any.
func schemaDefault(d mcp.PrimitiveSchemaDefinition) (any, bool) {
	switch s := d.Value.(type) {
	case *mcp.StringSchema:
		if s.Default != nil {
			return *s.Default, true
		}
	case *mcp.NumberSchema:
		if s.Default != nil {
			if s.Type == mcp.NumberSchemaTypeInteger {
				return int64(*s.Default), true
			}
			return *s.Default, true
		}
	case *mcp.BooleanSchema:
		if s.Default != nil {
			return *s.Default, true
		}
	case *mcp.UntitledSingleSelectEnumSchema:
		if s.Default != nil {
			return *s.Default, true
		}
	case *mcp.TitledSingleSelectEnumSchema:
		if s.Default != nil {
			return *s.Default, true
		}
	case *mcp.LegacyTitledEnumSchema:
		if s.Default != nil {
			return *s.Default, true
		}
	case *mcp.UntitledMultiSelectEnumSchema:
		if s.Default != nil {
			return s.Default, true
		}
	case *mcp.TitledMultiSelectEnumSchema:
		if s.Default != nil {
			return s.Default, true
		}
	}
	return nil, false
}

// requireTool checks that the server lists the tool.
func requireTool(ctx context.Context, cs *mcp.ClientSession, name string) error {
	_, err := findTool(ctx, cs, name)
	return err
}

// findTool returns the tool the server lists under name, reading at most
// maxTools tools.
func findTool(ctx context.Context, cs *mcp.ClientSession, name string) (mcp.Tool, error) {
	var names []string
	for tool, err := range cs.AllTools(ctx) {
		if err != nil {
			return mcp.Tool{}, fmt.Errorf("tools/list: %w", err)
		}
		if tool.Name == name {
			return tool, nil
		}
		names = append(names, tool.Name)
		if len(names) >= maxTools {
			return mcp.Tool{}, fmt.Errorf("tools/list: no tool %q in the first %d tools", name, maxTools)
		}
	}
	return mcp.Tool{}, fmt.Errorf("tools/list: no tool %q (the server has %q)", name, names)
}

// callTool calls a tool and fails on a tool error.
func callTool(ctx context.Context, cs *mcp.ClientSession, name, args string) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: name, Arguments: jsontext.Value(args)})
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	if res.IsError != nil && *res.IsError {
		return nil, fmt.Errorf("tools/call %s: tool error: %s", name, resultText(res))
	}
	return res, nil
}

// resultText joins the text content of a tool result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.Value.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "(no text content)"
	}
	return strings.Join(parts, "\n")
}
