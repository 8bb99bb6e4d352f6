package streamhttp

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzClientScan checks the client's envelope scan against a full decode:
// on a payload that jsonrpc.Decode accepts message by message, clientScan
// finds each message's kind, id, method and result.protocolVersion; on a
// single valid JSON object, the probe without a decoder finds what the
// decoder does; and nothing panics.
func FuzzClientScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"no"}}]`,
		`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":2,"method":"roots/list"}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}`,
		`[1,{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`{"id":1,"id":2,"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := clientScan(data)
		if firstByte(data) == '{' && jsontext.Value(data).IsValid() {
			var viaDecoder clientMessage
			clientScanMessage(jsontext.NewDecoder(bytes.NewReader(data)), &viaDecoder)
			if len(got) != 1 || got[0] != viaDecoder {
				t.Fatalf("clientScan(%s) = %+v; the decoder reads %+v", data, got, viaDecoder)
			}
		}
		items, _, err := jsonrpc.Decode(data, true)
		if err != nil {
			return
		}
		var want []clientMessage
		for _, it := range items {
			if it.Err != nil {
				return // the scan may stop anywhere in an invalid message
			}
			m := clientMessage{kind: it.Msg.Kind, method: it.Msg.Method}
			if it.Msg.Kind != jsonrpc.Notification {
				m.id = it.Msg.ID
			}
			if it.Msg.Kind == jsonrpc.Response {
				if pv, ok := wire.Member(it.Msg.Result, "protocolVersion"); ok && jsontext.Value(pv).Kind() == '"' {
					m.version, _ = wire.MemberString(it.Msg.Result, "protocolVersion")
				}
			}
			want = append(want, m)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(clientMessage{}, wire.ID{})); diff != "" {
			t.Fatalf("clientScan(%s) disagrees with jsonrpc.Decode (-decode +scan):\n%s", data, diff)
		}
	})
}
