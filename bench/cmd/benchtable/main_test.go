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
