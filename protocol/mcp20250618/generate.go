package mcp20250618

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate --revision 2025-06-18 --out . --package mcp20250618
