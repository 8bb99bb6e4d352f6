package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// pipeServer runs the server on a pair of pipes and returns a function that
// sends one request line and returns the response with that id.
func pipeServer(t *testing.T) func(line string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- newServer().Serve(ctx, stdio.New(inR, outW), session.Options{}); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the server did not end at the end of its input")
		}
		cancel()
	})
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	return func(line string) map[string]any {
		t.Helper()
		var req struct{ ID any }
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		for range 100 { // notifications may come first
			if !lines.Scan() {
				t.Fatalf("no response to %s: %v", line, lines.Err())
			}
			var msg map[string]any
			if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
				t.Fatalf("bad line %s: %v", lines.Bytes(), err)
			}
			if msg["id"] == req.ID && req.ID != nil {
				return msg
			}
		}
		t.Fatalf("no response to %s among 100 messages", line)
		return nil
	}
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestForecast(t *testing.T) {
	tests := []struct {
		name       string
		args       string
		isError    bool
		want       string // in the text of the first content block
		wantDays   float64
		wantCity   string
		structured bool
	}{
		{name: "default days", args: `{"city":"Oslo"}`, want: `"days":3`, wantDays: 3, wantCity: "Oslo", structured: true},
		{name: "days given", args: `{"city":"Lima","days":7}`, want: `"city":"Lima"`, wantDays: 7, wantCity: "Lima", structured: true},
		{name: "days above 7", args: `{"city":"Oslo","days":99}`, isError: true, want: "/days: must be <= 7"},
		{name: "days below 1", args: `{"city":"Oslo","days":0}`, isError: true, want: "/days: must be >= 1"},
		{name: "city missing", args: `{}`, isError: true, want: "/city: required"},
		{name: "unknown member", args: `{"city":"Oslo","dayz":2}`, isError: true, want: "/dayz: unknown member"},
	}
	for _, era := range []struct{ name, init, meta string }{
		{"2026-07-28", "", meta26},
		{"2025-11-25", `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, `"_meta":{}`},
	} {
		t.Run(era.name, func(t *testing.T) {
			call := pipeServer(t)
			if era.init != "" {
				if res := call(era.init); res["result"] == nil {
					t.Fatalf("initialize: %v", res)
				}
			}
			for i, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					resp := call(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"forecast","arguments":` + tt.args + `,` + era.meta + `}}`)
					res, ok := resp["result"].(map[string]any)
					if !ok {
						t.Fatalf("not a result: %v", resp)
					}
					if diff := cmp.Diff(tt.isError, res["isError"] == true); diff != "" {
						t.Errorf("isError (-want +got):\n%s\nresult: %v", diff, res)
					}
					content, _ := res["content"].([]any)
					first, _ := content[0].(map[string]any)
					if text, _ := first["text"].(string); !strings.Contains(text, tt.want) {
						t.Errorf("text = %q, want it to contain %q", text, tt.want)
					}
					sc, has := res["structuredContent"].(map[string]any)
					if has != tt.structured {
						t.Fatalf("structuredContent present = %v, want %v: %v", has, tt.structured, res)
					}
					if has {
						want := map[string]any{"city": tt.wantCity, "days": tt.wantDays, "summary": "Sunny in " + tt.wantCity + "."}
						if diff := cmp.Diff(want, sc); diff != "" {
							t.Errorf("structuredContent (-want +got):\n%s", diff)
						}
					}
				})
			}
			t.Run("tools/list", func(t *testing.T) {
				resp := call(`{"jsonrpc":"2.0","id":100,"method":"tools/list","params":{` + era.meta + `}}`)
				res, _ := resp["result"].(map[string]any)
				tools, _ := res["tools"].([]any)
				if len(tools) != 1 {
					t.Fatalf("tools/list: %v", resp)
				}
				tool := tools[0].(map[string]any)
				want := map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []any{"city"},
					"properties": map[string]any{
						"city": map[string]any{"type": "string", "description": "City name"},
						"days": map[string]any{"type": "integer", "description": "Days ahead", "minimum": float64(1), "maximum": float64(7), "default": float64(3)},
					},
				}
				if diff := cmp.Diff(want, tool["inputSchema"]); diff != "" {
					t.Errorf("inputSchema (-want +got):\n%s", diff)
				}
				if _, ok := tool["outputSchema"].(map[string]any); !ok {
					t.Errorf("no outputSchema: %v", tool)
				}
			})
			t.Run("plan-trip", func(t *testing.T) {
				resp := call(`{"jsonrpc":"2.0","id":101,"method":"prompts/get","params":{"name":"plan-trip","arguments":{"city":"Oslo"},` + era.meta + `}}`)
				res, _ := resp["result"].(map[string]any)
				msgs, _ := res["messages"].([]any)
				if len(msgs) != 1 || !strings.Contains(mustJSON(t, msgs[0]), "Plan a trip to Oslo.") {
					t.Errorf("prompts/get: %v", resp)
				}
			})
			t.Run("plan-trip without city", func(t *testing.T) {
				resp := call(`{"jsonrpc":"2.0","id":103,"method":"prompts/get","params":{"name":"plan-trip","arguments":{},` + era.meta + `}}`)
				e, _ := resp["error"].(map[string]any)
				if code, _ := e["code"].(float64); code != -32602 || !strings.Contains(fmt.Sprint(e["message"]), `"city"`) {
					t.Errorf("prompts/get without its required argument: %v, want -32602 naming \"city\"", resp)
				}
			})
			t.Run("weather://cities", func(t *testing.T) {
				resp := call(`{"jsonrpc":"2.0","id":102,"method":"resources/read","params":{"uri":"weather://cities",` + era.meta + `}}`)
				res, _ := resp["result"].(map[string]any)
				contents, _ := res["contents"].([]any)
				if len(contents) != 1 {
					t.Fatalf("resources/read: %v", resp)
				}
				c := contents[0].(map[string]any)
				var cities []string
				if err := json.Unmarshal([]byte(c["text"].(string)), &cities); err != nil || c["mimeType"] != "application/json" || len(cities) == 0 {
					t.Errorf("resources/read: %v (%v)", c, err)
				}
			})
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
