package skills

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

const d64 = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestRoundTrip decodes valid messages and encodes them back to the same
// JSON (members in the order the encoders write them).
func TestRoundTrip(t *testing.T) {
	entry := `{"frontmatter":{"name":"pdf","description":"d","x":[1]},"resources":[{"digest":"` + d64 + `","size":3,"uri":"skill://pdf/SKILL.md"}],"uri":"skill://pdf/SKILL.md"}`
	tests := []struct {
		name string
		v    wire.Codec
		json string
	}{
		{"list", new(ListResult), `{"cacheScope":"private","ttlMs":0,"nextCursor":"c","resultType":"complete","skills":[` + entry + `]}`},
		{"list empty", new(ListResult), `{"cacheScope":"public","ttlMs":5,"resultType":"complete","skills":[]}`},
		{"list meta", new(ListResult), `{"_meta":{"a":1},"cacheScope":"public","ttlMs":5,"resultType":"complete","skills":[]}`},
		{"get", new(GetResult), `{"cacheScope":"private","ttlMs":0,"resultType":"complete","skill":` + entry + `}`},
		{"get dynamic", new(GetResult), `{"cacheScope":"private","ttlMs":0,"resultType":"complete","skill":{"_meta":{"k":"v"},"frontmatter":{"name":"a","description":"b"},"resources":"dynamic","uri":"skill://a/SKILL.md"}}`},
		{"directory", new(DirectoryReadResult), `{"cacheScope":"private","ttlMs":0,"nextCursor":"n","resources":[{"mimeType":"inode/directory","name":"refs","uri":"skill://a/refs"},{"mimeType":"text/markdown","name":"SKILL.md","size":4,"uri":"skill://a/SKILL.md"}],"resultType":"complete"}`},
		{"list params", new(ListParams), `{"_meta":{"x":1},"cursor":"c"}`},
		{"list params empty", new(ListParams), `{}`},
		{"get params", new(GetParams), `{"uri":"skill://a/SKILL.md"}`},
		{"directory params", new(DirectoryReadParams), `{"cursor":"c","uri":"skill://a"}`},
		{"capability", new(Capability), `{"directoryRead":true}`},
		{"capability empty", new(Capability), `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := wire.Unmarshal([]byte(tt.json), tt.v); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			got, err := tt.v.AppendJSON(nil)
			if err != nil {
				t.Fatalf("AppendJSON: %v", err)
			}
			if string(got) != tt.json {
				t.Errorf("round trip:\n got %s\nwant %s", got, tt.json)
			}
		})
	}
}

// TestResultTypeOptional: results without resultType decode (a server of
// an earlier draft), and encode with it.
func TestResultTypeOptional(t *testing.T) {
	var r ListResult
	if err := wire.Unmarshal([]byte(`{"skills":[],"ttlMs":0,"cacheScope":"private"}`), &r); err != nil {
		t.Fatal(err)
	}
	b, _ := r.AppendJSON(nil)
	if !strings.Contains(string(b), `"resultType":"complete"`) {
		t.Errorf("encoded %s without resultType", b)
	}
}

func TestStrictDecode(t *testing.T) {
	entry := func(mod string) string {
		return `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"b"},"resources":` + mod + `}],"ttlMs":0,"cacheScope":"private"}`
	}
	tests := []struct {
		name string
		v    wire.Unmarshaler
		json string
		want string
	}{
		{"no skills", new(ListResult), `{"ttlMs":0,"cacheScope":"private"}`, `missing required field "skills"`},
		{"no ttlMs", new(ListResult), `{"skills":[],"cacheScope":"private"}`, `missing required field "ttlMs"`},
		{"no cacheScope", new(ListResult), `{"skills":[],"ttlMs":0}`, `missing required field "cacheScope"`},
		{"bad cacheScope", new(ListResult), `{"skills":[],"ttlMs":0,"cacheScope":"shared"}`, `/cacheScope: want one of "public", "private"; got "shared"`},
		{"negative ttlMs", new(ListResult), `{"skills":[],"ttlMs":-1,"cacheScope":"private"}`, `/ttlMs`},
		{"fractional ttlMs", new(ListResult), `{"skills":[],"ttlMs":1.5,"cacheScope":"private"}`, `/ttlMs`},
		{"resultType", new(ListResult), `{"skills":[],"ttlMs":0,"cacheScope":"private","resultType":"input_required"}`, `/resultType: want "complete", got "input_required"`},
		{"duplicate member", new(ListResult), `{"skills":[],"skills":[],"ttlMs":0,"cacheScope":"private"}`, `duplicate`},
		{"case-sensitive", new(ListResult), `{"Skills":[],"ttlMs":0,"cacheScope":"private"}`, `missing required field "skills"`},
		{"skills not an array", new(ListResult), `{"skills":{},"ttlMs":0,"cacheScope":"private"}`, `/skills: want array, got object`},
		{"resources other string", new(ListResult), entry(`"static"`), `want an array or "dynamic", got "static"`},
		{"resources missing", new(ListResult), `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"b"}}],"ttlMs":0,"cacheScope":"private"}`, `/skills/0: missing required field "resources"`},
		{"digest uppercase", new(ListResult), entry(`[{"uri":"u","digest":"sha256:` + strings.ToUpper(d64[7:]) + `","size":1}]`), `/skills/0/resources/0/digest: want "sha256:" and 64 lowercase hexadecimal digits`},
		{"digest short", new(ListResult), entry(`[{"uri":"u","digest":"sha256:abc","size":1}]`), `/digest: want "sha256:"`},
		{"size negative", new(ListResult), entry(`[{"uri":"u","digest":"` + d64 + `","size":-1}]`), `/size`},
		{"size fractional", new(ListResult), entry(`[{"uri":"u","digest":"` + d64 + `","size":1.5}]`), `/size`},
		{"size missing", new(ListResult), entry(`[{"uri":"u","digest":"` + d64 + `"}]`), `missing required field "size"`},
		{"frontmatter no name", new(GetResult), `{"skill":{"uri":"u","frontmatter":{"description":"b"},"resources":"dynamic"},"ttlMs":0,"cacheScope":"private"}`, `/skill/frontmatter: missing required field "name"`},
		{"frontmatter name number", new(GetResult), `{"skill":{"uri":"u","frontmatter":{"name":1,"description":"b"},"resources":"dynamic"},"ttlMs":0,"cacheScope":"private"}`, `/skill/frontmatter/name: want string, got number`},
		{"frontmatter duplicate", new(GetResult), `{"skill":{"uri":"u","frontmatter":{"name":"a","name":"b","description":"b"},"resources":"dynamic"},"ttlMs":0,"cacheScope":"private"}`, `duplicate`},
		{"get no skill", new(GetResult), `{"ttlMs":0,"cacheScope":"private"}`, `missing required field "skill"`},
		{"directory child no name", new(DirectoryReadResult), `{"resources":[{"uri":"u"}],"ttlMs":0,"cacheScope":"private"}`, `/resources/0: missing required field "name"`},
		{"get params no uri", new(GetParams), `{}`, `missing required field "uri"`},
		{"directory params no uri", new(DirectoryReadParams), `{"cursor":"c"}`, `missing required field "uri"`},
		{"list params cursor", new(ListParams), `{"cursor":1}`, `/cursor: want string, got number`},
		{"capability", new(Capability), `{"directoryRead":"yes"}`, `/directoryRead: want boolean, got string`},
		{"trailing data", new(Capability), `{} {}`, `unexpected data after the JSON value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := wire.Unmarshal([]byte(tt.json), tt.v)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Unmarshal error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestEncodeChecks(t *testing.T) {
	tests := []struct {
		name string
		v    wire.Appender
		want string
	}{
		{"bad digest", &Skill{URI: "u", Frontmatter: Frontmatter{Name: "a", Description: "b"}, Resources: []ResourceEntry{{URI: "u", Digest: "md5:x"}}}, `digest "md5:x" is not`},
		{"negative size", &Skill{URI: "u", Frontmatter: Frontmatter{Name: "a", Description: "b"}, Resources: []ResourceEntry{{URI: "u", Digest: d64, Size: -1}}}, "size"},
		{"dynamic with resources", &Skill{URI: "u", Frontmatter: Frontmatter{Name: "a", Description: "b"}, Dynamic: true, Resources: []ResourceEntry{}}, "a dynamic skill lists no resources"},
		{"frontmatter disagrees", &Skill{URI: "u", Frontmatter: Frontmatter{Name: "a", Description: "b", JSON: []byte(`{"name":"x","description":"b"}`)}}, `frontmatter JSON has name "x"`},
		{"frontmatter not an object", &Skill{URI: "u", Frontmatter: Frontmatter{Name: "a", Description: "b", JSON: []byte(`[]`)}}, "frontmatter JSON is not a JSON object"},
		{"cache scope", &ListResult{CacheScope: "shared"}, `cacheScope "shared" is not "public" or "private"`},
		{"ttl", &GetResult{CacheScope: CachePrivate, TTLMs: -1, Skill: Skill{URI: "u", Frontmatter: Frontmatter{Name: "a", Description: "b"}, Dynamic: true}}, "ttlMs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.v.AppendJSON(nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AppendJSON error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestFrontmatterObject(t *testing.T) {
	f := Frontmatter{Name: "a\"", Description: "b"}
	got, err := f.Object()
	if err != nil || string(got) != `{"name":"a\"","description":"b"}` {
		t.Errorf("Object = %s, %v", got, err)
	}
}

func TestValidate(t *testing.T) {
	res := func(uris ...string) []ResourceEntry {
		var out []ResourceEntry
		for _, u := range uris {
			out = append(out, ResourceEntry{URI: u, Digest: d64})
		}
		return out
	}
	fm := func(name string) Frontmatter { return Frontmatter{Name: name, Description: "d"} }
	tests := []struct {
		name  string
		skill Skill
		want  string // "" for valid
	}{
		{"valid", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://pdf/a/b.md")}, ""},
		{"valid with authority", Skill{URI: "skill://acme/pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://acme/pdf/SKILL.md")}, ""},
		{"valid other spelling", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://pdf/Q%26A.md")}, ""},
		{"valid dynamic", Skill{URI: "https://example.com/skills/pdf/SKILL.md", Frontmatter: fm("pdf"), Dynamic: true}, ""},
		{"not SKILL.md", Skill{URI: "skill://pdf/README.md", Frontmatter: fm("pdf"), Dynamic: true}, "must be a URI ending in /SKILL.md inside a named directory"},
		{"no directory", Skill{URI: "skill:///SKILL.md", Frontmatter: fm("pdf"), Dynamic: true}, "inside a named directory"},
		{"name rule", Skill{URI: "skill://pdf--x/SKILL.md", Frontmatter: fm("pdf--x"), Dynamic: true}, `frontmatter name "pdf--x" must be 1 to 64`},
		{"name mismatch", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("doc"), Dynamic: true}, `frontmatter name "doc" must equal the last path segment "pdf"`},
		{"description", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: Frontmatter{Name: "pdf"}, Dynamic: true}, "frontmatter description must be 1 to 1024 characters"},
		{"compatibility", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: Frontmatter{Name: "pdf", Description: "d", JSON: []byte(`{"name":"pdf","description":"d","compatibility":1}`)}, Dynamic: true}, "compatibility must be a string"},
		{"metadata", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: Frontmatter{Name: "pdf", Description: "d", JSON: []byte(`{"name":"pdf","description":"d","metadata":{"a":1}}`)}, Dynamic: true}, "metadata must map strings to strings"},
		{"no SKILL.md listed", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/a.md")}, "resources must include skill://pdf/SKILL.md"},
		{"outside", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://other/a.md")}, `resource "skill://other/a.md" is outside the skill directory skill://pdf`},
		{"dot dot", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://pdf/%2E%2E/x")}, "is outside the skill directory"},
		{"twice", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://pdf/a&b", "skill://pdf/a%26b")}, `resource "skill://pdf/a%26b" is listed more than once`},
		{"query", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://pdf/a?x=1")}, "must not have a query or fragment"},
		{"fragment", Skill{URI: "skill://pdf/SKILL.md", Frontmatter: fm("pdf"), Resources: res("skill://pdf/SKILL.md", "skill://pdf/a#x")}, "must not have a query or fragment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.skill.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
