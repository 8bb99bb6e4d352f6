package jsonrpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// fastPathSeeds are payloads for the fast path: valid ones it takes, and
// invalid ones it must hand to the careful path, whose diagnosis wins.
var fastPathSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
	`{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no","data":{"x":[1]}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
	`[]`, `[1]`, `{}`, `  {"jsonrpc":"2.0","method":"m"}  `,
	// Item errors followed by payload errors: the payload error wins.
	`{"jsonrpc":"1.0","method":"m","x":{"a":1,"a":2}}`,
	`[{"jsonrpc":"1.0","method":"m"},{"jsonrpc":"2.0","method":"m","params":{"a":1,"a":2}}]`,
	`{"jsonrpc":"2.0","method":"m","params":[]} {`,
	`{"jsonrpc":"2.0","method":"m","params":{"a":1,"a":2}}`,
	`{"jsonrpc":"2.0","id":1,"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","method":"\u0074ools/call"}`,
	`{"jsonrpc":"2.0","method":"m","params":{}`,
	`{"jsonrpc":"2.0","method":"m","params":` + strings.Repeat(`[`, 101) + strings.Repeat(`]`, 101) + `}`,
	`[{"jsonrpc":"2.0","method":"m"},` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `]`,
}

// compareDecoders checks that Decode, whose fast path takes valid payloads
// in one pass, gives exactly what the careful two-pass decoding gives.
func compareDecoders(t *testing.T, data []byte, batching bool) {
	t.Helper()
	for _, copyValues := range []bool{true, false} {
		items, batch, err := decode(data, batching, copyValues)
		wantItems, wantBatch, wantErr := decodeCarefully(data, batching, copyValues)
		if diff := cmp.Diff(wantItems, items, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b wire.ID) bool { return a == b })); diff != "" {
			t.Fatalf("decode(%q, batching=%v, copy=%v) items differ from the careful path (-careful +decode):\n%s", data, batching, copyValues, diff)
		}
		if batch != wantBatch || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("decode(%q, batching=%v) = batch %v, err %v; careful path: batch %v, err %v", data, batching, batch, err, wantBatch, wantErr)
		}
	}
}

func TestFastPathAgrees(t *testing.T) {
	seeds := append([]string{}, fastPathSeeds...)
	// And every message of the protocol packages' corpus, valid and invalid.
	files, err := filepath.Glob(filepath.Join("..", "..", "protocol", "testdata", "corpus", "*", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files found (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			JSON json.RawMessage `json:"json"`
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cases {
			seeds = append(seeds, string(c.JSON))
		}
	}
	for _, s := range seeds {
		for _, batching := range []bool{false, true} {
			compareDecoders(t, []byte(s), batching)
		}
	}
}

// FuzzFastPath checks the fast path against the careful path on arbitrary
// payloads.
func FuzzFastPath(f *testing.F) {
	for _, s := range fastPathSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, batching bool) {
		compareDecoders(t, data, batching)
	})
}

// TestDecodeOwnedAliases checks that DecodeOwned does not copy raw values,
// and caps them so that appending to one cannot overwrite the payload.
func TestDecodeOwnedAliases(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"b"},"x":0}`)
	items, _, err := DecodeOwned(data, false)
	if err != nil {
		t.Fatal(err)
	}
	p := items[0].Msg.Params
	if string(p) != `{"a":"b"}` {
		t.Fatalf("Params = %s", p)
	}
	if unsafe.SliceData(p) != &data[strings.Index(string(data), `{"a"`)] {
		t.Errorf("Params is a copy; DecodeOwned should alias the payload")
	}
	if cap(p) != len(p) {
		t.Errorf("cap(Params) = %d, want %d", cap(p), len(p))
	}
	_ = append(p, 'Z')
	if string(data[len(data)-6:]) != `"x":0}` {
		t.Errorf("appending to Params changed the payload: %s", data)
	}
}

// TestInternMethods checks that a registered method name decodes to the
// interned string, and an unknown one to its own.
func TestInternMethods(t *testing.T) {
	const name = "test/interned"
	InternMethods(name)
	for _, tc := range []struct {
		in     string
		method string
		shared bool
	}{
		{`{"jsonrpc":"2.0","method":"test/interned"}`, name, true},
		{`{"jsonrpc":"2.0","method":"test/intern\u0065d"}`, name, false},
		{`{"jsonrpc":"2.0","method":"test/other"}`, "test/other", false},
	} {
		items, _, err := Decode([]byte(tc.in), false)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got := items[0].Msg.Method
		if got != tc.method {
			t.Errorf("%s: method %q, want %q", tc.in, got, tc.method)
		}
		if shared := unsafe.StringData(got) == unsafe.StringData(name); shared != tc.shared {
			t.Errorf("%s: interned = %v, want %v", tc.in, shared, tc.shared)
		}
	}
}
