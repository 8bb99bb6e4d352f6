package streamhttp_test

import (
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// The handlers of the internal tests (see export_test.go).
func init() {
	streamhttp.NewTestHandler = func() session.Handler {
		return mcp.NewServerHandler(mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}))
	}
	streamhttp.NewModernTestHandler = m26.NewServer(m26.Implementation{Name: "t", Version: "1"}).Handler
}
