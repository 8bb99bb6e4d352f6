package interop_test

// TestConformanceJudge runs conformance-judge.mjs (the judge of the 0.2
// conformance runs in scripts/conformance) on made-up results.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// judgeCheck is one entry of a scenario's checks.json.
type judgeCheck struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

func pass(id string) judgeCheck { return judgeCheck{id, "SUCCESS"} }
func fail(id string) judgeCheck { return judgeCheck{id, "FAILURE"} }

// judgeVerdict is what the test reads from the judge's output: its exit
// code and the mark (✓, ~ or ✗) of each scenario line.
type judgeVerdict struct {
	Exit  int
	Marks map[string]string
}

func TestConformanceJudge(t *testing.T) {
	// The requirement set of every case: a and b scored, c not scored.
	const requirements = `
server: [a, b]
client: [a, b, auth/x]
not_scored:
  - scenario: c
    leg: server
    reason: pending
  - scenario: c
    leg: client
    reason: added-after-release
`
	tests := []struct {
		name     string
		side     string
		results  map[string][]judgeCheck // scenario -> checks; a missing scenario has no checks.json
		baseline string
		exits    map[string]string // client: scenario -> exit status file content
		mayFail  string
		want     judgeVerdict
	}{
		{
			name:     "all pass",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y"), pass("z")}, "c": {pass("w")}},
			baseline: "server: []",
			want:     judgeVerdict{0, map[string]string{"a": "✓", "b": "✓", "c": "✓"}},
		},
		{
			name:     "failure not in the baseline",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x"), fail("y")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: []",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "a not-scored scenario is judged too",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "c": {fail("w")}},
			baseline: "server: []",
			want:     judgeVerdict{1, map[string]string{"a": "✓", "b": "✓", "c": "✗"}},
		},
		{
			name:     "a warning is a failure",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x"), {"y", "WARNING"}}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: []",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "failures in the baseline",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {fail("x")}, "b": {pass("y")}, "c": {fail("w")}},
			baseline: "server: [a, c]",
			want:     judgeVerdict{0, map[string]string{"a": "~", "b": "✓", "c": "~"}},
		},
		{
			name:     "a listed scenario that passes is stale",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: [a]",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "the other side's entries do not count",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {fail("x")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "client: [a]",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "per-check entry excuses that check",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x"), fail("y")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: ['a:y']",
			want:     judgeVerdict{0, map[string]string{"a": "~", "b": "✓", "c": "✓"}},
		},
		{
			name:     "per-check entry excuses no other check",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {fail("x"), fail("y")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: ['a:y']",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "per-check entry whose check passes is stale",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x"), pass("y")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: ['a:y']",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "per-check entry of an absent check is tolerated",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: ['a:gone']",
			want:     judgeVerdict{0, map[string]string{"a": "✓", "b": "✓", "c": "✓"}},
		},
		{
			name:     "a repeated check id takes its worst occurrence",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {fail("x"), pass("x")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: []",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✓", "c": "✓"}},
		},
		{
			name:     "no result",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "c": {pass("w")}},
			baseline: "server: []",
			want:     judgeVerdict{1, map[string]string{"a": "✓", "b": "✗", "c": "✓"}},
		},
		{
			name:     "no result, in the baseline by its check id",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "c": {pass("w")}},
			baseline: "server: ['b:no-result']",
			want:     judgeVerdict{0, map[string]string{"a": "✓", "b": "~", "c": "✓"}},
		},
		{
			name:     "no successful check",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {{"x", "SKIPPED"}}, "b": {}, "c": {pass("w")}},
			baseline: "server: []",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✗", "c": "✓"}},
		},
		{
			name:     "client exits 0",
			side:     "client",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "auth/x": {pass("z")}, "c": {pass("w")}},
			exits:    map[string]string{"a": "0\n", "b": "0\n", "auth_x": "0\n", "c": "0\n"},
			baseline: "client: []",
			want:     judgeVerdict{0, map[string]string{"a": "✓", "b": "✓", "auth/x": "✓", "c": "✓"}},
		},
		{
			name:     "client exits non-zero or leaves no status",
			side:     "client",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "auth/x": {pass("z")}, "c": {pass("w")}},
			exits:    map[string]string{"a": "2\n", "auth_x": "0\n", "c": "0\n"},
			baseline: "client: []",
			want:     judgeVerdict{1, map[string]string{"a": "✗", "b": "✗", "auth/x": "✓", "c": "✓"}},
		},
		{
			name:     "client may fail where the scenario allows it",
			side:     "client",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "auth/x": {pass("z")}, "c": {pass("w")}},
			exits:    map[string]string{"a": "1\n", "b": "0\n", "auth_x": "1\n", "c": "0\n"},
			mayFail:  "a,auth/x",
			baseline: "client: []",
			want:     judgeVerdict{0, map[string]string{"a": "✓", "b": "✓", "auth/x": "✓", "c": "✓"}},
		},
		{
			name:     "auth scenarios in the baseline",
			side:     "client",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "auth/x": {fail("z")}, "c": {pass("w")}},
			exits:    map[string]string{"a": "0\n", "b": "0\n", "auth_x": "1\n", "c": "0\n"},
			baseline: "client: [auth/x]",
			want:     judgeVerdict{0, map[string]string{"a": "✓", "b": "✓", "auth/x": "~", "c": "✓"}},
		},
		{
			name:     "a baseline entry with a space after the colon is an input error",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {pass("x")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server:\n  - a: y",
			want:     judgeVerdict{2, map[string]string{}},
		},
		{
			name:     "a scenario both wholesale and per check is an input error",
			side:     "server",
			results:  map[string][]judgeCheck{"a": {fail("x")}, "b": {pass("y")}, "c": {pass("w")}},
			baseline: "server: [a, 'a:x']",
			want:     judgeVerdict{2, map[string]string{}},
		},
	}
	interop, _ := dirs(t)
	node := nodeBin(t)
	yamlFrom := filepath.Join(interop, "node_modules", "conformance-next", "dist", "index.js")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			req := filepath.Join(dir, "requirements.yaml")
			base := filepath.Join(dir, "baseline.yml")
			results := filepath.Join(dir, "results")
			exits := filepath.Join(dir, "exits")
			writeFile(t, req, requirements)
			writeFile(t, base, tt.baseline+"\n")
			for s, checks := range tt.results {
				name := s + "-2026-11-23T20-26-44-821Z"
				if tt.side == "server" {
					name = "server-" + name
				}
				b, err := json.Marshal(checks)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(results, name, "checks.json"), string(b))
			}
			if err := os.MkdirAll(exits, 0o755); err != nil {
				t.Fatal(err)
			}
			for s, status := range tt.exits {
				writeFile(t, filepath.Join(exits, s), status)
			}
			args := []string{filepath.Join(interop, "conformance-judge.mjs"), "--requirements", req, "--side", tt.side,
				"--results", results, "--baseline", base, "--yaml-from", yamlFrom}
			if tt.side == "client" {
				args = append(args, "--exits", exits, "--client-may-fail", tt.mayFail)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
			got := judgeVerdict{Marks: map[string]string{}}
			var exit *exec.ExitError
			switch {
			case errors.As(err, &exit):
				got.Exit = exit.ExitCode()
			case err != nil:
				t.Fatalf("running the judge: %v\n%s", err, out)
			}
			line := regexp.MustCompile(`^(✓|~|✗) ([^:]+): `)
			for _, l := range strings.Split(string(out), "\n") {
				if m := line.FindStringSubmatch(l); m != nil {
					got.Marks[m[2]] = m[1]
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("judge verdict (-want +got):\n%s\noutput:\n%s", diff, out)
			}
			if got.Exit != 2 && !regexp.MustCompile(`(?m)^judge: \d+ passed, \d+ failed, \d+ warnings; scenarios: \d+ judged, `).Match(out) {
				t.Errorf("no closing judge line in the output:\n%s", out)
			}
		})
	}
}

// writeFile writes content to path, creating its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
