package reqstate_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

func digest(t testing.TB, params string) [32]byte {
	t.Helper()
	d, err := reqstate.ParamsDigest(jsontext.Value(params))
	if err != nil {
		t.Fatalf("ParamsDigest(%q): %v", params, err)
	}
	return d
}

// The params of a retry, re-serialized and with the members a retry adds,
// have the digest of the original params.
func TestParamsDigestSame(t *testing.T) {
	groups := []struct {
		name string
		base string
		same []string
	}{
		{
			name: "tools/call",
			base: `{"name":"add","arguments":{"a":1,"b":[1,2.5,{"x":"y"}],"c":null,"d":true}}`,
			same: []string{
				`{"arguments":{"d":true,"c":null,"b":[1,2.5,{"x":"y"}],"a":1},"name":"add"}`,
				"{ \"name\" : \"add\" ,\n\t\"arguments\" : { \"a\" : 1 , \"b\" : [ 1 , 2.5 , { \"x\" : \"y\" } ] , \"c\" : null , \"d\" : true } }\r\n",
				`{"n\u0061me":"\u0061dd","arguments":{"a":1,"b":[1,2.5,{"\u0078":"y"}],"c":null,"d":true}}`,
				`{"_meta":{"progressToken":5,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"add","arguments":{"a":1,"b":[1,2.5,{"x":"y"}],"c":null,"d":true}}`,
				`{"name":"add","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"AQJrMQ","arguments":{"a":1,"b":[1,2.5,{"x":"y"}],"c":null,"d":true}}`,
				`{"requestState":"","inputResponses":null,"_meta":null,"name":"add","arguments":{"a":1,"b":[1,2.5,{"x":"y"}],"c":null,"d":true}}`,
				`{"\u005fmeta":{},"name":"add","arguments":{"a":1,"b":[1,2.5,{"x":"y"}],"c":null,"d":true}}`,
			},
		},
		{
			name: "strings",
			base: `{"uri":"file:///tmp/é/\u2028","s":"a\"b\\c/d"}`,
			same: []string{
				`{"s":"a\"b\\c\/d","uri":"file:///tmp/\u00e9/\u2028"}`,
				`{"s":"a\u0022b\u005cc/d","uri":"file:///tmp/\u00E9/` + "\u2028" + `"}`,
			},
		},
		{
			name: "absent",
			base: `{}`,
			same: []string{"", " ", "\n", "null", " null ", "{ }", `{"_meta":{"progressToken":"p"}}`, `{"inputResponses":{},"requestState":"x"}`},
		},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			want := digest(t, g.base)
			for _, s := range g.same {
				if got := digest(t, s); got != want {
					t.Errorf("ParamsDigest(%q) differs from ParamsDigest(%q)", s, g.base)
				}
			}
		})
	}
	// Absent params are the empty object.
	if got, want := digest(t, ""), sha256.Sum256([]byte("{}")); got != want {
		t.Errorf("ParamsDigest(absent) = %x, want SHA-256 of {} %x", got, want)
	}
	if got, err := reqstate.ParamsDigest(nil); err != nil || got != digest(t, "{}") {
		t.Errorf("ParamsDigest(nil) = %x, %v; want the digest of {}", got, err)
	}
}

// Params that differ in value have different digests.
func TestParamsDigestDiffers(t *testing.T) {
	tests := []struct {
		name string
		a, b string
	}{
		{"value", `{"name":"add","arguments":{"a":1}}`, `{"name":"add","arguments":{"a":2}}`},
		{"name", `{"name":"add"}`, `{"name":"sub"}`},
		{"type", `{"a":1}`, `{"a":"1"}`},
		{"null and absent member", `{"a":null}`, `{}`},
		{"extra member", `{"a":1}`, `{"a":1,"b":1}`},
		{"array order", `{"a":[1,2]}`, `{"a":[2,1]}`},
		{"nested _meta is kept", `{"arguments":{}}`, `{"arguments":{"_meta":{}}}`},
		{"nested requestState is kept", `{"arguments":{}}`, `{"arguments":{"requestState":"x"}}`},
		{"member names are case-sensitive", `{}`, `{"_Meta":{}}`},
		{"RequestState is not requestState", `{}`, `{"RequestState":"x"}`},
		// Numbers keep their digits: JCS would map both to 1234567890123456800.
		{"large integers", `{"n":1234567890123456789}`, `{"n":1234567890123456800}`},
		{"number spelling", `{"n":1}`, `{"n":1.0}`},
		{"exponent", `{"n":100}`, `{"n":1e2}`},
		{"member name vs value", `{"ab":"c"}`, `{"a":"bc"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if digest(t, tt.a) == digest(t, tt.b) {
				t.Errorf("ParamsDigest(%s) == ParamsDigest(%s)", tt.a, tt.b)
			}
		})
	}
}

func TestParamsDigestErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"array", `[]`, "params is a JSON array, want an object"},
		{"string", `"x"`, "params is a JSON string"},
		{"number", `1`, "params is a JSON number"},
		{"boolean", `true`, "params is a JSON boolean"},
		{"unterminated", `{"a":1`, "reqstate: params:"},
		{"bad literal", `nul`, "reqstate: params:"},
		{"garbage", `}`, "reqstate: params:"},
		{"duplicate member", `{"a":1,"a":2}`, "duplicate"},
		{"duplicate ignored member", `{"_meta":{},"_meta":{}}`, "duplicate"},
		{"duplicate by escape", `{"a":1,"\u0061":2}`, "duplicate"},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "UTF-8"},
		{"invalid UTF-8 in an ignored member", "{\"_meta\":\"\xff\"}", "UTF-8"},
		{"two values", `{} {}`, "more than one JSON value"},
		{"null then more", `null 1`, "more than one JSON value"},
		{"trailing garbage", `{}x`, "after the value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reqstate.ParamsDigest(jsontext.Value(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParamsDigest(%q) = %x, %v; want an error with %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func BenchmarkParamsDigest(b *testing.B) {
	params := jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7},` +
		`"name":"search","arguments":{"query":"go generics","limit":20,"filters":{"lang":["go","rust"],"since":"2025-01-01"}},` +
		`"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"AQJrMQxxxxxxxxxxxxxxxxxxxxxxxxxx"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reqstate.ParamsDigest(params); err != nil {
			b.Fatal(err)
		}
	}
}

// The digests do not change between versions: a state sealed by one
// instance of a deployment opens at another running an older or newer
// build. The values were computed by the first version of ParamsDigest.
func TestParamsDigestStable(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"_meta":{"a":1},"name":"x","arguments":{"b":[1,2.50,"\u00e9"]},"requestState":"s","inputResponses":{}}`, "e1878c3f2e8bcdae212d3afceea2b7284f942e64af7ecac5c165771d0e6bd8f4"},
		{`{"\u006eame":"x", "z":1e2,"a":{"y":1,"x":2}}`, "40bcc19641bfc722f746c474ab71e842b8c46f9bbb2ab0522d58861f1c6d7f33"},
		{`null`, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
		{``, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := reqstate.ParamsDigest(jsontext.Value(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", d); got != tt.want {
				t.Errorf("ParamsDigest(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
