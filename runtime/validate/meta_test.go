package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/validate"
)

// TestMetadataRules checks the rules on untrusted metadata: _meta key names
// and reserved prefixes (M-7, from 2025-06-18), icon sources and sizes
// (M-8, from 2025-11-25) and extension identifiers (V-9, from 2026-07-28),
// at any depth of a message.
func TestMetadataRules(t *testing.T) {
	ping := func(meta string) []string {
		return []string{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":` + meta + `}}`}
	}
	toolsWithIcons := func(icons string) []string {
		return []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":` + icons + `}]}}`,
		}
	}
	// modernList is a 2026-07-28 tools/list whose _meta has more keys.
	modernList := func(more string) []string {
		if more != "" {
			more = "," + more
		}
		return []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}` + more + `}}}`}
	}
	type found struct {
		Index         int
		Pointer, Rule string
	}
	meta := func(i int, ptr string) found { return found{i, ptr, validate.RuleMeta} }
	icon := func(i int, ptr string) found { return found{i, ptr, validate.RuleIcon} }
	tests := []struct {
		name, rev string
		msgs      []string
		want      []found
	}{
		{"good keys", "2025-11-25", ping(`{"progressToken":1,"a":1,"x-1_y.z":2,"com.example/k":3,"com.example.mcp/k":4,"io.modelcontextprotocol/related-task":{"taskId":"t"},"com.example/":5,"":6}`), nil},
		{"bad name", "2025-11-25", ping(`{"-bad-name-":1}`), []found{meta(0, "/params/_meta/-bad-name-")}},
		{"bad names", "2025-06-18", ping(`{"a b":1,"a/b/c":2,"x.":3,"com.example/_x":4}`), []found{meta(0, "/params/_meta/a b"), meta(0, "/params/_meta/a~1b~1c"), meta(0, "/params/_meta/com.example~1_x"), meta(0, "/params/_meta/x.")}},
		{"bad prefixes", "2025-11-25", ping(`{"/x":1,"1com.example/x":2,"com..example/x":3,"com.example-/x":4,"com_example/x":5}`), []found{meta(0, "/params/_meta/~1x"), meta(0, "/params/_meta/1com.example~1x"), meta(0, "/params/_meta/com..example~1x"), meta(0, "/params/_meta/com.example-~1x"), meta(0, "/params/_meta/com_example~1x")}},
		{"reserved, not defined", "2025-11-25", ping(`{"io.modelcontextprotocol/custom":1,"dev.mcp/x":2,"org.modelcontextprotocol.api/y":3,"com.MCP.tools/z":4}`), []found{meta(0, "/params/_meta/com.MCP.tools~1z"), meta(0, "/params/_meta/dev.mcp~1x"), meta(0, "/params/_meta/io.modelcontextprotocol~1custom"), meta(0, "/params/_meta/org.modelcontextprotocol.api~1y")}},
		{"2025-06-18 reserves any label but the last", "2025-06-18", ping(`{"io.modelcontextprotocol/custom":1,"modelcontextprotocol.io/x":2,"tools.mcp.com/y":3,"com.example.mcp/z":4}`), []found{meta(0, "/params/_meta/modelcontextprotocol.io~1x"), meta(0, "/params/_meta/tools.mcp.com~1y")}},
		{"related-task not defined before 2025-11-25", "2025-06-18", ping(`{"modelcontextprotocol.io/related-task":1}`), []found{meta(0, "/params/_meta/modelcontextprotocol.io~1related-task")}},
		{"no key rules in 2025-03-26", "2025-03-26", ping(`{"-bad-name-":1,"io.modelcontextprotocol/custom":2}`), nil},
		{"any depth", "2025-11-25", []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"-r":1},"content":[{"type":"text","text":"x","_meta":{"-c":1}}]}}`,
		}, []found{meta(1, "/result/_meta/-r"), meta(1, "/result/content/0/_meta/-c")}},
		{"opaque members are not metadata", "2025-11-25", []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"_meta":{"-a":1},"icons":[{"src":"file:///x"}]},"_meta":{"k":{"_meta":{"-v":1}}}}}`,
		}, nil},
		{"icons", "2025-11-25", toolsWithIcons(`[{"src":"https://example.com/i.png","sizes":["48x48","any"]},{"src":"data:image/png;base64,iVBORw0KGgo="}]`), nil},
		{"bad icons", "2025-11-25", toolsWithIcons(`[{"src":"javascript:alert(1)"},{"src":"file:///etc/passwd"},{"src":"http://example.com/i.png"},{"src":"https://example.com/i.png","sizes":["48"]}]`),
			[]found{icon(1, "/result/tools/0/icons/0/src"), icon(1, "/result/tools/0/icons/1/src"), icon(1, "/result/tools/0/icons/2/src"), icon(1, "/result/tools/0/icons/3/sizes/0")}},
		{"client icons", "2025-11-25", []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1","icons":[{"src":"ftp://x/y.png"}]}}}`},
			[]found{icon(0, "/params/clientInfo/icons/0/src")}},
		{"no icon rules in 2025-06-18", "2025-06-18", toolsWithIcons(`[{"src":"javascript:alert(1)"}]`), nil},

		// 2026-07-28 defines its request, result and notification keys in
		// the schema; clientInfo, with its icons, and clientCapabilities,
		// with its extensions, live in _meta.
		{"modern: the keys the revision defines", "2026-07-28", modernList(`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"info","progressToken":1,"com.example/k":2`), nil},
		{"modern: reserved, not defined", "2026-07-28", modernList(`"io.modelcontextprotocol/related-task":{"taskId":"t"},"dev.mcp/x":1`),
			[]found{meta(0, "/params/_meta/dev.mcp~1x"), meta(0, "/params/_meta/io.modelcontextprotocol~1related-task")}},
		{"modern: client icons in _meta", "2026-07-28", modernList(`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","icons":[{"src":"ftp://x/y.png"},{"src":"https://x/y.png","sizes":["big"]}]}`),
			[]found{icon(0, "/params/_meta/io.modelcontextprotocol~1clientInfo/icons/0/src"), icon(0, "/params/_meta/io.modelcontextprotocol~1clientInfo/icons/1/sizes/0")}},
		{"modern: server icons in a result's _meta", "2026-07-28", []string{
			modernList(``)[0],
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1","icons":[{"src":"javascript:x"}]}}}}`,
		}, []found{icon(1, "/result/_meta/io.modelcontextprotocol~1serverInfo/icons/0/src")}},
		{"modern: an application's _meta value is not walked", "2026-07-28", modernList(`"com.example/info":{"icons":[{"src":"ftp://x"}],"_meta":{"-x":1}}`), nil},
		{"modern: extension identifiers", "2026-07-28", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{},"com.example/search":{"-any":{"_meta":{"-y":1}}},"search":{},"com.example/":{},"-bad/x":{}}}}}}`},
			[]found{meta(0, "/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions/-bad~1x"), meta(0, "/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions/com.example~1"), meta(0, "/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions/search")}},
		{"modern: server extension identifiers", "2026-07-28", []string{
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` + modernMeta + `}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"tasks":{}}},"ttlMs":0,"cacheScope":"public"}}`,
		}, []found{meta(1, "/result/capabilities/extensions/tasks")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validator(t, tt.rev).Stream()
			var got []found
			for _, m := range tt.msgs {
				for _, r := range s.Payload([]byte(m), 0, validate.AnySide) {
					for _, p := range r.Problems {
						got = append(got, found{r.Index, p.Pointer, p.Rule})
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReservedKeysFromSchema checks that the reserved _meta keys a revision
// defines are read from its schema, so that a new revision needs no code.
func TestReservedKeysFromSchema(t *testing.T) {
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{
		"JSONRPCRequest":{"type":"object"},
		"RequestParams":{"description":"Put the version under ` + "`io.modelcontextprotocol/version`" + `.","type":"object","properties":{"_meta":{"type":"object","properties":{"dev.mcp/trace":{"type":"string"}}}}}}}`
	v, err := validate.New("2099-01-01", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, key := range []string{"io.modelcontextprotocol/version", "dev.mcp/trace", "io.modelcontextprotocol/other", "com.example/x"} {
		ps := v.Definition("RequestParams", []byte(`{"_meta":{"`+key+`":"x"}}`))
		if len(ps) > 0 {
			got = append(got, key)
		}
	}
	if diff := cmp.Diff([]string{"io.modelcontextprotocol/other"}, got); diff != "" {
		t.Errorf("keys reported (-want +got):\n%s", diff)
	}
}
