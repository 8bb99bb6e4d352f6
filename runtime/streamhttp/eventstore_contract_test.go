package streamhttp_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp/eventstoretest"
)

// TestMemoryStoreContract runs the EventStore contract against
// MemoryStore.
func TestMemoryStoreContract(t *testing.T) {
	eventstoretest.Run(t, func(t *testing.T) streamhttp.EventStore { return streamhttp.NewMemoryStore() })
}
