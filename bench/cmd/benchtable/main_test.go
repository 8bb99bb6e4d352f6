package main

import (
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
			if got := tab.hasRows(false); got != tt.hasFirst {
				t.Errorf("hasRows(false) = %v, want %v", got, tt.hasFirst)
			}
			if !tab.hasRows(true) {
				t.Error("hasRows(true) = false, want true")
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
