package streamhttp

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// scanSeeds are message envelopes the client routes by.
var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
	`{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":5}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":9}}`,
	`{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}`,
	`{"jsonrpc":"2.0","id":true,"method":7}`,
	`{"result":{"content":[{"type":"text","text":"x"}]},"id":4,"jsonrpc":"2.0"}`,
	` {"jsonrpc":"2.0","id":"\u0061","result":{}} `,
	`{}`,
}

// TestClientProbe checks that probing a single message finds what reading
// it with a decoder finds.
func TestClientProbe(t *testing.T) {
	for _, s := range scanSeeds {
		d := jsontext.NewDecoder(bytes.NewReader([]byte(s)))
		var want clientMessage
		clientScanMessage(d, &want)
		if got := clientProbe([]byte(s)); got != want {
			t.Errorf("clientProbe(%s) = %+v; the decoder reads %+v", s, got, want)
		}
		if got := clientScan([]byte(s)); len(got) != 1 || got[0] != want {
			t.Errorf("clientScan(%s) = %+v; want [%+v]", s, got, want)
		}
	}
}
