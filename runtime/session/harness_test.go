package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"

	_ "github.com/mcpgen/mcpgen/protocol/mcp20241105"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	_ "github.com/mcpgen/mcpgen/protocol/mcp20250618"
)

// peer is a scripted raw peer: it writes JSON text and reads what the
// session under test answers.
type peer struct {
	t  *testing.T
	tr transport.Transport
}

func (p *peer) send(text string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.tr.Write(ctx, []byte(text)); err != nil {
		p.t.Fatalf("send %s: %v", text, err)
	}
}

// recv returns the next payload, decoded.
func (p *peer) recv() any {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := p.tr.Read(ctx)
	if err != nil {
		p.t.Fatalf("recv: %v", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		p.t.Fatalf("recv: not JSON: %s", b)
	}
	return v
}

// recvMsg returns the next payload, which must be one message.
func (p *peer) recvMsg() map[string]any {
	p.t.Helper()
	v := p.recv()
	m, ok := v.(map[string]any)
	if !ok {
		p.t.Fatalf("recv: want a message, got %v", v)
	}
	return m
}

// call sends a request and returns its response.
func (p *peer) call(id int, method, params string) map[string]any {
	p.t.Helper()
	msg := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	p.send(msg + "}")
	return p.recvMsg()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// errorCode returns the error code of a response, or 0 for a result.
func errorCode(t *testing.T, m map[string]any) int {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

func errorMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", m)
	}
	return r
}

// initialize performs the client side of the handshake at rev.
func (p *peer) initialize(rev string) map[string]any {
	p.t.Helper()
	m := p.call(0, "initialize", `{"protocolVersion":"`+rev+`","capabilities":{"sampling":{},"roots":{"listChanged":true}},"clientInfo":{"name":"peer","version":"1"}}`)
	r := result(p.t, m)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.call(-1, "ping", "") // messages are handled in order: initialized has been seen
	return r
}

// testServer is the server the lifecycle tests run: a StandardServer with
// tools for the utilities.
func testServer(t *testing.T) *mcp.StandardServer {
	srv := mcp.NewServer(mcp.Implementation{Name: "test", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "echo", Title: ptr("Echo"), Icons: []mcp.Icon{{Src: "https://example.com/i.png"}}, InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(p.Arguments)}}}}, nil
		})
	srv.MustAddTool(mcp.Tool{Name: "block", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			blockedDone <- ctx.Err()
			return nil, ctx.Err()
		})
	srv.MustAddTool(mcp.Tool{Name: "panic", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			panic("boom")
		})
	srv.MustAddTool(mcp.Tool{Name: "progress", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			total := 3.0
			for i := 1; i <= 3; i++ {
				if err := session.ReportProgress(ctx, float64(i), &total, "step"); err != nil {
					return nil, err
				}
			}
			if err := session.ReportProgress(ctx, 2, &total, "backwards"); err == nil {
				return nil, errors.New("progress going backwards was accepted")
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "done"}}}}, nil
		})
	srv.MustAddTool(mcp.Tool{Name: "log", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			s, _ := session.FromContext(ctx)
			for _, level := range []string{"debug", "info", "error"} {
				if err := s.Log(ctx, level, "test", []byte(`"`+level+`"`)); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "logged"}}}}, nil
		})
	srv.MustAddTool(mcp.Tool{Name: "sample", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			ss, _ := mcp.ServerSessionFrom(ctx)
			r, err := ss.CreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingMessageContent{Value: &mcp.TextContent{Text: "hi"}}}}})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "model " + r.Model}}}}, nil
		})
	return srv
}

var blockedDone = make(chan error, 16)

func ptr[T any](v T) *T { return &v }

// serve starts srv on one end of a pipe and returns the scripted peer on
// the other, and the session's end.
func serve(t *testing.T, srv mcp.Server, opts session.Options) (*peer, *session.Session) {
	t.Helper()
	a, b := transport.Pipe()
	s := session.New(session.Server, a, mcp.NewServerHandler(srv), opts)
	t.Cleanup(func() {
		b.Close()
		select {
		case <-s.Done():
		case <-time.After(10 * time.Second):
			t.Error("the session did not end after its peer closed the connection")
		}
	})
	return &peer{t: t, tr: b}, s
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
