package main

import (
	"slices"
	"strings"
	"testing"
)

// TestPrint: the table has the medians, the ratio to the floor, and a
// column for a custom metric only when some benchmark reports it.
func TestPrint(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // the table's lines
	}{
		{
			name: "standard units",
			input: `BenchmarkRoundTrip/http/seq/mcpgen-2   100  2000 ns/op  10 B/op  2 allocs/op
BenchmarkRoundTrip/http/seq/floor-2    100  1000 ns/op  5 B/op  1 allocs/op
`,
			want: []string{
				"| benchmark | impl | ns/op | B/op | allocs/op | calls/s | vs go-sdk | vs mcp-go | vs floor |",
				"|---|---|--:|--:|--:|--:|--:|--:|--:|",
				"| RoundTrip/http/seq | mcpgen | 2.00 µs | 10.0 | 2.00 | 500.0k/s |  |  | 2.00× |",
				"| RoundTrip/http/seq | floor | 1.00 µs | 5.00 | 1.00 | 1000.0k/s |  |  |  |",
			},
		},
		{
			name: "redis-cmds/op, medians of three",
			input: `BenchmarkFleetLegacyRelay/mcpgen-2  10  300000 ns/op  6.000 redis-cmds/op  500 B/op  50 allocs/op
BenchmarkFleetLegacyRelay/mcpgen-2  10  200000 ns/op  6.000 redis-cmds/op  500 B/op  50 allocs/op
BenchmarkFleetLegacyRelay/mcpgen-2  10  900000 ns/op  7.000 redis-cmds/op  500 B/op  50 allocs/op
BenchmarkFleetLegacyRelay/floor-2   10  100000 ns/op  0 redis-cmds/op  400 B/op  40 allocs/op
BenchmarkDecodeToolsCall/mcpgen-2   10  500 ns/op  140 B/op  4 allocs/op
`,
			want: []string{
				"| benchmark | impl | ns/op | B/op | allocs/op | calls/s | vs go-sdk | vs mcp-go | vs floor | redis-cmds/op |",
				"|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
				"| FleetLegacyRelay | mcpgen | 300.00 µs | 500 | 50.0 |  |  |  | 3.00× | 6.00 |",
				"| FleetLegacyRelay | floor | 100.00 µs | 400 | 40.0 |  |  |  |  | 0.00 |",
				"| DecodeToolsCall | mcpgen | 500 ns | 140 | 4.00 |  |  |  |  |  |",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := &table{results: map[string]*result{}}
			if err := parse(strings.NewReader(tt.input), tab.results, &tab.order); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			tab.print(&b)
			got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestMeasured: the targets are printed only when one was measured.
func TestMeasured(t *testing.T) {
	tests := []struct {
		name, input string
		want        bool
	}{
		{"fleet rows only", "BenchmarkFleetStateless/mcpgen-2 10 1000 ns/op 0 redis-cmds/op\n", false},
		{"a target's row", "BenchmarkDecodeToolsCall/mcpgen-2 10 500 ns/op 140 B/op 4 allocs/op\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := &table{results: map[string]*result{}}
			if err := parse(strings.NewReader(tt.input), tab.results, &tab.order); err != nil {
				t.Fatal(err)
			}
			if got := tab.measured(); got != tt.want {
				t.Errorf("measured() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPrintTracing: the Tracing rows leave the first table for one of
// their own, where each mode has its time and allocations over those of
// the off row of the same benchmark, and none without an off row.
func TestPrintTracing(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		first    []string // the first table's lines
		tracing  []string // the tracing table's lines
		hasFirst bool
	}{
		{
			name: "beside a round trip",
			input: `BenchmarkRoundTrip/mem/seq/mcpgen-2   100  8000 ns/op  2800 B/op  27 allocs/op
BenchmarkTracing/legacy/mem/seq/off-2    100  8000 ns/op  2800 B/op  27 allocs/op
BenchmarkTracing/legacy/mem/seq/on-2     100  20000 ns/op  12000 B/op  97 allocs/op
BenchmarkTracing/legacy/mem/seq/never-2  100  16000 ns/op  9000 B/op  92 allocs/op
`,
			first: []string{
				"| benchmark | impl | ns/op | B/op | allocs/op | calls/s | vs go-sdk | vs mcp-go | vs floor |",
				"|---|---|--:|--:|--:|--:|--:|--:|--:|",
				"| RoundTrip/mem/seq | mcpgen | 8.00 µs | 2800 | 27.0 | 125.0k/s |  |  |  |",
			},
			tracing: []string{
				"| benchmark | tracing | ns/op | B/op | allocs/op | calls/s | vs off | allocs vs off |",
				"|---|---|--:|--:|--:|--:|--:|--:|",
				"| Tracing/legacy/mem/seq | off | 8.00 µs | 2800 | 27.0 | 125.0k/s |  |  |",
				"| Tracing/legacy/mem/seq | on | 20.00 µs | 12000 | 97.0 | 50.0k/s | 2.50× | +70 |",
				"| Tracing/legacy/mem/seq | never | 16.00 µs | 9000 | 92.0 | 62.5k/s | 2.00× | +65 |",
			},
			hasFirst: true,
		},
		{
			name: "alone, one row without its off row",
			input: `BenchmarkTracing/stateless/http/seq/on-2  100  150000 ns/op  29000 B/op  295 allocs/op
`,
			first: []string{
				"| benchmark | impl | ns/op | B/op | allocs/op | calls/s | vs go-sdk | vs mcp-go | vs floor |",
				"|---|---|--:|--:|--:|--:|--:|--:|--:|",
			},
			tracing: []string{
				"| benchmark | tracing | ns/op | B/op | allocs/op | calls/s | vs off | allocs vs off |",
				"|---|---|--:|--:|--:|--:|--:|--:|",
				"| Tracing/stateless/http/seq | on | 150.00 µs | 29000 | 295 | 6.7k/s |  |  |",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := &table{results: map[string]*result{}}
			if err := parse(strings.NewReader(tt.input), tab.results, &tab.order); err != nil {
				t.Fatal(err)
			}
			if got := tab.hasRows(mainSection); got != tt.hasFirst {
				t.Errorf("hasRows(mainSection) = %v, want %v", got, tt.hasFirst)
			}
			if !tab.hasRows(tracingSection) {
				t.Error("hasRows(tracingSection) = false, want true")
			}
			for _, c := range []struct {
				what  string
				print func(*strings.Builder)
				want  []string
			}{
				{"first table", func(b *strings.Builder) { tab.print(b) }, tt.first},
				{"tracing table", func(b *strings.Builder) { tab.printTracing(b) }, tt.tracing},
			} {
				var b strings.Builder
				c.print(&b)
				got := strings.TrimSuffix(b.String(), "\n")
				if want := strings.Join(c.want, "\n"); got != want {
					t.Errorf("%s:\n%s\nwant:\n%s", c.what, got, want)
				}
			}
		})
	}
}

// TestPrintLoad: the Load rows leave the first table for one of their
// own, with the medians of their metrics and each mcpgen row's rate over
// each peer's at the same point.
func TestPrintLoad(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{
			name: "medians and ratios",
			input: `BenchmarkLoad/legacy/c50/mcpgen-2  1000  50000 ns/op  30.00 cpu-µs/req  2000 p50-µs  15000 p99-µs  20000 req/s  27.50 rss-MiB  5626 srv-B/req  57.02 srv-allocs/req  900 B/op  9 allocs/op
BenchmarkLoad/legacy/c50/mcpgen-2  1000  60000 ns/op  40.00 cpu-µs/req  2500 p50-µs  16000 p99-µs  16000 req/s  27.70 rss-MiB
BenchmarkLoad/legacy/c50/mcpgen-2  1000  55000 ns/op  35.00 cpu-µs/req  2100 p50-µs  14000 p99-µs  18000 req/s  27.60 rss-MiB
BenchmarkLoad/legacy/c50/gosdk-2   1000  300000 ns/op  190.0 cpu-µs/req  12000 p50-µs  60000 p99-µs  3000 req/s  29.00 rss-MiB
BenchmarkLoad/legacy/c50/mcpgo-2   1000  110000 ns/op  66.00 cpu-µs/req  4800 p50-µs  13000 p99-µs  9000 req/s  28.70 rss-MiB
BenchmarkLoad/stdio/c8/mcpgen-2    1000  20000 ns/op  15.00 cpu-µs/req  150.0 p50-µs  400.0 p99-µs  50000 req/s  23.40 rss-MiB
`,
			want: []string{
				"| load | impl | req/s | p50 | p99 | server CPU/req | server allocs/req | server B/req | server RSS | vs go-sdk | vs mcp-go |",
				"|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
				"| Load/legacy/c50 | mcpgen | 18.0k/s | 2.10 ms | 15.00 ms | 35.00 µs | 57.0 | 5626 | 27.6 MiB | 6.00× | 2.00× |",
				"| Load/legacy/c50 | gosdk | 3.0k/s | 12.00 ms | 60.00 ms | 190.00 µs |  |  | 29.0 MiB |  |  |",
				"| Load/legacy/c50 | mcpgo | 9.0k/s | 4.80 ms | 13.00 ms | 66.00 µs |  |  | 28.7 MiB |  |  |",
				"| Load/stdio/c8 | mcpgen | 50.0k/s | 150.00 µs | 400.00 µs | 15.00 µs |  |  | 23.4 MiB |  |  |",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := &table{results: map[string]*result{}}
			if err := parse(strings.NewReader(tt.input), tab.results, &tab.order); err != nil {
				t.Fatal(err)
			}
			if tab.hasRows(mainSection) || !tab.hasRows(loadSection) {
				t.Errorf("hasRows(main, load) = %v, %v, want false, true", tab.hasRows(mainSection), tab.hasRows(loadSection))
			}
			var b strings.Builder
			tab.printLoad(&b)
			if got, want := strings.TrimSuffix(b.String(), "\n"), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("load table:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestPrintMemory: one block per what, a column per unit it reports in
// the fixed order, bytes in B, KiB or MiB, and mcpgen's first unit over
// the lowest peer's.
func TestPrintMemory(t *testing.T) {
	input := `BenchmarkMemory/idle/mcpgen-2  1  200000 ns/op  2.000 goroutines/session  6255 heap-B/session  2165976 heap-after-close-B  12409 rss-B/session
BenchmarkMemory/idle/gosdk-2   1  460000 ns/op  1.000 goroutines/session  4642 heap-B/session  1129408 heap-after-close-B  7799 rss-B/session
BenchmarkMemory/idle/mcpgo-2   1  330000 ns/op  0 goroutines/session  10098 heap-B/session  16176 heap-after-close-B  11201 rss-B/session
BenchmarkMemory/listen/mcpgen-2  1  220000 ns/op  2.000 goroutines/stream  17844 heap-B/stream  2164752 heap-after-close-B  38906 rss-B/stream
BenchmarkMemory/stateless/mcpgen-2  1  75000 ns/op  0 goroutines-after  -520 heap-after-B
BenchmarkMemory/stateless/gosdk-2   1  390000 ns/op  0 goroutines-after  24640 heap-after-B
BenchmarkMemory/churn/mcpgo-2  1  210000 ns/op  0 goroutines-churn  0 goroutines-expired  94.06 heap-churn-MiB  29816 heap-expired-B
`
	want := []string{
		"| Memory/idle | impl | heap-B/session | rss-B/session | goroutines/session | heap-after-close-B | vs best peer |",
		"|---|---|--:|--:|--:|--:|--:|",
		"| Memory/idle | mcpgen | 6.1 KiB | 12.1 KiB | 2.00 | 2.07 MiB | 1.35× |",
		"| Memory/idle | gosdk | 4.5 KiB | 7.6 KiB | 1.00 | 1.08 MiB |  |",
		"| Memory/idle | mcpgo | 9.9 KiB | 10.9 KiB | 0.00 | 15.8 KiB |  |",
		"",
		"| Memory/listen | impl | heap-B/stream | rss-B/stream | goroutines/stream | heap-after-close-B | vs best peer |",
		"|---|---|--:|--:|--:|--:|--:|",
		"| Memory/listen | mcpgen | 17.4 KiB | 38.0 KiB | 2.00 | 2.06 MiB |  |",
		"",
		"| Memory/stateless | impl | heap-after-B | goroutines-after | vs best peer |",
		"|---|---|--:|--:|--:|",
		"| Memory/stateless | mcpgen | -520 B | 0.00 | -0.02× |",
		"| Memory/stateless | gosdk | 24.1 KiB | 0.00 |  |",
		"",
		"| Memory/churn | impl | heap-churn-MiB | goroutines-churn | heap-expired-B | goroutines-expired | vs best peer |",
		"|---|---|--:|--:|--:|--:|--:|",
		"| Memory/churn | mcpgo | 94.06 MiB | 0.00 | 29.1 KiB | 0.00 |  |",
	}
	tab := &table{results: map[string]*result{}}
	if err := parse(strings.NewReader(input), tab.results, &tab.order); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tab.printMemory(&b)
	if got, want := strings.TrimSuffix(b.String(), "\n"), strings.Join(want, "\n"); got != want {
		t.Errorf("memory table:\n%s\nwant:\n%s", got, want)
	}
}

// TestLoadMemoryTargets: the targets of the Load and Memory rows, on
// sample medians: each verdict, and "not measured" without the rows.
func TestLoadMemoryTargets(t *testing.T) {
	input := `BenchmarkLoad/legacy/c50/mcpgen-2  1000  50000 ns/op  20000 req/s
BenchmarkLoad/legacy/c50/gosdk-2   1000  300000 ns/op  3000 req/s
BenchmarkLoad/legacy/c50/mcpgo-2   1000  110000 ns/op  15000 req/s
BenchmarkMemory/idle/mcpgen-2  1  200000 ns/op  0.005 goroutines/session  1000 heap-B/session  -2000 heap-after-close-B  12000 rss-B/session
BenchmarkMemory/idle/gosdk-2   1  460000 ns/op  1.000 goroutines/session  4642 heap-B/session  1129408 heap-after-close-B  7799 rss-B/session
BenchmarkMemory/idle/mcpgo-2   1  330000 ns/op  0 goroutines/session  10098 heap-B/session  16176 heap-after-close-B  11201 rss-B/session
`
	tab := &table{results: map[string]*result{}}
	if err := parse(strings.NewReader(input), tab.results, &tab.order); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc      string
		got       string
		ok, known bool
	}{
		{"50 clients, legacy sessions: req/s ≥3× go-sdk", "6.67× (20.0k/s vs 3.0k/s)", true, true},
		{"50 clients, legacy sessions: req/s ≥1.5× mcp-go", "1.33× (20.0k/s vs 15.0k/s)", false, true},
		{"50 clients, 2026-07-28 stateless: req/s ≥3× go-sdk", "n/a", false, false},
		{"heap per idle legacy session ≤¼ of the best peer", "0.22× (1000 B vs best peer 4.5 KiB)", true, true},
		{"goroutines per idle legacy session ≤0.01", "0.01", true, true},
		{"RSS per idle legacy session ≤ the best peer's", "1.54× (11.7 KiB vs best peer 7.6 KiB)", false, true},
		{"heap after closing every session within 1 MiB of start", "-2.0 KiB", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			i := slices.IndexFunc(targets, func(tg target) bool { return tg.desc == tt.desc })
			if i < 0 {
				t.Fatalf("no target %q", tt.desc)
			}
			got, ok, known := targets[i].check(tab)
			if got != tt.got || ok != tt.ok || known != tt.known {
				t.Errorf("check = %q, %v, %v, want %q, %v, %v", got, ok, known, tt.got, tt.ok, tt.known)
			}
		})
	}
}
