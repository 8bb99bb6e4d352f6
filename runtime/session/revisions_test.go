package session_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// keys returns the member names of a decoded JSON object, sorted.
func keys(v any) []string {
	m, _ := v.(map[string]any)
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A client speaks the offered revision's vocabulary in initialize: a client
// on the 2025-11-25 types pinned to 2025-03-26 declares neither elicitation
// nor tasks (which 2025-03-26 does not have), and refuses what it did not
// declare; offering 2025-11-25, it declares everything.
func TestClientCapabilitiesInOfferedRevision(t *testing.T) {
	caps := mcp.ClientCapabilities{
		Elicitation: &mcp.ClientCapabilitiesElicitation{Form: []byte(`{}`)},
		Sampling:    &mcp.ClientCapabilitiesSampling{},
		Roots:       &mcp.ClientCapabilitiesRoots{ListChanged: ptr(true)},
		Tasks:       &mcp.ClientCapabilitiesTasks{List: []byte(`{}`)},
	}
	for _, tt := range []struct {
		name      string
		revisions []string
		offer     string
		want      []string
	}{
		{"pinned to 2024-11-05", []string{"2024-11-05"}, "2024-11-05", []string{"roots", "sampling"}},
		{"pinned to 2025-03-26", []string{"2025-03-26"}, "2025-03-26", []string{"roots", "sampling"}},
		{"up to 2025-06-18", []string{"2025-03-26", "2025-06-18"}, "2025-06-18", []string{"elicitation", "roots", "sampling"}},
		{"every revision", nil, "2025-11-25", []string{"elicitation", "roots", "sampling", "tasks"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			got := fakeServer(t, b, tt.offer)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}, Capabilities: caps, Session: session.Options{Revisions: tt.revisions}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			params := (<-got)["params"].(map[string]any)
			if params["protocolVersion"] != tt.offer {
				t.Errorf("protocolVersion = %v, want %s", params["protocolVersion"], tt.offer)
			}
			if diff := cmp.Diff(tt.want, keys(params["capabilities"])); diff != "" {
				t.Errorf("declared capabilities (-want +got):\n%s", diff)
			}
		})
	}
}

// What the client accepts follows what it declared: a client on the
// 2025-11-25 types pinned to 2025-03-26 declares sampling but not
// elicitation; offering 2025-11-25 it declares both, and when the server
// answers 2025-03-26 (or 2024-11-05) it keeps what that revision can say.
// Either way it takes sampling/createMessage and refuses
// elicitation/create.
func TestClientAcceptsWhatItDeclared(t *testing.T) {
	for _, tt := range []struct {
		name      string
		revisions []string
		declared  []string
		answer    string // the revision the server answers
	}{
		{"pinned to 2025-03-26", []string{"2025-03-26"}, []string{"sampling"}, "2025-03-26"},
		{"answered with 2025-03-26", nil, []string{"elicitation", "sampling"}, "2025-03-26"},
		{"answered with 2024-11-05", nil, []string{"elicitation", "sampling"}, "2024-11-05"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := transport.Pipe()
			p := &peer{t: t, tr: b}
			done := make(chan *mcp.ClientSession, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				c, err := mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "client", Version: "2"}, Capabilities: mcp.ClientCapabilities{
					Elicitation: &mcp.ClientCapabilitiesElicitation{},
					Sampling:    &mcp.ClientCapabilitiesSampling{},
				}, Handler: samplingClient{}, Session: session.Options{Revisions: tt.revisions}})
				if err != nil {
					t.Error(err)
				}
				done <- c
			}()
			init := p.recvMsg()
			if diff := cmp.Diff(tt.declared, keys(init["params"].(map[string]any)["capabilities"])); diff != "" {
				t.Errorf("declared capabilities (-want +got):\n%s", diff)
			}
			p.send(`{"jsonrpc":"2.0","id":` + itoa(int(init["id"].(float64))) + `,"result":{"protocolVersion":"` + tt.answer + `","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}}`)
			if m := p.recvMsg(); m["method"] != "notifications/initialized" {
				t.Fatalf("after initialize: %v", m)
			}
			c := <-done
			if c == nil {
				return
			}
			defer c.Close()
			if r := c.Revision(); r == nil || r.Name != tt.answer {
				t.Fatalf("the session speaks %v, want %s", r, tt.answer)
			}
			if m := p.call(1, "elicitation/create", `{"message":"name?","requestedSchema":{"type":"object","properties":{}}}`); errorCode(t, m) != jsonrpc.MethodNotFound {
				t.Errorf("elicitation/create in %s: %v", tt.answer, m)
			}
			m := p.call(2, "sampling/createMessage", `{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`)
			if r := result(t, m); r["model"] != "m1" {
				t.Errorf("sampling/createMessage: %v", m)
			}
		})
	}
}

type samplingClient struct{ mcp.UnimplementedClient }

func (samplingClient) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Model: "m1", Role: mcp.RoleAssistant, Content: mcp.CreateMessageResultContent{Value: &mcp.TextContent{Text: "ok"}}}, nil
}

// The opposite direction: a server on the 2025-11-25 types answering a
// 2025-03-26 (or 2024-11-05) client declares only capabilities that
// revision has.
func TestServerCapabilitiesInNegotiatedRevision(t *testing.T) {
	for _, tt := range []struct {
		rev  string
		want []string
	}{
		{"2024-11-05", []string{"logging", "tools"}}, // completions came in 2025-03-26
		{"2025-03-26", []string{"completions", "logging", "tools"}},
		{"2025-11-25", []string{"completions", "logging", "tasks", "tools"}},
	} {
		t.Run(tt.rev, func(t *testing.T) {
			p, _ := serve(t, capsServer{}, session.Options{})
			r := p.initialize(tt.rev)
			if diff := cmp.Diff(tt.want, keys(r["capabilities"])); diff != "" {
				t.Errorf("server capabilities (-want +got):\n%s", diff)
			}
		})
	}
}

// capsServer declares capabilities of every revision, tasks included.
type capsServer struct{ mcp.UnimplementedServer }

func (capsServer) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{ServerInfo: mcp.Implementation{Name: "caps", Version: "1"}, Capabilities: mcp.ServerCapabilities{
		Completions: []byte(`{}`),
		Logging:     []byte(`{}`),
		Tasks:       &mcp.ServerCapabilitiesTasks{List: []byte(`{}`)},
		Tools:       &mcp.ServerCapabilitiesTools{},
	}}, nil
}
