package streamhttp_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// T-S4, T-S5: once DELETE was answered, the session is gone: a GET or POST
// sent right after it gets 404, every time.
func TestDeleteThenGet(t *testing.T) {
	ts, _ := newTestServer(t, streamhttp.ServerOptions{})
	const rounds = 300
	var got []string
	for i := range rounds {
		sid := initSession(t, ts.URL)
		h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
		del := do(t, ts.URL, req{method: http.MethodDelete, header: h})
		if del.StatusCode != http.StatusNoContent {
			t.Fatalf("round %d: DELETE: %s", i, del.Status)
		}
		get := do(t, ts.URL, req{method: http.MethodGet, header: h})
		get.Body.Close()
		post := do(t, ts.URL, req{method: http.MethodPost, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header: h})
		post.Body.Close()
		if get.StatusCode != http.StatusNotFound || post.StatusCode != http.StatusNotFound {
			got = append(got, fmt.Sprintf("round %d: GET %d, POST %d", i, get.StatusCode, post.StatusCode))
		}
	}
	if diff := cmp.Diff([]string(nil), got); diff != "" {
		t.Errorf("requests after DELETE not answered 404 (-want +got):\n%s", diff)
	}
}
