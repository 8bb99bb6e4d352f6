package interop_test

// TestTS2Server checks that ts2-server.mjs, the TypeScript SDK v2 server
// that this project's 2026-07-28 client is to be tested against, behaves
// as TS2-SERVER.md says, with raw HTTP requests: the wire it describes is
// what the client will meet. It does not test this project's code.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ts2Meta returns the _meta envelope of a 2026-07-28 request with caps as
// the client's capabilities.
func ts2Meta(version, caps string) string {
	return fmt.Sprintf(`"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"ts2_server_test","version":"1"}}`, version, caps)
}

// ts2Answer is what TestTS2Server compares of an answer.
type ts2Answer struct {
	Status      int
	ContentType string // its media type
	SessionID   bool   // an Mcp-Session-Id header came back
	Code        int64  // the JSON-RPC error code; 0 for none
	ResultType  string
	Text        string // the text of the first content item
}

// ts2Post POSTs body with headers (beyond Content-Type and Accept) and
// returns the answer's JSON-RPC message (the first event of an SSE
// stream) and what the test compares of it.
func ts2Post(ctx context.Context, t *testing.T, url string, headers map[string]string, body string) (ts2Answer, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	defer resp.Body.Close()
	a := ts2Answer{Status: resp.StatusCode, SessionID: resp.Header.Get("Mcp-Session-Id") != ""}
	a.ContentType, _, _ = strings.Cut(resp.Header.Get("Content-Type"), ";")
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("reading the answer to %s: %v", body, err)
	}
	if a.ContentType == "text/event-stream" {
		raw = firstEvent(raw)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return a, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("the answer to %s is not a JSON object: %v: %s", body, err, raw)
	}
	if e, ok := m["error"].(map[string]any); ok {
		code, _ := e["code"].(float64)
		a.Code = int64(code)
	}
	if r, ok := m["result"].(map[string]any); ok {
		a.ResultType, _ = r["resultType"].(string)
		if c, ok := r["content"].([]any); ok && len(c) > 0 {
			a.Text, _ = c[0].(map[string]any)["text"].(string)
		}
	}
	return a, m
}

// firstEvent returns the data of the first event of an SSE stream.
func firstEvent(stream []byte) []byte {
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 && data != nil {
			break
		}
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		}
	}
	return data
}

func TestTS2Server(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@modelcontextprotocol", "server", "package.json")); err != nil {
		t.Fatalf("@modelcontextprotocol/server is not installed: %v\nrun npm ci in interop/ (scripts/test does it): npm ci --prefix interop", err)
	}
	cmd := exec.Command(node, filepath.Join(interop, "ts2-server.mjs"))
	cmd.Dir = interop
	srv := startHTTPServer(t, cmd, fixtureURLLine)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	const rev = modernRevision
	caps := `{"elicitation":{"form":{}}}`
	hdr := func(method, name string, more ...string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": rev, "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		for i := 0; i+1 < len(more); i += 2 {
			h[more[i]] = more[i+1]
		}
		return h
	}
	call := func(id int, tool, args, extra string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s%s}}`, id, tool, args, extra, ts2Meta(rev, caps))
	}
	const jsonType, sseType = "application/json", "text/event-stream"

	// The first round of ask_name, whose requestState the retries use.
	first, msg := ts2Post(ctx, t, srv.url, hdr("tools/call", "ask_name"), call(1, "ask_name", "{}", ""))
	if diff := cmp.Diff(ts2Answer{Status: 200, ContentType: jsonType, ResultType: "input_required"}, first); diff != "" {
		t.Fatalf("tools/call ask_name (-want +got):\n%s", diff)
	}
	result, _ := msg["result"].(map[string]any)
	state, _ := result["requestState"].(string)
	if !strings.HasPrefix(state, "v1.") {
		t.Errorf("requestState %q: want the SDK codec's v1.PAYLOAD.MAC", state)
	}
	asked, _ := result["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	if asked["method"] != "elicitation/create" {
		t.Errorf("inputRequests %v: want user_name, an elicitation/create", result["inputRequests"])
	}
	answer := `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},`

	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		want    ts2Answer
	}{
		{
			name:    "server/discover",
			headers: hdr("server/discover", ""),
			body:    `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{` + ts2Meta(rev, caps) + `}}`,
			want:    ts2Answer{Status: 200, ContentType: jsonType, ResultType: "complete"},
		},
		{
			name:    "echo",
			headers: hdr("tools/call", "echo"),
			body:    call(3, "echo", `{"text":"hi"}`, ""),
			want:    ts2Answer{Status: 200, ContentType: jsonType, ResultType: "complete", Text: "hi"},
		},
		{
			name:    "ask_name retried with the answer and the state",
			headers: hdr("tools/call", "ask_name"),
			body:    call(4, "ask_name", "{}", answer+`"requestState":"`+state+`",`),
			want:    ts2Answer{Status: 200, ContentType: jsonType, ResultType: "complete", Text: `Hello, Ada! (state {"round":1})`},
		},
		{
			name:    "ask_name retried with a tampered state",
			headers: hdr("tools/call", "ask_name"),
			body:    call(5, "ask_name", "{}", answer+`"requestState":"`+state+`x",`),
			want:    ts2Answer{Status: 200, ContentType: jsonType, Code: -32602},
		},
		{
			name:    "ask_name without the elicitation capability",
			headers: hdr("tools/call", "ask_name"),
			body:    `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask_name","arguments":{},` + ts2Meta(rev, "{}") + `}}`,
			want:    ts2Answer{Status: 400, ContentType: jsonType, Code: -32021},
		},
		{
			name:    "lookup with its Mcp-Param headers",
			headers: hdr("tools/call", "lookup", "Mcp-Param-Region", "=?base64?WsO8cmljaA==?=", "Mcp-Param-Count", "03"),
			body:    call(7, "lookup", `{"region":"Zürich","count":3}`, ""),
			want:    ts2Answer{Status: 200, ContentType: jsonType, ResultType: "complete", Text: `lookup {"region":"Zürich","count":3}`},
		},
		{
			name:    "lookup with a differing Mcp-Param-Region",
			headers: hdr("tools/call", "lookup", "Mcp-Param-Region", "us-east"),
			body:    call(8, "lookup", `{"region":"eu-west"}`, ""),
			want:    ts2Answer{Status: 400, ContentType: jsonType, Code: -32020},
		},
		{
			name:    "lookup without Mcp-Param-Region",
			headers: hdr("tools/call", "lookup"),
			body:    call(9, "lookup", `{"region":"eu-west"}`, ""),
			want:    ts2Answer{Status: 400, ContentType: jsonType, Code: -32020},
		},
		{
			name:    "tools/call without Mcp-Name",
			headers: hdr("tools/call", ""),
			body:    call(10, "echo", `{"text":"hi"}`, ""),
			want:    ts2Answer{Status: 400, ContentType: jsonType, Code: -32020},
		},
		{
			name:    "an unsupported revision",
			headers: map[string]string{"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"},
			body:    `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{` + ts2Meta("2099-01-01", caps) + `}}`,
			want:    ts2Answer{Status: 400, ContentType: jsonType, Code: -32022},
		},
		{
			name:    "an unknown method",
			headers: hdr("tools/unknown", ""),
			body:    `{"jsonrpc":"2.0","id":12,"method":"tools/unknown","params":{` + ts2Meta(rev, caps) + `}}`,
			want:    ts2Answer{Status: 404, ContentType: jsonType, Code: -32601},
		},
		{
			name:    "notifications/cancelled without Mcp-Method",
			headers: map[string]string{"MCP-Protocol-Version": rev},
			body:    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x",` + ts2Meta(rev, caps) + `}}`,
			want:    ts2Answer{Status: 202},
		},
		{
			name: "initialize (2025-11-25)",
			body: `{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ts2_server_test","version":"1"}}}`,
			want: ts2Answer{Status: 200, ContentType: sseType},
		},
		{
			name:    "a 2025-11-25 request without a session",
			headers: map[string]string{"MCP-Protocol-Version": "2025-11-25"},
			body:    `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
			want:    ts2Answer{Status: 200, ContentType: sseType, Text: "hi"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, msg := ts2Post(ctx, t, srv.url, tc.headers, tc.body)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("POST %s\n(-want +got):\n%s\nanswer: %v", tc.body, diff, msg)
			}
		})
	}

	t.Run("subscriptions/listen and touch", func(t *testing.T) {
		lctx, lcancel := context.WithTimeout(ctx, 20*time.Second)
		defer lcancel()
		body := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["mcpgen-interop://counter"]},` + ts2Meta(rev, caps) + `}}`
		req, err := http.NewRequestWithContext(lctx, http.MethodPost, srv.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr("subscriptions/listen", "") {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close() // closing the stream ends the subscription (T-N5)
		events := make(chan string, 4)
		go func() {
			defer close(events)
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for n := 0; n < 4 && sc.Scan(); {
				if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					events <- d
					n++
				}
			}
		}()
		next := func(what string) map[string]any {
			t.Helper()
			select {
			case d, ok := <-events:
				if !ok {
					t.Fatalf("the listen stream ended before %s", what)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					t.Fatalf("%s: %v: %s", what, err, d)
				}
				return m
			case <-lctx.Done():
				t.Fatalf("no %s on the listen stream", what)
			}
			return nil
		}
		type event struct {
			Method, URI, SubscriptionID string
		}
		seen := func(m map[string]any) event {
			p, _ := m["params"].(map[string]any)
			meta, _ := p["_meta"].(map[string]any)
			e := event{}
			e.Method, _ = m["method"].(string)
			e.URI, _ = p["uri"].(string)
			e.SubscriptionID, _ = meta["io.modelcontextprotocol/subscriptionId"].(string)
			return e
		}
		got := []event{seen(next("the acknowledgement"))}
		if a, _ := ts2Post(lctx, t, srv.url, hdr("tools/call", "touch"), call(20, "touch", "{}", "")); a.Status != 200 || !strings.HasPrefix(a.Text, "counter=") {
			t.Errorf("tools/call touch: %+v", a)
		}
		got = append(got, seen(next("notifications/resources/updated")))
		want := []event{
			{Method: "notifications/subscriptions/acknowledged", SubscriptionID: "sub-1"},
			{Method: "notifications/resources/updated", URI: "mcpgen-interop://counter", SubscriptionID: "sub-1"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the listen stream (-want +got):\n%s", diff)
		}
	})
}

// TestTS2ServerStdio checks ts2-server.mjs --stdio: a 2026-07-28
// connection (discover, then the first round of ask_name), and that it
// exits when its input ends.
func TestTS2ServerStdio(t *testing.T) {
	node := nodeBin(t)
	interop, _ := dirs(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(interop, "ts2-server.mjs"), "--stdio")
	cmd.Dir = interop
	cmd.WaitDelay = 5 * time.Second
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() || traceAlways {
			t.Logf("ts2-server stderr:\n%s", stderr.String())
		}
	})
	lines := make(chan []byte, 8)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for n := 0; n < 8 && sc.Scan(); n++ {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	meta := ts2Meta(modernRevision, `{"elicitation":{"form":{}}}`)
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_name","arguments":{},` + meta + `}}`,
	} {
		if _, err := io.WriteString(stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		ID         float64
		ResultType string
		Versions   []string
	}
	var got []answer
	for len(got) < 2 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended after %d answers", len(got))
			}
			var m struct {
				ID     float64 `json:"id"`
				Result struct {
					ResultType        string   `json:"resultType"`
					SupportedVersions []string `json:"supportedVersions"`
				} `json:"result"`
			}
			if err := json.Unmarshal(l, &m); err != nil {
				t.Fatalf("stdout line %q: %v", l, err)
			}
			got = append(got, answer{m.ID, m.Result.ResultType, m.Result.SupportedVersions})
		case <-ctx.Done():
			t.Fatalf("%d answers within %v", len(got), testTimeout)
		}
	}
	if got[0].ID == 2 {
		got[0], got[1] = got[1], got[0] // answered concurrently
	}
	want := []answer{{1, "complete", []string{modernRevision}}, {2, "input_required", nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the answers (-want +got):\n%s", diff)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("ts2-server --stdio after the end of its input: %v", err)
	}
}
