// Package revisions links every protocol revision this module ships into a
// binary. A program on protocol/mcp20260728 no longer needs it: that
// package links the revisions of the initialize era itself. It stays for
// the programs that import it, for its side effect:
//
//	import _ "github.com/mcpgen/mcpgen/protocol/revisions"
//
// and for Names. With it, sessions negotiate every revision with
// initialize, whichever revision package the server or client is written
// against.
package revisions

import (
	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
)

// Names lists the revisions this package links, oldest first.
var Names = []string{
	mcp20241105.Revision,
	mcp20250326.Revision,
	mcp20250618.Revision,
	mcp20251125.Revision,
	mcp20260728.Revision,
}
