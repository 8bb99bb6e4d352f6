// Package bench compares mcpgen with go-sdk and mcp-go on the same work.
package bench
