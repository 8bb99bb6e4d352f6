package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// addModernTools registers the tools and prompts the 2026-07-28 scenarios
// call by name: multi round-trip requests (input-required-result-*), the
// stateless checks (server-stateless), list changes and the Mcp-Param
// headers (http-custom-header-server-validation). They use the same
// input API as the legacy tools above (Elicit, CreateMessage…), which a
// legacy session turns into real requests to the client.
func addModernTools(srv *mcp.StandardServer) error {
	nameForm := func(key string) map[string]mcp.PrimitiveSchemaDefinition {
		return map[string]mcp.PrimitiveSchemaDefinition{key: {Value: &mcp.StringSchema{}}}
	}
	askName := func(ctx context.Context) (string, error) {
		res, err := mcp.Elicit(ctx, "user_name", form("What is your name?", nameForm("name"), "name"))
		if err != nil {
			return "", err
		}
		return contentString(res, "name"), nil
	}
	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_elicitation", Description: ptr("Asks for the user's name (one elicitation) and greets them"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			name, err := askName(ctx)
			if err != nil {
				return nil, err
			}
			return textResult("Hello, " + name + "!"), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_sampling", Description: ptr("Asks the client's model for a greeting"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := mcp.CreateMessage(ctx, "greeting", sampling("Generate a greeting"))
			if err != nil {
				return nil, err
			}
			return textResult("Model said: " + sampledText(res)), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_list_roots", Description: ptr("Asks the client for its roots"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := mcp.ListRoots(ctx, "client_roots")
			if err != nil {
				return nil, err
			}
			uris := make([]string, 0, len(res.Roots))
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return textResult("Roots: " + strings.Join(uris, ", ")), nil
		})

	confirm := func(ctx context.Context) (*mcp.CallToolResult, error) {
		// The state kept for the next round is sealed by the runtime: the
		// retry proves the server got it back intact.
		if session.RoundState(ctx) == nil {
			session.SetRoundState(ctx, []byte("issued"))
		}
		res, err := mcp.Elicit(ctx, "confirm", form("Please confirm", map[string]mcp.PrimitiveSchemaDefinition{"ok": {Value: &mcp.BooleanSchema{}}}, "ok"))
		if err != nil {
			return nil, err
		}
		if string(session.RoundState(ctx)) != "issued" {
			return nil, fmt.Errorf("the request state did not come back")
		}
		return textResult("state-ok: confirmed (" + string(res.Action) + ")"), nil
	}
	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_request_state", Description: ptr("Asks for a confirmation, keeping state across the round"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return confirm(ctx)
		})
	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_tampered_state", Description: ptr("Like the request-state tool: a tampered state is refused"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return confirm(ctx)
		})

	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_multiple_inputs", Description: ptr("Asks for a name, a greeting and the roots at once"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			answers, err := mcp.AskInput(ctx, mcp.InputRequests{
				"user_name":    {Value: &mcp.ElicitRequest{Params: *form("What is your name?", nameForm("name"), "name")}},
				"greeting":     {Value: &mcp.CreateMessageRequest{Params: *sampling("Generate a greeting")}},
				"client_roots": {Value: &mcp.ListRootsRequest{}},
			})
			if err != nil {
				return nil, err
			}
			return textResult(fmt.Sprintf("Got %d answers", len(answers))), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_multi_round", Description: ptr("Asks for a name, then for a colour, in two rounds"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			name, err := askName(ctx)
			if err != nil {
				return nil, err
			}
			res, err := mcp.Elicit(ctx, "favorite_color", form("Hello "+name+", what is your favourite colour?", nameForm("color"), "color"))
			if err != nil {
				return nil, err
			}
			return textResult(name + " likes " + contentString(res, "color")), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_input_required_result_capabilities", Description: ptr("Asks only for the kinds of input the client declared"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			caps := session.ClientCapabilities(ctx)
			reqs := mcp.InputRequests{}
			if session.HasCapability(caps, "elicitation") {
				reqs["user_name"] = mcp.InputRequest{Value: &mcp.ElicitRequest{Params: *form("What is your name?", nameForm("name"), "name")}}
			}
			if session.HasCapability(caps, "sampling") {
				reqs["greeting"] = mcp.InputRequest{Value: &mcp.CreateMessageRequest{Params: *sampling("Generate a greeting")}}
			}
			if session.HasCapability(caps, "roots") {
				reqs["client_roots"] = mcp.InputRequest{Value: &mcp.ListRootsRequest{}}
			}
			if len(reqs) == 0 {
				return textResult("The client takes no input"), nil
			}
			answers, err := mcp.AskInput(ctx, reqs)
			if err != nil {
				return nil, err
			}
			return textResult(fmt.Sprintf("Got %d answers", len(answers))), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_missing_capability", Description: ptr("Needs sampling: a client that did not declare it gets -32021"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := mcp.CreateMessage(ctx, "greeting", sampling("Say hello"))
			if err != nil {
				return nil, err
			}
			return textResult("Model said: " + sampledText(res)), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_streaming_elicitation", Description: ptr("Reports progress, then asks for the user's name"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			if err := session.ReportProgress(ctx, 1, nil, "starting"); err != nil {
				return nil, err
			}
			name, err := askName(ctx)
			if err != nil {
				return nil, err
			}
			return textResult("Hello, " + name + "!"), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "test_logging_tool", Description: ptr("Logs three messages, which reach only clients that asked for a log level"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			for _, msg := range []string{"first", "second", "third"} {
				data, _ := wire.EncodeValue(msg)
				if err := session.Log(ctx, "info", "everything-server", data); err != nil {
					return nil, err
				}
			}
			return textResult("Logged three messages"), nil
		})

	var changes atomic.Int64
	srv.MustAddTool(mcp.Tool{Name: "test_trigger_tool_change", Description: ptr("Changes the tool list (adds a tool)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			name := fmt.Sprintf("dynamic_tool_%d", changes.Add(1))
			// Registered at run time: AddTool, whose error is the call's,
			// rather than MustAddTool, which would panic in a handler.
			err := srv.AddTool(mcp.Tool{Name: name, Description: ptr("Added by test_trigger_tool_change"), InputSchema: noArgs},
				func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
					return textResult("dynamic"), nil
				})
			if err != nil {
				return nil, err
			}
			srv.RemoveTool(name)
			return textResult("Tool list changed"), nil
		})
	srv.MustAddTool(mcp.Tool{Name: "test_trigger_prompt_change", Description: ptr("Changes the prompt list (adds a prompt)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			name := fmt.Sprintf("dynamic_prompt_%d", changes.Add(1))
			err := srv.AddPrompt(mcp.Prompt{Name: name}, func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
			if err != nil {
				return nil, err
			}
			srv.RemovePrompt(name)
			return textResult("Prompt list changed"), nil
		})

	// http-custom-header-server-validation (SEP-2243): arguments a client
	// mirrors into Mcp-Param headers, which the transport checks against
	// the body before the tool runs.
	err := srv.AddTool(mcp.Tool{
		Name:        "test_custom_headers",
		Description: ptr("Echoes its arguments; region, priority and verbose travel in Mcp-Param headers too"),
		InputSchema: jsontext.Value(`{
			"type": "object",
			"properties": {
				"region": {"type": "string", "description": "Mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
				"priority": {"type": "integer", "description": "Mirrored into Mcp-Param-Priority", "x-mcp-header": "Priority"},
				"verbose": {"type": "boolean", "description": "Mirrored into Mcp-Param-Verbose", "x-mcp-header": "Verbose"},
				"query": {"type": "string", "description": "Not mirrored"}
			},
			"required": ["region"]
		}`),
	}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return textResult("Custom headers tool called with: " + string(orEmptyObject(p.Arguments))), nil
	})
	if err != nil {
		return err
	}

	srv.MustAddPrompt(mcp.Prompt{Name: "test_input_required_result_prompt", Description: ptr("Asks for context before rendering")},
		func(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
			res, err := mcp.Elicit(ctx, "context", form("What context should the prompt use?", nameForm("context"), "context"))
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: text("Context: " + contentString(res, "context"))}}}, nil
		})
	return nil
}

// form returns the params of a form elicitation.
func form(message string, props map[string]mcp.PrimitiveSchemaDefinition, required ...string) *mcp.ElicitRequestParams {
	return &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
		Message:         message,
		RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: props, Required: required},
	}}
}

// sampling returns the params of a one-message sampling request.
func sampling(prompt string) *mcp.CreateMessageRequestParams {
	return &mcp.CreateMessageRequestParams{
		MaxTokens: 50,
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: prompt}}}},
	}
}

// contentString returns the string member key of an elicitation's content.
func contentString(res *mcp.ElicitResult, key string) string {
	b, err := res.AppendJSON(nil)
	if err != nil {
		return ""
	}
	c, _ := wire.Member(b, "content")
	v, ok := wire.Member(c, key)
	if !ok {
		return ""
	}
	var s string
	if wire.DecodeValue(v, &s) == nil {
		return s
	}
	return string(jsontext.Value(v))
}

// sampledText returns the text of a sampling answer.
func sampledText(res *mcp.CreateMessageResult) string {
	b, err := res.AppendJSON(nil)
	if err != nil {
		return ""
	}
	c, _ := wire.Member(b, "content")
	if t, ok := wire.MemberString(c, "text"); ok {
		return t
	}
	return string(c)
}
