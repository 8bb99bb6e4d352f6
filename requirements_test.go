package readme_test

// This file checks that the requirements the project's product text cites
// resolve for a reader: code, templates, scripts, examples and docs cite
// the public MCP specification by link, or an entry of
// docs/requirements.md, never the requirement ids of a document that is
// not in the repository (such as "L-10", "T-N8" or "spec C.2").

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// requirementsPage is the page of requirements the project writes itself.
const requirementsPage = "docs/requirements.md"

// privateID matches the forms of requirement ids that resolve only in a
// document outside the repository: a letter or two, a hyphen, up to two
// more letters and one or two digits, maybe a lowercase suffix ("L-10",
// "T-N8", "U-PG1", "T-IO2", "T-P6b", "H-3", "C-K2"); a section of that
// document ("spec C.2", "D.10", "§C.3"); and the document itself.
//
// What it leaves alone, by its shape: names with three or more digits
// (P-256, SHA-256, AES-256, ECMA-262), three or more letters (UTF-8,
// ISO-8601, SEP-1613, RFC-5424), letters or digits glued on before
// (HMAC-SHA256, 1E-2, x86-64, draft-07), lowercase (utf-8, sub-1), dates
// (2025-11-25), versions (HTTP/1.1, v1.2.3), RFC sections (§5.5) and
// header names (X-Accel-Buffering, Mcp-Param-Region).
var privateID = regexp.MustCompile(
	`\b[A-Z]{1,2}-[A-Z]{0,2}[0-9]{1,2}[a-z]?\b` + // L-10, T-N8, U-PG1, T-P6b
		`|(?:^|[^.\w])([A-G]\.[0-9]{1,2})\b` + // C.2, D.10 (not 1.C.2 or x.C.2)
		`|§\s*[A-G](?:\.[0-9]+)*\b` + // §C, § D.9
		`|\bdigest\.md\b`) // the private document itself

// allowedIDs are tokens of privateID's shape that are not requirement ids,
// each with the reason (an RFC's appendix "A.1", say). None occurs in the
// repository today; add one here, with its reason, rather than loosen
// privateID.
var allowedIDs = map[string]string{}

// idHit is one private requirement id found in a file.
type idHit struct {
	line  int
	token string
}

// findPrivateIDs returns the private requirement ids in text, skipping
// the tokens in allowed.
func findPrivateIDs(text string, allowed map[string]string) []idHit {
	var hits []idHit
	for i, line := range strings.Split(text, "\n") {
		for _, m := range privateID.FindAllStringSubmatchIndex(line, -1) {
			tok := line[m[0]:m[1]]
			if m[2] >= 0 { // the section form: without the character before it
				tok = line[m[2]:m[3]]
			} else if strings.Contains(tok, "-") && (m[0] > 0 && strings.ContainsRune("[-", rune(line[m[0]-1])) || m[1] < len(line) && line[m[1]] == '-') {
				continue // a character range ([A-Z0-9]) or part of a longer name (X-A-1-b)
			}
			if _, ok := allowed[tok]; ok {
				continue
			}
			hits = append(hits, idHit{line: i + 1, token: tok})
		}
	}
	return hits
}

func TestFindPrivateIDs(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		allowed map[string]string
		want    []string // tokens, in order
	}{
		{"lifecycle id in an error", `errors.New("initialize must not be part of a batch (L-10)")`, nil, []string{"L-10"}},
		{"transport id", "// the client sends Mcp-Param headers (T-N8).", nil, []string{"T-N8"}},
		{"utility id", "// never serves another (U-K4)", nil, []string{"U-K4"}},
		{"two-letter id", "see U-PG1 and T-IO2", nil, []string{"U-PG1", "T-IO2"}},
		{"suffixed id", "// primes Last-Event-ID (T-P6b)", nil, []string{"T-P6b"}},
		{"short ids", "H-3, C-K2", nil, []string{"H-3", "C-K2"}},
		{"range", "(U-K1…U-K5)", nil, []string{"U-K1", "U-K5"}},
		{"id at line start", "V-11: clients cache the era", nil, []string{"V-11"}},
		{"section", "// the old transport (spec C.2).", nil, []string{"C.2"}},
		{"section range", "(spec C.3–C.5)", nil, []string{"C.3", "C.5"}},
		{"two-digit section", "digest D.10, U-K1", nil, []string{"D.10", "U-K1"}},
		{"section sign", "see §C.3 and § D.9", nil, []string{"C.3", "§ D.9"}},
		{"the document", "see spec/digest.md", nil, []string{"digest.md"}},
		{"second line", "ok\n// T-S4", nil, []string{"T-S4"}},
		{"allowed", "// L-10 is fine here", map[string]string{"L-10": "a test of the allow-list"}, nil},
		{"curves", "P-256, P-384 and P-521", nil, nil},
		{"hashes and ciphers", "SHA-256, AES-256-GCM, HMAC-SHA256, ECMA-262", nil, nil},
		{"encodings and standards", "UTF-8, utf-8, ISO-8601, RFC-5424, base64, x86-64", nil, nil},
		{"public proposals", "SEP-1613, sep-2243", nil, nil},
		{"RFC sections", "RFC 9110 §5.5, RFC 9068 §2.1", nil, nil},
		{"dates and dialects", "2025-11-25, 2020-12, draft-07", nil, nil},
		{"versions", "HTTP/1.1, v1.2.3, go1.26, TLS 1.3", nil, nil},
		{"headers", "X-Accel-Buffering, Mcp-Param-Region, MCP-Protocol-Version", nil, nil},
		{"numbers", "1E-2, 1e-7, 0x1F-2", nil, nil},
		{"qualified names", "x.C.2, 1.B.2", nil, nil},
		{"character classes", "[A-Z0-9], [a-z0-9-]", nil, nil},
		{"longer names", "X-A-1-b, Foo-B-2", nil, nil},
		{"crypto digest", "a base64url SHA-256 digest of the token", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, h := range findPrivateIDs(tt.text, tt.allowed) {
				got = append(got, h.token)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findPrivateIDs(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// productFiles returns the files of the repository (paths relative to
// the root, with slashes) whose text reaches users: non-test Go code,
// templates, Markdown, scripts and the sources of examples and interop.
// Test files, test data and the JSON schemas are left out.
func productFiles(t *testing.T) []string {
	t.Helper()
	return repoFiles(t, isProductFile)
}

// repoFiles returns the files of the repository (paths relative to the
// root, with slashes) for which keep is true, outside hidden directories,
// node_modules, testdata and vendor.
func repoFiles(t *testing.T, keep func(path string) bool) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		path = filepath.ToSlash(path)
		if keep(path) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing the repository's files: %v", err)
	}
	return files
}

// isProductFile reports whether the file at path (relative, with
// slashes) is one productFiles returns.
func isProductFile(path string) bool {
	name := path[strings.LastIndex(path, "/")+1:]
	if strings.HasSuffix(name, "_test.go") || strings.Contains(name, ".test.") || strings.Contains(name, "_test.") || strings.Contains(name, ".spec.") {
		return false
	}
	switch filepath.Ext(name) {
	case ".go", ".tmpl", ".md", ".sh", ".js", ".mjs", ".cjs", ".ts", ".yml", ".yaml", ".golden", ".txt":
		return true
	case "":
		return strings.HasPrefix(path, "scripts/") // scripts/generate, scripts/test, …
	}
	return false
}

func TestIsProductFile(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"runtime/session/session.go", true},
		{"runtime/session/session_test.go", false},
		{"templates/server.go.tmpl", true},
		{"README.md", true},
		{"docs/requirements.md", true},
		{"scripts/generate", true},
		{"interop/ts2-server-wire.sh", true},
		{"interop/ts2-server.mjs", true},
		{"interop/client.test.mjs", false},
		{"golden/cases/enums/plan.txt", true},
		{"schema/2025-11-25/schema.json", false},
		{"login-client", false},
	}
	for _, tt := range tests {
		if got := isProductFile(tt.path); got != tt.want {
			t.Errorf("isProductFile(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestNoPrivateRequirementIDs fails on a private requirement id in any
// product file, docs/requirements.md included.
func TestNoPrivateRequirementIDs(t *testing.T) {
	files := productFiles(t)
	if !slices.Contains(files, "README.md") || !slices.Contains(files, "runtime/session/session.go") {
		t.Fatalf("the file list misses README.md or runtime/session/session.go (run the test from the repository root): %d files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range findPrivateIDs(string(b), allowedIDs) {
			t.Errorf("%s:%d: %q looks like a private requirement id, which no reader can look up: cite the MCP specification by link (https://modelcontextprotocol.io/specification/<revision>/...) or an entry of %s, or say the rule in words", f, h.line, h.token, requirementsPage)
		}
	}
}

// requirementLink matches a link to an entry of docs/requirements.md,
// relative or not: "docs/requirements.md#era-detection",
// "../docs/requirements.md#era-detection", "requirements.md#x".
var requirementLink = regexp.MustCompile(`\brequirements\.md#([A-Za-z0-9_-]*)`)

// anchors returns the anchors of the Markdown text md: the GitHub slugs of
// its headings and the ids of its <a id="…"> (or name) elements.
func anchors(md string) map[string]bool {
	a := map[string]bool{}
	explicit := regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	inCode := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range explicit.FindAllStringSubmatch(line, -1) {
			a[m[1]] = true
		}
		if h, ok := strings.CutPrefix(line, "#"); ok {
			h = strings.TrimLeft(h, "#")
			if strings.HasPrefix(h, " ") {
				a[slug(h)] = true
			}
		}
	}
	return a
}

func TestAnchors(t *testing.T) {
	md := "# Requirements this implementation cites\n\n### era-detection\n\ntext\n\n" +
		"## What `_meta` keys are: a note\n\n<a id=\"batch-initialize\"></a>\n\n```sh\n# not-a-heading\n```\n#nospace\n"
	got := anchors(md)
	for _, want := range []string{"requirements-this-implementation-cites", "era-detection", "what-_meta-keys-are-a-note", "batch-initialize"} {
		if !got[want] {
			t.Errorf("anchors lack %q: %v", want, got)
		}
	}
	for _, not := range []string{"not-a-heading", "nospace", "text"} {
		if got[not] {
			t.Errorf("anchors has %q: %v", not, got)
		}
	}
}

func TestBrokenRequirementLinks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // the slugs that do not resolve
	}{
		{"resolves", "// see docs/requirements.md#era-detection.", nil},
		{"relative", "[x](../docs/requirements.md#legacy-results)", nil},
		{"unknown slug", "// see docs/requirements.md#batch-initialize", []string{"batch-initialize"}},
		{"empty slug", "docs/requirements.md#", []string{""}},
		{"case matters", "docs/requirements.md#Era-Detection", []string{"Era-Detection"}},
		{"no anchor is fine", "see docs/requirements.md", nil},
	}
	known := map[string]bool{"era-detection": true, "legacy-results": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range requirementLinks(tt.text) {
				if !known[l.slug] {
					got = append(got, l.slug)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("unresolved links in %q = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// link is one link to an entry of docs/requirements.md.
type link struct {
	line int
	slug string
}

// requirementLinks returns the links to entries of docs/requirements.md in text.
func requirementLinks(text string) []link {
	var links []link
	for i, line := range strings.Split(text, "\n") {
		for _, m := range requirementLink.FindAllStringSubmatch(line, -1) {
			links = append(links, link{line: i + 1, slug: m[1]})
		}
	}
	return links
}

// TestRequirementLinks fails on a link to docs/requirements.md#slug, from
// any file but test data (test files included), whose slug is not an
// anchor of the page; on an entry of the page that nothing cites; and on an
// entry that links no public source.
func TestRequirementLinks(t *testing.T) {
	page, err := os.ReadFile(requirementsPage)
	if err != nil {
		t.Fatalf("%v: the page of requirements the code cites must exist", err)
	}
	known := anchors(string(page))
	cited := map[string]bool{}
	files := repoFiles(t, func(path string) bool {
		return isProductFile(path) || strings.HasSuffix(path, "_test.go")
	})
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range requirementLinks(string(b)) {
			if f == "requirements_test.go" {
				continue // its samples
			}
			if !known[l.slug] {
				t.Errorf("%s:%d: the link to %s#%s names no entry of that page: link an existing entry, or add one", f, l.line, requirementsPage, l.slug)
			}
			if f != requirementsPage {
				cited[l.slug] = true
			}
		}
	}
	entries := entriesOf(string(page))
	if len(entries) == 0 {
		t.Fatalf("%s has no entries (### headings)", requirementsPage)
	}
	for _, e := range entries {
		if slug(e.heading) != e.heading {
			t.Errorf("%s: the heading %q is not a bare slug: make it one, so that its anchor is the heading itself", requirementsPage, e.heading)
		}
		if !cited[slug(e.heading)] {
			t.Errorf("%s: nothing cites the entry %q: the page holds only requirements the code cites", requirementsPage, e.heading)
		}
		if !strings.Contains(e.body, "https://modelcontextprotocol.io/specification/") && !strings.Contains(e.body, "https://www.rfc-editor.org/") {
			t.Errorf("%s: the entry %q links no section of the MCP specification or an RFC", requirementsPage, e.heading)
		}
	}
}

// entry is one requirement of docs/requirements.md: a ### heading and the
// text up to the next heading.
type entry struct {
	heading, body string
}

// entriesOf returns the entries of the requirements page md.
func entriesOf(md string) []entry {
	var entries []entry
	in := false // in an entry
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			entries = append(entries, entry{heading: strings.TrimSpace(h)})
			in = true
			continue
		}
		if strings.HasPrefix(line, "#") {
			in = false // another heading ends the entry
			continue
		}
		if in {
			entries[len(entries)-1].body += line + "\n"
		}
	}
	return entries
}
