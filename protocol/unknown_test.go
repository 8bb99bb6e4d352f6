package protocol_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Decoding that keeps unknown union variants (wire.UnmarshalKeepUnknown)
// differs from strict decoding only for tags that name no variant: those
// values are kept verbatim, at any depth, and encode unchanged.
func TestKeepUnknown(t *testing.T) {
	for _, tt := range []struct {
		name, rev, def, data string
		kept                 []string // values kept verbatim; nil: keep-mode decoding fails
		strictErr, keepErr   string
	}{
		{
			name: "unknown content block", rev: "2025-03-26", def: "CallToolResult",
			data:      `{"content":[{"type":"text","text":"hi"},{"type":"resource_link","uri":"file:///a","name":"a"}],"isError":false}`,
			kept:      []string{`{"type":"resource_link","uri":"file:///a","name":"a"}`},
			strictErr: `/content/1/type: CallToolResultContentItem: unknown type "resource_link"`,
		},
		{
			name: "nested: a block in a request in a union", rev: "2025-03-26", def: "ServerRequest",
			data:      `{"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{ "type" : "video", "frames":[1,2] }}]}}`,
			kept:      []string{`{ "type" : "video", "frames":[1,2] }`},
			strictErr: `/params/messages/0/content/type: SamplingMessageContent: unknown type "video"`,
		},
		{
			name: "unknown method", rev: "2025-03-26", def: "ServerRequest",
			data:      `{"method":"tasks/get","params":{"taskId":"t"}}`,
			kept:      []string{`{"method":"tasks/get","params":{"taskId":"t"}}`},
			strictErr: `/method: ServerRequest: unknown method "tasks/get"`,
		},
		{
			name: "two unknown blocks", rev: "2025-06-18", def: "CallToolResult",
			data:      `{"content":[{"type":"a"},{"type":"b","x":{}}]}`,
			kept:      []string{`{"type":"a"}`, `{"type":"b","x":{}}`},
			strictErr: `/content/0/type: ContentBlock: unknown type "a"`,
		},
		{
			name: "a missing tag is no unknown variant", rev: "2025-03-26", def: "CallToolResult",
			data:      `{"content":[{"text":"hi"}]}`,
			strictErr: `/content/0: CallToolResultContentItem: missing required field "type"`,
			keepErr:   `/content/0: CallToolResultContentItem: missing required field "type"`,
		},
		{
			name: "a known variant must still be valid", rev: "2025-11-25", def: "CallToolResult",
			data:      `{"content":[{"type":"video"},{"type":"text"}]}`,
			strictErr: `/content/0/type: ContentBlock: unknown type "video"`,
			keepErr:   `/content/1: missing required field "text"`,
		},
		{
			name: "modern: a block in a result chosen by resultType", rev: "2026-07-28", def: "CallToolResultResponse",
			data:      `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"video","frames":[1]}]}}`,
			kept:      []string{`{"type":"video","frames":[1]}`},
			strictErr: `/result/content/0/type: ContentBlock: unknown type "video"`,
		},
		{
			name: "modern: an embedded request of a newer revision", rev: "2026-07-28", def: "InputRequiredResult",
			data:      `{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"b":{"method":"location/get","params":{}}}}`,
			kept:      []string{`{"method":"location/get","params":{}}`},
			strictErr: `/inputRequests/b/method: InputRequest: unknown method "location/get"`,
		},
		{
			// resultType is no union tag of a variant to keep: a value this
			// revision does not know is refused either way.
			name: "modern: an unknown resultType is not kept", rev: "2026-07-28", def: "CallToolResultResponse",
			data:      `{"jsonrpc":"2.0","id":1,"result":{"resultType":"deferred","content":[]}}`,
			strictErr: `/result/resultType: CallToolResultResponseResult: unknown resultType "deferred"`,
			keepErr:   `/result/resultType: CallToolResultResponseResult: unknown resultType "deferred"`,
		},
		{
			name: "a tag that is no string", rev: "2025-11-25", def: "CallToolResult",
			data:      `{"content":[{"type":7}]}`,
			strictErr: `/content/0/type: ContentBlock: unknown type "7"`,
			keepErr:   `/content/0/type: ContentBlock: unknown type "7"`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := revisionNamed(t, tt.rev)
			strict, _ := r.new(tt.def)
			err := wire.Unmarshal([]byte(tt.data), strict)
			if err == nil || !strings.Contains(err.Error(), tt.strictErr) {
				t.Errorf("strict: error %v, want one containing %q", err, tt.strictErr)
			}
			keep, _ := r.new(tt.def)
			err = wire.UnmarshalKeepUnknown([]byte(tt.data), keep)
			if tt.kept == nil {
				if tt.keepErr != "" && (err == nil || !strings.Contains(err.Error(), tt.keepErr)) {
					t.Errorf("keep: error %v, want one containing %q", err, tt.keepErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("keep: %v", err)
			}
			out, err := keep.AppendJSON(nil)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if diff := cmp.Diff(jsonValue(t, []byte(tt.data)), jsonValue(t, out)); diff != "" {
				t.Errorf("re-encoded (-decoded +encoded):\n%s", diff)
			}
			for _, k := range tt.kept {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("the encoding %s does not hold %s verbatim", out, k)
				}
			}
		})
	}
}

// The kept value is the package's UnknownVariant, which encodes only a JSON
// object.
func TestUnknownVariantEncoding(t *testing.T) {
	for _, tt := range []struct {
		raw, want, err string
	}{
		{`{"type":"x", "a" :1}`, `{"content":[{"type":"x", "a" :1}]}`, ""},
		{``, ``, "UnknownVariant has no value"},
		{`[1]`, ``, "want object, got array"},
		{`{"type":`, ``, "not valid JSON"},
	} {
		res := &mcp20250326.CallToolResult{Content: []mcp20250326.CallToolResultContentItem{{Value: &mcp20250326.UnknownVariant{Raw: []byte(tt.raw)}}}}
		got, err := res.AppendJSON(nil)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("encoding Raw %q: error %v, want one containing %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("encoding Raw %q = %s, %v; want %s", tt.raw, got, err, tt.want)
		}
	}
}

func revisionNamed(t *testing.T, name string) revision {
	t.Helper()
	for _, r := range revisions {
		if r.name == name {
			return r
		}
	}
	t.Fatalf("no revision %s", name)
	return revision{}
}

// keepDefs are the definitions FuzzKeepUnknown decodes: the named unions and
// results that hold content blocks.
var keepDefs = append([]string{"CallToolResult", "GetPromptResult", "CreateMessageResult", "ReadResourceResult", "CompleteRequestParams"}, unionDefs...)

// FuzzKeepUnknown checks that decoding that keeps unknown variants is strict
// decoding plus unknown tags: whatever strict decoding accepts it accepts
// with the same encoding; whatever it accepts and strict decoding refuses,
// strict decoding refuses for an unknown tag; and what it accepts encodes
// and decodes again to the same encoding.
func FuzzKeepUnknown(f *testing.F) {
	addCorpus(f, true)
	for i, d := range keepDefs {
		switch d {
		case "CallToolResult":
			f.Add(uint8(i), []byte(`{"content":[{"type":"text","text":"hi"},{"type":"resource_link","uri":"file:///a","name":"a"}]}`))
		case "ServerRequest":
			f.Add(uint8(i), []byte(`{"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"video"}}]}}`))
		case "JSONRPCMessage":
			f.Add(uint8(i), []byte(`{"jsonrpc":"2.0","id":1,"method":"x/y","params":{}}`))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := keepDefs[int(which)%len(keepDefs)]
		for _, r := range revisions {
			if _, ok := r.new(name); !ok {
				continue
			}
			strict, _ := r.new(name)
			strictErr := wire.Unmarshal(data, strict)
			keep, _ := r.new(name)
			keepErr := wire.UnmarshalKeepUnknown(data, keep)
			switch {
			case strictErr == nil && keepErr != nil:
				t.Fatalf("%s %s: strict decoding accepts %q, keeping unknown variants does not: %v", r.name, name, data, keepErr)
			case keepErr != nil:
				continue
			case strictErr != nil && (!strings.Contains(strictErr.Error(), ": unknown ") || strings.Contains(strictErr.Error(), "unknown member")):
				t.Fatalf("%s %s: keeping unknown variants accepts %q, which strict decoding refuses for another reason: %v", r.name, name, data, strictErr)
			}
			out, err := keep.AppendJSON(nil)
			if err != nil {
				t.Fatalf("%s %s: decoded %q but cannot encode it: %v", r.name, name, data, err)
			}
			if strictErr == nil {
				want, err := strict.AppendJSON(nil)
				if err != nil || !bytes.Equal(want, out) {
					t.Fatalf("%s %s: %q encodes as %q strictly decoded, %q kept (%v)", r.name, name, data, want, out, err)
				}
			}
			again, _ := r.new(name)
			if err := wire.UnmarshalKeepUnknown(out, again); err != nil {
				t.Fatalf("%s %s: re-encoding %q gave %q, which does not decode: %v", r.name, name, data, out, err)
			}
			out2, err := again.AppendJSON(nil)
			if err != nil || !bytes.Equal(out, out2) {
				t.Fatalf("%s %s: encoding is not stable: %q then %q (%v)", r.name, name, out, out2, err)
			}
		}
	})
}
