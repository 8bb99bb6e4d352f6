package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// The scenarios of the 2026-07-28 run (MCP_CONFORMANCE_PROTOCOL_VERSION
// 2026-07-28): the client of the stateless era, the same mcp20260728.Connect
// that falls back to initialize against a legacy server.
var scenarios26 = map[string]func(ctx context.Context, url string) error{
	"tools_call":                       runToolsCall26,
	"request-metadata":                 runRequestMetadata,
	"sep-2322-client-request-state":    runRequestState,
	"http-standard-headers":            runStandardHeaders,
	"http-custom-headers":              runCustomHeaders,
	"http-invalid-tool-headers":        runInvalidToolHeaders,
	"json-schema-ref-no-deref":         runRefNoDeref,
	"json-schema-2020-12-preservation": runJSONSchemaPreservation26,
}

var info26 = m26.Implementation{Name: info.Name, Version: info.Version}

// confirmer accepts every elicitation with {"confirmed": true}.
type confirmer struct{ m26.UnimplementedClient }

func (confirmer) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	return &m26.ElicitResult{Action: "accept", Content: map[string]m26.ElicitResultContentValue{"confirmed": {Value: m26.ElicitResultContentValueBoolean(true)}}}, nil
}

// connect26 connects a client of the stateless era to url.
func connect26(ctx context.Context, url string) (*m26.ClientSession, error) {
	caps := m26.ClientCapabilities{Elicitation: &m26.ClientCapabilitiesElicitation{Form: m26.JSONObject{}}}
	cs, err := m26.Connect(ctx, newTransport(url), &m26.ClientOptions{Info: info26, Capabilities: caps, Handler: confirmer{}, Session: session.Options{Logger: logger}})
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if cs.Era() != session.EraModern {
		cs.Close()
		return nil, fmt.Errorf("connect: the server was taken for one of the %s era", cs.Era())
	}
	return cs, nil
}

// withSession connects, runs f and closes.
func withSession(ctx context.Context, url string, f func(cs *m26.ClientSession) error) error {
	cs, err := connect26(ctx, url)
	if err != nil {
		return err
	}
	defer cs.Close()
	return f(cs)
}

// listTools26 returns the tools the server lists (the client's view: tools
// with broken x-mcp-header annotations are already dropped), at most
// maxTools of them.
func listTools26(ctx context.Context, cs *m26.ClientSession) (map[string]m26.Tool, error) {
	tools := map[string]m26.Tool{}
	for tool, err := range cs.AllTools(ctx) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools[tool.Name] = tool
		if len(tools) >= maxTools {
			break
		}
	}
	return tools, nil
}

// call26 calls a tool and fails on a tool error.
func call26(ctx context.Context, cs *m26.ClientSession, name string, args jsontext.Value) error {
	res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("tools/call %s: %w", name, err)
	}
	if res.IsError != nil && *res.IsError {
		return fmt.Errorf("tools/call %s: tool error", name)
	}
	return nil
}

// listAndCall lists the tools and calls each of calls (name → arguments),
// all of which must be listed.
func listAndCall(ctx context.Context, cs *m26.ClientSession, calls ...[2]string) error {
	tools, err := listTools26(ctx, cs)
	if err != nil {
		return err
	}
	for _, c := range calls {
		if _, ok := tools[c[0]]; !ok {
			return fmt.Errorf("tools/list: no tool %q", c[0])
		}
		if err := call26(ctx, cs, c[0], jsontext.Value(c[1])); err != nil {
			return err
		}
	}
	return nil
}

func runToolsCall26(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		return listAndCall(ctx, cs, [2]string{"add_numbers", `{"a":5,"b":3}`})
	})
}

// runRequestMetadata: the mock refuses the first request with -32022
// naming 2026-07-28; Connect retries at it. Then one more request:
// server/discover again (the mock declares no capabilities, so the client
// sends nothing that needs one).
func runRequestMetadata(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		_, err := cs.Discover(ctx, nil, session.WithoutCache())
		return err
	})
}

// runRequestState: four tools, two of which ask for a confirmation; the
// client answers, echoing requestState only when given.
func runRequestState(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		return listAndCall(ctx, cs,
			[2]string{"test_mrtr_echo_state", `{}`},
			[2]string{"test_mrtr_no_state", `{}`},
			[2]string{"test_mrtr_unrelated", `{}`},
			[2]string{"test_mrtr_no_result_type", `{}`})
	})
}

// runStandardHeaders: one of each method that mirrors headers.
func runStandardHeaders(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		tools, err := listTools26(ctx, cs)
		if err != nil {
			return err
		}
		for name := range tools {
			if err := call26(ctx, cs, name, jsontext.Value(`{}`)); err != nil {
				return err
			}
		}
		resources, err := cs.ListResources(ctx, nil)
		if err != nil {
			return fmt.Errorf("resources/list: %w", err)
		}
		for _, r := range resources.Resources {
			if _, err := cs.ReadResource(ctx, &m26.ReadResourceRequestParams{URI: r.URI}); err != nil {
				return fmt.Errorf("resources/read %s: %w", r.URI, err)
			}
		}
		prompts, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			return fmt.Errorf("prompts/list: %w", err)
		}
		for _, p := range prompts.Prompts {
			if _, err := cs.GetPrompt(ctx, &m26.GetPromptRequestParams{Name: p.Name}); err != nil {
				return fmt.Errorf("prompts/get %s: %w", p.Name, err)
			}
		}
		return nil
	})
}

// runCustomHeaders: the tool calls MCP_CONFORMANCE_CONTEXT names, whose
// arguments the client mirrors into Mcp-Param headers.
func runCustomHeaders(ctx context.Context, url string) error {
	var sc struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &sc); err != nil {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	var calls [][2]string
	for _, c := range sc.ToolCalls {
		calls = append(calls, [2]string{c.Name, string(c.Arguments)})
	}
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		return listAndCall(ctx, cs, calls...)
	})
}

// runInvalidToolHeaders: the tools with broken x-mcp-header annotations are
// dropped from the client's view; the valid one is called.
func runInvalidToolHeaders(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		tools, err := listTools26(ctx, cs)
		if err != nil {
			return err
		}
		for name := range tools {
			if strings.HasPrefix(name, "invalid_") {
				return fmt.Errorf("tools/list: %s was kept, though its x-mcp-header annotations break the rules", name)
			}
		}
		return call26(ctx, cs, "valid_tool", jsontext.Value(`{"region":"us-west1"}`))
	})
}

// runRefNoDeref: list the tools; a $ref to a network URI in an inputSchema
// is kept as it is, never fetched.
func runRefNoDeref(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		_, err := listTools26(ctx, cs)
		return err
	})
}

// runJSONSchemaPreservation26 is runJSONSchemaPreservation at 2026-07-28.
func runJSONSchemaPreservation26(ctx context.Context, url string) error {
	return withSession(ctx, url, func(cs *m26.ClientSession) error {
		tools, err := listTools26(ctx, cs)
		if err != nil {
			return err
		}
		tool, ok := tools[preservedTool]
		if !ok {
			return fmt.Errorf("tools/list: no tool %q", preservedTool)
		}
		args, err := echoArguments(tool.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %s: %w", preservedTool, err)
		}
		return listAndCall(ctx, cs, [2]string{echoTool, string(args)})
	})
}
