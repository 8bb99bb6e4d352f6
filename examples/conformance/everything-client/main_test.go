package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// richSchema is the inputSchema the suite's json-schema-2020-12-preservation
// mock gives json_schema_2020_12_tool (0.2.0-alpha.12): every keyword the
// scenario checks, with the spacing and key order of a hand-written file.
const richSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {"address": {"$anchor": "addressDef", "type": "object",
		"properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`

func TestEchoArguments(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		want    string // the arguments; "" when an error is wanted
		wantErr string
	}{
		{name: "empty object", schema: `{}`, want: `{"schema":{}}`},
		{name: "kept byte for byte", schema: `{ "type" : "object", "$defs":{} }`, want: `{"schema":{ "type" : "object", "$defs":{} }}`},
		{name: "leading space", schema: ` {"a":1}`, want: `{"schema": {"a":1}}`},
		{name: "absent", schema: ``, wantErr: "not a JSON object"},
		{name: "array", schema: `[{}]`, wantErr: "not a JSON object"},
		{name: "boolean schema", schema: `true`, wantErr: "not a JSON object"},
		{name: "truncated", schema: `{"type":`, wantErr: "not a JSON object"},
		{name: "duplicate keys", schema: `{"a":1,"a":2}`, wantErr: "not a JSON object"},
		{name: "two values", schema: `{} {}`, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := echoArguments(jsontext.Value(tt.schema))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("echoArguments(%q) = %s, %v; want an error containing %q", tt.schema, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("echoArguments(%q): %v", tt.schema, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("echoArguments(%q) (-want +got):\n%s", tt.schema, diff)
			}
		})
	}
}

// FuzzEchoArguments: the schema comes from the server. echoArguments never
// panics, and what it accepts comes back as valid JSON whose "schema"
// member is the input, byte for byte.
func FuzzEchoArguments(f *testing.F) {
	for _, s := range []string{richSchema, `{}`, `[]`, `{"a":`, `"x"`, `{"a":1,"a":2}`, "{\"\xff\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		args, err := echoArguments(jsontext.Value(schema))
		if err != nil {
			return
		}
		if !args.IsValid() {
			t.Fatalf("echoArguments(%q) = %q: not valid JSON", schema, args)
		}
		got, ok := wire.Member(args, "schema")
		if !ok || string(got) != strings.TrimSpace(string(schema)) {
			t.Fatalf("echoArguments(%q) = %q: schema member %q, %v", schema, args, got, ok)
		}
	})
}

// TestJSONSchemaPreservation runs the scenario against a server that lists
// the two tools the suite's mock lists (or only some of them) and checks
// what json_schema_echo received.
func TestJSONSchemaPreservation(t *testing.T) {
	tests := []struct {
		name       string
		tools      []string
		wantSchema string // what json_schema_echo receives as "schema"
		wantErr    string
	}{
		{name: "both tools", tools: []string{preservedTool, echoTool}, wantSchema: richSchema},
		{name: "echo tool listed first", tools: []string{echoTool, preservedTool}, wantSchema: richSchema},
		{name: "no schema tool", tools: []string{echoTool}, wantErr: `no tool "json_schema_2020_12_tool"`},
		{name: "no echo tool", tools: []string{preservedTool}, wantErr: `no tool "json_schema_echo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, echoed := startPreservationServer(t, tt.tools)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := runJSONSchemaPreservation(ctx, url)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("runJSONSchemaPreservation: %v; want an error containing %q", err, tt.wantErr)
				}
				if got := echoed(); got != nil {
					t.Errorf("json_schema_echo was called with %s; want no call", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("runJSONSchemaPreservation: %v", err)
			}
			got := echoed()
			if got == nil {
				t.Fatal("json_schema_echo was not called")
			}
			schema, ok := wire.Member(got, "schema")
			if !ok {
				t.Fatalf("json_schema_echo arguments %s have no schema member", got)
			}
			if diff := cmp.Diff(decodeJSON(t, tt.wantSchema), decodeJSON(t, string(schema))); diff != "" {
				t.Errorf("schema echoed to json_schema_echo (-want +got):\n%s", diff)
			}
		})
	}
}

// startPreservationServer serves, on 127.0.0.1, the tools named (from
// json_schema_2020_12_tool with richSchema and json_schema_echo); echoed
// returns the arguments of the last json_schema_echo call, nil if none.
func startPreservationServer(t *testing.T, tools []string) (url string, echoed func() jsontext.Value) {
	t.Helper()
	var mu sync.Mutex
	var last jsontext.Value
	srv := mcp.NewServer(mcp.Implementation{Name: "preservation-mock", Version: "1.0.0"})
	for _, name := range tools {
		switch name {
		case preservedTool:
			srv.MustAddTool(mcp.Tool{Name: name, InputSchema: jsontext.Value(richSchema)},
				func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "ok"}}}}, nil
				})
		case echoTool:
			srv.MustAddTool(mcp.Tool{Name: name, InputSchema: jsontext.Value(`{"type":"object","properties":{"schema":{"type":"object"}},"required":["schema"]}`)},
				func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
					mu.Lock()
					last = append(jsontext.Value(nil), p.Arguments...)
					mu.Unlock()
					return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "echoed"}}}}, nil
				})
		default:
			t.Fatalf("startPreservationServer: unknown tool %q", name)
		}
	}
	h := streamhttp.NewServer(func() session.Handler { return mcp.NewServerHandler(srv) }, streamhttp.ServerOptions{})
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		hs.Close()
	})
	return hs.URL, func() jsontext.Value {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// decodeJSON decodes s into plain Go values, for a comparison that ignores
// spacing and key order.
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
	return v
}
