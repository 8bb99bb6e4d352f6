// Package protocol holds the generated per-revision packages (mcp20250326,
// mcp20250618, mcp20251125) and the tests that keep them up to date.
package protocol
