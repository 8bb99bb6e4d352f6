package tasks_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// A StandardServer serving the Tasks extension: the tool "report" runs as
// a task for clients that declare the extension, and synchronously for the
// others; the same handler serves both.
func ExampleNewServer() {
	ts := tasks.NewServer(tasks.Options{TTL: 10 * time.Minute})
	defer ts.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "reports", Version: "1.0.0"}, mcp.WithExtension(ts))
	srv.MustAddTool(mcp.Tool{Name: "report"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		// In a task, ctx is cancelled by tasks/cancel, and asking for
		// input (mcp.Elicit) parks the task in input_required.
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "the report"}}}}, nil
	})
	ts.SetToolSupport("report", tasks.Optional)
	fmt.Println(ts.ToolSupport("report"))
	// Output: optional
}

// A tool that asks for input in a round of the request first, then goes on
// as a task: it is declared with StartManually and calls Start.
func ExampleStart() {
	ts := tasks.NewServer(tasks.Options{})
	defer ts.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "deploys", Version: "1.0.0"}, mcp.WithExtension(ts))
	srv.MustAddTool(mcp.Tool{Name: "deploy"}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		ok, err := mcp.Elicit(ctx, "confirm", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "Deploy now?"}})
		if err != nil {
			return nil, err // the round's InputRequiredResult, before any task
		}
		if ctx, err = tasks.Start(ctx); err != nil {
			return nil, err
		}
		// From here on the client polls tasks/get; ctx is the task's.
		_ = ctx
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "deployed: " + string(ok.Action)}}}}, nil
	})
	ts.SetToolSupport("deploy", tasks.Optional, tasks.StartManually())
	fmt.Println(ts.ToolSupport("deploy"))
	// Output: optional
}

// Instances of a server that share a task Store share a Bus too, so that
// a subscriptions/listen stream on one hears of the tasks another runs
// (notifications/tasks); it may be the Bus the server announces its own
// changes on.
func ExampleOptions_bus() {
	bus := session.NewBus() // in production, one that a message broker carries
	ts := tasks.NewServer(tasks.Options{Bus: bus})
	defer ts.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "reports", Version: "1.0.0"}, mcp.WithBus(bus), mcp.WithExtension(ts))
	_ = srv
	fmt.Println(ts.ListenFilter())
	// Output: [taskIds]
}
