// Package compare holds the same small MCP program pair, a notes server and
// its client, written with each Go MCP library: one directory per library
// (gosdk, mcpgo, and mcpgen once written), each with notes-server and
// notes-client. README.md is the specification all of them follow, and the
// table of their line counts.
//
// Its tests build every pair found, run each client against its own server
// over stdio and over Streamable HTTP and check what the client prints, and
// count the lines of every program (go test -run TestLineCounts -update
// rewrites the table in README.md).
package compare
