package revisions_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/protocol/revisions"
	"github.com/mcpgen/mcpgen/runtime/revision"
)

// Every revision package of protocol/ is linked, and registered.
func TestEveryRevisionLinked(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), "mcp"); ok && e.IsDir() && len(name) == 8 {
			want = append(want, name[:4]+"-"+name[4:6]+"-"+name[6:])
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, revisions.Names); diff != "" {
		t.Errorf("the revisions linked (-protocol/ has +revisions.Names):\n%s", diff)
	}
	for _, name := range revisions.Names {
		if _, ok := revision.Lookup(name); !ok {
			t.Errorf("revision %s is not registered", name)
		}
	}
}
