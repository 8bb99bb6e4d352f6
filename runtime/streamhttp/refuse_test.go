package streamhttp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzPeekRequestIDs checks the reading of request ids from a body cut at
// the size limit: it never panics; on a body that jsonrpc.Decode accepts
// message by message, it finds the ids of exactly its requests; and on any
// cut of such a body, a prefix of them (a message cut short is not
// mistaken for a request it is not).
func FuzzPeekRequestIDs(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"x":"aaaa"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"},"id":"s"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":"b","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`[{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":9,"id":10,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	} {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	// Cut in the middle of a number id that comes last.
	f.Add([]byte(`{"jsonrpc":"2.0","method":"ping","id":12}`), uint16(len(`{"jsonrpc":"2.0","method":"ping","id":1`)))
	f.Fuzz(func(t *testing.T, body []byte, cut uint16) {
		cutIDs, cutBatch := peekRequestIDs(body[:int(cut)%(len(body)+1)])
		items, batch, err := jsonrpc.Decode(body, true)
		if err != nil {
			return
		}
		var want []wire.ID
		for _, it := range items {
			if it.Err != nil {
				return
			}
			if it.Msg.Kind == jsonrpc.Request {
				want = append(want, it.Msg.ID)
			}
		}
		ids, gotBatch := peekRequestIDs(body)
		opt := cmp.AllowUnexported(wire.ID{})
		if diff := cmp.Diff(want, ids, opt); diff != "" || gotBatch != batch {
			t.Fatalf("peekRequestIDs(%s) = %v, batch %v; want batch %v (-decode +peek):\n%s", body, ids, gotBatch, batch, diff)
		}
		if len(cutIDs) > len(ids) || len(cutIDs) > 0 && (!cmp.Equal(cutIDs, ids[:len(cutIDs)], opt) || cutBatch != batch) {
			t.Fatalf("peekRequestIDs of %s cut at %d = %v; want a prefix of %v", body, cut, cutIDs, ids)
		}
	})
}
