package mcp20250326

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate --revision 2025-03-26 --out . --package mcp20250326
