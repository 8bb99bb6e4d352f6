package session_test

import (
	"context"
	"fmt"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// A client extension that follows results of its own resultType: the
// server answers tools/call with {"resultType":"deferred","ticket":…}, and
// the extension's FollowResult fetches the tool's result with its method
// ticket/get, so that CallTool returns it (protocol/ext/tasks's Follower
// does the same for tasks).
func ExampleResultFollower() {
	x := &deferExt{probeExt{id: testExtID, methods: []string{"ticket/get"}}}
	srv := m26.NewServer(m26.Implementation{Name: "deferring", Version: "1"}, m26.WithExtension(x))
	srv.MustAddTool(m26.NewTool("hello", "Says hi"), func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
		return m26.TextResult("hi"), nil
	})
	serverEnd, clientEnd := transport.Pipe()
	server := session.New(session.Server, serverEnd, srv.Handler(), session.Options{})
	defer server.Close()

	ctx := context.Background()
	cs, err := m26.Connect(ctx, clientEnd, &m26.ClientOptions{
		Extensions: []m26.ClientExtension{&ticketClient{id: testExtID, rt: "deferred"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "hello"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output: ticket t-7
}
