package interop_test

// The Skills extension (protocol/ext/skills) against the TypeScript SDK
// 2.4.0's ext/skills, both ways, over Streamable HTTP on 127.0.0.1:
// TestTS2SkillsServerGoClient runs ts2-skills.mjs serve and reads it with
// skills.Client; TestTS2SkillsGoServerTSClient serves a skills.Catalog and
// runs ts2-skills.mjs host against it. Both load the same directory, whose
// SKILL.md frontmatter holds the YAML values the two sides could type
// differently (yes, dates, octal and hexadecimal numbers, block scalars):
// the entries must be equal, byte for byte.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/protocol/ext/skills"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// skillsTree is the directory both sides load.
var skillsTree = map[string]string{
	"pdf-processing/SKILL.md": `---
name: pdf-processing
description: >-
  Extract, fill, and assemble PDF documents;
  use it for forms.
license: Apache-2.0
compatibility: Needs a PDF library
metadata:
  author: mcpgen
  version: "1.0"
x-yes: yes
x-on: on
x-date: 2024-01-02
x-time: 2024-01-02T10:00:00Z
x-int: 012
x-neg-zero: -0
x-float: 1.50
x-exp: 1e3
x-small: 1e-7
x-big: 12345678901234567890
x-hex: 0x1F
x-octal: 0o17
x-underscore: 1_000
x-null: ~
x-empty:
x-bool: True
x-quoted: "tab\there \u00e9"
x-single: 'it''s'
x-list: [a, 1, true, null, {k: v}]
x-block: |
  line one
  line two
x-nested:
  deeper:
    - 1
    - two
---

# PDF processing

Read [the forms guide](references/FORMS.md) before filling a form.
`,
	"pdf-processing/references/FORMS.md":    "# Forms\n\nFill every field.\n",
	"pdf-processing/references/deep/a.txt":  "deep\n",
	"pdf-processing/Q&A notes.md":           "Questions.\n",
	"pdf-processing/assets/logo.bin":        "\x89PNG\r\n\x1a\n\x00\xff\xfe",
	"csv-to-json/SKILL.md":                  "---\nname: csv-to-json\ndescription: Convert CSV files to JSON\n---\nBody.\n",
	"csv-to-json/scripts/convert.py":        "print('convert')\n",
	"not-a-skill/README.md":                 "no SKILL.md here\n",
	"pdf-processing/.hidden/ignored.md":     "hidden\n",
	"pdf-processing/references/.DS_Store":   "hidden\n",
	"csv-to-json/scripts/__init__.py":       "",
	"csv-to-json/scripts/data/sample.csv":   "a,b\n1,2\n",
	"csv-to-json/scripts/data/sample.json":  "[{\"a\":1,\"b\":2}]\n",
	"csv-to-json/scripts/data/sample2.yaml": "a: 1\n",
}

// skillsDir writes skillsTree into a temporary directory and loads it.
func skillsDir(t *testing.T) (string, *skills.Catalog) {
	t.Helper()
	dir := t.TempDir()
	for p, data := range skillsTree {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := skills.Dir(dir, nil)
	if err != nil {
		t.Fatalf("skills.Dir: %v", err)
	}
	return dir, c
}

// entriesJSON encodes entries, for comparisons that show the JSON.
func entriesJSON(t *testing.T, entries []skills.Skill) []string {
	t.Helper()
	var out []string
	for i := range entries {
		b, err := entries[i].AppendJSON(nil)
		if err != nil {
			t.Fatalf("encoding %s: %v", entries[i].URI, err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestTS2SkillsServerGoClient(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	dir, catalog := skillsDir(t)
	srv := startHTTPServer(t, exec.Command(node, filepath.Join(interop, "ts2-skills.mjs"), "serve", dir), fixtureURLLine)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs, err := mcp.Connect(ctx, mcp.HTTP(srv.url, nil), nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	host := skills.NewClient(cs)
	if cp, ok := host.Capability(); !ok || !cp.DirectoryRead {
		t.Fatalf("Capability = %+v, %v; want the extension with directoryRead", cp, ok)
	}
	list, err := host.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	// The TypeScript catalog and the Go one, from the same directory, are
	// the same entries: URIs, digests, sizes, and the frontmatter typed
	// the same way.
	if diff := cmp.Diff(entriesJSON(t, catalog.Skills()), entriesJSON(t, list)); diff != "" {
		t.Fatalf("entries (-Go catalog +TypeScript server):\n%s", diff)
	}
	pdf := list[slices.IndexFunc(list, func(s skills.Skill) bool { return s.Frontmatter.Name == "pdf-processing" })]
	got, err := host.Get(ctx, pdf.URI)
	if err != nil || !cmp.Equal(entriesJSON(t, []skills.Skill{*got}), entriesJSON(t, []skills.Skill{pdf})) {
		t.Errorf("Get = %+v, %v", got, err)
	}
	_, err = host.Get(ctx, "skill://no-such-skill/SKILL.md")
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != jsonrpc.InvalidParams {
		t.Errorf("Get of an unknown skill: %v, want -32602", err)
	}
	for _, r := range pdf.Resources {
		f, err := host.Read(ctx, &pdf, r.URI)
		if err != nil {
			t.Errorf("Read %s: %v", r.URI, err)
			continue
		}
		rel := strings.TrimPrefix(r.URI, "skill://")
		want := skillsTree[strings.ReplaceAll(rel, "Q&A%20notes.md", "Q&A notes.md")]
		if !f.Verified || string(f.Data) != want {
			t.Errorf("Read %s = %q (verified %v), want %q", r.URI, f.Data, f.Verified, want)
		}
		if r.URI == pdf.URI && (f.Frontmatter == nil || !strings.Contains(f.Body, "the forms guide")) {
			t.Errorf("Read SKILL.md: frontmatter %v, body %q", f.Frontmatter, f.Body)
		}
	}
	var ve *skills.VerificationError
	if _, err := host.Read(ctx, &pdf, "not-listed.md"); !errors.As(err, &ve) || ve.Reason != skills.ReasonUnlisted {
		t.Errorf("Read of an unlisted file: %v", err)
	}
	root, err := host.ReadDirectory(ctx, "skill://pdf-processing")
	if err != nil {
		t.Fatalf("ReadDirectory: %v", err)
	}
	want := []string{
		"skill://pdf-processing/Q&A%20notes.md text/markdown",
		"skill://pdf-processing/SKILL.md text/markdown",
		"skill://pdf-processing/assets inode/directory",
		"skill://pdf-processing/references inode/directory",
	}
	if diff := cmp.Diff(want, children(root)); diff != "" {
		t.Errorf("ReadDirectory (-want +got):\n%s", diff)
	}
	sub, err := host.ReadDirectory(ctx, "skill://pdf-processing/references")
	if err != nil || !cmp.Equal(children(sub), []string{"skill://pdf-processing/references/FORMS.md text/markdown", "skill://pdf-processing/references/deep inode/directory"}) {
		t.Errorf("ReadDirectory references = %v, %v", children(sub), err)
	}
}

// children lists resources as "URI mimeType".
func children(rs []mcp.Resource) []string {
	var out []string
	for _, r := range rs {
		m := ""
		if r.MIMEType != nil {
			m = *r.MIMEType
		}
		out = append(out, r.URI+" "+m)
	}
	return out
}

// ts2SkillsReport is what ts2-skills.mjs host prints.
type ts2SkillsReport struct {
	Error           string
	ProtocolVersion string
	Supported       bool
	DirectoryRead   bool
	Skills          []json.RawMessage
	ListCache       struct {
		TTLMs      *int64
		CacheScope string
	}
	SentAfterList []string
	Get           json.RawMessage
	GetUnknown    json.RawMessage
	Reads         []struct {
		URI         string
		MIMEType    string
		Verified    bool
		Data        string
		Frontmatter json.RawMessage
	}
	Unlisted    string
	Directories map[string][]mcp.Resource
	Sent        []string
}

func TestTS2SkillsGoServerTSClient(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	_, catalog := skillsDir(t)
	srv := mcp.NewServer(mcp.Implementation{Name: "mcpgen-skills", Version: "1"})
	if err := catalog.Register(srv); err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler(mcp.HTTPOptions{})
	defer h.Close()
	hs := httptest.NewServer(h)
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(interop, "ts2-skills.mjs"), "host", hs.URL)
	cmd.Dir = interop
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var rep ts2SkillsReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("ts2-skills.mjs host: %v; report %q: %v\nstderr:\n%s", runErr, stdout.String(), err, stderr.String())
	}
	if rep.Error != "" || runErr != nil {
		t.Fatalf("ts2-skills.mjs host failed (%v): %s\nstderr:\n%s", runErr, rep.Error, stderr.String())
	}
	if rep.ProtocolVersion != mcp.Revision || !rep.Supported || !rep.DirectoryRead {
		t.Errorf("negotiated %s, supported %v, directoryRead %v", rep.ProtocolVersion, rep.Supported, rep.DirectoryRead)
	}
	if rep.ListCache.TTLMs == nil || *rep.ListCache.TTLMs != 0 || rep.ListCache.CacheScope != "private" {
		t.Errorf("skills/list cache fields = %+v", rep.ListCache)
	}
	// The TypeScript client took every entry as valid, and they are the
	// catalog's.
	var got []skills.Skill
	for _, raw := range rep.Skills {
		var s skills.Skill
		if err := wire.Unmarshal(raw, &s); err != nil {
			t.Fatalf("entry %s: %v", raw, err)
		}
		got = append(got, s)
	}
	if diff := cmp.Diff(entriesJSON(t, catalog.Skills()), entriesJSON(t, got)); diff != "" {
		t.Errorf("entries (-Go catalog +as the TypeScript client read them):\n%s", diff)
	}
	// No prefetch by the SDK either: listing reads nothing.
	if slices.Contains(rep.SentAfterList, "resources/read") {
		t.Errorf("the TypeScript client read files while listing: %v", rep.SentAfterList)
	}
	first := catalog.Skills()[0]
	var gotGet skills.Skill
	if err := wire.Unmarshal(rep.Get, &gotGet); err != nil || gotGet.URI != first.URI {
		t.Errorf("skills/get = %s (%v)", rep.Get, err)
	}
	if string(rep.GetUnknown) != "-32602" {
		t.Errorf("skills/get of an unknown skill: %s, want -32602", rep.GetUnknown)
	}
	var files []skills.ResourceEntry
	manifests := map[string]bool{}
	for _, s := range catalog.Skills() {
		files = append(files, s.Resources...)
		manifests[s.URI] = true
	}
	if len(rep.Reads) != len(files) {
		t.Fatalf("the TypeScript client read %d files, want %d", len(rep.Reads), len(files))
	}
	for i, r := range rep.Reads {
		data, err := base64.StdEncoding.DecodeString(r.Data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := catalog.Read(files[i].URI)
		if err != nil {
			t.Fatal(err)
		}
		if r.URI != files[i].URI || !r.Verified || !bytes.Equal(data, want) {
			t.Errorf("read %d = %s (verified %v, %d bytes), want %s", i, r.URI, r.Verified, len(data), files[i].URI)
		}
		if manifests[r.URI] != (len(r.Frontmatter) > 0 && string(r.Frontmatter) != "null") {
			t.Errorf("read %s: frontmatter %s", r.URI, r.Frontmatter)
		}
	}
	if rep.Unlisted != "unlisted" {
		t.Errorf("read of an unlisted file: %s, want the SDK's unlisted", rep.Unlisted)
	}
	// Every directory the TypeScript client walked is the catalog's.
	if len(rep.Directories) != 7 {
		t.Errorf("the TypeScript client read %d directories, want the catalog's 7", len(rep.Directories))
	}
	for dir, rs := range rep.Directories {
		want, err := catalog.ReadDirectory(dir, nil)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		if diff := cmp.Diff(children(want.Resources), children(rs)); diff != "" {
			t.Errorf("directory %s (-catalog +TypeScript client):\n%s", dir, diff)
		}
	}
}
