package tasks_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// yes accepts every elicitation.
type yes struct{ mcp.UnimplementedClient }

func (yes) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return mcp.Accept(map[string]any{"confirm": true})
}

// exampleServer serves the tool "cleanup", which runs as a task and asks
// for a confirmation mid-way, on one end of a pipe, and returns the other.
func exampleServer() (mcp.Transport, func()) {
	ts := tasks.NewServer(tasks.Options{PollInterval: 100 * time.Millisecond})
	srv := mcp.NewServer(mcp.Implementation{Name: "janitor", Version: "1.0.0"}, mcp.WithExtension(ts))
	srv.MustAddTool(mcp.NewTool("cleanup", "Deletes old files, once confirmed"), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		ok, err := mcp.Elicit(ctx, "confirm", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{Message: "Delete 3 files?"}})
		if err != nil {
			return nil, err
		}
		if ok.Action != "accept" {
			return mcp.TextResult("kept everything"), nil
		}
		return mcp.TextResult("deleted 3 files"), nil
	})
	ts.SetToolSupport("cleanup", tasks.Optional)
	serverEnd, clientEnd := mcp.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	return clientEnd, func() { server.Close(); ts.Close() }
}

// A client that uses the Tasks extension calls a tool as usual: the call
// follows the task the server creates, answers its question with the
// client's Handler, and returns the tool's result.
func ExampleFollower() {
	t, stop := exampleServer()
	defer stop()
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{
		Handler:    yes{},
		Extensions: []mcp.ClientExtension{tasks.Follower{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "cleanup"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output: deleted 3 files
}

// CallToolAsync starts a task and returns at once; the task id is all it
// takes to come back to it later, from this client or another one (after
// a restart, say), with Wait.
func ExampleCallToolAsync() {
	t, stop := exampleServer()
	defer stop()
	ctx := context.Background()
	cs, err := mcp.Connect(ctx, t, &mcp.ClientOptions{
		Handler:    yes{},
		Extensions: []mcp.ClientExtension{tasks.Follower{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	task, res, err := tasks.CallToolAsync(ctx, cs, &mcp.CallToolRequestParams{Name: "cleanup"})
	switch {
	case err != nil:
		fmt.Println(err)
		return
	case res != nil: // the server answered at once
		fmt.Println(res.Text())
		return
	}
	fmt.Println("started:", task.Status)
	saved := task.TaskID // keep it somewhere that outlives the process

	res, err = tasks.Wait(ctx, cs, saved)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// started: working
	// deleted 3 files
}
