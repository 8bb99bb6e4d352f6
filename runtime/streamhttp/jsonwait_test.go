package streamhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// A JSON answer whose responses come in after the POST's goroutine began
// to wait for them (a batch, whose requests are handled on goroutines of
// their own, one held back until the POST is in flight) is written whole,
// as is one that is in before it would wait.
func TestJSONAnswerWaits(t *testing.T) {
	ts, srv := newTestServer(t, streamhttp.ServerOptions{JSONResponse: true})
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.MustAddTool(mcp.Tool{Name: "gate", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		once.Do(func() { close(started) })
		select {
		case <-release:
		case <-ctx.Done():
		}
		return mcp.TextResult("gate"), nil
	})
	// A 2025-03-26 session: its POSTs may carry batches.
	resp := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": "2025-03-26"}
	if r := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: h}); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", r.Status)
	}
	for _, tc := range []struct {
		name    string
		body    string
		gated   bool // the answer waits for release
		wantIDs []float64
	}{
		{"one request, answered at once", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`, false, []float64{2}},
		{"a batch, one request held back", `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gate"}},{"jsonrpc":"2.0","id":4,"method":"ping"}]`, true, []float64{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan *http.Response, 1)
			go func() { got <- do(t, ts.URL, req{method: http.MethodPost, body: tc.body, header: h}) }()
			if tc.gated {
				select {
				case <-started:
				case <-time.After(5 * time.Second):
					t.Fatal("the held-back request was not handled")
				}
				close(release)
			}
			var r *http.Response
			select {
			case r = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("no answer")
			}
			body, err := io.ReadAll(r.Body)
			if err != nil || r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("answer: %s %q %q %v", r.Status, r.Header.Get("Content-Type"), body, err)
			}
			var msgs []map[string]any
			if body[0] == '[' {
				err = json.Unmarshal(body, &msgs)
			} else {
				msgs = []map[string]any{{}}
				err = json.Unmarshal(body, &msgs[0])
			}
			if err != nil {
				t.Fatalf("answer %q: %v", body, err)
			}
			var ids []float64
			for _, m := range msgs {
				if m["result"] == nil {
					t.Errorf("not a result: %v", m)
				}
				id, _ := m["id"].(float64)
				ids = append(ids, id)
			}
			sort.Float64s(ids)
			if len(ids) != len(tc.wantIDs) || ids[0] != tc.wantIDs[0] || ids[len(ids)-1] != tc.wantIDs[len(tc.wantIDs)-1] {
				t.Errorf("answered ids %v, want %v", ids, tc.wantIDs)
			}
		})
	}
}
