package session_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// watchExt is an extension that defines the listen filter member "watch"
// (and claims the core's toolsListChanged, which it must not get): its
// Listen records what it was asked, sends n notifications at once, and
// grants what it was asked, or refuses "refuse".
type watchExt struct {
	n     int
	mu    sync.Mutex
	asked []string
}

func (x *watchExt) ID() string                 { return "io.example/watch" }
func (x *watchExt) Capability() jsontext.Value { return jsontext.Value(`{}`) }
func (x *watchExt) Methods() []wire.Method     { return nil }
func (x *watchExt) ListenFilter() []string     { return []string{"watch", "toolsListChanged"} }
func (x *watchExt) HandleRequest(context.Context, *session.Session, string, jsontext.Value) (wire.Appender, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: "none"}
}

func (x *watchExt) Listen(ctx context.Context, asked jsontext.Value, send func(string, jsontext.Value)) (jsontext.Value, error) {
	x.mu.Lock()
	x.asked = append(x.asked, string(asked))
	x.mu.Unlock()
	if v, _ := wire.MemberString(asked, "watch"); v == "refuse" {
		return nil, session.MissingExtensionError(x.ID())
	}
	for i := range x.n {
		send("notifications/example/watch", jsontext.Value(`{"n":`+strconv.Itoa(i)+`}`))
	}
	return wire.SetMember(asked, "toolsListChanged", jsontext.Value(`false`))
}

// TestListenExtension: the runtime gives an extension the filter members
// it defines (not the core's, not unknown ones), acknowledges what it
// grants, sends its notifications after the acknowledgement, in order,
// holding at most 256 of them, and answers with its error.
func TestListenExtension(t *testing.T) {
	tests := []struct {
		name    string
		n       int    // notifications the extension sends at once
		filter  string // the notifications filter
		asked   []string
		granted map[string]any
		notes   []float64 // the n of the notifications on the stream
		code    int64     // the error answered instead
	}{
		{name: "its member only", n: 3, filter: `{"watch":"a","unknown":1,"toolsListChanged":true}`,
			asked: []string{`{"watch":"a"}`}, granted: map[string]any{"toolsListChanged": true, "watch": "a"}, notes: []float64{0, 1, 2}},
		{name: "not asked", n: 3, filter: `{"toolsListChanged":true,"unknown":1}`,
			granted: map[string]any{"toolsListChanged": true}},
		{name: "refused", filter: `{"watch":"refuse"}`, asked: []string{`{"watch":"refuse"}`}, code: session.MissingRequiredClientCapability},
		{name: "backlog bounded", n: 300, filter: `{"watch":["b"]}`, asked: []string{`{"watch":["b"]}`}, granted: map[string]any{"watch": []any{"b"}}, notes: func() []float64 {
			var out []float64
			for i := 300 - 256; i < 300; i++ {
				out = append(out, float64(i))
			}
			return out
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &watchExt{n: tt.n}
			srv := m26.NewServer(m26.Implementation{Name: "watch", Version: "1"}, m26.WithExtension(x))
			srv.MustAddTool(m26.Tool{Name: "t"}, func(context.Context, *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
				return m26.TextResult("t"), nil
			}) // so that tools.listChanged is declared
			st := session.NewStateless(srv.Handler(), session.Options{})
			defer st.Close()
			msgs := make(chan map[string]any, 400)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var end *jsonrpc.Message
			done := make(chan struct{})
			go func() {
				defer close(done)
				end, _ = st.Serve(ctx, &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("L"), Method: "subscriptions/listen",
					Params: jsontext.Value(`{` + meta26 + `,"notifications":` + tt.filter + `}`)}, func(_ context.Context, b []byte) error {
					var m map[string]any
					if err := json.Unmarshal(b, &m); err != nil {
						t.Errorf("not JSON: %s", b)
					}
					msgs <- m
					return nil
				})
			}()
			next := func() map[string]any {
				t.Helper()
				select {
				case m := <-msgs:
					return m
				case <-time.After(5 * time.Second):
					t.Fatal("no message within 5 s")
				}
				return nil
			}
			if tt.code != 0 {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("no answer within 5 s")
				}
				if end.Error == nil || end.Error.Code != tt.code {
					t.Fatalf("answer %+v, want error %d", end, tt.code)
				}
			} else {
				ack := next()
				if ack["method"] != "notifications/subscriptions/acknowledged" {
					t.Fatalf("first message %v, want the acknowledgement", ack)
				}
				if diff := cmp.Diff(tt.granted, ack["params"].(map[string]any)["notifications"]); diff != "" {
					t.Errorf("acknowledged filter (-want +got):\n%s", diff)
				}
				var got []float64
				for range tt.notes {
					m := next()
					p, _ := m["params"].(map[string]any)
					meta, _ := p["_meta"].(map[string]any)
					if m["method"] != "notifications/example/watch" || meta[session.MetaSubscriptionID] != "L" {
						t.Fatalf("message %v, want the extension's notification with the subscription id", m)
					}
					got = append(got, p["n"].(float64))
				}
				if diff := cmp.Diff(tt.notes, got); diff != "" {
					t.Errorf("notifications (-want +got):\n%s", diff)
				}
				st.Close() // ends the stream with its result
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("the stream did not end within 5 s of Close")
				}
				if end.Error != nil {
					t.Errorf("end of the stream: %+v", end.Error)
				}
				if len(msgs) != 0 {
					t.Errorf("%d messages more than wanted, the first %v", len(msgs), <-msgs)
				}
			}
			x.mu.Lock()
			defer x.mu.Unlock()
			if diff := cmp.Diff(tt.asked, x.asked); diff != "" {
				t.Errorf("what Listen was asked (-want +got):\n%s", diff)
			}
		})
	}
}
