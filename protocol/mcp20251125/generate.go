package mcp20251125

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate --revision 2025-11-25 --out . --package mcp20251125
