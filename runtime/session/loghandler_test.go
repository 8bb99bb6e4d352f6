package session_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// slogServer has a tool that logs through slog at every MCP level.
func slogServer() *m26.StandardServer {
	srv := m26.NewServer(m26.Implementation{Name: "s", Version: "1"})
	srv.MustAddTool(m26.Tool{Name: "slog", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
			log := slog.New(session.LogHandler(ctx).WithLogger("db")).With("city", "Oslo").WithGroup("q")
			for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, session.LevelNotice, slog.LevelWarn, slog.LevelError, session.LevelCritical} {
				log.Log(ctx, l, "step", "n", 1, "err", errors.New("bad"), slog.Group("g", "d", time.Second))
			}
			return &m26.CallToolResult{Content: []m26.ContentBlock{{Value: &m26.TextContent{Text: "ok"}}}}, nil
		})
	return srv
}

// TestLogHandler checks the levels sent in both eras and the data object.
func TestLogHandler(t *testing.T) {
	const data = `{"msg":"step","city":"Oslo","q":{"n":1,"err":"bad","g":{"d":"1s"}}}`
	for _, tc := range []struct {
		name   string
		legacy string // the level set with logging/setLevel; "" for a stateless request
		meta   string // _meta's log level of the stateless request; "" for none
		want   []string
	}{
		{"legacy, no level set", "-", "", []string{"debug", "info", "notice", "warning", "error", "critical"}},
		{"legacy, warning", "warning", "", []string{"warning", "error", "critical"}},
		{"stateless, no level", "", "", nil},
		{"stateless, error", "", "error", []string{"error", "critical"}},
		{"stateless, debug", "", "debug", []string{"debug", "info", "notice", "warning", "error", "critical"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := transport.Pipe()
			s := session.New(session.Server, a, slogServer().Handler(), session.Options{})
			t.Cleanup(func() { s.Close() })
			p := &peer{t: t, tr: b}
			params := `{"name":"slog"}`
			if tc.legacy != "" {
				p.initialize("2025-11-25")
				if tc.legacy != "-" {
					p.call(2, "logging/setLevel", `{"level":"`+tc.legacy+`"}`)
				}
			} else {
				level := ""
				if tc.meta != "" {
					level = `,"io.modelcontextprotocol/logLevel":"` + tc.meta + `"`
				}
				params = `{"name":"slog","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}` + level + `}}`
			}
			p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + params + `}`)
			var got []string
			for range 10 {
				m := p.recvMsg()
				if m["id"] != nil {
					break
				}
				ps := m["params"].(map[string]any)
				got = append(got, ps["level"].(string))
				if ps["logger"] != "db" {
					t.Errorf("logger = %v, want db", ps["logger"])
				}
				var want any
				if err := jsonUnmarshal([]byte(data), &want); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, ps["data"]); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("levels sent (-want +got):\n%s", diff)
			}
		})
	}
}
