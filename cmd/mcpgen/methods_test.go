package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/internal/schematest"
)

// setMethodsSchemas makes mcpgen methods find the real pinned schemas: the
// repository root is a temporary directory and $MCPGEN_SCHEMA_MIRROR a copy
// of every pinned schema (see schematest), so schemas are materialized from
// it exactly as generate does, without touching the real checkout.
func setMethodsSchemas(t *testing.T) (mirror string) {
	t.Helper()
	mirror = schematest.Mirror(t)
	setRoot(t, t.TempDir())
	t.Setenv("MCPGEN_SCHEMA_MIRROR", mirror)
	return mirror
}

func TestMethodsCommand(t *testing.T) {
	mirror := setMethodsSchemas(t)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string // substrings
		wantStderr string   // substring
	}{
		{"help", []string{"--help"}, 0, []string{"--revision", "--schema", "--format", "--plan", "paramsRequired"}, ""},
		{"text", []string{"--revision", "2025-11-25"}, 0, []string{"METHOD", "tools/call", "receiver:tasks.list", "client:roots.listChanged", "NotificationParams (optional)"}, ""},
		{"text explicit", []string{"--revision", "2025-11-25", "--format", "text"}, 0, []string{"tools/call"}, ""},
		{"modern", []string{"--revision", "2026-07-28"}, 0, []string{"server/discover", "embedded request", "CallToolResult, InputRequiredResult", "server:tools.listChanged"}, ""},
		{"modern plan", []string{"--revision", "2026-07-28", "--plan"}, 0, []string{"union InputRequest", "resultType"}, ""},
		{"schema file", []string{"--revision", "2025-06-18", "--schema", filepath.Join(mirror, "2025-06-18", "schema.json")}, 0, []string{"elicitation/create"}, ""},
		{"unpinned with schema", []string{"--revision", "2099-01-01", "--schema", filepath.Join(mirror, "2025-03-26", "schema.json")}, 0, []string{"tools/call"}, ""},
		{"plan", []string{"--revision", "2025-11-25", "--plan"}, 0, []string{"union ElicitRequestParams", "union ContentBlock"}, ""},
		{"bad flag", []string{"--nope"}, 2, nil, "unknown flag: --nope"},
		{"missing revision", nil, 2, nil, "--revision is required"},
		{"bad revision", []string{"--revision", "june"}, 2, nil, "YYYY-MM-DD"},
		{"unpinned", []string{"--revision", "2001-01-01"}, 2, nil, "--schema FILE"},
		{"empty schema", []string{"--revision", "2025-11-25", "--schema", ""}, 2, nil, "--schema is empty"},
		{"bad format", []string{"--revision", "2025-11-25", "--format", "yaml"}, 2, nil, `--format "yaml"`},
		{"plan json", []string{"--revision", "2025-11-25", "--plan", "--format", "json"}, 2, nil, "--plan prints text only"},
		{"positional", []string{"--revision", "2025-11-25", "x"}, 2, nil, "unexpected arguments"},
		{"missing schema file", []string{"--revision", "2025-11-25", "--schema", filepath.Join(t.TempDir(), "absent.json")}, 2, nil, "--schema: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMcpgen(append([]string{"methods"}, tt.args...)...)
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
			switch tt.wantCode {
			case 0:
				if got.stderr != "" {
					t.Errorf("stderr not empty:\n%s", got.stderr)
				}
			case 2:
				checkUsageError(t, got, "methods")
			}
		})
	}
}

func TestMethodsText(t *testing.T) {
	setMethodsSchemas(t)
	got := runMcpgen("methods", "--revision", "2025-11-25")
	if got.code != 0 {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(got.stdout, "\n"), "\n")
	if len(lines) != 1+31 {
		t.Fatalf("%d lines, want a header and 31 methods:\n%s", len(lines), got.stdout)
	}
	// Columns are aligned: every line's second column starts at the same
	// rune offset, and no line ends in blanks.
	col := func(line string) int {
		name, _, _ := strings.Cut(line, " ")
		rest := strings.TrimLeft(line[len(name):], " ")
		return utf8.RuneCountInString(line) - utf8.RuneCountInString(rest)
	}
	for _, line := range lines {
		if c, want := col(line), col(lines[0]); c != want {
			t.Errorf("second column at %d, want %d: %q", c, want, line)
		}
		if strings.TrimRight(line, " ") != line {
			t.Errorf("trailing blanks: %q", line)
		}
	}

	tests := []struct {
		method string
		want   []string // the fields, columns split on runs of two or more blanks
	}{
		{"tools/call", []string{"tools/call", "request", "client→server", "CallToolRequestParams", "CallToolResult, CreateTaskResult", "server:tools"}},
		{"tools/list", []string{"tools/list", "request", "client→server", "PaginatedRequestParams (optional)", "ListToolsResult", "server:tools"}},
		{"initialize", []string{"initialize", "request", "client→server", "InitializeRequestParams", "InitializeResult", "-"}},
		{"notifications/roots/list_changed", []string{"notifications/roots/list_changed", "notification", "client→server", "NotificationParams (optional)", "-", "client:roots.listChanged"}},
		{"notifications/progress", []string{"notifications/progress", "notification", "both", "ProgressNotificationParams", "-", "-"}},
		{"tasks/list", []string{"tasks/list", "request", "both", "PaginatedRequestParams (optional)", "ListTasksResult", "receiver:tasks.list"}},
		{"roots/list", []string{"roots/list", "request", "server→client", "RequestParams (optional)", "ListRootsResult", "client:roots"}},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			for _, line := range lines[1:] {
				fields := splitColumns(line)
				if fields[0] != tt.method {
					continue
				}
				if diff := cmp.Diff(tt.want, fields); diff != "" {
					t.Errorf("line %q mismatch (-want +got):\n%s", line, diff)
				}
				return
			}
			t.Errorf("no line for %s:\n%s", tt.method, got.stdout)
		})
	}
}

// splitColumns splits a line of aligned columns on runs of two or more
// blanks.
func splitColumns(line string) []string {
	var fields []string
	for f := range strings.SplitSeq(line, "  ") {
		if f = strings.TrimSpace(f); f != "" {
			fields = append(fields, f)
		}
	}
	return fields
}

func TestMethodsJSON(t *testing.T) {
	setMethodsSchemas(t)
	type method struct {
		Name           string   `json:"name"`
		Kind           string   `json:"kind"`
		Direction      string   `json:"direction"`
		Message        string   `json:"message"`
		Params         *string  `json:"params"`
		ParamsRequired bool     `json:"paramsRequired"`
		Results        []string `json:"results"`
		Response       *string  `json:"response"`
		Gate           *string  `json:"gate"`
		GateSide       *string  `json:"gateSide"`
	}
	ptr := func(s string) *string { return &s }
	tests := []struct {
		revision string
		count    int
		// want are some of the methods, exactly.
		want []method
		// absent are methods the revision does not have.
		absent []string
	}{
		{"2026-07-28", 21, []method{
			{"tools/call", "request", "client→server", "CallToolRequest", ptr("CallToolRequestParams"), true, []string{"CallToolResult", "InputRequiredResult"}, ptr("CallToolResultResponse"), ptr("tools"), ptr("server")},
			{"tools/list", "request", "client→server", "ListToolsRequest", ptr("PaginatedRequestParams"), true, []string{"ListToolsResult"}, ptr("ListToolsResultResponse"), ptr("tools"), ptr("server")},
			{"server/discover", "request", "client→server", "DiscoverRequest", ptr("RequestParams"), true, []string{"DiscoverResult"}, ptr("DiscoverResultResponse"), nil, nil},
			{"subscriptions/listen", "request", "client→server", "SubscriptionsListenRequest", ptr("SubscriptionsListenRequestParams"), true, []string{"SubscriptionsListenResult"}, ptr("SubscriptionsListenResultResponse"), nil, nil},
			{"elicitation/create", "embedded request", "server→client", "ElicitRequest", ptr("ElicitRequestParams"), true, []string{"ElicitResult"}, nil, ptr("elicitation"), ptr("client")},
			{"roots/list", "embedded request", "server→client", "ListRootsRequest", ptr("ListRootsRequestParams"), false, []string{"ListRootsResult"}, nil, ptr("roots"), ptr("client")},
			{"notifications/cancelled", "notification", "both", "CancelledNotification", ptr("CancelledNotificationParams"), true, []string{}, nil, nil, nil},
			{"notifications/progress", "notification", "server→client", "ProgressNotification", ptr("ProgressNotificationParams"), true, []string{}, nil, nil, nil},
		}, []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "notifications/initialized", "notifications/roots/list_changed", "tasks/get"}},
		{"2025-11-25", 31, []method{
			{"tools/call", "request", "client→server", "CallToolRequest", ptr("CallToolRequestParams"), true, []string{"CallToolResult", "CreateTaskResult"}, nil, ptr("tools"), ptr("server")},
			{"notifications/cancelled", "notification", "both", "CancelledNotification", ptr("CancelledNotificationParams"), true, []string{}, nil, nil, nil},
			{"tasks/cancel", "request", "both", "CancelTaskRequest", ptr("CancelTaskRequestParams"), true, []string{"CancelTaskResult"}, nil, ptr("tasks.cancel"), ptr("receiver")},
		}, []string{"server/discover", "subscriptions/listen"}},
		{"2025-06-18", 25, []method{
			{"tools/call", "request", "client→server", "CallToolRequest", ptr("CallToolRequestParams"), true, []string{"CallToolResult"}, nil, ptr("tools"), ptr("server")},
			{"ping", "request", "both", "PingRequest", ptr("PingRequestParams"), false, []string{"EmptyResult"}, nil, nil, nil},
		}, []string{"tasks/list"}},
		{"2025-03-26", 24, []method{
			{"roots/list", "request", "server→client", "ListRootsRequest", ptr("ListRootsRequestParams"), false, []string{"ListRootsResult"}, nil, ptr("roots"), ptr("client")},
		}, []string{"elicitation/create", "tasks/list"}},
		// completion/complete has no capability yet (completions came in
		// 2025-03-26).
		{"2024-11-05", 24, []method{
			{"completion/complete", "request", "client→server", "CompleteRequest", ptr("CompleteRequestParams"), true, []string{"CompleteResult"}, nil, nil, nil},
			{"notifications/progress", "notification", "both", "ProgressNotification", ptr("ProgressNotificationParams"), true, []string{}, nil, nil, nil},
		}, []string{"elicitation/create", "tasks/list"}},
	}
	wantKeys := []string{"direction", "gate", "gateSide", "kind", "message", "name", "params", "paramsRequired", "response", "results"}
	for _, tt := range tests {
		t.Run(tt.revision, func(t *testing.T) {
			got := runMcpgen("methods", "--revision", tt.revision, "--format", "json")
			if got.code != 0 {
				t.Fatalf("exit %d: %s", got.code, got.stderr)
			}
			var raw []map[string]json.RawMessage
			if err := json.Unmarshal([]byte(got.stdout), &raw); err != nil {
				t.Fatalf("output is not a JSON array of objects: %v\n%s", err, got.stdout)
			}
			for _, obj := range raw {
				var keys []string
				for k := range obj {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if diff := cmp.Diff(wantKeys, keys); diff != "" {
					t.Fatalf("keys mismatch (-want +got):\n%s", diff)
				}
			}
			var methods []method
			if err := json.Unmarshal([]byte(got.stdout), &methods); err != nil {
				t.Fatal(err)
			}
			if len(methods) != tt.count {
				t.Errorf("%d methods, want %d", len(methods), tt.count)
			}
			if !slices.IsSortedFunc(methods, func(a, b method) int { return strings.Compare(a.Name, b.Name) }) {
				t.Errorf("methods not sorted by name")
			}
			byName := map[string]method{}
			for _, m := range methods {
				byName[m.Name] = m
			}
			for _, want := range tt.want {
				if diff := cmp.Diff(want, byName[want.Name]); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", want.Name, diff)
				}
			}
			for _, name := range tt.absent {
				if _, ok := byName[name]; ok {
					t.Errorf("%s listed, but revision %s does not have it", name, tt.revision)
				}
			}
		})
	}
}
