// Command tasks shows the Tasks extension of MCP
// (io.modelcontextprotocol/tasks, package protocol/ext/tasks) from both
// sides: a server whose tool runs as a task and asks the user a question
// mid-way, and a client that follows such a task to its end, resumes one
// after a restart, and cancels one.
//
// The tool, archive, works in steps (--step long each): it copies a folder,
// asks whether to delete the originals (an elicitation), and deletes them
// if told so. Declared with the tasks.Server's SetToolSupport, it runs as a
// task for a client that declares the extension: the call is answered at
// once with a task id to poll, and the question parks the task in status
// input_required until the client answers it.
//
// Run the server (Streamable HTTP on 127.0.0.1:8080; --addr to change it),
// then the client in another terminal (--decline answers no):
//
//	$ go run ./examples/tasks serve
//	serving MCP on http://127.0.0.1:8080/mcp
//
//	$ go run ./examples/tasks client --url http://127.0.0.1:8080/mcp
//	1. archive photos: a call, followed to its end
//	   the server asks: "Copied photos to the archive. Delete the originals?"; answering yes
//	   result: archived photos; deleted the originals
//	2. archive music: started; the client restarts and resumes it
//	   started a task (working); saved its id, disconnected
//	   reconnected; waiting for the saved task
//	   the server asks: "Copied music to the archive. Delete the originals?"; answering yes
//	   result: archived music; deleted the originals
//	3. archive videos: started, then cancelled
//	   started a task (working); cancelling it
//	   tasks/get: cancelled
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/protocol/ext/tasks"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "tasks: %v\n", err)
		os.Exit(1)
	}
}

// run runs the command of args, writing what happens to out, until it is
// done (client) or ctx ends (serve).
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := pflag.NewFlagSet("tasks", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:8080", "serve: listen on `ADDR`")
	step := fs.Duration("step", time.Second, "serve: each step of the tool takes `D`")
	url := fs.String("url", "http://127.0.0.1:8080/mcp", "client: the server's `URL`")
	decline := fs.Bool("decline", false, "client: answer no when the server asks")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w; see --help", err)
	}
	if *help {
		fmt.Fprintf(out, "usage: tasks serve [--addr ADDR] [--step D]\n       tasks client [--url URL] [--decline]\n\n%s", fs.FlagUsages())
		return nil
	}
	switch {
	case fs.NArg() != 1:
		return errors.New("want one command, serve or client; see --help")
	case fs.Arg(0) == "serve":
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return fmt.Errorf("serve --addr %s: %w", *addr, err)
		}
		return serve(ctx, ln, *step, out)
	case fs.Arg(0) == "client":
		return client(ctx, *url, !*decline, out)
	}
	return fmt.Errorf("unknown command %q, want serve or client; see --help", fs.Arg(0))
}

// Args are the arguments of the tool archive.
type Args struct {
	Folder string `json:"folder" description:"The folder to archive"`
}

// archive returns the tool archive, whose steps take step each. It is an
// ordinary tool handler: run as a task, its context is the task's
// (cancelled by tasks/cancel), and Elicit parks the task until the client
// answers; called without the extension, it runs as any other call.
func archive(step time.Duration) func(context.Context, Args) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, a Args) (*mcp.CallToolResult, error) {
		if err := work(ctx, step); err != nil { // step 1: copy
			return nil, err
		}
		if !mcp.ClientCan(ctx, "elicitation") {
			return mcp.TextResult("archived " + a.Folder + "; kept the originals (could not ask)"), nil
		}
		// Step 2: ask before the step that cannot be undone.
		res, err := mcp.Elicit(ctx, "confirm", &mcp.ElicitRequestParams{Value: &mcp.ElicitRequestFormParams{
			Message: "Copied " + a.Folder + " to the archive. Delete the originals?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{
				Properties: map[string]mcp.PrimitiveSchemaDefinition{"confirm": {Value: &mcp.BooleanSchema{}}},
				Required:   []string{"confirm"},
			},
		}})
		if err != nil {
			return nil, err // without a task: a round of input; in one: cancelled
		}
		yes, _ := res.Content["confirm"].Value.(mcp.ElicitResultContentValueBoolean)
		if res.Action != mcp.ElicitResultActionAccept || !bool(yes) {
			return mcp.TextResult("archived " + a.Folder + "; kept the originals"), nil
		}
		if err := work(ctx, step); err != nil { // step 3: delete
			return nil, err
		}
		return mcp.TextResult("archived " + a.Folder + "; deleted the originals"), nil
	}
}

// work stands for d of real work that stops when ctx ends.
func work(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// serve serves the server over Streamable HTTP at /mcp on ln until ctx
// ends, then shuts down: the HTTP server first, then the tasks still
// running (their contexts are cancelled).
func serve(ctx context.Context, ln net.Listener, step time.Duration, out io.Writer) error {
	// The Tasks server keeps the tasks (in memory here: tasks.Options.Store
	// takes a shared one) and answers tasks/get, tasks/update, tasks/cancel.
	ts := tasks.NewServer(tasks.Options{PollInterval: 250 * time.Millisecond})
	defer ts.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks-example", Version: "1.0.0"}, mcp.WithExtension(ts))
	mcp.MustAddTypedTool(srv, mcp.NewTool("archive", "Archives a folder; asks before deleting the originals"), archive(step))
	// Optional: a task for clients that declare the extension, an ordinary
	// call for the others (tasks.Required would refuse them).
	ts.SetToolSupport("archive", tasks.Optional)

	h := srv.HTTPHandler(mcp.HTTPOptions{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No deadline for a whole response, which would cut SSE streams and
		// calls without a task: the handler bounds each write itself.
		WriteTimeout:   0,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
	}
	hs.RegisterOnShutdown(h.Close)
	fmt.Fprintf(out, "serving MCP on http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close() // the connections still busy after 10 s
	}
	return nil
}

// answerer is the client's Elicitor: it answers the server's question
// with confirm, and says so. A real client would ask its user.
type answerer struct {
	mcp.UnimplementedClient
	confirm bool
	out     io.Writer
}

func (a answerer) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	if f, ok := p.Value.(*mcp.ElicitRequestFormParams); ok {
		fmt.Fprintf(a.out, "   the server asks: %q; answering %s\n", f.Message, map[bool]string{true: "yes", false: "no"}[a.confirm])
	}
	return mcp.Accept(map[string]any{"confirm": a.confirm})
}

// connect connects to the server at url as a client that uses the Tasks
// extension: tasks.Follower declares it, and follows the task a call is
// answered with.
func connect(ctx context.Context, url string, h mcp.Client) (*mcp.ClientSession, error) {
	return mcp.Connect(ctx, mcp.HTTP(url, nil), &mcp.ClientOptions{
		Handler:    h,
		Extensions: []mcp.ClientExtension{tasks.Follower{}},
	})
}

// archiveCall is the tools/call of archive for folder.
func archiveCall(folder string) *mcp.CallToolRequestParams {
	args, _ := json.Marshal(Args{Folder: folder}) // a struct of a string: cannot fail
	return &mcp.CallToolRequestParams{Name: "archive", Arguments: args}
}

// client calls archive three ways on the server at url, answering its
// question with confirm, and writes what happens to out.
func client(ctx context.Context, url string, confirm bool, out io.Writer) error {
	h := answerer{confirm: confirm, out: out}
	cs, err := connect(ctx, url, h)
	if err != nil {
		return err
	}
	defer cs.Close() // closing twice is harmless

	// 1. An ordinary call: the client polls the task, answers its question
	// through tasks/update, and returns the tool's result.
	fmt.Fprintln(out, "1. archive photos: a call, followed to its end")
	res, err := cs.CallTool(ctx, archiveCall("photos"))
	if err != nil {
		return fmt.Errorf("archive photos: %w", err)
	}
	fmt.Fprintf(out, "   result: %s\n", res.Text())

	// 2. Start a task, keep its id, and come back to it from a new client,
	// as a process would after a restart.
	fmt.Fprintln(out, "2. archive music: started; the client restarts and resumes it")
	task, err := start(ctx, cs, "music")
	if err != nil {
		return err
	}
	saved := task.TaskID // a real client would store it (it is a secret: whoever has it may poll the task)
	cs.Close()
	fmt.Fprintf(out, "   started a task (%s); saved its id, disconnected\n", task.Status)
	again, err := connect(ctx, url, h)
	if err != nil {
		return err
	}
	defer again.Close()
	fmt.Fprintln(out, "   reconnected; waiting for the saved task")
	if res, err = tasks.Wait(ctx, again, saved); err != nil {
		return fmt.Errorf("archive music: %w", err)
	}
	fmt.Fprintf(out, "   result: %s\n", res.Text())

	// 3. Start a task and cancel it. (Cancelling the context of a followed
	// call, as in 1, sends tasks/cancel too.)
	fmt.Fprintln(out, "3. archive videos: started, then cancelled")
	if task, err = start(ctx, again, "videos"); err != nil {
		return err
	}
	fmt.Fprintf(out, "   started a task (%s); cancelling it\n", task.Status)
	if _, err := tasks.CancelTask(ctx, again, &tasks.CancelTaskRequestParams{TaskID: task.TaskID}); err != nil {
		return fmt.Errorf("archive videos: %w", err)
	}
	got, err := tasks.GetTask(ctx, again, &tasks.GetTaskRequestParams{TaskID: task.TaskID})
	if err != nil {
		return fmt.Errorf("archive videos: %w", err)
	}
	// Each status is a type of its own.
	if _, ok := got.Value.(*tasks.GetTaskResultCancelledTask); !ok {
		return fmt.Errorf("archive videos: after tasks/cancel the task is %T, not cancelled", got.Value)
	}
	fmt.Fprintln(out, "   tasks/get: cancelled")
	return nil
}

// start calls archive for folder as a task, and returns the task without
// following it.
func start(ctx context.Context, cs *mcp.ClientSession, folder string) (*tasks.CreateTaskResult, error) {
	task, _, err := tasks.CallToolAsync(ctx, cs, archiveCall(folder))
	if err == nil && task == nil { // the server ran the tool at once
		err = errors.New("the server answered without a task")
	}
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", folder, err)
	}
	return task, nil
}
