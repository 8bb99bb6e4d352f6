package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// addTaskTools serves the Tasks extension (io.modelcontextprotocol/tasks)
// and registers the tools its scenarios (tasks-*) call by name: greet
// (synchronous only), slow_compute, failing_job (task required),
// protocol_error_job, confirm_delete and multi_input (which ask for input
// inside the task), and test_tool_with_task (a round of input before the
// task starts). The returned Server is closed when the fixture ends.
func addTaskTools(srv *mcp.StandardServer) (*tasks.Server, error) {
	ts := tasks.NewServer(tasks.Options{})
	if err := srv.AddExtension(ts); err != nil {
		ts.Close()
		return nil, err
	}
	srv.MustAddTool(mcp.Tool{Name: "greet", Description: ptr("Greets by name (synchronous only)"),
		InputSchema: jsontext.Value(`{"type":"object","properties":{"name":{"type":"string"}}}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			var in struct{ Name string }
			_ = json.Unmarshal(p.Arguments, &in)
			return textResult("Hello, " + in.Name + "!"), nil
		})

	srv.MustAddTool(mcp.Tool{Name: "slow_compute", Description: ptr("Sleeps for seconds, then answers (a task when the client declares the extension)"),
		InputSchema: jsontext.Value(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			var in struct {
				Seconds float64
				Label   string
			}
			_ = json.Unmarshal(p.Arguments, &in)
			if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return textResult(fmt.Sprintf("computed %s after %gs", in.Label, in.Seconds)), nil
		})
	ts.SetToolSupport("slow_compute", tasks.Optional)

	srv.MustAddTool(mcp.Tool{Name: "failing_job", Description: ptr("Fails with a tool error after about a second (a task only)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
			return nil, errors.New("the job failed, as it always does")
		})
	ts.SetToolSupport("failing_job", tasks.Required)

	srv.MustAddTool(mcp.Tool{Name: "protocol_error_job", Description: ptr("Panics: a protocol error (a failed task)"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			panic("protocol_error_job: a crash, on purpose")
		})
	ts.SetToolSupport("protocol_error_job", tasks.Optional)

	srv.MustAddTool(mcp.Tool{Name: "confirm_delete", Description: ptr("Asks to confirm before deleting a file (nothing is deleted)"),
		InputSchema: jsontext.Value(`{"type":"object","properties":{"filename":{"type":"string"}}}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			var in struct{ Filename string }
			_ = json.Unmarshal(p.Arguments, &in)
			res, err := mcp.Elicit(ctx, "confirm", form("Delete "+in.Filename+"?", map[string]mcp.PrimitiveSchemaDefinition{"confirm": {Value: &mcp.BooleanSchema{}}}, "confirm"))
			if err != nil {
				return nil, err
			}
			if res.Action != "accept" || contentString(res, "confirm") != "true" {
				return textResult("kept " + in.Filename), nil
			}
			return textResult("deleted " + in.Filename), nil
		})
	ts.SetToolSupport("confirm_delete", tasks.Optional)

	srv.MustAddTool(mcp.Tool{Name: "multi_input", Description: ptr("Asks for a name and a confirmation at once"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			answers, err := session.Ask(ctx, map[string]session.InputRequest{
				"name":    {Method: mcp.MethodElicitationCreate, Params: form("What is your name?", map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}}, "name")},
				"confirm": {Method: mcp.MethodElicitationCreate, Params: form("Go on?", map[string]mcp.PrimitiveSchemaDefinition{"confirm": {Value: &mcp.BooleanSchema{}}}, "confirm")},
			})
			if err != nil {
				return nil, err
			}
			return textResult(fmt.Sprintf("got %d answers", len(answers))), nil
		})
	ts.SetToolSupport("multi_input", tasks.Optional)

	srv.MustAddTool(mcp.Tool{Name: "test_tool_with_task", Description: ptr("Asks for the user's name in a round of the request, then goes on as a task"), InputSchema: noArgs},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			res, err := mcp.Elicit(ctx, "user_name", form("What is your name?", map[string]mcp.PrimitiveSchemaDefinition{"name": {Value: &mcp.StringSchema{}}}, "name"))
			if err != nil {
				return nil, err
			}
			if ctx, err = tasks.Start(ctx); err != nil {
				return nil, err
			}
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return textResult("Hello, " + contentString(res, "name") + "!"), nil
		})
	ts.SetToolSupport("test_tool_with_task", tasks.Optional, tasks.StartManually())
	return ts, nil
}
