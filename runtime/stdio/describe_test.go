package stdio_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

var pipeInfo = transport.Info{Network: "pipe"}

// TestDescribe checks that every stdio transport says it runs over a pipe,
// and nothing else.
func TestDescribe(t *testing.T) {
	ctx := stdio.TestCtx(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	plain := stdio.New(r, w)
	t.Cleanup(func() { plain.Close() })
	notStarted := stdio.NewCommand(stdio.HelperCmd("echo"))
	t.Cleanup(func() { notStarted.Close() })
	started := stdio.NewCommand(stdio.HelperCmd("echo"))
	t.Cleanup(func() { started.Close() })
	if err := started.Start(ctx); err != nil {
		t.Fatal(err)
	}
	proc, err := stdio.Command(ctx, stdio.HelperCmd("echo"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	for _, tc := range []struct {
		name string
		t    transport.Transport
	}{
		{"Transport", plain},
		{"CommandTransport not started", notStarted},
		{"CommandTransport started", started},
		{"Process", proc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := transport.Describe(tc.t); got != pipeInfo {
				t.Errorf("Describe = %+v, want %+v", got, pipeInfo)
			}
		})
	}
}

// describer is a middleware that records what the transport of the
// session of a tools/call says of itself.
type describer struct {
	mu   sync.Mutex
	info []transport.Info
}

func (d *describer) mw(next session.HandlerFunc) session.HandlerFunc {
	return func(ctx context.Context, r *session.Request) (jsontext.Value, error) {
		if r.Method == "tools/call" && r.Session != nil {
			info := transport.Describe(r.Session.Transport())
			d.mu.Lock()
			d.info = append(d.info, info)
			d.mu.Unlock()
		}
		return next(ctx, r)
	}
}

// TestDescribeInSession checks what the middleware of a client and of a
// server talking over stdio find their session's transport says.
func TestDescribeInSession(t *testing.T) {
	ctx := stdio.TestCtx(t)
	c2s, s2cW, err := os.Pipe() // server's input
	if err != nil {
		t.Fatal(err)
	}
	s2c, c2sW, err := os.Pipe() // client's input
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	sd, cd := &describer{}, &describer{}
	served := make(chan error, 1)
	go func() {
		served <- mcp.Serve(ctx, stdio.New(c2s, c2sW), srv, session.Options{Middleware: []session.Middleware{sd.mw}})
	}()
	cs, err := mcp.Connect(ctx, stdio.New(s2c, s2cW), &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}, Middleware: []session.Middleware{cd.mw}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	<-served
	for _, side := range []struct {
		name string
		d    *describer
	}{{"server", sd}, {"client", cd}} {
		side.d.mu.Lock()
		if len(side.d.info) != 1 || side.d.info[0] != pipeInfo {
			t.Errorf("the %s's middleware saw %+v, want one %+v", side.name, side.d.info, pipeInfo)
		}
		side.d.mu.Unlock()
	}
}
