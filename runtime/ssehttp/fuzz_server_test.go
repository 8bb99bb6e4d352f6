package ssehttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/ssehttp"
)

// FuzzServerPOST sends arbitrary bodies to a live session: the server
// answers each with 202, or with 400, 413 or 415 and a JSON-RPC error
// body; it never panics, and the session lives on.
func FuzzServerPOST(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":5,"method":7}`,
		`{"jsonrpc":`, ``, `null`, `[]`, `"x"`,
		`{"jsonrpc":"2.0","id":6,"method":"ping","id":7}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", 5000) + `"}}}`,
	} {
		f.Add([]byte(s))
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "fuzz", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: string(p.Arguments)}}}}, nil
		})
	h := ssehttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, ssehttp.ServerOptions{MaxBodyBytes: 4096})
	hs := httptest.NewServer(h)
	defer func() {
		h.Close()
		hs.Close()
	}()
	resp, err := http.Get(hs.URL + "/sse")
	if err != nil {
		f.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	endpoint := ""
	for endpoint == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			f.Fatal(err)
		}
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			endpoint = d
		}
	}
	go io.Copy(io.Discard, br) // the answers
	target := hs.URL + endpoint
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	for _, b := range []string{init, `{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(w, req)
		if w.Code != http.StatusAccepted {
			f.Fatalf("%s: %d %s", b, w.Code, w.Body)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusAccepted:
			if w.Body.Len() != 0 {
				t.Fatalf("202 with a body %q", w.Body)
			}
			return
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		default:
			t.Fatalf("POST %q: %d %s", body, w.Code, w.Body)
		}
		var answer any
		if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil || !strings.Contains(w.Body.String(), `"jsonrpc":"2.0"`) {
			t.Fatalf("POST %q: %d with a body that is not a JSON-RPC error: %s (%v)", body, w.Code, w.Body, err)
		}
	})
}
