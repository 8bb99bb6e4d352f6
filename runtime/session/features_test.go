package session_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// connect runs srv and returns a client connected to it with caps and
// handler c.
func connect(t *testing.T, srv mcp.Server, caps mcp.ClientCapabilities, c mcp.Client) *mcp.ClientSession {
	t.Helper()
	a, b := transport.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		mcp.Serve(ctx, a, srv, session.Options{})
	}()
	cs, err := mcp.Connect(ctx, b, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "1"}, Capabilities: caps, Handler: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-served
	})
	return cs
}

// Pagination: server-side cursors, client-side iterators (U-PG1, U-PG2).
func TestPagination(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"}, mcp.WithPageSize(2))
	var want []string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		want = append(want, n)
		srv.MustAddTool(mcp.Tool{Name: n, InputSchema: []byte(`{"type":"object"}`)}, emptyTool)
	}
	cs := connect(t, srv, mcp.ClientCapabilities{}, nil)
	ctx := context.Background()
	page, err := cs.ListTools(ctx, nil)
	if err != nil || len(page.Tools) != 2 || page.NextCursor == nil {
		t.Fatalf("first page: %+v, %v", page, err)
	}
	var got []string
	for tool, err := range cs.AllTools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tool.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("AllTools = %v, want %v", got, want)
	}
	bad := "not-a-cursor"
	if _, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: &bad}); err == nil {
		t.Error("an invalid cursor was accepted")
	} else if je, ok := err.(*jsonrpc.Error); !ok || je.Code != jsonrpc.InvalidParams {
		t.Errorf("invalid cursor: %v, want -32602", err)
	}
}

// recordingClient records the server's notifications.
type recordingClient struct {
	mcp.UnimplementedClient
	notes chan string
}

func (c *recordingClient) ToolListChanged(ctx context.Context, p *mcp.NotificationParams) {
	c.notes <- "tools/list_changed"
}

func (c *recordingClient) ResourceUpdated(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) {
	c.notes <- "updated " + p.URI
}

func (c *recordingClient) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
}

func waitNote(t *testing.T, notes chan string, want string) {
	t.Helper()
	select {
	case got := <-notes:
		if got != want {
			t.Errorf("notification %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no %q notification", want)
	}
}

// List-changed notifications and resource subscriptions. The tools are
// all registered after the client connected: the capability is declared
// by hand, so that they are announced.
func TestListChangedAndSubscriptions(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"},
		mcp.WithCapabilities(mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{ListChanged: ptr(true)}}))
	srv.MustAddResource(mcp.Resource{URI: "x://a", Name: "a"}, func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	rc := &recordingClient{notes: make(chan string, 8)}
	cs := connect(t, srv, mcp.ClientCapabilities{}, rc)
	ctx := context.Background()
	srv.MustAddTool(mcp.Tool{Name: "late", InputSchema: []byte(`{"type":"object"}`)}, emptyTool)
	waitNote(t, rc.notes, "tools/list_changed")
	if _, err := cs.Subscribe(ctx, &mcp.SubscribeRequestParams{URI: "x://a"}); err != nil {
		t.Fatal(err)
	}
	srv.NotifyResourceUpdated(ctx, "x://b") // not subscribed: nothing
	srv.NotifyResourceUpdated(ctx, "x://a")
	waitNote(t, rc.notes, "updated x://a")
	if _, err := cs.Unsubscribe(ctx, &mcp.UnsubscribeRequestParams{URI: "x://a"}); err != nil {
		t.Fatal(err)
	}
	srv.NotifyResourceUpdated(ctx, "x://a")
	select {
	case n := <-rc.notes:
		t.Errorf("after unsubscribing: %s", n)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "x://missing"}); err == nil {
		t.Error("reading a missing resource succeeded")
	} else if je, ok := err.(*jsonrpc.Error); !ok || je.Code != mcp.ResourceNotFoundErrorCode {
		t.Errorf("missing resource: %v, want -32002", err)
	}
}

// Completion: declared only when a handler is set.
func TestCompletion(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"})
	cs := connect(t, srv, mcp.ClientCapabilities{}, nil)
	params := &mcp.CompleteRequestParams{Ref: mcp.CompleteRequestParamsRef{Value: &mcp.PromptReference{Name: "p"}}, Argument: mcp.CompleteRequestParamsArgument{Name: "a", Value: "x"}}
	if _, err := cs.Complete(context.Background(), params); err == nil {
		t.Error("completion without the capability was sent")
	}
	srv.SetCompletion(func(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: []string{p.Argument.Value + "yz"}}}, nil
	})
	cs2 := connect(t, srv, mcp.ClientCapabilities{}, nil)
	r, err := cs2.Complete(context.Background(), params)
	if err != nil || len(r.Completion.Values) != 1 || r.Completion.Values[0] != "xyz" {
		t.Errorf("Complete = %+v, %v", r, err)
	}
}

// elicitingServer elicits from inside a tool, in the mode the argument
// names.
func elicitingServer() *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "e", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "ask", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		ss, _ := mcp.ServerSessionFrom(ctx)
		var params mcp.ElicitRequestParams
		if string(p.Arguments) == `{"mode":"url"}` {
			params.Value = &mcp.ElicitRequestURLParams{Message: "go", URL: "https://example.com", ElicitationID: "1"}
		} else {
			params.Value = &mcp.ElicitRequestFormParams{Message: "name?", RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}}
		}
		r, err := ss.Elicit(ctx, &params)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(r.Action)}}}}, nil
	})
	return srv
}

// L-18: elicitation modes follow the client's capabilities; an empty
// elicitation object means form only.
func TestL18ElicitationModes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		caps    string
		mode    string
		wantErr bool
	}{
		{"form with {}", `{}`, "form", false},
		{"url with {}", `{}`, "url", true},
		{"url declared", `{"url":{}}`, "url", false},
		{"form not declared", `{"url":{}}`, "form", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			caps := mcp.ClientCapabilities{Elicitation: &mcp.ClientCapabilitiesElicitation{}}
			if strings.Contains(tt.caps, "url") {
				caps.Elicitation.URL = []byte(`{}`)
			}
			cs := connect(t, elicitingServer(), caps, &recordingClient{notes: make(chan string, 8)})
			r, err := cs.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "ask", Arguments: []byte(`{"mode":"` + tt.mode + `"}`)})
			if tt.wantErr {
				// The server refuses to send it: its tool fails with that
				// error, which the caller gets as a tool result with isError.
				if err != nil || r.IsError == nil || !*r.IsError || !strings.Contains(r.Content[0].Value.(*mcp.TextContent).Text, "the client cannot answer: it did not declare elicitation mode "+strconv.Quote(tt.mode)) {
					t.Errorf("mode %s with caps %s: %+v, %v, want an isError result for the undeclared mode", tt.mode, tt.caps, r, err)
				}
				return
			}
			if err != nil || r.Content[0].Value.(*mcp.TextContent).Text != "accept" {
				t.Errorf("mode %s with caps %s: %+v, %v", tt.mode, tt.caps, r, err)
			}
		})
	}
}

// taskServer accepts task-augmented tool calls.
type taskServer struct{ *mcp.StandardServer }

func (taskServer) CallToolAsTask(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CreateTaskResult, error) {
	return &mcp.CreateTaskResult{Task: mcp.Task{TaskID: "t1", Status: mcp.TaskStatusWorking, CreatedAt: "2026-01-01T00:00:00Z", LastUpdatedAt: "2026-01-01T00:00:00Z"}}, nil
}

// U-T2, U-T3: a task-augmented request is answered with CreateTaskResult
// by a server that accepts tasks, and with -32601 by one that does not.
func TestTasks(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "long", InputSchema: []byte(`{"type":"object"}`)}, emptyTool)
	cs := connect(t, taskServer{srv}, mcp.ClientCapabilities{}, nil)
	r, err := cs.CallToolAsTask(context.Background(), &mcp.CallToolRequestParams{Name: "long"})
	if err != nil || r.Task.TaskID != "t1" {
		t.Fatalf("CallToolAsTask = %+v, %v", r, err)
	}
	cs2 := connect(t, srv, mcp.ClientCapabilities{}, nil)
	if _, err := cs2.CallToolAsTask(context.Background(), &mcp.CallToolRequestParams{Name: "long"}); err == nil {
		t.Error("a server without TaskServer accepted a task")
	} else if je, ok := err.(*jsonrpc.Error); !ok || je.Code != jsonrpc.MethodNotFound {
		t.Errorf("task on a server without tasks: %v, want -32601", err)
	}
}

// emptyTool is the handler of a tool whose calls do not matter.
func emptyTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}
