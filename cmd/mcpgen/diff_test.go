package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/schematest"
)

func TestDiffCommand(t *testing.T) {
	setMethodsSchemas(t)
	rules := filepath.Join("..", "..", "golden", "diff", "rules")
	breaking := filepath.Join(rules, "field-added-required")
	compatible := filepath.Join(rules, "field-added-optional")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string // substrings
		wantStderr string   // substring
	}{
		{"help", []string{"--help"}, 0, []string{"--format", "--fail-on", "oldClient", "OLD NEW"}, ""},
		{"revisions", []string{"2025-06-18", "2025-11-25"}, 0, []string{"mcpgen diff 2025-06-18 → 2025-11-25", "CallToolRequestParams (was inline CallToolRequest.params)"}, ""},
		{"markdown", []string{"--format", "markdown", "2025-03-26", "2025-06-18"}, 0, []string{"# MCP 2025-03-26 → 2025-06-18", "**batching-removed**"}, ""},
		{"oldest", []string{"2024-11-05", "2025-03-26"}, 0, []string{"mcpgen diff 2024-11-05 → 2025-03-26", "batching-added", "CallToolResultContentItem variant AudioContent", "Tool.annotations: optional ToolAnnotations", "server capability completions"}, ""},
		{"modern", []string{"2025-11-25", "2026-07-28"}, 0, []string{"mcpgen diff 2025-11-25 → 2026-07-28", "request → embedded request, 3: elicitation/create, roots/list, sampling/createMessage", `_meta["io.modelcontextprotocol/protocolVersion"] (string)`, "result-alternative-unasked  InputRequiredResult"}, ""},
		{"modern fail on breaking", []string{"--fail-on", "breaking", "--format", "markdown", "2025-11-25", "2026-07-28"}, 1, []string{"# MCP 2025-11-25 → 2026-07-28", "**method-added** `server/discover`"}, ""},
		{"files", []string{filepath.Join(breaking, "previous.json"), filepath.Join(breaking, "current.json")}, 0, []string{"field-added-required"}, ""},
		{"fail on breaking", []string{"--fail-on", "breaking", filepath.Join(breaking, "previous.json"), filepath.Join(breaking, "current.json")}, 1, []string{"field-added-required"}, ""},
		{"fail on breaking, compatible", []string{"--fail-on", "breaking", filepath.Join(compatible, "previous.json"), filepath.Join(compatible, "current.json")}, 0, []string{"field-added-optional"}, ""},
		{"bad flag", []string{"--nope", "a", "b"}, 2, nil, "unknown flag: --nope"},
		{"one argument", []string{"2025-06-18"}, 2, nil, "want two arguments"},
		{"bad format", []string{"--format", "yaml", "2025-06-18", "2025-11-25"}, 2, nil, `--format "yaml"`},
		{"bad fail-on", []string{"--fail-on", "warning", "2025-06-18", "2025-11-25"}, 2, nil, `--fail-on "warning"`},
		{"unpinned", []string{"2001-01-01", "2025-11-25"}, 2, nil, "--schema FILE"},
		{"missing file", []string{filepath.Join(t.TempDir(), "absent.json"), "2025-11-25"}, 2, nil, "schema file: "},
		{"directory", []string{t.TempDir(), "2025-11-25"}, 2, nil, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMcpgen(append([]string{"diff"}, tt.args...)...)
			if got.code != tt.wantCode {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got.code, tt.wantCode, got.stdout, got.stderr)
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(got.stdout, want) {
					t.Errorf("stdout does not contain %q:\n%s", want, got.stdout)
				}
			}
			if !strings.Contains(got.stderr, tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, got.stderr)
			}
			if tt.wantCode == 2 {
				checkUsageError(t, got, "diff")
			}
		})
	}
}

func TestDiffJSON(t *testing.T) {
	setMethodsSchemas(t)
	got := runMcpgen("diff", "--format", "json", "--fail-on", "breaking", "2025-06-18", "2025-11-25")
	if got.code != 1 {
		t.Fatalf("exit code %d, want 1 (the revisions differ incompatibly)\n%s", got.code, got.stderr)
	}
	var out struct {
		Old, New string
		Summary  struct{ Changes, BreakingOldClient, BreakingOldServer int }
		Changes  []map[string]string
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Old != "2025-06-18" || out.New != "2025-11-25" || out.Summary.Changes != len(out.Changes) || out.Summary.BreakingOldClient == 0 {
		t.Fatalf("report = %+v", out.Summary)
	}
	keys := []string{"rule", "group", "subject", "member", "detail", "path", "direction", "oldClient", "oldServer"}
	for _, c := range out.Changes {
		for _, k := range keys {
			if _, ok := c[k]; !ok {
				t.Fatalf("change without %q: %v", k, c)
			}
		}
	}
}

// TestDiffExtension lists the redefinitions of the Tasks extension against
// its core, and compares two extension schemas.
func TestDiffExtension(t *testing.T) {
	t.Setenv(mirrorEnv, schematest.Mirror(t, "2026-07-28"))
	ext := schematest.Extension(t, "ext-tasks")
	got := runMcpgen("diff", "--core", "2026-07-28", ext)
	if got.code != 0 {
		t.Fatalf("exit %d\n%s", got.code, got.stderr)
	}
	for _, want := range []string{"repeats 56 definitions of 2026-07-28", "  Result → mcp20260728.Result\n", "  InputRequests → mcp20260728.InputRequests\n", "and adds 21 definitions:", "  GetTaskResult\n"} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("redefinitions report lacks %q:\n%s", want, got.stdout)
		}
	}
	data, err := os.ReadFile(ext)
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(t.TempDir(), "new.json")
	if err := os.WriteFile(renamed, []byte(strings.ReplaceAll(string(data), `"const": "cancelled"`, `"const": "canceled"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runMcpgen("diff", "--core", "2026-07-28", "--fail-on", "breaking", ext, renamed)
	if got.code != 1 || !strings.Contains(got.stdout, `enum-value-removed  TaskStatus value "cancelled"`) {
		t.Errorf("diff of a renamed status: exit %d\n%s%s", got.code, got.stdout, got.stderr)
	}
	if got := runMcpgen("diff", "--core", "2026-07-28", ext, ext); got.code != 0 || !strings.Contains(got.stdout, "no changes") && !strings.Contains(got.stdout, "0 changes") {
		t.Errorf("diff of an extension with itself: exit %d\n%s", got.code, got.stdout)
	}
	if got := runMcpgen("diff", "--core", "june", ext); got.code != 2 || !strings.Contains(got.stderr, "YYYY-MM-DD") {
		t.Errorf("--core june: exit %d\n%s", got.code, got.stderr)
	}
	if got := runMcpgen("diff", "--core", "2026-07-28", "ext-nope"); got.code != 2 || !strings.Contains(got.stderr, "unknown extension") {
		t.Errorf("ext-nope: exit %d\n%s", got.code, got.stderr)
	}
}
