package otelmcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/otelmcp"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"
)

// pointAttrs returns a data point's attributes as strings.
func pointAttrs(dp metricdata.HistogramDataPoint[float64]) map[string]string {
	m := map[string]string{}
	for _, kv := range dp.Attributes.ToSlice() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// The operation durations of a few methods on both sides, over every
// transport and in both eras, carry the convention's attributes and none
// of high cardinality; a legacy session records its duration on both
// sides once closed, a stateless client never.
func TestOperationAndSessionMetrics(t *testing.T) {
	for _, tt := range []struct {
		via  string
		revs []string
	}{
		{viaStdio, []string{"2025-11-25"}},
		{viaStdio, nil},
		{viaStreamable, []string{"2025-11-25"}},
		{viaStreamable, nil},
		{viaSSE, []string{"2025-11-25"}},
	} {
		version := "2026-07-28"
		if tt.revs != nil {
			version = tt.revs[0]
		}
		t.Run(tt.via+"/"+version, func(t *testing.T) {
			o := otelmcp.Options{ResourceURIInMetrics: true}
			c := connect(t, setup{via: tt.via, revisions: tt.revs, server: fullServer, srvOpts: o})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			for _, call := range []struct{ method, params string }{
				{"tools/call", `{"name":"echo","arguments":{}}`},
				{"prompts/get", `{"name":"greet"}`},
				{"resources/read", `{"uri":"file:///a.txt"}`},
			} {
				if _, err := c.cs.Session.Call(ctx, call.method, rawParams(call.params)); err != nil {
					t.Fatalf("%s: %v", call.method, err)
				}
			}
			// The server records a duration as its span ends.
			c.server.one(t, "resources/read", trace.SpanKindServer)

			want := map[string]map[string]string{
				"tools/call":     {"gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool"},
				"prompts/get":    {"gen_ai.prompt.name": "greet"},
				"resources/read": {},
			}
			for _, side := range []struct {
				name   string
				tel    *telemetry
				metric string
				client bool
			}{{"client", c.client, "mcp.client.operation.duration", true}, {"server", c.server, "mcp.server.operation.duration", false}} {
				seen := map[string]bool{}
				for _, dp := range side.tel.histogram(t, side.metric) {
					a := pointAttrs(dp)
					extra, ok := want[a["mcp.method.name"]]
					if !ok {
						continue
					}
					seen[a["mcp.method.name"]] = true
					what := side.metric + " " + a["mcp.method.name"]
					if dp.Count != 1 {
						t.Errorf("%s: count %d, want 1", what, dp.Count)
					}
					exp := map[string]string{"mcp.protocol.version": version}
					for k, v := range extra {
						exp[k] = v
					}
					if tt.via == viaStdio {
						exp["network.transport"] = "pipe"
					} else {
						exp["network.transport"], exp["network.protocol.name"], exp["network.protocol.version"] = "tcp", "http", "1.1"
						if side.client {
							exp["server.address"] = "127.0.0.1"
						}
					}
					if a["mcp.method.name"] == "resources/read" && !side.client {
						exp["mcp.resource.uri"] = "file:///a.txt" // ResourceURIInMetrics on the server only
					}
					for k, v := range exp {
						if a[k] != v {
							t.Errorf("%s: %s = %q, want %q", what, k, a[k], v)
						}
					}
					for _, k := range []string{"jsonrpc.request.id", "mcp.session.id", "client.address", "client.port", "error.type", "gen_ai.tool.call.arguments"} {
						if v, ok := a[k]; ok {
							t.Errorf("%s has %s = %q", what, k, v)
						}
					}
					if _, ok := a["mcp.resource.uri"]; ok && exp["mcp.resource.uri"] == "" {
						t.Errorf("%s has mcp.resource.uri without ResourceURIInMetrics", what)
					}
					if side.client && tt.via != viaStdio && a["server.port"] == "" {
						t.Errorf("%s has no server.port", what)
					}
					if !side.client && (a["server.address"] != "" || a["server.port"] != "") {
						t.Errorf("%s has server.address %q, server.port %q", what, a["server.address"], a["server.port"])
					}
				}
				for m := range want {
					if !seen[m] {
						t.Errorf("%s: no point for %s", side.metric, m)
					}
				}
			}

			c.closeFn() // a legacy client over HTTP ends its session with DELETE
			for _, side := range []struct {
				tel    *telemetry
				metric string
			}{{c.client, "mcp.client.session.duration"}, {c.server, "mcp.server.session.duration"}} {
				if tt.revs == nil {
					if pts := side.tel.histogram(t, side.metric); len(pts) != 0 {
						t.Errorf("%s: %d points for a stateless client, want none", side.metric, len(pts))
					}
					continue
				}
				pts := waitPoints(t, side.tel, side.metric)
				a := pointAttrs(pts[0])
				if pts[0].Count != 1 || a["mcp.protocol.version"] != version || a["error.type"] != "" {
					t.Errorf("%s: count %d, attributes %v", side.metric, pts[0].Count, a)
				}
				wantNet := "tcp"
				if tt.via == viaStdio {
					wantNet = "pipe"
				}
				if a["network.transport"] != wantNet {
					t.Errorf("%s: network.transport %q, want %q", side.metric, a["network.transport"], wantNet)
				}
				if _, ok := a["mcp.session.id"]; ok {
					t.Errorf("%s has mcp.session.id", side.metric)
				}
			}
		})
	}
}

// waitPoints waits, bounded, for the one data point of the histogram name.
func waitPoints(t *testing.T, tel *telemetry, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		pts := tel.histogram(t, name)
		if len(pts) == 1 {
			return pts
		}
		if len(pts) > 1 || time.Now().After(deadline) {
			t.Fatalf("%s: %d points, want 1", name, len(pts))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
