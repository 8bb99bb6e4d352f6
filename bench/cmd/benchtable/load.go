package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// The tables of BenchmarkLoad and BenchmarkMemory.
//
// A Load row, Load/<mode>/c<N>/<impl>, reports req/s, p50-µs, p99-µs,
// and the server's cpu-µs/req, srv-allocs/req, srv-B/req and rss-MiB (its
// B/op and allocs/op are the load generator's): its table gives them, and for
// each mcpgen row its rate over each peer's at the same point ("vs go-sdk"
// and "vs mcp-go": above 1, mcpgen serves more).
//
// A Memory row, Memory/<what>/<impl>, reports units of its own (such as
// heap-B/session or heap-after-close-B): its table has one block per what,
// with a column per unit, and for each mcpgen row its first unit over the
// lowest peer's ("vs best peer": below 1, mcpgen holds less).

// fmtUnit formats a value of a custom unit: bytes (a unit starting with
// "heap-B", "rss-B" or ending in "-B") in B, KiB or MiB, MiB as such,
// the rest as numbers.
func fmtUnit(unit string, v float64) string {
	base, _, _ := strings.Cut(unit, "/")
	switch {
	case strings.HasSuffix(base, "-MiB"):
		return fmt.Sprintf("%.2f MiB", v)
	case strings.HasSuffix(base, "-B"):
		a := math.Abs(v)
		switch {
		case a >= 1<<20:
			return fmt.Sprintf("%.2f MiB", v/(1<<20))
		case a >= 1<<10:
			return fmt.Sprintf("%.1f KiB", v/(1<<10))
		default:
			return fmt.Sprintf("%.0f B", v)
		}
	}
	return fmtNum(v)
}

// printLoad prints the Load rows.
func (t *table) printLoad(w io.Writer) {
	fmt.Fprintln(w, "| load | impl | req/s | p50 | p99 | server CPU/req | server allocs/req | server B/req | server RSS | vs go-sdk | vs mcp-go |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, name := range t.order {
		row, impl := split(name)
		if section(row) != loadSection {
			continue
		}
		r := t.results[name]
		cells := make([]string, 11)
		cells[0], cells[1] = row, impl
		rate, hasRate := r.median("req/s")
		if hasRate {
			cells[2] = fmtRate(1e9 / rate)
		}
		if v, ok := r.median("p50-µs"); ok {
			cells[3] = fmtNs(v * 1e3)
		}
		if v, ok := r.median("p99-µs"); ok {
			cells[4] = fmtNs(v * 1e3)
		}
		if v, ok := r.median("cpu-µs/req"); ok {
			cells[5] = fmtNs(v * 1e3)
		}
		if v, ok := r.median("srv-allocs/req"); ok {
			cells[6] = fmtNum(v)
		}
		if v, ok := r.median("srv-B/req"); ok {
			cells[7] = fmtNum(v)
		}
		if v, ok := r.median("rss-MiB"); ok {
			cells[8] = fmt.Sprintf("%.1f MiB", v)
		}
		if impl == "mcpgen" && hasRate {
			for i, peer := range []string{"gosdk", "mcpgo"} {
				if p, ok := t.get(row, peer, "req/s"); ok && p > 0 {
					cells[9+i] = fmt.Sprintf("%.2f×", rate/p)
				}
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
}

// standardUnits are the units every benchmark may report, which the
// Memory table leaves out.
var standardUnits = map[string]bool{"ns/op": true, "B/op": true, "allocs/op": true}

// memoryUnits orders the columns of the Memory table: the units the
// benchmark reports, in this order; any other after them, by name.
var memoryUnits = []string{
	"heap-B/session", "heap-B/stream", "rss-B/session", "rss-B/stream",
	"goroutines/session", "goroutines/stream", "heap-after-close-B",
	"heap-after-B", "goroutines-after",
	"heap-churn-MiB", "goroutines-churn", "heap-expired-B", "goroutines-expired",
}

// units returns the units r reports, in the order of memoryUnits.
func (r *result) units() []string {
	rank := func(u string) int {
		if i := slices.Index(memoryUnits, u); i >= 0 {
			return i
		}
		return len(memoryUnits)
	}
	us := make([]string, 0, len(r.samples))
	for u := range r.samples {
		us = append(us, u)
	}
	slices.SortFunc(us, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b)) })
	return us
}

// memoryBlocks returns the Memory rows grouped by what (in order of first
// appearance), with the custom units each block's rows report.
func (t *table) memoryBlocks() (whats []string, rows map[string][]string, units map[string][]string) {
	rows, units = map[string][]string{}, map[string][]string{}
	for _, name := range t.order {
		row, _ := split(name)
		if section(row) != memorySection {
			continue
		}
		if _, ok := rows[row]; !ok {
			whats = append(whats, row)
		}
		rows[row] = append(rows[row], name)
		for _, u := range t.results[name].units() {
			if !standardUnits[u] && !slices.Contains(units[row], u) {
				units[row] = append(units[row], u)
			}
		}
	}
	return whats, rows, units
}

// printMemory prints the Memory rows, one block per what.
func (t *table) printMemory(w io.Writer) {
	whats, rows, units := t.memoryBlocks()
	for i, what := range whats {
		if i > 0 {
			fmt.Fprintln(w)
		}
		us := units[what]
		head := "| " + what + " | impl |"
		rule := "|---|---|"
		for _, u := range us {
			head += " " + u + " |"
			rule += "--:|"
		}
		fmt.Fprintln(w, head+" vs best peer |")
		fmt.Fprintln(w, rule+"--:|")
		for _, name := range rows[what] {
			_, impl := split(name)
			r := t.results[name]
			cells := []string{what, impl}
			for _, u := range us {
				c := ""
				if v, ok := r.median(u); ok {
					c = fmtUnit(u, v)
				}
				cells = append(cells, c)
			}
			ratio := ""
			if impl == "mcpgen" && len(us) > 0 {
				m, ok1 := r.median(us[0])
				p, ok2 := t.bestPeer(what, us[0])
				if ok1 && ok2 && p > 0 {
					ratio = fmt.Sprintf("%.2f×", m/p)
				}
			}
			cells = append(cells, ratio)
			fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
		}
	}
}

// bestPeer returns the lowest median of unit among the peers (go-sdk,
// mcp-go) on row.
func (t *table) bestPeer(row, unit string) (float64, bool) {
	best, found := 0.0, false
	for _, peer := range []string{"gosdk", "mcpgo"} {
		if v, ok := t.get(row, peer, unit); ok && (!found || v < best) {
			best, found = v, true
		}
	}
	return best, found
}

// loadFaster checks mcpgen req/s ÷ peer req/s ≥ want on the Load row.
func loadFaster(row, peer string, want float64) func(*table) (string, bool, bool) {
	return func(t *table) (string, bool, bool) {
		m, ok1 := t.get(row, "mcpgen", "req/s")
		p, ok2 := t.get(row, peer, "req/s")
		if !ok1 || !ok2 || p <= 0 {
			return "n/a", false, false
		}
		return fmt.Sprintf("%.2f× (%s vs %s)", m/p, fmtRate(1e9/m), fmtRate(1e9/p)), m/p >= want, true
	}
}

// memoryAtMostPeer checks mcpgen's unit on the Memory row ≤ factor × the
// best peer's.
func memoryAtMostPeer(row, unit string, factor float64) func(*table) (string, bool, bool) {
	return func(t *table) (string, bool, bool) {
		m, ok1 := t.get(row, "mcpgen", unit)
		p, ok2 := t.bestPeer(row, unit)
		if !ok1 || !ok2 {
			return "n/a", false, false
		}
		got := fmt.Sprintf("%s vs best peer %s", fmtUnit(unit, m), fmtUnit(unit, p))
		if p > 0 {
			got = fmt.Sprintf("%.2f× (%s)", m/p, got)
		}
		return got, m <= factor*p, true
	}
}

// memoryAtMost checks |mcpgen's unit on the Memory row| ≤ limit.
func memoryAtMost(row, unit string, limit float64) func(*table) (string, bool, bool) {
	return func(t *table) (string, bool, bool) {
		m, ok := t.get(row, "mcpgen", unit)
		if !ok {
			return "n/a", false, false
		}
		return fmtUnit(unit, m), math.Abs(m) <= limit, true
	}
}
