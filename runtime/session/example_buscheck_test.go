package session_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// brokerBus stands for a Bus shared over a message broker, here one that
// has lost its broker.
type brokerBus struct{ session.Bus }

func (brokerBus) Check(ctx context.Context) error {
	return errors.New("broker unreachable")
}

// A Bus that can be cut off from the other instances says so through
// Check: while it is, subscriptions/listen is refused at once, and the
// cause goes to the server's log.
func ExampleBusChecker() {
	srv := m26.NewServer(m26.Implementation{Name: "fleet", Version: "1"}, m26.WithBus(brokerBus{session.NewBus()}))
	st := session.NewStateless(srv.Handler(), session.Options{})
	defer st.Close()
	answer, _ := st.Serve(context.Background(), &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("L"), Method: "subscriptions/listen",
		Params: jsontext.Value(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}`)},
		func(context.Context, []byte) error { return nil })
	fmt.Println(answer.Error.Code)
	fmt.Println(answer.Error.Message)
	// Output:
	// -32603
	// subscriptions/listen: the server cannot deliver the changes made on its other instances now (its event bus is unavailable); listen again later
}
