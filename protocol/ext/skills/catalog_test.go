package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

const pdfSkill = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  author: example
  version: "1.0"
---

# PDF processing

See [the forms guide](references/FORMS.md).
`

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// goodTree is a catalog of two skills, one with a subdirectory, a binary
// file and hidden files that are skipped.
func goodTree() fstest.MapFS {
	return fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: []byte(pdfSkill)},
		"pdf-processing/references/FORMS.md": {Data: []byte("Forms.\n")},
		"pdf-processing/scripts/fill.py":     {Data: []byte("print('fill')\n")},
		"pdf-processing/logo.png":            {Data: []byte{0x89, 'P', 'N', 'G', 0xff, 0x00}},
		"pdf-processing/.cache/x":            {Data: []byte("hidden")},
		".git/config":                        {Data: []byte("hidden")},
		"tools/csv-to-json/SKILL.md":         {Data: []byte("---\nname: csv-to-json\ndescription: Convert CSV to JSON\n---\nBody\n")},
		"README.md":                          {Data: []byte("not a skill")},
	}
}

func TestLoadGoodTree(t *testing.T) {
	c, err := Load(goodTree(), nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	skills := c.Skills()
	var uris []string
	for _, s := range skills {
		uris = append(uris, s.URI)
	}
	if diff := cmp.Diff([]string{"skill://pdf-processing/SKILL.md", "skill://tools/csv-to-json/SKILL.md"}, uris); diff != "" {
		t.Fatalf("skills (-want +got):\n%s", diff)
	}
	pdf := skills[0]
	wantRes := []ResourceEntry{
		{URI: "skill://pdf-processing/SKILL.md", Digest: digest(pdfSkill), Size: int64(len(pdfSkill))},
		{URI: "skill://pdf-processing/logo.png", Digest: digest("\x89PNG\xff\x00"), Size: 6},
		{URI: "skill://pdf-processing/references/FORMS.md", Digest: digest("Forms.\n"), Size: 7},
		{URI: "skill://pdf-processing/scripts/fill.py", Digest: digest("print('fill')\n"), Size: 14},
	}
	if diff := cmp.Diff(wantRes, pdf.Resources); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	if pdf.Frontmatter.Name != "pdf-processing" || pdf.Frontmatter.Description != "Extract, fill, and assemble PDF documents" {
		t.Errorf("frontmatter = %+v", pdf.Frontmatter)
	}
	wantFM := `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","license":"Apache-2.0","metadata":{"author":"example","version":"1.0"}}`
	if string(pdf.Frontmatter.JSON) != wantFM {
		t.Errorf("frontmatter JSON = %s, want %s", pdf.Frontmatter.JSON, wantFM)
	}
	// Directories: the skill's root and its subdirectories, direct
	// children only, sorted by URI.
	dirs := map[string][]string{}
	for u, ch := range c.dirs {
		for _, x := range ch {
			dirs[u] = append(dirs[u], x.uri+" "+x.mimeType)
		}
	}
	wantDirs := map[string][]string{
		"skill://pdf-processing": {
			"skill://pdf-processing/SKILL.md text/markdown",
			"skill://pdf-processing/logo.png image/png",
			"skill://pdf-processing/references inode/directory",
			"skill://pdf-processing/scripts inode/directory",
		},
		"skill://pdf-processing/references": {"skill://pdf-processing/references/FORMS.md text/markdown"},
		"skill://pdf-processing/scripts":    {"skill://pdf-processing/scripts/fill.py text/x-python"},
		"skill://tools/csv-to-json":         {"skill://tools/csv-to-json/SKILL.md text/markdown"},
	}
	if diff := cmp.Diff(wantDirs, dirs); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
	// Every entry passes the rules a client checks.
	for _, s := range skills {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", s.URI, err)
		}
	}
	// Read checks the file against the entry.
	if b, err := c.Read("skill://pdf-processing/references/FORMS.md"); err != nil || string(b) != "Forms.\n" {
		t.Errorf("Read = %q, %v", b, err)
	}
}

func TestLoadPrefix(t *testing.T) {
	c, err := Load(goodTree(), &Options{Prefix: "acme/team"})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := c.Skills()[0].URI; got != "skill://acme/team/pdf-processing/SKILL.md" {
		t.Errorf("URI = %s", got)
	}
	if err := c.Skills()[0].Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestLoadEncodesNames(t *testing.T) {
	fsys := fstest.MapFS{
		"q/SKILL.md":       {Data: []byte("---\nname: q\ndescription: d\n---\n")},
		"q/Q&A notes%.md":  {Data: []byte("x")},
		"q/dir é/file.txt": {Data: []byte("y")},
	}
	c, err := Load(fsys, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var got []string
	for _, r := range c.Skills()[0].Resources {
		got = append(got, r.URI)
	}
	want := []string{"skill://q/Q&A%20notes%25.md", "skill://q/SKILL.md", "skill://q/dir%20%C3%A9/file.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("URIs (-want +got):\n%s", diff)
	}
	if err := c.Skills()[0].Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestLoadRules(t *testing.T) {
	skillMD := func(front string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\n" + front + "---\nBody\n")}
	}
	ok := "name: s\ndescription: d\n"
	tests := []struct {
		name  string
		files fstest.MapFS
		opts  *Options
		want  string // in the error
	}{
		{"root SKILL.md", fstest.MapFS{"SKILL.md": skillMD(ok)}, nil,
			"SKILL.md: a SKILL.md at the root has no skill path"},
		{"no frontmatter", fstest.MapFS{"s/SKILL.md": {Data: []byte("# s\n")}}, nil,
			`s/SKILL.md: SKILL.md frontmatter: line 1: SKILL.md must begin with a "---" line`},
		{"unclosed frontmatter", fstest.MapFS{"s/SKILL.md": {Data: []byte("---\nname: s\n")}}, nil,
			`s/SKILL.md: SKILL.md frontmatter: the frontmatter has no closing "---" line`},
		{"not UTF-8", fstest.MapFS{"s/SKILL.md": {Data: []byte("---\nname: s\xff\n---\n")}}, nil,
			"s/SKILL.md: SKILL.md frontmatter: SKILL.md is not valid UTF-8"},
		{"YAML syntax", fstest.MapFS{"s/SKILL.md": skillMD("name: [s\n")}, nil,
			"s/SKILL.md: SKILL.md frontmatter: line 2: did not find expected"},
		{"no description", fstest.MapFS{"s/SKILL.md": skillMD("name: s\n")}, nil,
			`s/SKILL.md: SKILL.md frontmatter: must have the string fields "name" and "description": missing required field "description"`},
		{"name not a string", fstest.MapFS{"s/SKILL.md": skillMD("name: 1\ndescription: d\n")}, nil,
			`must have the string fields "name" and "description": /name: want string, got number`},
		{"name rule", fstest.MapFS{"Bad--Name/SKILL.md": skillMD("name: Bad--Name\ndescription: d\n")}, nil,
			`Bad--Name/SKILL.md: name "Bad--Name" must be 1 to 64 lowercase letters, digits and single hyphens`},
		{"name too long", fstest.MapFS{strings.Repeat("a", 65) + "/SKILL.md": skillMD("name: " + strings.Repeat("a", 65) + "\ndescription: d\n")}, nil,
			"must be 1 to 64 lowercase letters"},
		{"name is not the directory", fstest.MapFS{"s/SKILL.md": skillMD("name: t\ndescription: d\n")}, nil,
			`s/SKILL.md: name "t" must equal the name of the skill's directory, "s"`},
		{"empty description", fstest.MapFS{"s/SKILL.md": skillMD("name: s\ndescription: \"\"\n")}, nil,
			"s/SKILL.md: description must be 1 to 1024 characters, not 0"},
		{"long description", fstest.MapFS{"s/SKILL.md": skillMD("name: s\ndescription: " + strings.Repeat("é", 1025) + "\n")}, nil,
			"s/SKILL.md: description must be 1 to 1024 characters, not 1025"},
		{"compatibility", fstest.MapFS{"s/SKILL.md": skillMD(ok + "compatibility: [a]\n")}, nil,
			"s/SKILL.md: compatibility must be a string of 1 to 500 characters"},
		{"metadata not a map", fstest.MapFS{"s/SKILL.md": skillMD(ok + "metadata: x\n")}, nil,
			"s/SKILL.md: metadata must map strings to strings"},
		{"metadata value", fstest.MapFS{"s/SKILL.md": skillMD(ok + "metadata:\n  n: 1\n")}, nil,
			`s/SKILL.md: metadata "n" must be a string`},
		{"reserved metadata", fstest.MapFS{"s/SKILL.md": skillMD(ok + "metadata:\n  io.modelcontextprotocol/x: y\n")}, nil,
			`s/SKILL.md: metadata key "io.modelcontextprotocol/x": keys that begin with "io.modelcontextprotocol/" are reserved for MCP extensions`},
		{"symlink", fstest.MapFS{"s/SKILL.md": skillMD(ok), "s/link": {Mode: fs.ModeSymlink, Data: []byte("/etc/passwd")}}, nil,
			"s/link: symbolic links and other special files are not served"},
		{"non-UTF-8 file name", fstest.MapFS{"s/SKILL.md": skillMD(ok), "s/\xff.txt": {Data: []byte("x")}}, nil,
			"the name is not valid UTF-8"},
		{"too many files", fstest.MapFS{"s/SKILL.md": skillMD(ok), "s/a": {}, "s/b": {}}, &Options{MaxFiles: 2},
			"s: 3 files, 36 bytes: over the limit of 2 files and 16777216 bytes per skill"},
		{"too many bytes", fstest.MapFS{"s/SKILL.md": skillMD(ok)}, &Options{MaxBytes: 10},
			"s: 1 files, more than 10 bytes: over the limit of 512 files and 10 bytes per skill"},
		{"bad prefix", goodTree(), &Options{Prefix: "a b"},
			`Options.Prefix "a b": segment "a b" must be letters, digits`},
		{"dot prefix", goodTree(), &Options{Prefix: "a/.."},
			`segment ".." must be letters, digits`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.files, tt.opts)
			if err == nil {
				t.Fatalf("Load succeeded with %d skills; want an error with %q", len(c.Skills()), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	fsys := fstest.MapFS{
		"a/SKILL.md":  {Data: []byte("---\nname: b\ndescription: d\n---\n")},
		"c/SKILL.md":  {Data: []byte("no frontmatter")},
		"ok/SKILL.md": {Data: []byte("---\nname: ok\ndescription: d\n---\n")},
	}
	_, err := Load(fsys, nil)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a *LoadError", err)
	}
	var paths []string
	for _, p := range le.Problems {
		paths = append(paths, p.Path)
	}
	if diff := cmp.Diff([]string{"a/SKILL.md", "c/SKILL.md"}, paths); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
	}
	if !strings.HasPrefix(err.Error(), "skills: 2 problems: a/SKILL.md: ") {
		t.Errorf("error = %v", err)
	}
}

func TestReadChangedFile(t *testing.T) {
	fsys := goodTree()
	c, err := Load(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, uri string
		change    func()
		want      string
	}{
		{"same size", "skill://pdf-processing/references/FORMS.md", func() { fsys["pdf-processing/references/FORMS.md"].Data = []byte("Evil.\n\n") },
			"skills: skill://pdf-processing/references/FORMS.md changed since the skills catalog was loaded"},
		{"grown", "skill://pdf-processing/scripts/fill.py", func() { fsys["pdf-processing/scripts/fill.py"].Data = []byte("print('fill')\nmore\n") },
			"changed since the skills catalog was loaded"},
		{"removed", "skill://pdf-processing/logo.png", func() { delete(fsys, "pdf-processing/logo.png") },
			"skill://pdf-processing/logo.png could not be read"},
		{"not a file", "skill://pdf-processing/references", func() {},
			"skill://pdf-processing/references is not a file of the catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.change()
			_, err := c.Read(tt.uri)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMIMEType(t *testing.T) {
	tests := map[string]string{
		"a.md": "text/markdown", "A.PDF": "application/pdf", "x.tar.gz": "application/octet-stream",
		".md": "application/octet-stream", "Makefile": "application/octet-stream", "s.py": "text/x-python",
	}
	for name, want := range tests {
		if got := mimeTypeFor(name); got != want {
			t.Errorf("mimeTypeFor(%q) = %q, want %q", name, got, want)
		}
	}
}
