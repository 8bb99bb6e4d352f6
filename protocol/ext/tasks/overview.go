// This file is hand-written, beside the files mcpgen generates in this
// package. Its package comment adds to the generated one (go doc shows
// both): what the hand-written files offer.

// # Serving and following tasks
//
// Beside the generated types, this package holds the extension's server
// and client, written by hand on the runtime's extension seam:
//
//   - NewServer returns a Server to serve with mcp20260728.WithExtension;
//     SetToolSupport declares which tools run as tasks (None, Optional,
//     Required), and Start lets a tool ask for input before its task
//     begins. Tasks are kept in a runtime/tasks Store (in memory by
//     default).
//   - Follower, put in mcp20260728.ClientOptions.Extensions, declares the
//     extension and makes a client's tool calls follow their tasks to the
//     result; CallToolAsync starts a task and returns, and Wait comes back
//     to one by its id.
//
// The guide is docs/tasks.md in the repository:
// https://github.com/mcpgen/mcpgen/blob/main/docs/tasks.md
package tasks
