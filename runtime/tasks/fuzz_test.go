package tasks_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// FuzzRecord decodes arbitrary bytes as a stored record, as a store reading
// its documents does: decoding never panics, and what decodes encodes, and
// decodes again to the same bytes.
func FuzzRecord(f *testing.F) {
	for _, s := range []string{
		fullJSON,
		`{"id":"a","status":"working"}`,
		`{"id":"a","status":"completed","result":{"content":[]},"ttlMs":null}`,
		`{"id":"a","status":"failed","error":{"code":-32603,"message":"x"},"ttlMs":5}`,
		`{"id":"a","status":"working","createdAt":"2026-07-28T12:00:00.5+02:00","leaseUntil":"9999-12-31T23:59:59Z"}`,
		`{"id":"a","status":"input_required","outstanding":{"k":{"method":"roots/list"}},"issued":["k"],"answers":{}}`,
		`{"id":"a","status":"working","params":{"a":1,"a":2}}`,
		`{"id":"\u00e9","status":"cancelled","unknown":[1,2,{"x":null}]}`,
		``, `null`, `{}`, `[]`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r tasks.Record
		if err := r.UnmarshalJSON(b); err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("decoded a record Validate refuses: %v", err)
		}
		enc, err := r.MarshalJSON()
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		var back tasks.Record
		if err := back.UnmarshalJSON(enc); err != nil {
			t.Fatalf("an encoded record does not decode: %v\n%s", err, enc)
		}
		again, err := back.MarshalJSON()
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		if string(again) != string(enc) {
			t.Fatalf("encoding is not stable:\n%s\n%s", enc, again)
		}
		if !back.CreatedAt.Equal(r.CreatedAt) || back.TTL != r.TTL || back.Version != r.Version ||
			back.ID != r.ID || back.Status != r.Status || len(back.Outstanding) != len(r.Outstanding) {
			t.Fatalf("round trip changed the record:\n%+v\n%+v", r, back)
		}
	})
}
