package session

import (
	"log/slog"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// FuzzLogData checks that the data object of a log record is valid JSON
// whatever its message, keys, groups and values (invalid UTF-8, quotes,
// repeated keys), with the last value of a repeated key kept.
func FuzzLogData(f *testing.F) {
	f.Add("step", "k", "v", "g", 1.5)
	f.Add("\xff\"", "msg", "\x00", "", 0.0)
	f.Add("", "", "}", "k", -1e300)
	f.Fuzz(func(t *testing.T, msg, key, val, group string, num float64) {
		root := &logObject{}
		root.set("msg", quote(msg))
		root.add(slog.String(key, val))
		root.add(slog.Float64(key+"2", num))
		root.add(slog.Group(group, slog.String(key, val), slog.Any("x", map[string]any{key: val})))
		root.add(slog.String(key, "last"))
		e := wire.NewEncoder(nil)
		root.encode(&e)
		b, err := e.Bytes()
		if err != nil {
			t.Fatalf("encoding: %v", err)
		}
		if !jsontext.Value(b).IsValid() {
			t.Fatalf("invalid JSON: %s", b)
		}
		if got, ok := wire.MemberString(b, key); ok && key != "msg" && key != group && got != "last" {
			t.Errorf("%q = %q, want the last value", key, got)
		}
	})
}
