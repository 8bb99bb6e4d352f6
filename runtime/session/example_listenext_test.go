package session_test

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ticks is an extension that defines the listen filter member "ticks": a
// stream that asks for it gets one notification per tick.
type ticks struct{}

func (ticks) ID() string                 { return "io.example/ticks" }
func (ticks) Capability() jsontext.Value { return jsontext.Value(`{}`) }
func (ticks) Methods() []wire.Method     { return nil }
func (ticks) HandleRequest(context.Context, *session.Session, string, jsontext.Value) (wire.Appender, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: "no methods"}
}
func (ticks) ListenFilter() []string { return []string{"ticks"} }
func (ticks) Listen(ctx context.Context, asked jsontext.Value, send func(string, jsontext.Value)) (jsontext.Value, error) {
	send("notifications/example/tick", jsontext.Value(`{"n":1}`)) // sent after the acknowledgement
	return asked, nil                                             // granted as asked
}

// An extension that adds a member to the subscriptions/listen filter: the
// acknowledgement carries what it grants, then its notifications follow.
func ExampleListenExtension() {
	srv := m26.NewServer(m26.Implementation{Name: "ticker", Version: "1"}, m26.WithExtension(ticks{}))
	st := session.NewStateless(srv.Handler(), session.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	st.Serve(ctx, &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("L"), Method: "subscriptions/listen",
		Params: jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"ticks":true}}`)},
		func(_ context.Context, msg []byte) error {
			m, _ := wire.MemberString(msg, "method")
			p, _ := wire.Member(msg, "params")
			f, _ := wire.Member(p, "notifications")
			fmt.Println(m, string(f))
			if n++; n == 2 {
				cancel() // the client goes away
			}
			return nil
		})
	// Output:
	// notifications/subscriptions/acknowledged {"ticks":true}
	// notifications/example/tick
}
