package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	old "github.com/mcpgen/mcpgen/protocol/mcp20250326"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// resourceLink is a content block 2025-03-26 does not know, as the reference
// server-everything sends it to a 2025-03-26 session.
const resourceLink = `{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","mimeType":"text/plain"}`

// mixedResult is a tools/call result with a block every revision knows and
// one 2025-03-26 does not, in the order the generated encoders write.
const mixedResult = `{"content":[{"type":"text","text":"hi"},` + resourceLink + `]}`

// toolServer answers initialize with version and every tools/call with
// result, on tr.
func toolServer(t *testing.T, tr transport.Transport, version, result string) {
	p := &peer{t: t, tr: tr}
	go func() {
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			b, err := tr.Read(ctx)
			cancel()
			if err != nil {
				return
			}
			var m map[string]any
			if jsonUnmarshal(b, &m) != nil || m["id"] == nil {
				continue
			}
			id := itoa(int(m["id"].(float64)))
			switch m["method"] {
			case "initialize":
				p.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`)
			case "tools/call":
				p.send(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`)
			}
		}
	}()
}

// A 2025-03-26 server sending a block 2025-03-26 does not know: a client on
// the 2025-03-26 types keeps the result, the unknown block verbatim, and
// re-encodes it unchanged; with RejectUnknownVariants the call fails.
func TestUnknownContentBlockOldTypes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		reject  bool
		wantErr string
	}{
		{"kept", false, ""},
		{"rejected", true, `/content/1/type: CallToolResultContentItem: unknown type "resource_link"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			toolServer(t, b, "2025-03-26", mixedResult)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := old.Connect(ctx, a, &old.ClientOptions{Info: old.Implementation{Name: "client", Version: "1"}, Session: session.Options{RejectUnknownVariants: tt.reject}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r, err := c.CallTool(ctx, &old.CallToolRequestParams{Name: "links"})
			if tt.wantErr != "" {
				if err == nil || !contains(err.Error(), tt.wantErr) {
					t.Fatalf("CallTool error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if text, ok := r.Content[0].Value.(*old.TextContent); !ok || text.Text != "hi" {
				t.Errorf("content[0] = %#v, want the text block", r.Content[0].Value)
			}
			unknown, ok := r.Content[1].Value.(*old.UnknownVariant)
			if !ok {
				t.Fatalf("content[1] = %#v, want *UnknownVariant", r.Content[1].Value)
			}
			if diff := cmp.Diff(resourceLink, string(unknown.Raw)); diff != "" {
				t.Errorf("kept block (-sent +got):\n%s", diff)
			}
			got, err := r.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(mixedResult, string(got)); diff != "" {
				t.Errorf("re-encoded result (-sent +got):\n%s", diff)
			}
		})
	}
}

// The same server, for a client on the 2025-11-25 types pinned to
// 2025-03-26: the check against the 2025-03-26 types keeps the block, and
// the client's own types know it, so it arrives as a typed ResourceLink;
// with RejectUnknownVariants the call fails as before.
func TestUnknownContentBlockNewTypes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		reject  bool
		wantErr string
	}{
		{"kept", false, ""},
		{"rejected", true, `unknown type "resource_link"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			toolServer(t, b, "2025-03-26", mixedResult)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "1"}, Session: session.Options{Revisions: []string{"2025-03-26"}, RejectUnknownVariants: tt.reject}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r, err := c.CallTool(ctx, &mcp.CallToolRequestParams{Name: "links"})
			if tt.wantErr != "" {
				if err == nil || !contains(err.Error(), tt.wantErr) {
					t.Fatalf("CallTool error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			link, ok := r.Content[1].Value.(*mcp.ResourceLink)
			if !ok {
				t.Fatalf("content[1] = %#v, want *mcp.ResourceLink", r.Content[1].Value)
			}
			if link.URI != "file:///a.txt" || link.Name != "a.txt" {
				t.Errorf("resource link = %+v", link)
			}
		})
	}
}

// A server stays strict with what it receives: a sampling result or params
// with a union variant the revision does not know is refused.
func TestServerRejectsUnknownVariants(t *testing.T) {
	for _, rev := range []string{"2025-03-26", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			p, _ := serve(t, testServer(t), session.Options{})
			p.initialize(rev)
			p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}`)
			m := p.recvMsg()
			if m["method"] != "sampling/createMessage" {
				t.Fatalf("want sampling/createMessage, got %v", m)
			}
			p.send(`{"jsonrpc":"2.0","id":` + itoa(int(m["id"].(float64))) + `,"result":{"model":"m1","role":"assistant","content":{"type":"video","uri":"x"}}}`)
			// The tool's CreateMessage call failed; its error is the tool's.
			m = p.recvMsg()
			r := result(t, m)
			text, _ := r["content"].([]any)[0].(map[string]any)["text"].(string)
			if r["isError"] != true || !contains(text, `/content/type: CreateMessageResultContent: unknown type "video"`) {
				t.Errorf("tool sampling an unknown block: %v", m)
			}
		})
	}
	// Params of a request (a 2025-11-25 server: handler's own revision).
	srv := mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"})
	srv.SetCompletion(func(ctx context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
		return &mcp.CompleteResult{}, nil
	})
	for _, rev := range []string{"2025-03-26", "2025-11-25"} {
		t.Run("params "+rev, func(t *testing.T) {
			p, _ := serve(t, srv, session.Options{})
			p.initialize(rev)
			m := p.call(1, "completion/complete", `{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":"b"}}`)
			if errorCode(t, m) != jsonrpc.InvalidParams || !contains(errorMessage(m), `unknown type "ref/tool"`) {
				t.Errorf("completion/complete with an unknown ref: %v", m)
			}
		})
	}
}

// A client keeps unknown variants in the server's requests too: its handler
// sees the sampling message it cannot read as an UnknownVariant and decides;
// with RejectUnknownVariants the request is answered with -32602.
func TestClientRequestWithUnknownVariant(t *testing.T) {
	const video = `{"type":"video","uri":"file:///v.mp4"}`
	for _, tt := range []struct {
		name   string
		reject bool
		code   int
	}{
		{"kept", false, 0},
		{"rejected", true, jsonrpc.InvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			p := &peer{t: t, tr: b}
			seen := make(chan string, 1)
			done := make(chan *mcp.ClientSession, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				c, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "1"}, Capabilities: mcp.ClientCapabilities{Sampling: &mcp.ClientCapabilitiesSampling{}}, Handler: unknownSampler{seen: seen}, Session: session.Options{RejectUnknownVariants: tt.reject}})
				if err != nil {
					t.Error(err)
				}
				done <- c
			}()
			init := p.recvMsg()
			p.send(`{"jsonrpc":"2.0","id":` + itoa(int(init["id"].(float64))) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}}`)
			p.recvMsg() // notifications/initialized
			c := <-done
			if c == nil {
				return
			}
			defer c.Close()
			m := p.call(1, "sampling/createMessage", `{"maxTokens":5,"messages":[{"role":"user","content":`+video+`}]}`)
			if got := errorCode(t, m); got != tt.code {
				t.Fatalf("answer %v, want error code %d", m, tt.code)
			}
			if tt.code != 0 {
				if !contains(errorMessage(m), `/messages/0/content/type: SamplingMessageContent: unknown type "video"`) {
					t.Errorf("error %q", errorMessage(m))
				}
				return
			}
			if diff := cmp.Diff(video, <-seen); diff != "" {
				t.Errorf("the handler saw (-sent +seen):\n%s", diff)
			}
		})
	}
}

// unknownSampler reports the raw JSON of an unknown first message content.
type unknownSampler struct {
	mcp.UnimplementedClient
	seen chan<- string
}

func (u unknownSampler) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	if v, ok := p.Messages[0].Content.Value.(*mcp.UnknownVariant); ok {
		u.seen <- string(v.Raw)
	}
	return &mcp.CreateMessageResult{Model: "m", Role: mcp.RoleAssistant, Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "cannot watch"}}}, nil
}
