// Command benchtable reads `go test -bench` output (stdin or the files
// named) from the bench module and prints a Markdown table of the medians
// across counts: ns/op, B/op, allocs/op, calls/s for round trips, and for
// every mcpgen row its speed ratio to the go-sdk, mcp-go and floor rows of
// the same benchmark; then the verdict on each performance target.
//
// Benchmark names are <row>/<impl>, impl one of mcpgen, gosdk, mcpgo,
// floor. Ratios "vs go-sdk" and "vs mcp-go" are peer ns/op ÷ mcpgen ns/op
// (above 1: mcpgen is faster); "vs floor" is mcpgen ns/op ÷ floor ns/op
// (1 is the floor; lower is better).
//
// The rows of BenchmarkTracing, Tracing/<era>/<transport>/<seq>/<mode>
// with mode off, on or never (otelmcp unset, recording every span, or
// sampling none), go in a table of their own after the first, each with
// its time and allocations over those of the off row of the same
// benchmark.
//
// The rows of BenchmarkLoad (Load/<mode>/c<N>/<impl>) and of
// BenchmarkMemory (Memory/<what>/<impl>) go in tables of their own after
// those: see load.go.
//
// A custom metric of extraUnits (such as redis-cmds/op, which the fleet
// benchmarks of the redis module report) gets a column of its own, last,
// when some benchmark reports it. The targets are printed when at least
// one of them was measured.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// result is the samples of one benchmark, by unit.
type result struct {
	samples map[string][]float64
}

func (r *result) median(unit string) (float64, bool) {
	s := slices.Clone(r.samples[unit])
	if len(s) == 0 {
		return 0, false
	}
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

var lineRE = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func parse(r io.Reader, results map[string]*result, order *[]string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name := m[1]
		fields := strings.Fields(m[2])
		res := results[name]
		if res == nil {
			res = &result{samples: map[string][]float64{}}
			results[name] = res
			*order = append(*order, name)
		}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			res.samples[fields[i+1]] = append(res.samples[fields[i+1]], v)
		}
	}
	return sc.Err()
}

func split(name string) (row, impl string) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return name, ""
	}
	return name[:i], name[i+1:]
}

// isRoundTrip reports whether row times whole calls (or MRTR rounds), whose
// rate goes in the calls/s column.
func isRoundTrip(row string) bool {
	return strings.HasPrefix(row, "RoundTrip/") || strings.HasPrefix(row, "Modern/") || strings.HasPrefix(row, "ModernMRTR/") || isTracing(row)
}

// isTracing reports whether row is one of BenchmarkTracing, whose "impl"
// is the tracing mode (off, on, never).
func isTracing(row string) bool {
	return strings.HasPrefix(row, "Tracing/")
}

func fmtNum(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fs", v/1e9)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2f s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.0f ns", ns)
	}
}

func fmtRate(ns float64) string {
	r := 1e9 / ns
	if r >= 1000 {
		return fmt.Sprintf("%.1fk/s", r/1000)
	}
	return fmt.Sprintf("%.0f/s", r)
}

type table struct {
	results map[string]*result
	order   []string
}

func (t *table) get(row, impl, unit string) (float64, bool) {
	r := t.results[row+"/"+impl]
	if r == nil {
		return 0, false
	}
	return r.median(unit)
}

// extraUnits are the custom metrics that get a column when reported.
var extraUnits = []string{"redis-cmds/op"}

// extras returns the extraUnits some benchmark reports.
func (t *table) extras() []string {
	var out []string
	for _, u := range extraUnits {
		for _, r := range t.results {
			if len(r.samples[u]) > 0 {
				out = append(out, u)
				break
			}
		}
	}
	return out
}

// The tables a benchmark goes in: see section.
const (
	mainSection    = "main"
	tracingSection = "tracing"
	loadSection    = "load"
	memorySection  = "memory"
)

// section returns the table row goes in: the Tracing, Load and Memory
// rows have tables of their own; the others go in the first.
func section(row string) string {
	switch {
	case isTracing(row):
		return tracingSection
	case strings.HasPrefix(row, "Load/"):
		return loadSection
	case strings.HasPrefix(row, "Memory/"):
		return memorySection
	}
	return mainSection
}

// hasRows reports whether some benchmark goes in the table of section
// sec.
func (t *table) hasRows(sec string) bool {
	for _, name := range t.order {
		if row, _ := split(name); section(row) == sec {
			return true
		}
	}
	return false
}

func (t *table) print(w io.Writer) {
	extras := t.extras()
	head := "| benchmark | impl | ns/op | B/op | allocs/op | calls/s | vs go-sdk | vs mcp-go | vs floor |"
	rule := "|---|---|--:|--:|--:|--:|--:|--:|--:|"
	for _, u := range extras {
		head += " " + u + " |"
		rule += "--:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, name := range t.order {
		row, impl := split(name)
		if section(row) != mainSection {
			continue
		}
		r := t.results[name]
		ns, _ := r.median("ns/op")
		cells := []string{row, impl, fmtNs(ns), "", "", "", "", "", ""}
		if v, ok := r.median("B/op"); ok {
			cells[3] = fmtNum(v)
		}
		if v, ok := r.median("allocs/op"); ok {
			cells[4] = fmtNum(v)
		}
		if isRoundTrip(row) {
			cells[5] = fmtRate(ns)
		}
		if impl == "mcpgen" && ns > 0 {
			if p, ok := t.get(row, "gosdk", "ns/op"); ok {
				cells[6] = fmt.Sprintf("%.1f×", p/ns)
			}
			if p, ok := t.get(row, "mcpgo", "ns/op"); ok {
				cells[7] = fmt.Sprintf("%.1f×", p/ns)
			}
			if f, ok := t.get(row, "floor", "ns/op"); ok {
				cells[8] = fmt.Sprintf("%.2f×", ns/f)
			}
		}
		for _, u := range extras {
			c := ""
			if v, ok := r.median(u); ok {
				c = fmtNum(v)
			}
			cells = append(cells, c)
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
}

// printTracing prints the Tracing rows: time and allocations of each mode
// over those of the off row of the same benchmark ("vs off": on or never
// ns/op ÷ off ns/op; "allocs vs off": the allocations it adds).
func (t *table) printTracing(w io.Writer) {
	fmt.Fprintln(w, "| benchmark | tracing | ns/op | B/op | allocs/op | calls/s | vs off | allocs vs off |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|")
	for _, name := range t.order {
		row, mode := split(name)
		if !isTracing(row) {
			continue
		}
		r := t.results[name]
		ns, _ := r.median("ns/op")
		cells := []string{row, mode, fmtNs(ns), "", "", fmtRate(ns), "", ""}
		allocs, hasAllocs := r.median("allocs/op")
		if v, ok := r.median("B/op"); ok {
			cells[3] = fmtNum(v)
		}
		if hasAllocs {
			cells[4] = fmtNum(allocs)
		}
		if mode != "off" && ns > 0 {
			if off, ok := t.get(row, "off", "ns/op"); ok && off > 0 {
				cells[6] = fmt.Sprintf("%.2f×", ns/off)
			}
			if off, ok := t.get(row, "off", "allocs/op"); ok && hasAllocs {
				cells[7] = fmt.Sprintf("%+.0f", allocs-off)
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
}

// A target is one goal of issue 6, of issue 12 (the 2026-07-28 rows) or
// of issue 29 (load, memory, allocations), checked on the medians.
type target struct {
	desc  string
	check func(t *table) (got string, ok, known bool)
}

// faster checks peer ns/op ÷ mcpgen ns/op ≥ want on row.
func faster(row, peer string, want float64) func(*table) (string, bool, bool) {
	return func(t *table) (string, bool, bool) {
		m, ok1 := t.get(row, "mcpgen", "ns/op")
		p, ok2 := t.get(row, peer, "ns/op")
		if !ok1 || !ok2 {
			return "n/a", false, false
		}
		return fmt.Sprintf("%.2f×", p/m), p/m >= want, true
	}
}

// floorAtMost checks mcpgen ns/op on row ÷ the floor's ns/op on floorRow
// ≤ limit.
func floorAtMost(row, floorRow string, limit float64) func(*table) (string, bool, bool) {
	return func(t *table) (string, bool, bool) {
		m, ok1 := t.get(row, "mcpgen", "ns/op")
		f, ok2 := t.get(floorRow, "floor", "ns/op")
		if !ok1 || !ok2 {
			return "n/a", false, false
		}
		return fmt.Sprintf("%.2f× floor", m/f), m/f <= limit, true
	}
}

func allocsAtMost(row string, limit float64) func(*table) (string, bool, bool) {
	return func(t *table) (string, bool, bool) {
		a, ok := t.get(row, "mcpgen", "allocs/op")
		if !ok {
			return "n/a", false, false
		}
		return fmt.Sprintf("%.0f allocs", a), a <= limit, true
	}
}

var targets = []target{
	{"decode tools/call ≥10× go-sdk", faster("DecodeToolsCall", "gosdk", 10)},
	{"decode tools/call ≥5× mcp-go", faster("DecodeToolsCall", "mcpgo", 5)},
	{"decode tools/call ≤4 allocs", allocsAtMost("DecodeToolsCall", 4)},
	{"encode CallToolResult ≥8× go-sdk", faster("EncodeResult", "gosdk", 8)},
	{"encode CallToolResult ≥4× mcp-go", faster("EncodeResult", "mcpgo", 4)},
	{"stdio round trip ≥8× go-sdk", faster("RoundTrip/stdio/seq", "gosdk", 8)},
	{"stdio round trip ≥3× mcp-go", faster("RoundTrip/stdio/seq", "mcpgo", 3)},
	{"stdio, 8 callers: calls/s ≥3× mcp-go", faster("RoundTrip/stdio/par8", "mcpgo", 3)},
	{"stdio round trip ≤20 allocs", allocsAtMost("RoundTrip/stdio/seq", 20)},
	{"in-memory round trip ≥2× mcp-go", faster("RoundTrip/mem/seq", "mcpgo", 2)},
	{"in-memory round trip ≤20 allocs", allocsAtMost("RoundTrip/mem/seq", 20)},
	{"HTTP round trip ≥3× go-sdk", faster("RoundTrip/http/seq", "gosdk", 3)},
	{"HTTP round trip ≥1.2× mcp-go", faster("RoundTrip/http/seq", "mcpgo", 1.2)},
	{"HTTP round trip ≤1.3× bare net/http floor", floorAtMost("RoundTrip/http/seq", "RoundTrip/http/seq", 1.3)},
	{"2026-07-28 HTTP round trip ≥5× go-sdk", faster("Modern/http/seq", "gosdk", 5)},
	{"2026-07-28 HTTP round trip ≥1.5× mcp-go", faster("Modern/http/seq", "mcpgo", 1.5)},
	{"2026-07-28 HTTP round trip ≤1.3× bare net/http floor", floorAtMost("Modern/http/seq", "Modern/http/seq", 1.3)},
	// Two POSTs within 1.3× of one bare POST each: the round against the
	// one-POST floor of Modern/http/seq. The measure also gives the ratio
	// to the two-POST floor of the round's own row (the table's "vs floor"
	// column), against which 2.6× would be the lenient reading.
	{"2026-07-28 MRTR round (two POSTs) ≤2.6× one bare POST", func(t *table) (string, bool, bool) {
		m, ok1 := t.get("ModernMRTR/http", "mcpgen", "ns/op")
		one, ok2 := t.get("Modern/http/seq", "floor", "ns/op")
		if !ok1 || !ok2 {
			return "n/a", false, false
		}
		got := fmt.Sprintf("%.2f× one-POST floor", m/one)
		if two, ok := t.get("ModernMRTR/http", "floor", "ns/op"); ok {
			got += fmt.Sprintf(" (%.2f× the two-POST floor)", m/two)
		}
		return got, m/one <= 2.6, true
	}},
	{"50 clients, legacy sessions: req/s ≥3× go-sdk", loadFaster("Load/legacy/c50", "gosdk", 3)},
	{"50 clients, legacy sessions: req/s ≥1.5× mcp-go", loadFaster("Load/legacy/c50", "mcpgo", 1.5)},
	{"50 clients, 2026-07-28 stateless: req/s ≥3× go-sdk", loadFaster("Load/stateless/c50", "gosdk", 3)},
	{"50 clients, 2026-07-28 stateless: req/s ≥1.5× mcp-go", loadFaster("Load/stateless/c50", "mcpgo", 1.5)},
	{"heap per idle legacy session ≤¼ of the best peer", memoryAtMostPeer("Memory/idle", "heap-B/session", 0.25)},
	{"goroutines per idle legacy session ≤0.01", memoryAtMost("Memory/idle", "goroutines/session", 0.01)},
	{"RSS per idle legacy session ≤ the best peer's", memoryAtMostPeer("Memory/idle", "rss-B/session", 1)},
	{"heap after closing every session within 1 MiB of start", memoryAtMost("Memory/idle", "heap-after-close-B", 1<<20)},
	{"generate every pinned revision ≤2 s", func(t *table) (string, bool, bool) {
		ns, ok := t.get("Generate/all", "mcpgen", "ns/op")
		if !ok {
			return "n/a", false, false
		}
		return fmtNs(ns), ns <= 2e9, true
	}},
}

// measured reports whether at least one target was measured.
func (t *table) measured() bool {
	for _, tg := range targets {
		if _, _, known := tg.check(t); known {
			return true
		}
	}
	return false
}

func (t *table) verdicts(w io.Writer) {
	fmt.Fprintln(w, "| target | measured | holds |")
	fmt.Fprintln(w, "|---|--:|:-:|")
	for _, tg := range targets {
		got, ok, known := tg.check(t)
		v := "no"
		switch {
		case !known:
			v = "not measured"
		case ok:
			v = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", tg.desc, got, v)
	}
}

// printAll prints each table that has rows, then the targets when one
// was measured, a blank line between them.
func (t *table) printAll(w io.Writer) {
	first := true
	sep := func() {
		if !first {
			fmt.Fprintln(w)
		}
		first = false
	}
	for _, sec := range []struct {
		name  string
		print func(io.Writer)
	}{
		{mainSection, t.print},
		{tracingSection, t.printTracing},
		{loadSection, t.printLoad},
		{memorySection, t.printMemory},
	} {
		if t.hasRows(sec.name) {
			sep()
			sec.print(w)
		}
	}
	if t.measured() {
		sep()
		t.verdicts(w)
	}
}

func main() {
	t := &table{results: map[string]*result{}}
	if len(os.Args) == 1 {
		if err := parse(os.Stdin, t.results, &t.order); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
	}
	for _, p := range os.Args[1:] {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		err = parse(f, t.results, &t.order)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
	}
	if len(t.order) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark results in the input")
		os.Exit(1)
	}
	t.printAll(os.Stdout)
}
