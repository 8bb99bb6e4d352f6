//go:build ignore

// Testreport reads the output of "go test -json" on stdin.
//
// By default it prints what a plain "go test" would: build errors as they
// come, and at the end of each package the full output of its failed and
// unfinished tests (passing and skipped tests stay quiet), then its result
// line.
//
// With -summary it prints only the closing line
// "N passed, N failed, N skipped", counting tests and subtests. A package
// that failed without a failed test of its own (a build error, a crash in
// TestMain, a test binary killed mid-test) counts its unfinished tests as
// failed, or itself if there are none.
//
// Usage:
//
//	go test -json ./... | go run scripts/testreport.go
//	go run scripts/testreport.go -summary < test.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of go test -json; see "go doc test2json".
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	// ImportPath is set on the build-output and build-fail events.
	ImportPath string
}

type key struct{ pkg, test string }

type report struct {
	out     io.Writer
	quiet   bool
	pending map[key]*strings.Builder    // output of tests still running
	pkgOut  map[string]*strings.Builder // package output, printed at its end
	failed  map[string]int              // failed tests by package
	passes  int
	fails   int
	skips   int
}

func main() {
	summary := flag.Bool("summary", false, `print only the closing line "N passed, N failed, N skipped"`)
	flag.Parse()
	r := &report{
		out:     os.Stdout,
		quiet:   *summary,
		pending: make(map[key]*strings.Builder),
		pkgOut:  make(map[string]*strings.Builder),
		failed:  make(map[string]int),
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadString('\n')
		if line != "" {
			r.line(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %v\n", err)
			os.Exit(1)
		}
	}
	r.flush()
	if *summary {
		fmt.Fprintf(r.out, "%d passed, %d failed, %d skipped\n", r.passes, r.fails, r.skips)
	}
}

func (r *report) print(s string) {
	if !r.quiet {
		io.WriteString(r.out, s)
	}
}

func (r *report) line(line string) {
	var e event
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
		r.print(line) // not an event: pass it on
		return
	}
	if e.Test == "" {
		r.packageEvent(e)
		return
	}
	k := key{e.Package, e.Test}
	switch e.Action {
	case "run":
		r.pending[k] = new(strings.Builder)
	case "output":
		if b := r.pending[k]; b != nil {
			b.WriteString(e.Output)
		} else {
			r.print(e.Output)
		}
	case "pass":
		r.passes++
		delete(r.pending, k)
	case "skip":
		r.skips++
		delete(r.pending, k)
	case "fail":
		r.fails++
		r.failed[e.Package]++
		// Each test's own output: a failed subtest's comes before its
		// parent's, which ends the subtest failures with its own line.
		if b := r.pending[k]; b != nil {
			r.print(b.String())
		}
		delete(r.pending, k)
	}
}

func (r *report) packageEvent(e event) {
	switch e.Action {
	case "build-output":
		r.print(e.Output)
	case "output":
		// Held back until the package ends, so that its result line comes
		// after the output of its unfinished tests, as with go test.
		if e.Output != "PASS\n" {
			b := r.pkgOut[e.Package]
			if b == nil {
				b = new(strings.Builder)
				r.pkgOut[e.Package] = b
			}
			b.WriteString(e.Output)
		}
	case "fail":
		unfinished := 0
		for k, b := range r.pending {
			if k.pkg != e.Package {
				continue
			}
			unfinished++
			r.print(b.String())
			delete(r.pending, k)
		}
		switch {
		case unfinished > 0:
			r.fails += unfinished
		case r.failed[e.Package] == 0:
			r.fails++
		}
		r.endPackage(e.Package)
	case "pass", "skip":
		for k := range r.pending {
			if k.pkg == e.Package {
				delete(r.pending, k)
			}
		}
		r.endPackage(e.Package)
	}
}

func (r *report) endPackage(pkg string) {
	if b := r.pkgOut[pkg]; b != nil {
		r.print(b.String())
		delete(r.pkgOut, pkg)
	}
}

// flush prints what is still held back when the input ends early.
func (r *report) flush() {
	for _, b := range r.pending {
		r.print(b.String())
	}
	for _, b := range r.pkgOut {
		r.print(b.String())
	}
}
