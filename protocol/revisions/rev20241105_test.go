package revisions_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// The oldest revision the module ships, 2024-11-05, against a server
// written on the newest package (which, with protocol/revisions linked,
// serves every revision): clients that still speak 2024-11-05, over the
// HTTP+SSE transport of that revision or over stdio (or over Streamable
// HTTP, which does not tie the revision: see streamHTTPTransport), get
// their own revision, and what they receive is said in its types. The
// server below uses what 2024-11-05 lacks: a server title, a tool title,
// tool annotations and an output schema, structured content, a progress
// message, the completions capability and audio content.

func ptr[T any](v T) *T { return &v }

// newestServer is a 2026-07-28 server that uses what 2024-11-05 does not
// have.
func newestServer(t *testing.T) *mcp20260728.StandardServer {
	t.Helper()
	srv := mcp20260728.NewServer(mcp20260728.Implementation{Name: "newest", Version: "1", Title: ptr("The newest server")})
	err := srv.AddTool(mcp20260728.Tool{
		Name:         "forecast",
		Title:        ptr("Forecast"),
		Description:  ptr("The weather in a city."),
		InputSchema:  []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema: []byte(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`),
		Annotations:  &mcp20260728.ToolAnnotations{Title: ptr("Forecast"), ReadOnlyHint: ptr(true)},
	}, func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
		if err := session.ReportProgress(ctx, 1, ptr(2.0), "asking the sky"); err != nil {
			return nil, err
		}
		return &mcp20260728.CallToolResult{
			Content:           []mcp20260728.ContentBlock{{Value: &mcp20260728.TextContent{Text: "sunny, 21 °C"}}},
			StructuredContent: []byte(`{"celsius":21}`),
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.AddTool(mcp20260728.Tool{Name: "chime", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
			return &mcp20260728.CallToolResult{Content: []mcp20260728.ContentBlock{{Value: &mcp20260728.AudioContent{Data: "UklGRg==", MIMEType: "audio/wav"}}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetCompletion(func(ctx context.Context, p *mcp20260728.CompleteRequestParams) (*mcp20260728.CompleteResult, error) {
		res := &mcp20260728.CompleteResult{}
		res.Completion.Values = []string{"Paris"}
		return res, nil
	})
	return srv
}

// stdioTransport serves srv on one end of a pair of pipes and returns the
// other end.
func stdioTransport(t *testing.T, srv *mcp20260728.StandardServer) transport.Transport {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, stdio.New(toServer, toClient), session.Options{}) }()
	c := stdio.New(fromServer, fromClient)
	t.Cleanup(func() {
		c.Close()
		fromClient.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the stdio server did not end within 10 s")
		}
		toClient.Close()
	})
	return c
}

// sseTransport serves srv over HTTP+SSE on 127.0.0.1 and returns a client
// transport for it.
func sseTransport(t *testing.T, srv *mcp20260728.StandardServer) transport.Transport {
	t.Helper()
	h := ssehttp.NewServer(srv.Handler, ssehttp.ServerOptions{})
	hs := httptest.NewServer(h)
	c := ssehttp.NewClient(hs.URL, ssehttp.ClientOptions{})
	t.Cleanup(func() {
		c.Close()
		hs.Close()
		h.Close()
	})
	return c
}

// streamHTTPTransport serves srv over Streamable HTTP on 127.0.0.1 and
// returns a client transport for it. The revision a session speaks is
// negotiated in initialize whatever the transport (the lifecycle's rule:
// a server that has the revision the client asks for answers with it);
// the specification's backwards-compatibility advice for servers is to
// keep the old HTTP+SSE endpoints beside the new one, which ssehttp does.
func streamHTTPTransport(t *testing.T, srv *mcp20260728.StandardServer) transport.Transport {
	t.Helper()
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{})
	hs := httptest.NewServer(h)
	c := streamhttp.NewClient(hs.URL, streamhttp.ClientOptions{})
	t.Cleanup(func() {
		c.Close()
		hs.Close()
		h.Close()
	})
	return c
}

var transports = []struct {
	name string
	new  func(*testing.T, *mcp20260728.StandardServer) transport.Transport
}{
	{"stdio", stdioTransport},
	{"HTTP+SSE", sseTransport},
	{"Streamable HTTP", streamHTTPTransport},
}

// rawPeer speaks JSON-RPC text on a client transport.
type rawPeer struct {
	t  *testing.T
	tr transport.Transport
}

func (p rawPeer) send(text string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.tr.Write(ctx, []byte(text)); err != nil {
		p.t.Fatalf("send %s: %v", text, err)
	}
}

// recv returns the next message, decoded, and its text.
func (p rawPeer) recv() (map[string]any, string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := p.tr.Read(ctx)
	if err != nil {
		p.t.Fatalf("recv: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		p.t.Fatalf("recv: not one JSON-RPC message: %s", b)
	}
	return m, string(b)
}

// keys returns the member names of the object v, sorted.
func keys(t *testing.T, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestRawClient20241105 is a client that speaks 2024-11-05 as plain
// JSON-RPC: it initializes, lists the tools, calls them, and sees only
// what 2024-11-05 has.
func TestRawClient20241105(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			p := rawPeer{t, tr.new(t, newestServer(t))}
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
			m, text := p.recv()
			res, _ := m["result"].(map[string]any)
			if m["id"] != 1.0 || res["protocolVersion"] != "2024-11-05" {
				t.Fatalf("initialize answered %s, want protocolVersion 2024-11-05", text)
			}
			// Implementation.title came in 2025-06-18, the completions
			// capability in 2025-03-26.
			if got := keys(t, res["serverInfo"]); !slices.Equal(got, []string{"name", "version"}) {
				t.Errorf("serverInfo has %v, want name and version only: %s", got, text)
			}
			caps := keys(t, res["capabilities"])
			if slices.Contains(caps, "completions") || !slices.Contains(caps, "tools") {
				t.Errorf("capabilities %v: want tools and no completions: %s", caps, text)
			}
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			m, text = p.recv()
			res, _ = m["result"].(map[string]any)
			tools, _ := res["tools"].([]any)
			if m["id"] != 2.0 || len(tools) != 2 {
				t.Fatalf("tools/list answered %s, want two tools", text)
			}
			for _, tool := range tools {
				// Tool.annotations came in 2025-03-26, title and
				// outputSchema in 2025-06-18.
				if got := keys(t, tool); slices.Contains(got, "annotations") || slices.Contains(got, "title") || slices.Contains(got, "outputSchema") {
					t.Errorf("a tool has %v: annotations, title and outputSchema are not 2024-11-05's: %s", got, text)
				}
			}
			if !strings.Contains(text, `"description":"The weather in a city."`) || !strings.Contains(text, `"required":["city"]`) {
				t.Errorf("tools/list lost what 2024-11-05 has: %s", text)
			}

			p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Paris"},"_meta":{"progressToken":"p"}}}`)
			m, text = p.recv()
			// ProgressNotification.params.message came in 2025-03-26.
			if m["method"] != "notifications/progress" || strings.Contains(text, "asking the sky") || !strings.Contains(text, `"total":2`) {
				t.Fatalf("got %s, want a progress notification of 1 out of 2 without its message", text)
			}
			m, text = p.recv()
			res, _ = m["result"].(map[string]any)
			// CallToolResult.structuredContent came in 2025-06-18;
			// resultType is the stateless era's.
			if m["id"] != 3.0 || !slices.Equal(keys(t, res), []string{"content"}) || !strings.Contains(text, "sunny, 21 °C") {
				t.Fatalf("tools/call forecast answered %s, want its text content only", text)
			}

			// Audio content came in 2025-03-26: the result cannot be said
			// in 2024-11-05, and is not sent.
			p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"chime","arguments":{}}}`)
			m, text = p.recv()
			e, _ := m["error"].(map[string]any)
			if m["id"] != 4.0 || e["code"] != -32603.0 || !strings.Contains(text, "2024-11-05") || strings.Contains(text, "UklGRg==") {
				t.Fatalf("tools/call chime answered %s, want -32603 saying the result cannot be expressed in 2024-11-05", text)
			}

			// completion/complete has no capability gate in 2024-11-05.
			p.send(`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"city","value":"Pa"}}}`)
			if m, text = p.recv(); m["id"] != 5.0 || !strings.Contains(text, `"values":["Paris"]`) || strings.Contains(text, "resultType") {
				t.Fatalf("completion/complete answered %s", text)
			}
		})
	}
}

// TestBatch20241105 checks that a 2024-11-05 session has no JSON-RPC
// batches (they are in the 2025-03-26 schema only): a batch is refused,
// and the session goes on.
func TestBatch20241105(t *testing.T) {
	p := rawPeer{t, stdioTransport(t, newestServer(t))}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	if m, text := p.recv(); m["error"] == nil || m["id"] != nil {
		t.Fatalf("a batch was answered %s, want an error without id", text)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if m, text := p.recv(); m["id"] != 4.0 || m["result"] == nil {
		t.Fatalf("ping after the batch answered %s", text)
	}
}

// TestStreamableHTTP20241105Header checks that a Streamable HTTP session
// of 2024-11-05 accepts requests that name it in MCP-Protocol-Version, as
// a client that sends the header with every revision does, and refuses a
// batch.
func TestStreamableHTTP20241105Header(t *testing.T) {
	srv := newestServer(t)
	h := streamhttp.NewServer(srv.Handler, streamhttp.ServerOptions{JSONResponse: true})
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		hs.Close()
		h.Close()
	})
	post := func(sid, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2024-11-05")
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(body, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize: %s, session %q: %s", resp.Status, sid, body)
	}
	if resp, body := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s %s", resp.Status, body)
	}
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"request", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusOK, `"name":"forecast"`},
		{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`, http.StatusBadRequest, "batches are not part of this revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if resp, body := post(sid, tt.body); resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Fatalf("%s: %s %s, want %d with %s", tt.body, resp.Status, body, tt.status, tt.want)
			}
		})
	}
}

// TestClientPinned20241105 checks that mcpgen clients pinned to 2024-11-05
// negotiate it with the newest server and work: one on the 2024-11-05
// types, and one on the newest types, whose session then speaks
// 2024-11-05 (initialize instead of the stateless era's probe, and
// results converted to its types).
func TestClientPinned20241105(t *testing.T) {
	pinned := session.Options{Revisions: []string{"2024-11-05"}}
	for _, tr := range transports {
		t.Run(tr.name+", 2024-11-05 types", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp20241105.Connect(ctx, tr.new(t, newestServer(t)), &mcp20241105.ClientOptions{Info: mcp20241105.Implementation{Name: "pinned", Version: "1"}, Session: pinned})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			if r := cs.Revision(); r == nil || r.Name != "2024-11-05" {
				t.Fatalf("negotiated %v, want 2024-11-05", r)
			}
			list, err := cs.ListTools(ctx, &mcp20241105.ListToolsRequestParams{})
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if len(list.Tools) != 2 || list.Tools[0].Name != "forecast" || list.Tools[0].Description == nil {
				t.Fatalf("tools/list: %+v", list.Tools)
			}
			res, err := cs.CallTool(ctx, &mcp20241105.CallToolRequestParams{Name: "forecast", Arguments: []byte(`{"city":"Paris"}`)})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if tc, ok := res.Content[0].Value.(*mcp20241105.TextContent); len(res.Content) != 1 || !ok || tc.Text != "sunny, 21 °C" {
				t.Fatalf("tools/call: %+v", res)
			}
		})
		t.Run(tr.name+", newest types", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp20260728.Connect(ctx, tr.new(t, newestServer(t)), &mcp20260728.ClientOptions{Info: mcp20260728.Implementation{Name: "pinned", Version: "1"}, Session: pinned})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			if r := cs.Revision(); r == nil || r.Name != "2024-11-05" || cs.Era() != session.EraLegacy {
				t.Fatalf("negotiated %v (era %v), want 2024-11-05", r, cs.Era())
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			for _, tool := range list.Tools {
				if tool.Title != nil || tool.Annotations != nil || tool.OutputSchema != nil {
					t.Errorf("tool %s kept what 2024-11-05 lacks: %+v", tool.Name, tool)
				}
			}
			res, err := cs.CallTool(ctx, &mcp20260728.CallToolRequestParams{Name: "forecast", Arguments: []byte(`{"city":"Paris"}`)})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if tc, ok := res.Content[0].Value.(*mcp20260728.TextContent); !ok || tc.Text != "sunny, 21 °C" || res.StructuredContent != nil {
				t.Fatalf("tools/call: %+v", res)
			}
		})
	}
}
