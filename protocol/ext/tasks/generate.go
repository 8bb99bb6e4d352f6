package tasks

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen generate --extension ext-tasks --core 2026-07-28 --id io.modelcontextprotocol/tasks --out . --package tasks
