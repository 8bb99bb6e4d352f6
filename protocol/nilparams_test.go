package protocol_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/protocol/mcp20241105"
	"github.com/mcpgen/mcpgen/protocol/mcp20250326"
	"github.com/mcpgen/mcpgen/protocol/mcp20250618"
	"github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// standardServers returns a new StandardServer of every revision package.
func standardServers() map[string]any {
	return map[string]any{
		"2024-11-05": mcp20241105.NewServer(mcp20241105.Implementation{Name: "s", Version: "1"}),
		"2025-03-26": mcp20250326.NewServer(mcp20250326.Implementation{Name: "s", Version: "1"}),
		"2025-06-18": mcp20250618.NewServer(mcp20250618.Implementation{Name: "s", Version: "1"}),
		"2025-11-25": mcp20251125.NewServer(mcp20251125.Implementation{Name: "s", Version: "1"}),
		"2026-07-28": mcp20260728.NewServer(mcp20260728.Implementation{Name: "s", Version: "1"}),
	}
}

// A StandardServer's methods, called from Go with nil params, never
// panic: a list method lists the first page, a method that needs its
// params answers -32602 saying so.
func TestStandardServerNilParams(t *testing.T) {
	for rev, srv := range standardServers() {
		for _, tt := range []struct {
			method string
			want   string // the error's message; "": a result
		}{
			{"ListTools", ""},
			{"ListPrompts", ""},
			{"ListResources", ""},
			{"ListResourceTemplates", ""},
			{"CallTool", `tools/call: no params: "name" is required`},
			{"GetPrompt", `prompts/get: no params: "name" is required`},
			{"ReadResource", `resources/read: no params: "uri" is required`},
		} {
			t.Run(rev+"/"+tt.method, func(t *testing.T) {
				m := reflect.ValueOf(srv).MethodByName(tt.method)
				if !m.IsValid() {
					t.Fatalf("StandardServer of %s has no method %s", rev, tt.method)
				}
				var out []reflect.Value
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s(ctx, nil) panicked: %v", tt.method, p)
						}
					}()
					out = m.Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.Zero(m.Type().In(1))})
				}()
				err, _ := out[1].Interface().(error)
				if tt.want == "" {
					if err != nil || out[0].IsNil() {
						t.Errorf("%s(ctx, nil) = %v, %v, want the first page", tt.method, out[0], err)
					}
					return
				}
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != jsonrpc.InvalidParams || !strings.Contains(je.Message, tt.want) {
					t.Errorf("%s(ctx, nil) = %v, want -32602 saying %q", tt.method, fmt.Sprint(err), tt.want)
				}
			})
		}
	}
}
