package oauth

import (
	"maps"
	"net/netip"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/netpolicy"
)

// TestNetwork simulates, for the address policy, the network of a test in
// which every server listens on 127.0.0.1: a test makes its attacker's
// servers public by their ports, leaves its victim's loopback, and
// resolves names to them at dial time.
type TestNetwork struct {
	// Classes gives the class of these addresses, in place of
	// netpolicy.Classify: 127.0.0.1:PORT → Public for a "remote" server.
	Classes map[netip.AddrPort]netpolicy.Class
	// Hosts is what names resolve to when they are dialled.
	Hosts map[string]netip.Addr
}

// WithTestNetwork returns cfg whose address policy sees the network n.
func WithTestNetwork(cfg Config, n TestNetwork) Config {
	tn := &testNetwork{classes: maps.Clone(n.Classes), hosts: map[string]netip.Addr{}}
	for h, a := range n.Hosts {
		tn.hosts[strings.ToLower(h)] = a
	}
	cfg.testNet = tn
	return cfg
}
