package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/reqstate"
)

func TestKeygen(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantID     *regexp.Regexp // of the key printed, when wantCode is 0
		wantStderr string         // substring
	}{
		{"default ID", []string{"keygen"}, 0, regexp.MustCompile(`^k[0-9]{8}-[0-9]{4}$`), ""},
		{"given ID", []string{"keygen", "--id", "2026-07_b"}, 0, regexp.MustCompile(`^2026-07_b$`), ""},
		{"ID too long", []string{"keygen", "--id", strings.Repeat("k", 17)}, 2, nil, "--id: reqstate: key ID is 17 bytes long, want at most 16"},
		{"ID with a colon", []string{"keygen", "--id", "a:b"}, 2, nil, `--id: reqstate: key ID "a:b" has a character`},
		{"argument", []string{"keygen", "x"}, 2, nil, "unexpected arguments"},
		{"help", []string{"keygen", "--help"}, 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runMcpgen(tt.args...)
			if got.code != tt.wantCode || !strings.Contains(got.stderr, tt.wantStderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", got.code, got.stderr, tt.wantCode, tt.wantStderr)
			}
			if tt.wantID == nil {
				return
			}
			if !strings.HasSuffix(got.stdout, "\n") || strings.Count(got.stdout, "\n") != 1 {
				t.Fatalf("stdout is not one line: %q", got.stdout)
			}
			keys, err := reqstate.ParseKeys(got.stdout)
			if err != nil {
				t.Fatalf("the line does not parse: %v", err)
			}
			if len(keys) != 1 || !tt.wantID.MatchString(keys[0].ID) {
				t.Fatalf("keys %v, want one with an ID matching %s", keys, tt.wantID)
			}
		})
	}
	// Two runs print two different secrets.
	a, b := runMcpgen("keygen", "--id", "a"), runMcpgen("keygen", "--id", "a")
	if a.stdout == b.stdout {
		t.Errorf("two keys are the same: %q", a.stdout)
	}
}
