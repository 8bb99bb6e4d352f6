package streamhttp

import (
	"net/http"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/mcpheader"
)

// The keys the server looks headers up with are in net/http's canonical
// form, so that a lookup does not allocate, and name the same header as the
// spellings of the specification.
func TestHeaderLookupKeysCanonical(t *testing.T) {
	for _, tc := range []struct{ key, spec string }{
		{versionKey, mcpheader.HeaderProtocolVersion},
		{versionKey, "MCP-Protocol-Version"},
	} {
		if got := http.CanonicalHeaderKey(tc.spec); got != tc.key {
			t.Errorf("the canonical form of %q is %q, but the server looks it up as %q", tc.spec, got, tc.key)
		}
		h := http.Header{}
		h.Set(tc.spec, "2025-06-18")
		if n := testing.AllocsPerRun(100, func() { _ = h.Get(tc.key) }); n != 0 {
			t.Errorf("Get(%q): %v allocations, want 0", tc.key, n)
		}
	}
}
