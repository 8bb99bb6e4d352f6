package streamhttp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// An API key in a header, checked before anything else: a request without
// it is refused with 401 and a JSON-RPC error carrying its id.
func ExampleRequireHeader() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{Gate: streamhttp.RequireHeader("X-API-Key", "s3cret")})
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	for _, key := range []string{"", "s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		if res.StatusCode == http.StatusUnauthorized {
			b, _ := io.ReadAll(res.Body)
			fmt.Printf("%d %s\n", res.StatusCode, b)
		} else {
			fmt.Println(res.StatusCode)
		}
		res.Body.Close()
	}
	// Output:
	// 401 {"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"unauthorized: the X-API-Key header is missing"}}
	// 200
}
