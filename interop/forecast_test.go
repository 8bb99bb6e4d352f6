package interop_test

// TestTS2ClientForecast drives examples/forecast with the TypeScript SDK v2
// client, in both eras: the typed tool's default, its checks and its
// structured result as a real peer sees them (issue 13, item 4).

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type forecastReport struct {
	Negotiated           string
	Tools                []string
	OutputSchemaRequired []string
	Oslo                 forecastCall
	TooMany              forecastCall
	Empty                forecastCall
	Prompt               string
	CitiesMime           string
	Error                string
}

type forecastCall struct {
	IsError    bool
	Text       string
	Structured map[string]any
}

func TestTS2ClientForecast(t *testing.T) {
	node := nodeBin(t)
	interop, root := dirs(t)
	bin := filepath.Join(t.TempDir(), "forecast")
	build := exec.Command("go", "build", "-o", bin, "./examples/forecast")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/forecast: %v\n%s", err, out)
	}
	for _, tc := range []struct{ mode, revision string }{{"auto", "2026-07-28"}, {"legacy", "2025-11-25"}} {
		t.Run(tc.mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, filepath.Join(interop, "ts2-forecast.mjs"), "--mode", tc.mode, "--", bin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var got forecastReport
			if jerr := json.Unmarshal(out, &got); jerr != nil || err != nil {
				t.Fatalf("ts2-forecast.mjs: %v; report %q: %v\nstderr:\n%s", err, out, jerr, stderr.String())
			}
			// The error texts must name what was wrong; their exact wording
			// is runtime/toolschema's.
			for _, c := range []struct {
				call *forecastCall
				want string
			}{{&got.TooMany, "/days"}, {&got.Empty, "/city"}} {
				if c.call.IsError && strings.Contains(c.call.Text, c.want) {
					c.call.Text = "names " + c.want
				}
			}
			want := forecastReport{
				Negotiated:           tc.revision,
				Tools:                []string{"forecast"},
				OutputSchemaRequired: []string{"city", "days", "summary"},
				Oslo:                 forecastCall{Structured: map[string]any{"city": "Oslo", "days": 3.0, "summary": "Sunny in Oslo."}},
				TooMany:              forecastCall{IsError: true, Text: "names /days"},
				Empty:                forecastCall{IsError: true, Text: "names /city"},
				Prompt:               "Plan a trip to Bergen.",
				CitiesMime:           "application/json",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the TypeScript SDK v2 client against examples/forecast (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
			}
		})
	}
}
