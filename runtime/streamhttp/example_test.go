package streamhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A 2026-07-28 server checks the headers of a stateless POST against its
// body before the handler runs: Mcp-Method, Mcp-Name, and the Mcp-Param
// headers of the arguments the called tool marks with x-mcp-header. A tool
// whose annotations break the rules is refused by AddTool.
func ExampleNewServer_headers() {
	srv := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"})
	forecast := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "sunny"}}}}, nil
	}
	err := srv.AddTool(mcp.Tool{Name: "forecast", InputSchema: []byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}, forecast)
	fmt.Println("forecast:", err)
	err = srv.AddTool(mcp.Tool{Name: "score", InputSchema: []byte(`{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}}`)}, forecast)
	fmt.Println("score:", err)

	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"region":"eu-west"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, region := range []string{"eu-west", "us-east"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "forecast")
		req.Header.Set("Mcp-Param-Region", region)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		answer, _ := wire.Member(jsontext.Value(b), "error")
		if answer == nil {
			answer, _ = wire.Member(jsontext.Value(b), "result")
			answer, _ = wire.Member(answer, "content")
		}
		fmt.Printf("Mcp-Param-Region %s: %d %s\n", region, res.StatusCode, answer)
	}
	// Output:
	// forecast: <nil>
	// score: AddTool: tool "score": x-mcp-header at /properties/score/x-mcp-header: the property's type is "number"; x-mcp-header needs type string, integer or boolean
	// Mcp-Param-Region eu-west: 200 [{"type":"text","text":"sunny"}]
	// Mcp-Param-Region us-east: 400 {"code":-32020,"message":"header mismatch: Mcp-Param-Region: the value \"us-east\" does not match params/arguments/region \"eu-west\""}
}

// A client tells what it runs over: the server's host and port from the
// endpoint URL, the HTTP version of the latest response, and the session id
// once the server assigned one. Telemetry reads it through
// transport.Describe(session.Transport()).
func ExampleClient_Describe() {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	c := streamhttp.NewClient(ts.URL, streamhttp.ClientOptions{})
	before := c.Describe()
	fmt.Println("before:", before.Network, before.Protocol, before.Address, before.ProtocolVersion == "")
	// Connect with a 2025-11-25 client: a legacy session, with an id.
	cs, err := mcp.Connect(context.Background(), c, &mcp.ClientOptions{Revisions: []string{"2025-11-25"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	info := c.Describe()
	fmt.Println("after:", info.Network, info.Protocol, info.Address, info.ProtocolVersion, info.SessionID == c.SessionID() && info.SessionID != "")
	// Output:
	// before: tcp http 127.0.0.1 true
	// after: tcp http 127.0.0.1 1.1 true
}
