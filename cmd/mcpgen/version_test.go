package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	const rev = "ee13b928757105256c2c51a13dbd0c1d38014fdf"
	vcs := func(modified string) []debug.BuildSetting {
		s := []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}, {Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}}
		if modified != "" {
			s = append(s, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return s
	}
	mcpgen := func(v string) debug.Module { return debug.Module{Path: "github.com/mcpgen/mcpgen", Version: v} }
	user := debug.Module{Path: "example.com/weather", Version: "(devel)"}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "(devel)"},
		{"installed at a tag", &debug.BuildInfo{Main: mcpgen("v0.1.0")}, "v0.1.0"},
		{"installed at a pre-release", &debug.BuildInfo{Main: mcpgen("v0.2.0-rc.1")}, "v0.2.0-rc.1"},
		{"installed at a commit", &debug.BuildInfo{Main: mcpgen("v0.1.1-0.20261127110130-ee13b9287571")}, "v0.1.1-0.20261127110130-ee13b9287571"},
		{"checkout", &debug.BuildInfo{Main: mcpgen("v0.0.0-20261127110130-ee13b9287571"), Settings: vcs("false")}, "(devel) ee13b9287571"},
		{"checkout, modified", &debug.BuildInfo{Main: mcpgen("v0.0.0-20261127110130-ee13b9287571+dirty"), Settings: vcs("true")}, "(devel) ee13b9287571-dirty"},
		{"checkout after a tag", &debug.BuildInfo{Main: mcpgen("v0.1.1-0.20261127110130-ee13b9287571"), Settings: vcs("false")}, "(devel) ee13b9287571"},
		{"checkout at a tag", &debug.BuildInfo{Main: mcpgen("v0.1.0"), Settings: vcs("false")}, "v0.1.0"},
		{"checkout at a tag, modified", &debug.BuildInfo{Main: mcpgen("v0.1.0+dirty"), Settings: vcs("true")}, "(devel) ee13b9287571-dirty"},
		{"checkout without a version", &debug.BuildInfo{Main: mcpgen("(devel)"), Settings: vcs("true")}, "(devel) ee13b9287571-dirty"},
		{"checkout without vcs.modified", &debug.BuildInfo{Main: mcpgen(""), Settings: vcs("")}, "(devel) ee13b9287571"},
		{"short revision", &debug.BuildInfo{Main: mcpgen("(devel)"), Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "(devel) abc"},
		{"no vcs information", &debug.BuildInfo{Main: mcpgen("(devel)"), Settings: []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}}}, "(devel)"},
		{"empty version", &debug.BuildInfo{Main: mcpgen("")}, "(devel)"},
		{"go tool, a required version", &debug.BuildInfo{Main: user, Deps: []*debug.Module{{Path: "github.com/spf13/pflag", Version: "v1.0.10"}, {Path: "github.com/mcpgen/mcpgen", Version: "v0.1.0"}}, Settings: vcs("true")}, "v0.1.0"},
		{"go tool, replaced by a version", &debug.BuildInfo{Main: user, Deps: []*debug.Module{{Path: "github.com/mcpgen/mcpgen", Version: "v0.1.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.1.1"}}}}, "v0.1.1"},
		{"go tool, replaced by a directory", &debug.BuildInfo{Main: user, Deps: []*debug.Module{{Path: "github.com/mcpgen/mcpgen", Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../mcpgen"}}}, Settings: vcs("false")}, "(devel)"},
		{"go tool, the user's commit is not mcpgen's", &debug.BuildInfo{Main: user, Deps: []*debug.Module{{Path: "github.com/mcpgen/mcpgen", Replace: &debug.Module{Path: "../mcpgen"}}}, Settings: vcs("true")}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := version(tt.bi); got != tt.want {
				t.Errorf("version = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionCommand runs mcpgen version in this test binary, whose build
// information the go command wrote, and its help.
func TestVersionCommand(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	got := runMcpgen("version")
	if want := "mcpgen " + version(bi) + "\n"; got.code != 0 || got.stdout != want || got.stderr != "" {
		t.Errorf("mcpgen version = %+v, want exit 0 and %q", got, want)
	}
	help := runMcpgen("--help")
	if !strings.Contains(help.stdout, "\tversion    print the mcpgen version\n") {
		t.Errorf("mcpgen --help does not list version:\n%s", help.stdout)
	}
	vhelp := runMcpgen("version", "--help")
	for _, want := range []string{"mcpgen version", "(devel)", "go tool mcpgen"} {
		if !strings.Contains(vhelp.stdout, want) {
			t.Errorf("mcpgen version --help does not say %q:\n%s", want, vhelp.stdout)
		}
	}
}
