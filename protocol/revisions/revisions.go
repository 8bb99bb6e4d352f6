// Package revisions links every protocol revision this module ships into a
// binary. Import it for its side effect:
//
//	import _ "github.com/mcpgen/mcpgen/protocol/revisions"
//
// and sessions negotiate 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25
// with initialize, whichever revision package the server or client is
// written against: a server written against mcp20260728 then serves the
// stateless era and every initialize revision on the same stdio process or
// HTTP endpoint, and a client of mcp20260728 can fall back to any of them.
// Without it, only the revision packages the program imports take part.
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
