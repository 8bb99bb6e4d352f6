package main

import (
	"fmt"
	"runtime/debug"
)

var versionCmd = &command{
	name:    "version",
	summary: "print the mcpgen version",
	run:     runVersion,
}

const versionSynopsis = "mcpgen version"

const versionDescription = `
Version prints "mcpgen <version>", the version of the main module mcpgen was
built from, or "(devel)" for a build outside a module version.`

func runVersion(e *env, args []string) int {
	fset := newFlagSet("version")
	if code := parseFlags(e, fset, args, versionSynopsis, versionDescription); code >= 0 {
		return code
	}
	if fset.NArg() > 0 {
		return usageError(e, fset, fmt.Errorf("unexpected arguments %q", fset.Args()))
	}
	fmt.Fprintf(e.stdout, "mcpgen %s\n", version())
	return exitOK
}

// version returns the version of the main module, or "(devel)".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
