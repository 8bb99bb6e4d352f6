package skills

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSkillMDTyping(t *testing.T) {
	// The YAML 1.2 core schema, as the TypeScript SDK types plain scalars.
	tests := []struct {
		yaml, want string
	}{
		{"x: yes", `"yes"`},
		{"x: No", `"No"`},
		{"x: on", `"on"`},
		{"x: off", `"off"`},
		{"x: y", `"y"`},
		{"x: true", `true`},
		{"x: TRUE", `true`},
		{"x: False", `false`},
		{"x: null", `null`},
		{"x: ~", `null`},
		{"x:", `null`},
		{"x: 2024-01-02", `"2024-01-02"`},
		{"x: 2024-01-02T10:00:00Z", `"2024-01-02T10:00:00Z"`},
		{"x: 012", `12`},
		{"x: -0", `0`},
		{"x: +5", `5`},
		{"x: 1.50", `1.5`},
		{"x: .5", `0.5`},
		{"x: 5.", `5`},
		{"x: 1e3", `1000`},
		{"x: 1E-7", `1e-7`},
		{"x: 1e21", `1e+21`},
		{"x: 0x1F", `31`},
		{"x: 0o17", `15`},
		{"x: 0b101", `"0b101"`},
		{"x: 0X1F", `"0X1F"`},
		{"x: 1_000", `"1_000"`},
		{"x: 12345678901234567890", `12345678901234567000`},
		{"x: 0xFFFFFFFFFFFFFFFFFF", `4.722366482869645e+21`},
		{"x: '012'", `"012"`},
		{`x: "true"`, `"true"`},
		{"x: |\n  a\n  b", `"a\nb\n"`},
		{"x: >-\n  a\n  b", `"a b"`},
		{"x: a\n  b", `"a b"`},
		{"x: [1, two, 'x', {a: b}]", `[1,"two","x",{"a":"b"}]`},
		{"x:\n  - a\n  - 2", `["a",2]`},
		{"x:\n  k: v", `{"k":"v"}`},
		{"x: a # comment", `"a"`},
		{`x: "\u00e9\t"`, `"é\t"`},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			md := "---\nname: n\ndescription: d\n" + tt.yaml + "\n---\nbody\n"
			fm, body, err := ParseSkillMD([]byte(md))
			if err != nil {
				t.Fatalf("ParseSkillMD: %v", err)
			}
			want := `{"name":"n","description":"d","x":` + tt.want + `}`
			if string(fm.JSON) != want {
				t.Errorf("JSON = %s\nwant   %s", fm.JSON, want)
			}
			if body != "body\n" {
				t.Errorf("body = %q", body)
			}
		})
	}
}

func TestParseSkillMDErrors(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"no opening line", "name: x\n", `line 1: SKILL.md must begin with a "---" line`},
		{"opening line with text", "--- x\nname: a\n---\n", `must begin with a "---" line`},
		{"no closing line", "---\nname: x\n", `the frontmatter has no closing "---" line`},
		{"not UTF-8", "---\nname: \xff\n---\n", "SKILL.md is not valid UTF-8"},
		{"not a mapping", "---\n- a\n---\n", "line 2: the frontmatter must be a mapping of keys to values"},
		{"anchor", "---\nname: &a x\ndescription: *a\n---\n", "line 2: anchors and aliases are not supported"},
		{"alias", "---\nname: x\ndescription: *a\n---\n", "unknown anchor"},
		{"tag", "---\nname: !!str x\ndescription: d\n---\n", "line 2: tags (!!str) are not supported"},
		{"duplicate key", "---\nname: x\ndescription: d\nname: y\n---\n", `line 4: duplicate key "name"`},
		{"number key", "---\nname: x\ndescription: d\n1: y\n---\n", `line 4: key "1" must be a string; quote it`},
		{"bool key", "---\nname: x\ndescription: d\ntrue: y\n---\n", `key "true" must be a string`},
		{"complex key", "---\nname: x\ndescription: d\n? [a]\n: b\n---\n", "line 4: complex keys are not supported"},
		{"infinity", "---\nname: x\ndescription: d\nx: .inf\n---\n", `line 4: ".inf" cannot be represented in JSON; quote it`},
		{"nan", "---\nname: x\ndescription: d\nx: .NaN\n---\n", `".NaN" cannot be represented in JSON`},
		{"overflow", "---\nname: x\ndescription: d\nx: 1e999\n---\n", `"1e999" cannot be represented in JSON`},
		{"syntax", "---\nname: x\ndescription: [\n---\n", "line 3: did not find expected node content"},
		{"no name", "---\ndescription: d\n---\n", `must have the string fields "name" and "description": missing required field "name"`},
		{"name not a string", "---\nname: [a]\ndescription: d\n---\n", "/name: want string, got array"},
		{"too deep", "---\nname: x\ndescription: d\nx: " + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "\n---\n", "nesting deeper than 32 levels is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseSkillMD([]byte(tt.md))
			var fe *FrontmatterError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FrontmatterError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSplitSkillMD(t *testing.T) {
	tests := []struct {
		name, md, yaml, body string
	}{
		{"plain", "---\na: 1\n---\nbody\n", "a: 1\n", "body\n"},
		{"CRLF", "---\r\na: 1\r\n---\r\nbody\r\n", "a: 1\n", "body\n"},
		{"BOM", "\uFEFF---\na: 1\n---\n", "a: 1\n", ""},
		{"blanks after the closing line", "---\na: 1\n--- \t\nbody", "a: 1\n", "body"},
		{"empty frontmatter", "---\n---\nbody", "", "body"},
		{"no body", "---\na: 1\n---", "a: 1\n", ""},
		{"dashes in the body", "---\na: 1\n---\n---\n", "a: 1\n", "---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y, body, err := SplitSkillMD(tt.md)
			if err != nil {
				t.Fatal(err)
			}
			if y != tt.yaml || body != tt.body {
				t.Errorf("SplitSkillMD = %q, %q; want %q, %q", y, body, tt.yaml, tt.body)
			}
		})
	}
}

func TestJSONDifferences(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       []string
	}{
		{"equal in another order", `{"a":1,"b":[1,{"c":true}]}`, `{"b":[1.0,{"c":true}],"a":1e0}`, nil},
		{"string", `{"name":"a","description":"x"}`, `{"name":"a","description":"y"}`, []string{`description: the entry has "x", SKILL.md has "y"`}},
		{"missing", `{"a":1}`, `{"a":1,"b":null}`, []string{"b: the entry has nothing, SKILL.md has null"}},
		{"nested", `{"m":{"k":"1"}}`, `{"m":{"k":1}}`, []string{`m.k: the entry has "1", SKILL.md has 1`}},
		{"array length", `{"l":[1]}`, `{"l":[1,2]}`, []string{"l: the entry has 1 items, SKILL.md has 2"}},
		{"array item", `{"l":[1,true]}`, `{"l":[1,false]}`, []string{"l[1]: the entry has true, SKILL.md has false"}},
		{"escapes", `{"s":"\u00e9"}`, `{"s":"é"}`, nil},
		{"root kind", `{}`, `[]`, []string{"(frontmatter): the entry has {}, SKILL.md has []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsonDifferences([]byte(tt.a), []byte(tt.b), "")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("differences = %q, want %q", got, tt.want)
			}
		})
	}
}
