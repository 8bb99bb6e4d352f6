package skills

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// roundTrip checks that a value decoded from data encodes, and that its
// encoding decodes to the same encoding.
func roundTrip(t *testing.T, data []byte, fresh func() wire.Codec) {
	v := fresh()
	if err := wire.Unmarshal(data, v); err != nil {
		return
	}
	b, err := v.AppendJSON(nil)
	if err != nil {
		t.Fatalf("decoded %s but cannot encode it: %v", data, err)
	}
	w := fresh()
	if err := wire.Unmarshal(b, w); err != nil {
		t.Fatalf("encoding %s of %s does not decode: %v", b, data, err)
	}
	c, err := w.AppendJSON(nil)
	if err != nil || !bytes.Equal(b, c) {
		t.Fatalf("encoding is not stable: %s, then %s (%v)", b, c, err)
	}
}

func FuzzListResult(f *testing.F) {
	f.Add([]byte(`{"cacheScope":"private","ttlMs":0,"nextCursor":"c","resultType":"complete","skills":[{"frontmatter":{"name":"pdf","description":"d","x":[1]},"resources":[{"digest":"` + d64 + `","size":3,"uri":"skill://pdf/SKILL.md"}],"uri":"skill://pdf/SKILL.md"}]}`))
	f.Add([]byte(`{"skills":[{"uri":"u","frontmatter":{"name":"a","description":"b"},"resources":"dynamic","_meta":{}}],"ttlMs":1,"cacheScope":"public"}`))
	f.Add([]byte(`{"skills":[],"ttlMs":0,"cacheScope":"private","skills":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func() wire.Codec { return new(ListResult) })
	})
}

func FuzzGetResult(f *testing.F) {
	f.Add([]byte(`{"cacheScope":"private","ttlMs":0,"resultType":"complete","skill":{"_meta":{"k":"v"},"frontmatter":{"name":"a","description":"b","n":1.5e3},"resources":"dynamic","uri":"skill://a/SKILL.md"}}`))
	f.Add([]byte(`{"skill":{"uri":"u","frontmatter":{"name":"a","description":"\u00e9"},"resources":[]},"ttlMs":0,"cacheScope":"private"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func() wire.Codec { return new(GetResult) })
	})
}

func FuzzDirectoryReadResult(f *testing.F) {
	f.Add([]byte(`{"cacheScope":"private","ttlMs":0,"nextCursor":"n","resources":[{"mimeType":"inode/directory","name":"refs","uri":"skill://a/refs"},{"mimeType":"text/markdown","name":"SKILL.md","size":4,"uri":"skill://a/SKILL.md"}],"resultType":"complete"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func() wire.Codec { return new(DirectoryReadResult) })
	})
}

func FuzzParams(f *testing.F) {
	f.Add([]byte(`{"_meta":{"x":1},"cursor":"c","uri":"skill://a/SKILL.md"}`))
	f.Add([]byte(`{"uri":"skill://a","cursor":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, func() wire.Codec { return new(ListParams) })
		roundTrip(t, data, func() wire.Codec { return new(GetParams) })
		roundTrip(t, data, func() wire.Codec { return new(DirectoryReadParams) })
		roundTrip(t, data, func() wire.Codec { return new(Capability) })
	})
}

func FuzzParseSkillMD(f *testing.F) {
	f.Add([]byte(pdfSkill))
	f.Add([]byte("---\nname: a\ndescription: b\nx: [1, {a: b}, 'c', 0x1F, .inf]\ny: |\n  z\n---\nbody"))
	f.Add([]byte("---\r\nname: &a x\r\ndescription: *a\r\n---\r\n"))
	f.Add([]byte("\uFEFF---\nname: a\ndescription: b\n? c\n: d\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, _, err := ParseSkillMD(data)
		if err != nil {
			return
		}
		if fm.JSON.Kind() != '{' || !jsontext.Value(fm.JSON).IsValid() {
			t.Fatalf("frontmatter %s of %q is not a JSON object", fm.JSON, data)
		}
		// An entry made from it encodes, and compares equal to itself.
		s := Skill{URI: "skill://a/SKILL.md", Frontmatter: fm, Dynamic: true}
		if _, err := s.AppendJSON(nil); err != nil {
			t.Fatalf("entry with frontmatter %s does not encode: %v", fm.JSON, err)
		}
		if d := jsonDifferences(fm.JSON, fm.JSON, ""); len(d) > 0 {
			t.Fatalf("frontmatter %s differs from itself: %v", fm.JSON, d)
		}
	})
}
