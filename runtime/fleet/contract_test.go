package fleet_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/fleet"
	"github.com/mcpgen/mcpgen/runtime/fleet/fleettest"
)

// TestMemorySessionStoreContract runs the SessionStore contract against
// MemorySessionStore.
func TestMemorySessionStoreContract(t *testing.T) {
	fleettest.RunSessionStore(t, func(t *testing.T) fleet.SessionStore { return fleet.NewMemorySessionStore() })
}

// TestMemoryRelayContract runs the Relay contract against MemoryRelay: the
// two instances of the suite share one relay, as the servers of one
// process do.
func TestMemoryRelayContract(t *testing.T) {
	fleettest.RunRelay(t, func(t *testing.T) (a, b fleet.Relay) {
		r := fleet.NewMemoryRelay()
		return r, r
	})
}
