package streamhttp

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// readID reads every id as wire.Unmarshal does, with or without its fast
// paths.
func TestReadID(t *testing.T) {
	for _, raw := range []string{
		`0`, `7`, `-7`, `-0`, `42`, `123456789012345678`, `-123456789012345678`,
		`9223372036854775807`, `-9223372036854775808`, `9223372036854775808`,
		`01`, `-`, `1.0`, `1e3`, `1.5`, `+1`, ` 1`, `1 `, `0x10`,
		`""`, `"a"`, `"héllo"`, `"a\"b"`, `"a\\b"`, `"\u0041"`, "\"a\x01\"", "\"\xff\"", `"a`, `"`,
		`null`, `true`, `{}`, `[]`, ``,
	} {
		t.Run(raw, func(t *testing.T) {
			var want wire.ID
			wantOK := wire.Unmarshal(jsontext.Value(raw), &want) == nil
			if !wantOK {
				want = wire.ID{}
			}
			got, ok := readID(jsontext.Value(raw))
			if ok != wantOK || got != want {
				t.Errorf("readID(%s) = %v, %v; wire.Unmarshal reads %v, %v", raw, got, ok, want, wantOK)
			}
		})
	}
}
