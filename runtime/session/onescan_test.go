package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/transport"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// twiceServer is a 2026-07-28 server whose tool "twice" asks for the
// client's roots under the key "r", then again under "r2": a request goes
// three rounds, the middle one opening a requestState and sealing the
// next.
func twiceServer(t *testing.T) *m26.StandardServer {
	t.Helper()
	srv := m26.NewServer(m26.Implementation{Name: "twice", Version: "1"})
	err := srv.AddTool(m26.Tool{Name: "twice", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			for _, key := range []string{"r", "r2"} {
				if _, err := m26.ListRoots(ctx, key); err != nil {
					return nil, err
				}
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "done"}}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// twiceParams returns the params of a tools/call of "twice" with the
// members extra (inputResponses, requestState; "" for none).
func twiceParams(extra string) string {
	p := `{` + rootsMeta + `,"name":"twice","arguments":{"a":1}`
	if extra != "" {
		p += `,` + extra
	}
	return p + `}`
}

// A stateless request's params are scanned once per request however it
// arrives (a Streamable HTTP POST, Stateless.Serve, a Session over a
// pipe), and the digest binding its requestState is computed at most once
// per request: the middle round of a three-round request opens one state
// and seals the next with the same digest.
func TestStatelessParamsScannedOnce(t *testing.T) {
	endpoints := []struct {
		name string
		open func(t *testing.T, srv *m26.StandardServer) func(t *testing.T, params string) []byte
	}{
		{"http", func(t *testing.T, srv *m26.StandardServer) func(t *testing.T, params string) []byte {
			h := streamhttp.NewServer(func() session.Handler { return srv.Handler() }, streamhttp.ServerOptions{JSONResponse: true})
			ts := httptest.NewServer(h)
			t.Cleanup(func() { ts.Close(); h.Close() })
			hc := &http.Client{Timeout: 10 * time.Second}
			return func(t *testing.T, params string) []byte {
				body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
				req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "twice")
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("POST: %d %s %v", resp.StatusCode, b, err)
				}
				var m struct {
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(b, &m); err != nil || m.Result == nil {
					t.Fatalf("POST answered %s (%v), want a result", b, err)
				}
				return m.Result
			}
		}},
		{"Stateless.Serve", func(t *testing.T, srv *m26.StandardServer) func(t *testing.T, params string) []byte {
			x := session.NewStateless(srv.Handler(), session.Options{})
			t.Cleanup(x.Close)
			return func(t *testing.T, params string) []byte {
				m, _ := x.Serve(context.Background(), &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/call", Params: []byte(params)}, func(context.Context, []byte) error { return nil })
				if m.Error != nil {
					t.Fatalf("Serve: %v", m.Error)
				}
				return m.Result
			}
		}},
		{"Session", func(t *testing.T, srv *m26.StandardServer) func(t *testing.T, params string) []byte {
			a, b := transport.Pipe()
			sess := session.New(session.Server, a, srv.Handler(), session.Options{})
			t.Cleanup(func() { sess.Close() })
			p := &peer{t: t, tr: b}
			return func(t *testing.T, params string) []byte {
				m := p.call(1, "tools/call", params)
				r, ok := m["result"]
				if !ok {
					t.Fatalf("answer %v, want a result", m)
				}
				out, _ := json.Marshal(r)
				return out
			}
		}},
	}
	rounds := []struct {
		answers string // the inputResponses of the round, "" for none
		want    string // resultType
	}{
		{"", "input_required"},
		{`"inputResponses":{"r":{"roots":[]}}`, "input_required"},
		{`"inputResponses":{"r2":{"roots":[]}}`, "complete"},
	}
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			send := ep.open(t, twiceServer(t))
			scans, digests := session.CountScans(t)
			state := ""
			for i, r := range rounds {
				extra := r.answers
				if state != "" {
					extra += `,"requestState":` + state
				}
				before, beforeDigests := scans.Load(), digests.Load()
				res := send(t, twiceParams(strings.TrimPrefix(extra, ",")))
				if n := scans.Load() - before; n != 1 {
					t.Errorf("round %d: the params were scanned %d times, want 1", i+1, n)
				}
				if n := digests.Load() - beforeDigests; n != 1 {
					t.Errorf("round %d: the params were digested %d times, want 1 (to seal or open a requestState, or both)", i+1, n)
				}
				var got struct {
					ResultType   string          `json:"resultType"`
					RequestState json.RawMessage `json:"requestState"`
				}
				if err := json.Unmarshal(res, &got); err != nil || got.ResultType != r.want {
					t.Fatalf("round %d: result %s, want resultType %q", i+1, res, r.want)
				}
				state = string(bytes.TrimSpace(got.RequestState))
			}
		})
	}
}
