package mcp20251125_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// MCP's schema requires "type": "object" of a tool's inputSchema and
// outputSchema; AddTool and AddTypedTool refuse others, naming the tool.
func TestToolSchemasMustBeObjects(t *testing.T) {
	noop := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	tests := []struct {
		name string
		add  func() error
		want string
	}{
		{"output array", func() error {
			return srv.AddTool(mcp.Tool{Name: "a", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(`{"type":"array"}`)}, noop)
		}, `tool "a": outputSchema: the top-level type is "array"`},
		{"input without type", func() error {
			return srv.AddTool(mcp.Tool{Name: "b", InputSchema: []byte(`{"properties":{}}`)}, noop)
		}, `tool "b": inputSchema: the schema has no top-level "type"`},
		{"typed slice output", func() error {
			return mcp.AddTypedTool(srv, mcp.NewTool("c", ""), func(ctx context.Context, in struct{}) ([]string, error) { return nil, nil })
		}, `AddTypedTool: tool "c": output schema: the top-level type is "array"; an MCP tool schema must have "type": "object" (for a Go type, use a struct)`},
		{"typed int input", func() error {
			return mcp.AddTypedTool(srv, mcp.NewTool("d", ""), func(ctx context.Context, in int) (struct{}, error) { return struct{}{}, nil })
		}, `tool "d": input schema: the top-level type is "integer"`},
	}
	for _, tt := range tests {
		err := tt.add()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// The capabilities of initialize follow what was registered;
// WithCapabilities declares by hand.
func TestCapabilitiesInferred(t *testing.T) {
	noop := func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) { return nil, nil }
	read := func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
		return nil, nil
	}
	yes := true
	for _, tt := range []struct {
		name string
		opts []mcp.ServerOption
		add  func(srv *mcp.StandardServer)
		want string
	}{
		{"nothing", nil, func(*mcp.StandardServer) {}, `{"logging":{}}`},
		{"a tool and a resource", nil, func(srv *mcp.StandardServer) {
			srv.MustAddTool(mcp.NewTool("t", ""), noop)
			srv.MustAddResource(mcp.NewResource("notes://a", "a", ""), read)
		}, `{"logging":{},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`},
		{"by hand", []mcp.ServerOption{mcp.WithCapabilities(mcp.ServerCapabilities{Prompts: &mcp.ServerCapabilitiesPrompts{ListChanged: &yes}})},
			func(*mcp.StandardServer) {}, `{"logging":{},"prompts":{"listChanged":true}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}, tt.opts...)
			tt.add(srv)
			res, err := srv.Initialize(context.Background(), &mcp.InitializeRequestParams{ProtocolVersion: mcp.Revision})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := res.Capabilities.AppendJSON(nil)
			if string(b) != tt.want {
				t.Errorf("capabilities %s, want %s", b, tt.want)
			}
		})
	}
}

// A resource not found is -32002, the URI in data.
func TestResourceNotFound(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.MustAddResourceTemplate(mcp.ResourceTemplate{Name: "n", URITemplate: "notes://{id}"},
		func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFound(p.URI)
		})
	for _, uri := range []string{"notes://a", "other://b"} {
		_, err := srv.ReadResource(context.Background(), &mcp.ReadResourceRequestParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.ResourceNotFoundErrorCode || string(je.Data) != `{"uri":"`+uri+`"}` {
			t.Errorf("ReadResource(%s) = %v, want -32002 with the URI", uri, err)
		}
	}
}

// The middleware set once on a server of this era sees the calls over
// Streamable HTTP and HTTP+SSE, and on any transport given to Serve.
func TestMiddlewareSetOnce(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"},
		mcp.WithReceiveHook(func(ctx context.Context, m *mcp.Message) error {
			if !m.Notification { // notifications/initialized is handled apart, in its own time
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, m.Method)
			}
			return nil
		}))
	srv.MustAddTool(mcp.NewTool("echo", ""), func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return mcp.TextResult("echo"), nil
	})
	for _, tt := range []struct {
		name  string
		serve func(t *testing.T) transport.Transport
	}{
		{"Serve", func(t *testing.T) transport.Transport {
			a, b := transport.Pipe()
			go srv.Serve(context.Background(), a, session.Options{})
			return b
		}},
		{"HTTPHandler", func(t *testing.T) transport.Transport {
			h := srv.HTTPHandler(mcp.HTTPOptions{})
			hs := httptest.NewServer(h)
			t.Cleanup(func() { h.Close(); hs.Close() })
			return streamhttp.NewClient(hs.URL, streamhttp.ClientOptions{})
		}},
		{"SSEHandler", func(t *testing.T) transport.Transport {
			h := srv.SSEHandler(mcp.SSEOptions{})
			hs := httptest.NewServer(h)
			t.Cleanup(func() { h.Close(); hs.Close() })
			return ssehttp.NewClient(hs.URL, ssehttp.ClientOptions{})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s := session.New(session.Client, tt.serve(t), mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
			defer s.Close()
			if _, err := s.Initialize(ctx, &mcp.InitializeRequestParams{ProtocolVersion: mcp.Revision, ClientInfo: mcp.Implementation{Name: "c", Version: "1"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Call(ctx, "tools/call", &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(seen, []string{"initialize", "tools/call"}) {
				t.Errorf("the receive hook saw %v, want initialize and tools/call", seen)
			}
		})
	}
}

// A template registered again replaces the first, in its place; the
// Remove methods take a template and a resource out.
func TestRegistrationReplaces(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	read := func(text string) mcp.ResourceHandler {
		return func(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
			return mcp.ResourceText(p.URI, "", text), nil
		}
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		do    func() error
		names []string // the templates listed
		text  string   // the text of notes://7, or "" for not found
	}{
		{"a template", func() error {
			return srv.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "one", ""), read("first"))
		}, []string{"one"}, "first"},
		{"again", func() error {
			return srv.AddResourceTemplate(mcp.NewResourceTemplate("notes://{id}", "two", ""), read("second"))
		}, []string{"two"}, "second"},
		{"a resource", func() error { return srv.AddResource(mcp.NewResource("notes://7", "seven", ""), read("own")) }, []string{"two"}, "own"},
		{"the resource removed", func() error { srv.RemoveResource("notes://7"); return nil }, []string{"two"}, "second"},
		{"the template removed", func() error { srv.RemoveResourceTemplate("notes://{id}"); return nil }, nil, ""},
	} {
		if err := tt.do(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		list, _ := srv.ListResourceTemplates(ctx, nil)
		var names []string
		for _, x := range list.ResourceTemplates {
			names = append(names, x.Name)
		}
		if !slices.Equal(names, tt.names) {
			t.Errorf("%s: templates %q, want %q", tt.name, names, tt.names)
		}
		res, err := srv.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "notes://7"})
		var got string
		if err == nil {
			b, _ := res.Contents[0].MarshalJSON()
			got = string(b)
		}
		if (tt.text == "") != (err != nil) || !strings.Contains(got, tt.text) {
			t.Errorf("%s: read = %s, %v, want %q", tt.name, got, err, tt.text)
		}
	}
}
