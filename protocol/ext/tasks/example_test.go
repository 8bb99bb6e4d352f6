package tasks_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A client of the extension decodes the answer of tools/call as
// CallToolResults: the tool's result, input requests, or a task to poll.
func ExampleCallToolResults() {
	answer := []byte(`{"resultType":"task","taskId":"786512e2","status":"working",
		"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z",
		"ttlMs":60000,"pollIntervalMs":5000}`)
	var res tasks.CallToolResults
	if err := wire.Unmarshal(answer, &res); err != nil {
		fmt.Println(err)
		return
	}
	switch v := res.Value.(type) {
	case *tasks.CreateTaskResult:
		fmt.Println("task", v.TaskID, v.Status, "poll every", *v.PollIntervalMs, "ms")
	case *mcp.CallToolResult:
		fmt.Println("done:", len(v.Content), "blocks")
	case *mcp.InputRequiredResult:
		fmt.Println("input required")
	}
	// Output: task 786512e2 working poll every 5000 ms
}

// GetTaskResult is told apart by status: each state is its own type.
func ExampleGetTaskResult() {
	raw := []byte(`{"resultType":"complete","taskId":"786512e2","status":"failed",
		"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":null,
		"error":{"code":-32603,"message":"API rate limit exceeded"}}`)
	var res tasks.GetTaskResult
	if err := wire.Unmarshal(raw, &res); err != nil {
		fmt.Println(err)
		return
	}
	if f, ok := res.Value.(*tasks.GetTaskResultFailedTask); ok {
		fmt.Println(f.Error.Code, f.Error.Message, "ttl unlimited:", f.TTLMs == nil)
	}
	// Output: -32603 API rate limit exceeded ttl unlimited: true
}
