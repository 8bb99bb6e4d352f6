package main

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/mcpgen/mcpgen/schema"
)

var versionCmd = &command{
	name:    "version",
	summary: "print the mcpgen version",
	run:     runVersion,
}

const versionSynopsis = "mcpgen version"

const versionDescription = `
Version prints "mcpgen <version>": the version of the mcpgen module the
command was built from, such as v0.1.0 when installed with
"go install github.com/mcpgen/mcpgen/cmd/mcpgen@v0.1.0" or run with
"go tool mcpgen" from a module that requires that version. A build of a
checkout prints "(devel)" and the commit it was built from (12 hex digits,
"-dirty" when the work tree had changes), or the tag when a clean work tree
is at a tagged version. A build that recorded no commit (-buildvcs=false, or
mcpgen replaced by a directory) prints "(devel)" alone.`

func runVersion(e *env, args []string) int {
	fset := newFlagSet("version")
	if code := parseFlags(e, fset, args, versionSynopsis, versionDescription); code >= 0 {
		return code
	}
	if fset.NArg() > 0 {
		return usageError(e, fset, fmt.Errorf("unexpected arguments %q", fset.Args()))
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintf(e.stdout, "mcpgen %s\n", version(bi))
	return exitOK
}

// devel is the version of a build that is not of a module version.
const devel = "(devel)"

// pseudoRE matches the end of a pseudo-version, the version the go command
// gives a commit that has no tag: a timestamp and 12 hex digits of the
// commit (https://go.dev/ref/mod#pseudo-versions).
var pseudoRE = regexp.MustCompile(`[-.][0-9]{14}-[0-9a-f]{12}$`)

// version returns the version of the mcpgen module in the build information
// bi (nil when the binary has none), as mcpgen version prints it.
//
// The module is the main module when mcpgen is (go install, go build in a
// checkout), else the dependency (go tool mcpgen in a module requiring it).
// A tagged version, or a pseudo-version of a module download, is printed as
// it is. A build of a checkout, which the go command records with the
// commit, prints "(devel)" and the commit, shortened to 12 hex digits and
// marked "-dirty" when the work tree had changes, unless the commit is a
// tagged version and the work tree clean. Anything else, such as a module
// replaced by a directory, is "(devel)".
func version(bi *debug.BuildInfo) string {
	if bi == nil {
		return devel
	}
	mod, main := &bi.Main, true
	if bi.Main.Path != schema.ModulePath {
		for _, dep := range bi.Deps {
			if dep.Path == schema.ModulePath {
				mod, main = dep, false
				break
			}
		}
	}
	v := mod.Version
	if mod.Replace != nil {
		v = mod.Replace.Version // "" for a directory
	}
	var rev string
	var dirty bool
	if main { // the settings are of the main module's checkout
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	base, _, _ := strings.Cut(v, "+") // v1.2.3+incompatible, the go command's +dirty
	switch {
	case v == "" || v == devel:
	case rev == "" || (!dirty && !pseudoRE.MatchString(base)):
		return v
	}
	if rev == "" {
		return devel
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return devel + " " + rev
}
