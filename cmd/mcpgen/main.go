// Command mcpgen generates strongly typed Go code for the Model Context
// Protocol from the official JSON Schema of each protocol revision.
//
// Usage:
//
//	mcpgen <command> [flags]
//
// Run "mcpgen help" for the list of commands and "mcpgen <command> --help"
// for the flags of one.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/mcpgen/mcpgen/schema"
	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes, as docs/cli.md ("Exit status") states them.
const (
	exitOK    = 0 // success
	exitFail  = 1 // the command failed, --check found stale output, validate found an invalid message
	exitUsage = 2 // bad command line, or a file or directory it names that cannot be read
)

// env is what a command runs with.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand. To add one, write a file defining a command
// value and list it in commands.
type command struct {
	name    string
	summary string // one line, for the top-level usage
	run     func(e *env, args []string) int
}

// commands lists the subcommands in the order of the usage; help is handled
// by run itself.
var commands = []*command{
	initCmd,
	generateCmd,
	diffCmd,
	validateCmd,
	methodsCmd,
	schemaCmd,
	keygenCmd,
	versionCmd,
}

// findRoot returns the repository root; tests replace it so that nothing is
// written into the real checkout.
var findRoot = func() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding repository root: %w", err)
	}
	return schema.FindRoot(wd)
}

// run runs mcpgen with the arguments args (without the program name) and
// returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}

	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch name := args[0]; name {
	case "help", "-h", "--help":
		if len(args) > 2 {
			fmt.Fprintf(stderr, "mcpgen %s: too many arguments\nsee 'mcpgen help'\n", name)
			return exitUsage
		}
		if len(args) == 2 && name == "help" {
			c := lookup(args[1])
			if c == nil {
				fmt.Fprintf(stderr, "mcpgen help: unknown command %q\nsee 'mcpgen help'\n", args[1])
				return exitUsage
			}
			return c.run(e, []string{"--help"})
		}
		usage(stdout)
		return exitOK
	default:
		c := lookup(name)
		if c == nil {
			fmt.Fprintf(stderr, "mcpgen: unknown command %q\nsee 'mcpgen help'\n", name)
			return exitUsage
		}
		return c.run(e, args[1:])
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// usage writes the top-level usage to w.
func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("mcpgen generates Go code for the Model Context Protocol from its JSON Schema.\n\n")
	b.WriteString("Usage:\n\n\tmcpgen <command> [flags]\n\nCommands:\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(&b, "\t%-10s %s\n", "help", "show this help, or a command's: mcpgen help <command>")
	b.WriteString("\nRun \"mcpgen <command> --help\" for the flags of a command.\n")
	io.WriteString(w, b.String())
}

// newFlagSet returns a flag set for the subcommand name that reports errors
// to its caller instead of printing them.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("mcpgen "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = true
	return fs
}

// parseFlags parses args into fs. It returns -1 to go on, or the exit code
// the command returns: exitOK after printing the usage for --help, exitUsage
// after printing the error for a bad command line (see usageError).
func parseFlags(e *env, fs *pflag.FlagSet, args []string, synopsis, description string) int {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		commandUsage(e.stdout, fs, synopsis, description)
		return exitOK
	}
	if err != nil {
		return usageError(e, fs, err)
	}
	return -1
}

// usageError prints err on one line, then where the usage is (not the usage
// itself, which would bury the error), and returns exitUsage:
//
//	mcpgen generate: --revision is required
//	see 'mcpgen generate --help'
func usageError(e *env, fs *pflag.FlagSet, err error) int {
	fmt.Fprintf(e.stderr, "%s: %v\nsee '%s --help'\n", fs.Name(), err, fs.Name())
	return exitUsage
}

// checkPath returns a usage error naming flag when path, given on the
// command line, does not exist or is not a directory (dir) or a regular file
// (!dir).
func checkPath(flag, path string, dir bool) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", flag, err)
	case dir && !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory", flag, path)
	case !dir && fi.IsDir():
		return fmt.Errorf("%s: %s is a directory, not a file", flag, path)
	}
	return nil
}

// commandUsage writes the usage of a subcommand to w.
func commandUsage(w io.Writer, fs *pflag.FlagSet, synopsis, description string) {
	fmt.Fprintf(w, "Usage:\n\n\t%s\n\n%s\n", synopsis, strings.TrimSpace(description))
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n\n%s", fs.FlagUsages())
	}
}
