package streamhttp_test

import (
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// init gives the package's own tests, which cannot import a revision
// package, the MCP servers they serve.
func init() {
	streamhttp.SetTestServers(
		func() session.Handler {
			return mcp.NewServerHandler(mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}))
		},
		func() session.Handler {
			return m26.NewServer(m26.Implementation{Name: "t", Version: "1"}).Handler()
		},
	)
}
