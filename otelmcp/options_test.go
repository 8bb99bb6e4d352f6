package otelmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/otelmcp"
)

// mcp.session.id: a digest of the transport's session id by default, the
// same on both sides; the id itself with RawSessionID; none on stdio and on
// stateless requests.
func TestSessionID(t *testing.T) {
	for _, tt := range []struct {
		via  string
		revs []string
		raw  bool
		want string // "digest", "raw" or "none"
	}{
		{viaStreamable, []string{"2025-11-25"}, false, "digest"},
		{viaStreamable, []string{"2025-11-25"}, true, "raw"},
		{viaSSE, []string{"2025-11-25"}, false, "digest"},
		{viaSSE, []string{"2025-11-25"}, true, "raw"},
		{viaStdio, []string{"2025-11-25"}, true, "none"},
		{viaStreamable, nil, true, "none"},
		{viaStdio, nil, true, "none"},
	} {
		t.Run(tt.via+"/"+tt.want+"/"+map[bool]string{true: "legacy", false: "stateless"}[tt.revs != nil], func(t *testing.T) {
			o := otelmcp.Options{RawSessionID: tt.raw}
			c := connect(t, setup{via: tt.via, revisions: tt.revs, srvOpts: o, cliOpts: o})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if _, err := c.cs.CallToolArgs(ctx, "echo", nil); err != nil {
				t.Fatal(err)
			}
			p := c.pair(t, "tools/call echo", true)
			cid, cok := attrs(p.sender)["mcp.session.id"]
			sid, sok := attrs(p.receiver)["mcp.session.id"]
			raw := c.rawSessionID(t)
			switch tt.want {
			case "none":
				if cok || sok {
					t.Errorf("mcp.session.id %q on the client, %q on the server, want none", cid.String(), sid.String())
				}
				return
			case "raw":
				if raw == "" || cid.AsString() != raw {
					t.Errorf("client mcp.session.id %q, want the session id %q", cid.AsString(), raw)
				}
			case "digest":
				if !isDigest(cid.AsString()) || cid.AsString() == raw {
					t.Errorf("client mcp.session.id %q, want a digest of %q", cid.AsString(), raw)
				}
			}
			if cid.AsString() != sid.AsString() {
				t.Errorf("mcp.session.id %q on the client, %q on the server", cid.AsString(), sid.AsString())
			}
		})
	}
}

// The opt-in attributes: none by default (TestLegacyMethods); with
// ToolArguments the arguments, with ToolResults the result of a successful
// call without isError, as JSON strings, on both sides, in both eras.
func TestToolArgumentsAndResults(t *testing.T) {
	for _, tt := range []struct {
		name       string
		opts       otelmcp.Options
		args, res  bool
		tool       string
		resultWant bool // a result is recorded (when asked for)
	}{
		{"arguments", otelmcp.Options{ToolArguments: true}, true, false, "echo", true},
		{"results", otelmcp.Options{ToolResults: true}, false, true, "echo", true},
		{"both", otelmcp.Options{ToolArguments: true, ToolResults: true}, true, true, "echo", true},
		{"both, tool error", otelmcp.Options{ToolArguments: true, ToolResults: true}, true, true, "broken", false},
		{"none", otelmcp.Options{}, false, false, "echo", true},
	} {
		for _, revs := range [][]string{{"2025-11-25"}, nil} {
			t.Run(tt.name+"/"+map[bool]string{true: "legacy", false: "stateless"}[revs != nil], func(t *testing.T) {
				c := connect(t, setup{via: viaStdio, revisions: revs, srvOpts: tt.opts, cliOpts: tt.opts})
				ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
				defer cancel()
				if _, err := c.cs.CallToolArgs(ctx, tt.tool, map[string]any{"city": "Paris", "n": 2}); err != nil {
					t.Fatal(err)
				}
				p := c.pair(t, "tools/call "+tt.tool, true)
				for side, a := range map[string]map[string]string{"client": strAttrs(attrs(p.sender)), "server": strAttrs(attrs(p.receiver))} {
					args, ok := a["gen_ai.tool.call.arguments"]
					if ok != tt.args {
						t.Errorf("%s span has gen_ai.tool.call.arguments: %v, want %v", side, ok, tt.args)
					}
					if ok {
						var got map[string]any
						if err := json.Unmarshal([]byte(args), &got); err != nil || got["city"] != "Paris" || got["n"] != 2.0 || len(got) != 2 {
							t.Errorf("%s span gen_ai.tool.call.arguments %q (%v), want the arguments", side, args, err)
						}
					}
					res, ok := a["gen_ai.tool.call.result"]
					if want := tt.res && tt.resultWant; ok != want {
						t.Errorf("%s span has gen_ai.tool.call.result: %v, want %v", side, ok, want)
					}
					if ok {
						var got struct {
							Content []struct{ Text string }
						}
						if err := json.Unmarshal([]byte(res), &got); err != nil || len(got.Content) != 1 || got.Content[0].Text != "ok" {
							t.Errorf("%s span gen_ai.tool.call.result %q (%v), want the result", side, res, err)
						}
					}
				}
			})
		}
	}
}
