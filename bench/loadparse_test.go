package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The load and memory benchmarks read /proc, SSE streams and answers with
// small parsers; these tests pin what they accept.

func TestParseVmRSS(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		want         int64
		ok           bool
	}{
		{"kB", "Name:\tbench.test\nVmPeak:\t  100 kB\nVmRSS:\t   24576 kB\nRssAnon:\t 1 kB\n", 24576 << 10, true},
		{"no VmRSS", "Name:\tbench.test\nVmPeak:\t  100 kB\n", 0, false},
		{"no unit", "VmRSS:\t24576\n", 0, false},
		{"not a number", "VmRSS:\tmany kB\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseVmRSS([]byte(tc.status))
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseVmRSS = %d, %v, want %d, ok %v", got, err, tc.want, tc.ok)
			}
		})
	}
}

func TestParseCPUTime(t *testing.T) {
	// Fields 14 and 15 are utime and stime, in ticks of 1/userHZ s.
	const rest = " S 1 2 3 4 5 6 7 8 9 10 %s %s 11 12 20 0 5 0 100 1000 200\n"
	for _, tc := range []struct {
		name, stat string
		want       time.Duration
		ok         bool
	}{
		{"plain", "4242 (bench.test)" + sprintf(rest, "150", "25"), 1750 * time.Millisecond, true},
		{"command with spaces and parentheses", "4242 (a (b) c)" + sprintf(rest, "1", "2"), 30 * time.Millisecond, true},
		{"no command", "4242 bench.test S 1", 0, false},
		{"short", "4242 (x) S 1 2 3", 0, false},
		{"negative", "4242 (x)" + sprintf(rest, "-1", "2"), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCPUTime([]byte(tc.stat))
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseCPUTime(%q) = %v, %v, want %v, ok %v", tc.stat, got, err, tc.want, tc.ok)
			}
		})
	}
}

func sprintf(format string, a ...string) string {
	for _, s := range a {
		format = strings.Replace(format, "%s", s, 1)
	}
	return format
}

func TestReadSSE(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		want         []sseEvent
	}{
		{"endpoint then message", "event: endpoint\ndata: /message?sessionId=1\n\nevent: message\ndata: {\"id\":0}\n\n",
			[]sseEvent{{"endpoint", "/message?sessionId=1"}, {"message", `{"id":0}`}}},
		{"default type, CRLF, id and retry dropped", "id: 7\r\nretry: 100\r\ndata:{\"a\":1}\r\n\r\n",
			[]sseEvent{{"message", `{"a":1}`}}},
		{"comments and keep-alives", ": ping\n\n: ping\n\ndata: x\n\n", []sseEvent{{"message", "x"}}},
		{"data lines joined", "data: a\ndata: b\n\n", []sseEvent{{"message", "a\nb"}}},
		{"unterminated event dropped", "data: a\n\ndata: b", []sseEvent{{"message", "a"}}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []sseEvent
			err := readSSE(strings.NewReader(tc.stream), func(ev sseEvent) bool {
				got = append(got, ev)
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	s := make([]time.Duration, 200)
	for i := range s {
		s[i] = time.Duration(i+1) * time.Microsecond
	}
	for _, tc := range []struct {
		s    []time.Duration
		p    int
		want time.Duration
	}{
		{s, 50, 100 * time.Microsecond},
		{s, 99, 198 * time.Microsecond},
		{s, 100, 200 * time.Microsecond},
		{s[:1], 99, time.Microsecond},
		{nil, 50, 0},
	} {
		if got := percentile(tc.s, tc.p); got != tc.want {
			t.Errorf("percentile(%d samples, %d) = %v, want %v", len(tc.s), tc.p, got, tc.want)
		}
	}
}

func TestCheckEcho(t *testing.T) {
	for _, tc := range []struct {
		name, ans     string
		quick, strict bool // checkEcho's and verifyEcho's verdicts
	}{
		{"ok", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, world"}]}}`, true, true},
		{"ok, isError false", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, world"}],"isError":false}}`, true, true},
		{"other id", `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hello, world"}]}}`, false, false},
		{"error", `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"hello, world"}}`, false, false},
		{"tool error", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, world"}],"isError":true}}`, false, false},
		{"other text", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"bye"}]}}`, false, false},
		{"two blocks", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello, world"},{"type":"text","text":"x"}]}}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkEcho([]byte(tc.ans), 7); (err == nil) != tc.quick {
				t.Errorf("checkEcho: %v, want ok %v", err, tc.quick)
			}
			if err := verifyEcho([]byte(tc.ans), 7); (err == nil) != tc.strict {
				t.Errorf("verifyEcho: %v, want ok %v", err, tc.strict)
			}
		})
	}
}

func TestCheckInitialized(t *testing.T) {
	for _, tc := range []struct {
		name, ans string
		ok        bool
	}{
		{"agreed", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`, true},
		{"older", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`, false},
		{"error", `{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"no"}}`, false},
		{"other id", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`, false},
		{"not JSON", `event: message`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkInitialized([]byte(tc.ans), 0, legacyVersion); (err == nil) != tc.ok {
				t.Errorf("checkInitialized: %v, want ok %v", err, tc.ok)
			}
		})
	}
}
