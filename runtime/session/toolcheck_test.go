package session_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	old "github.com/mcpgen/mcpgen/protocol/mcp20250618"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// listedServer lists tools with the schemas it is given, whatever they
// are, and answers every call with result.
// declaresTools declares the tools capability of a server that lists its
// tools by overriding ListTools, not by registering them.
var declaresTools = mcp.WithCapabilities(mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{}})

type listedServer struct {
	*mcp.StandardServer
	tools  []mcp.Tool
	result *mcp.CallToolResult
	calls  atomic.Int32
}

func (s *listedServer) ListTools(ctx context.Context, p *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: s.tools}, nil
}

func (s *listedServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	s.calls.Add(1)
	return s.result, nil
}

func TestClientChecksListedTools(t *testing.T) {
	fetched := atomic.Int32{}
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer canary.Close()

	srv := &listedServer{
		StandardServer: mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, declaresTools),
		result:         &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}, StructuredContent: []byte(`{"n":"not a number"}`)},
		tools: []mcp.Tool{
			{Name: "plain", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
			{Name: "draft07", InputSchema: []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/x"}}}`)},
			{Name: "draft04", InputSchema: []byte(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`)},
			{Name: "network-ref", InputSchema: []byte(`{"type":"object","properties":{"p":{"$ref":"` + canary.URL + `/profile.json"}}}`)},
			{Name: "invalid", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"strung"}}}`)},
			{Name: "typed-output", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"type":"object","properties":{"n":{"type":"number"}}}`)},
		},
	}
	var logs bytes.Buffer
	cs := connectTo(t, srv, session.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}

	unusable := cs.Session.UnusableTools()
	var names []string
	for name, err := range unusable {
		names = append(names, name)
		var ue *session.UnusableToolError
		if !errors.As(err, &ue) || ue.Tool != name || ue.Schema != "inputSchema" {
			t.Errorf("UnusableTools()[%q] = %v, want an *UnusableToolError for its inputSchema", name, err)
		}
	}
	if d := cmp.Diff([]string{"draft04", "invalid", "network-ref"}, sorted(names)); d != "" {
		t.Errorf("unusable tools (-want +got):\n%s", d)
	}
	if !strings.Contains(unusable["draft04"].Error(), "draft-04") {
		t.Errorf("draft04: %v, want the dialect named", unusable["draft04"])
	}
	if !strings.Contains(logs.String(), `tool=draft04`) {
		t.Errorf("no log line about draft04 in:\n%s", logs.String())
	}

	// A usable tool is called; an unusable one is refused without a
	// request.
	for _, name := range []string{"plain", "draft07"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: name}); err != nil {
			t.Errorf("call %s: %v", name, err)
		}
	}
	before := srv.calls.Load()
	_, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "network-ref"})
	var ue *session.UnusableToolError
	if !errors.As(err, &ue) || ue.Tool != "network-ref" {
		t.Errorf("call network-ref: err = %v, want an *UnusableToolError", err)
	}
	if srv.calls.Load() != before {
		t.Error("the unusable tool was called on the server")
	}
	if fetched.Load() != 0 {
		t.Errorf("the network $ref was fetched %d times", fetched.Load())
	}

	// structuredContent is checked against the listed outputSchema.
	_, err = cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "typed-output"})
	if err == nil || !strings.Contains(err.Error(), `tools/call "typed-output": the structuredContent does not match the tool's outputSchema`) || !strings.Contains(err.Error(), "/n") {
		t.Errorf("call typed-output: err = %v, want a mismatch naming /n", err)
	}
	srv.result.StructuredContent = []byte(`{"n":1.5}`)
	if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "typed-output"}); err != nil {
		t.Errorf("call typed-output with a matching result: %v", err)
	}
}

// Before 2025-11-25 there are no dialect rules: an unusable tool is
// reported but still called.
func TestClientReportsUnusableToolsBefore20251125(t *testing.T) {
	srv := &listedServer{
		StandardServer: mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, declaresTools),
		result:         &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}},
		tools:          []mcp.Tool{{Name: "draft04", InputSchema: []byte(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`)}},
	}
	serverEnd, clientEnd := transport.Pipe()
	ctx := context.Background()
	go mcp.Serve(ctx, serverEnd, srv, session.Options{})
	cs, err := old.Connect(ctx, clientEnd, &old.ClientOptions{Info: old.Implementation{Name: "c", Version: "1"}, Session: session.Options{Revisions: []string{"2025-06-18"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := cs.Revision().Name; got != "2025-06-18" {
		t.Fatalf("negotiated %s", got)
	}
	if _, ok := cs.Session.UnusableTools()["draft04"]; !ok {
		t.Error("draft04 not reported")
	}
	if _, err := cs.CallTool(ctx, &old.CallToolRequestParams{Name: "draft04"}); err != nil {
		t.Errorf("call at 2025-06-18: %v", err)
	}
	if srv.calls.Load() != 1 {
		t.Errorf("server saw %d calls, want 1", srv.calls.Load())
	}
}

func connectTo(t *testing.T, srv mcp.Server, opts session.Options) *mcp.ClientSession {
	t.Helper()
	serverEnd, clientEnd := transport.Pipe()
	ctx := context.Background()
	go mcp.Serve(ctx, serverEnd, srv, session.Options{})
	cs, err := mcp.Connect(ctx, clientEnd, &mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}, Session: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestClientToolCheckBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	n := session.MaxCheckedTools + 10
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + itoa(i) + `","inputSchema":{"$schema":"urn:unknown","type":"object"}}`)
	}
	b.WriteString(`]}`)
	if got := len(session.LearnTools([]byte(b.String()))); got != session.MaxCheckedTools {
		t.Errorf("%d tools listed: %d checked, want %d", n, got, session.MaxCheckedTools)
	}
}

func FuzzLearnTools(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"$schema":"x"},"outputSchema":null}]}`))
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"http://127.0.0.1:1/x"}}}}]}`))
	f.Add([]byte(`{"tools":{}}`))
	f.Fuzz(func(t *testing.T, res []byte) {
		for name, err := range session.LearnTools(res) {
			var ue *session.UnusableToolError
			if !errors.As(err, &ue) || ue.Tool != name {
				t.Fatalf("%q: %v", name, err)
			}
		}
	})
}
