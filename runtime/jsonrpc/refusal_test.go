package jsonrpc_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

func TestAppendErrorResponses(t *testing.T) {
	e := &jsonrpc.Error{Code: jsonrpc.InvalidRequest, Message: "no"}
	for _, tc := range []struct {
		name          string
		ids           []wire.ID
		batch, nullID bool
		want          string
	}{
		{"no id", nil, false, false, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no"}}`},
		{"no id, null", nil, false, true, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`},
		{"one", []wire.ID{wire.IntID(1)}, false, false, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}`},
		{"batch", []wire.ID{wire.IntID(1), wire.StringID("b")}, true, false, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}},{"jsonrpc":"2.0","id":"b","error":{"code":-32600,"message":"no"}}]`},
	} {
		got, err := jsonrpc.AppendErrorResponses([]byte("x"), tc.ids, tc.batch, tc.nullID, e)
		if err != nil || string(got) != "x"+tc.want {
			t.Errorf("%s: %s, %v; want x%s", tc.name, got, err, tc.want)
		}
	}
}

func TestRequestIDs(t *testing.T) {
	items, _, err := jsonrpc.Decode([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"method":7}]`), true)
	if err != nil {
		t.Fatal(err)
	}
	ids := jsonrpc.RequestIDs(items)
	if len(ids) != 2 || ids[0] != wire.IntID(1) || ids[1] != wire.IntID(3) {
		t.Errorf("RequestIDs = %v, want [1 3]: the request and the invalid request, not the notification nor the response", ids)
	}
}
