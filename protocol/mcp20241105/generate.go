package mcp20241105

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate --revision 2024-11-05 --out . --package mcp20241105
