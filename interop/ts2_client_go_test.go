package interop_test

// The other direction of the TypeScript SDK v2 interop: this project's
// client of both eras (mcp20260728.Connect) against ts2-server.mjs, a
// TypeScript SDK v2 server (see TS2-SERVER.md), over stdio and Streamable
// HTTP at 2026-07-28, and against the SDK v1 reference server
// (server-everything), where it falls back to initialize.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20251125" // the fallback's revision
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// goClient answers the TS server's elicitations and records the resource
// updates its subscription brings.
type goClient struct {
	m26.UnimplementedClient
	mu      sync.Mutex
	asked   int
	updated chan string
}

func (c *goClient) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	c.mu.Lock()
	c.asked++
	c.mu.Unlock()
	return &m26.ElicitResult{Action: m26.ElicitResultActionAccept, Content: map[string]m26.ElicitResultContentValue{
		"name": {Value: m26.ElicitResultContentValueString("Grace")},
	}}, nil
}

func (c *goClient) ResourceUpdated(ctx context.Context, p *m26.ResourceUpdatedNotificationParams) {
	select {
	case c.updated <- p.URI:
	default:
	}
}

// goClientReport is what TestGoClientTS2Server compares.
type goClientReport struct {
	Era, Revision string
	Tools         []string
	Echo          string
	AskName       string
	Asked         int
	Lookup        string
	Acknowledged  string
	Updated       string
	Counter       string
}

func firstText(res *m26.CallToolResult, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	if len(res.Content) == 0 {
		return "(no content)"
	}
	if t, ok := res.Content[0].Value.(*m26.TextContent); ok {
		return t.Text
	}
	return "(not text)"
}

// runGoClient connects to the server on tr and goes through the TS
// server's features.
func runGoClient(t *testing.T, ctx context.Context, tr transport.Transport) goClientReport {
	t.Helper()
	c := &goClient{updated: make(chan string, 1)}
	caps := m26.ClientCapabilities{Elicitation: &m26.ClientCapabilitiesElicitation{Form: m26.JSONObject{}}}
	cs, err := m26.Connect(ctx, tr, &m26.ClientOptions{Info: m26.Implementation{Name: "mcpgen-interop", Version: "1"}, Capabilities: caps, Handler: c})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	var r goClientReport
	r.Era, r.Revision = cs.Era().String(), cs.Revision().Name
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	for _, tl := range list.Tools {
		r.Tools = append(r.Tools, tl.Name)
	}
	r.Echo = firstText(cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)}))
	r.AskName = firstText(cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "ask_name", Arguments: []byte(`{}`)}))
	r.Asked = c.asked
	// Mcp-Param-Region carries a value that is not header-safe (Base64).
	r.Lookup = firstText(cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "lookup", Arguments: []byte(`{"region":" zürich ","count":3,"verbose":true}`)}))
	sub, err := cs.Listen(ctx, &m26.SubscriptionsListenRequestParams{Notifications: m26.SubscriptionFilter{ResourceSubscriptions: []string{"mcpgen-interop://counter"}}})
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	r.Acknowledged = string(sub.Acknowledged())
	r.Counter = firstText(cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "touch", Arguments: []byte(`{}`)}))
	select {
	case r.Updated = <-c.updated:
	case <-ctx.Done():
		t.Fatal("no notifications/resources/updated on the subscription")
	}
	if err := sub.Close(); err != nil {
		t.Fatalf("closing the subscription: %v", err)
	}
	return r
}

func TestGoClientTS2Server(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	script := filepath.Join(interop, "ts2-server.mjs")
	want := goClientReport{
		Era: "modern", Revision: m26.Revision,
		Tools:        []string{"echo", "ask_name", "lookup", "touch"},
		Echo:         "hi",
		AskName:      `Hello, Grace! (state {"round":1})`,
		Asked:        1,
		Lookup:       `lookup {"region":" zürich ","count":3,"verbose":true}`,
		Acknowledged: `{"resourceSubscriptions":["mcpgen-interop://counter"]}`,
		Updated:      "mcpgen-interop://counter",
		Counter:      "counter=1",
	}
	t.Run("http", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		srv := startHTTPServer(t, exec.Command(node, script), fixtureURLLine)
		got := runGoClient(t, ctx, streamhttp.NewClient(srv.url, streamhttp.ClientOptions{}))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the Go client against ts2-server.mjs over HTTP (-want +got):\n%s", diff)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		var stderr lockedBuffer
		proc, err := stdio.Command(ctx, exec.Command(node, script, "--stdio"), stdio.WithStderr(&stderr), stdio.WithGrace(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got := runGoClient(t, ctx, proc)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the Go client against ts2-server.mjs over stdio (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
		}
	})
}

// TestGoClientFallbackTS1 runs the client of both eras against the SDK v1
// reference server, over stdio and Streamable HTTP: the probe is refused,
// the client falls back to initialize, and the legacy session works with
// the 2026-07-28 types.
func TestGoClientFallbackTS1(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	entry := filepath.Join(interop, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("server-everything is not installed: %v", err)
	}
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		var stderr lockedBuffer
		proc, err := stdio.Command(ctx, exec.Command(node, entry, "stdio"), stdio.WithStderr(&stderr), stdio.WithGrace(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		fallback(t, ctx, proc, &stderr)
	})
	t.Run("http", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		fallback(t, ctx, streamhttp.NewClient(startHTTPEverything(t), streamhttp.ClientOptions{}), nil)
	})
}

// fallback connects on tr to a legacy-only server and uses it.
func fallback(t *testing.T, ctx context.Context, tr transport.Transport, stderr *lockedBuffer) {
	t.Helper()
	cs, err := m26.Connect(ctx, tr, &m26.ClientOptions{Info: m26.Implementation{Name: "mcpgen-interop", Version: "1"}})
	if err != nil {
		if stderr != nil {
			t.Logf("stderr:\n%s", stderr.String())
		}
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if cs.Era() != session.EraLegacy || cs.Revision().Name != "2025-11-25" {
		t.Errorf("era %v at %v, want legacy at 2025-11-25", cs.Era(), cs.Revision())
	}
	res, err := cs.CallTool(ctx, &m26.CallToolRequestParams{Name: "echo", Arguments: []byte(`{"message":"fallback"}`)})
	if got := firstText(res, err); !strings.Contains(got, "fallback") {
		t.Errorf("echo after the fallback = %q", got)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	if list.ResultType != "complete" || list.CacheScope != "private" {
		t.Errorf("a legacy tools/list reads as resultType %q, cacheScope %q; want complete, private", list.ResultType, list.CacheScope)
	}
	if b, _ := json.Marshal(list.Tools); len(list.Tools) == 0 {
		t.Errorf("no tools: %s", b)
	}
}
