package session_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// ScanParams finds, in one scan, what the wire.Member lookups it replaces
// found: the first of each member, strings unquoted as wire.MemberString
// does.
func TestScanParams(t *testing.T) {
	tests := []struct {
		name, method, params string
		claims               bool
		version              string
		hasVersion           bool
		mirroredName, args   string
	}{
		{"tools/call", "tools/call", `{"name":"echo","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
			true, "2026-07-28", true, `"echo"`, `{"a":1}`},
		{"escaped revision", "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"\u0032026-07-28"},"name":"a\"b"}`,
			true, "2026-07-28", true, `"a\"b"`, ``},
		{"unknown revision", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}`,
			true, "1999-01-01", true, ``, ``},
		{"revision not a string", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}`,
			true, "5", true, ``, ``},
		{"no revision", "tools/list", `{"_meta":{}}`, false, "", false, ``, ``},
		{"no _meta", "ping", `{}`, false, "", false, ``, ``},
		{"no params", "ping", ``, false, "", false, ``, ``},
		{"resources/read mirrors uri", "resources/read", `{"name":"x","uri":"file:///a","arguments":{}}`, false, "", false, `"file:///a"`, ``},
		{"prompts/get has no mirrored arguments", "prompts/get", `{"name":"p","arguments":{"a":"b"}}`, false, "", false, `"p"`, ``},
		{"first member counts", "tools/call", `{"name":"a","name":"b","_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"_meta":{}}`,
			true, "x", true, `"a"`, ``},
		{"nested members are not the params'", "tools/call", `{"arguments":{"name":"n","_meta":{"io.modelcontextprotocol/protocolVersion":"y"}}}`,
			false, "", false, ``, `{"name":"n","_meta":{"io.modelcontextprotocol/protocolVersion":"y"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := session.ScanParams(&jsonrpc.Message{Kind: jsonrpc.Request, Method: tt.method, Params: []byte(tt.params)})
			if got := sp.ClaimsModern(); got != tt.claims {
				t.Errorf("ClaimsModern = %v, want %v", got, tt.claims)
			}
			if v, ok := sp.ProtocolVersion(); v != tt.version || ok != tt.hasVersion {
				t.Errorf("ProtocolVersion = %q, %v; want %q, %v", v, ok, tt.version, tt.hasVersion)
			}
			name, args := sp.Mirrored()
			if string(name) != tt.mirroredName || string(args) != tt.args {
				t.Errorf("Mirrored = %s, %s; want %s, %s", name, args, tt.mirroredName, tt.args)
			}
			if got := session.ClaimsModern([]byte(tt.params)); got != tt.claims {
				t.Errorf("the function ClaimsModern = %v, want %v as the method", got, tt.claims)
			}
		})
	}
}
