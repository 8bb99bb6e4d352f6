// Package protocol holds the generated per-revision packages (mcp20241105,
// mcp20250326, mcp20250618, mcp20251125, mcp20260728), the package revisions that links
// them all, and the tests that keep them up to date.
package protocol
