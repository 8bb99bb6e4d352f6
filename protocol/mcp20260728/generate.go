package mcp20260728

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate --revision 2026-07-28 --out . --package mcp20260728
