package protocol_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// metaParams is what the test needs of a tools/call params type.
type metaParams interface {
	wire.Codec
	MetaProgressToken() (wire.ID, bool)
	SetMetaProgressToken(wire.ID) error
}

// modernMeta is the _meta every 2026-07-28 request carries.
const modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// TestParamsKeepMeta checks that tools/call params keep _meta and its
// progress token in every revision, including the draft-07 ones whose schema
// declares _meta only on the generic Request params, and 2026-07-28, whose
// _meta is the typed RequestMetaObject.
func TestParamsKeepMeta(t *testing.T) {
	legacy := `{"name":"echo","_meta":{"progressToken":7,"example.com/trace":"abc"}}`
	modern := `{"name":"echo","_meta":{"progressToken":7,"example.com/trace":"abc",` + modernMeta + `}}`
	for _, tc := range []struct {
		rev, in, want string
		new           func() metaParams
	}{
		{"2024-11-05", legacy, `{"name":"echo","_meta":{"progressToken":"p-2","example.com/trace":"abc"}}`, func() metaParams { return new(mcp20241105.CallToolRequestParams) }},
		{"2025-03-26", legacy, `{"name":"echo","_meta":{"progressToken":"p-2","example.com/trace":"abc"}}`, func() metaParams { return new(mcp20250326.CallToolRequestParams) }},
		{"2025-06-18", legacy, `{"name":"echo","_meta":{"progressToken":"p-2","example.com/trace":"abc"}}`, func() metaParams { return new(mcp20250618.CallToolRequestParams) }},
		{"2025-11-25", legacy, `{"name":"echo","_meta":{"progressToken":"p-2","example.com/trace":"abc"}}`, func() metaParams { return new(mcp20251125.CallToolRequestParams) }},
		{"2026-07-28", modern, `{"name":"echo","_meta":{"progressToken":"p-2","example.com/trace":"abc",` + modernMeta + `}}`, func() metaParams { return new(mcp20260728.CallToolRequestParams) }},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			p := tc.new()
			out := roundTrip(t, p, []byte(tc.in))
			if diff := cmp.Diff(jsonValue(t, []byte(tc.in)), jsonValue(t, out)); diff != "" {
				t.Errorf("round trip lost something (-want +got):\n%s", diff)
			}
			tok, ok := p.MetaProgressToken()
			if !ok || tok != wire.IntID(7) {
				t.Errorf("MetaProgressToken() = %v, %v; want 7, true", tok, ok)
			}
			if err := p.SetMetaProgressToken(wire.StringID("p-2")); err != nil {
				t.Fatal(err)
			}
			out, err := p.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jsonValue(t, []byte(tc.want)), jsonValue(t, out)); diff != "" {
				t.Errorf("after SetMetaProgressToken (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModernRequestMeta checks the typed accessors of 2026-07-28's request
// _meta, the version and capabilities every request carries, on the params
// of each kind of request: present, absent, and of the wrong type.
func TestModernRequestMeta(t *testing.T) {
	type modernParams interface {
		wire.Codec
		MetaProtocolVersion() (string, bool)
		SetMetaProtocolVersion(string) error
		MetaClientCapabilities() (mcp20260728.ClientCapabilities, bool)
		MetaLogLevel() (mcp20260728.LoggingLevel, bool)
	}
	params := map[string]func() modernParams{
		"tools/call":           func() modernParams { return new(mcp20260728.CallToolRequestParams) },
		"prompts/get":          func() modernParams { return new(mcp20260728.GetPromptRequestParams) },
		"resources/read":       func() modernParams { return new(mcp20260728.ReadResourceRequestParams) },
		"subscriptions/listen": func() modernParams { return new(mcp20260728.SubscriptionsListenRequestParams) },
		"tools/list":           func() modernParams { return new(mcp20260728.PaginatedRequestParams) },
	}
	rest := map[string]string{
		"tools/call":           `,"name":"echo"`,
		"prompts/get":          `,"name":"p"`,
		"resources/read":       `,"uri":"file:///a"`,
		"subscriptions/listen": `,"notifications":{}`,
		"tools/list":           ``,
	}
	for _, tc := range []struct {
		name       string
		meta       string
		version    string
		versionOK  bool
		elicit     bool // clientCapabilities declares elicitation
		capsOK     bool
		level      mcp20260728.LoggingLevel
		levelOK    bool
		setVersion string // after SetMetaProtocolVersion("2027-01-01")
		decodeErr  string // decoding fails with an error containing it
	}{
		{
			name:    "every key",
			meta:    `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/logLevel":"info","com.example/k":1}`,
			version: "2026-07-28", versionOK: true, elicit: true, capsOK: true, level: "info", levelOK: true,
			setVersion: `{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/logLevel":"info","com.example/k":1}`,
		},
		{
			name:    "required keys only",
			meta:    `{` + modernMeta + `}`,
			version: "2026-07-28", versionOK: true, capsOK: true,
			setVersion: `{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}`,
		},
		// The decoders check the keys the schema declares in _meta: each
		// present one must be of its type, and the required ones present.
		{
			name:      "version a number",
			meta:      `{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}`,
			decodeErr: `/_meta/io.modelcontextprotocol~1protocolVersion: `,
		},
		{
			name:      "capabilities absent",
			meta:      `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
			decodeErr: `/_meta: missing required field "io.modelcontextprotocol/clientCapabilities"`,
		},
		{
			name:      "level unknown",
			meta:      `{` + modernMeta + `,"io.modelcontextprotocol/logLevel":"verbose"}`,
			decodeErr: `/_meta/io.modelcontextprotocol~1logLevel: `,
		},
	} {
		for method, fresh := range params {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				p := fresh()
				in := `{"_meta":` + tc.meta + rest[method] + `}`
				err := wire.Unmarshal([]byte(in), p)
				if tc.decodeErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.decodeErr) {
						t.Fatalf("decode %s: error %v, want one containing %q", in, err, tc.decodeErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("decode %s: %v", in, err)
				}
				if v, ok := p.MetaProtocolVersion(); v != tc.version || ok != tc.versionOK {
					t.Errorf("MetaProtocolVersion() = %q, %v; want %q, %v", v, ok, tc.version, tc.versionOK)
				}
				caps, ok := p.MetaClientCapabilities()
				if ok != tc.capsOK || (caps.Elicitation != nil) != tc.elicit {
					t.Errorf("MetaClientCapabilities() = %+v, %v; want elicitation %v, %v", caps, ok, tc.elicit, tc.capsOK)
				}
				if l, ok := p.MetaLogLevel(); l != tc.level || ok != tc.levelOK {
					t.Errorf("MetaLogLevel() = %q, %v; want %q, %v", l, ok, tc.level, tc.levelOK)
				}
				if err := p.SetMetaProtocolVersion("2027-01-01"); err != nil {
					t.Fatal(err)
				}
				out, err := p.AppendJSON(nil)
				if err != nil {
					t.Fatal(err)
				}
				got := jsonValue(t, out).(map[string]any)["_meta"]
				if diff := cmp.Diff(jsonValue(t, []byte(tc.setVersion)), got); diff != "" {
					t.Errorf("_meta after SetMetaProtocolVersion (-want +got):\n%s", diff)
				}
			})
		}
	}
}
