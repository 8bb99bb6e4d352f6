package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// checkedBus is an in-process Bus that is a BusChecker whose Check returns
// err, and records whether it had a deadline.
type checkedBus struct {
	session.Bus
	err error

	mu       sync.Mutex
	checks   int
	deadline bool
}

func (b *checkedBus) Check(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.checks++
	_, b.deadline = ctx.Deadline()
	return b.err
}

// syncLog is a log destination safe for concurrent use.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestListenBusCheck: a subscriptions/listen stream is acknowledged when
// its server's Bus, a BusChecker, says it carries every instance's
// changes, and refused at once with -32603 when it does not, the cause
// logged and not sent.
func TestListenBusCheck(t *testing.T) {
	tests := []struct {
		name string
		err  error // what Check returns
	}{
		{name: "the bus works"},
		{name: "the bus is cut off", err: errors.New("broker at 10.0.0.7:6379: connection refused")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus := &checkedBus{Bus: session.NewBus(), err: tt.err}
			srv := m26.NewServer(m26.Implementation{Name: "checked", Version: "1"}, m26.WithBus(bus))
			srv.MustAddTool(m26.Tool{Name: "t"}, func(context.Context, *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
				return m26.TextResult("t"), nil
			}) // so that tools.listChanged is declared
			var log syncLog
			st := session.NewStateless(srv.Handler(), session.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
			defer st.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			acked := make(chan string, 1)
			var end *jsonrpc.Message
			done := make(chan struct{})
			go func() {
				defer close(done)
				end, _ = st.Serve(ctx, &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.StringID("L"), Method: "subscriptions/listen",
					Params: jsontext.Value(`{` + meta26 + `,"notifications":{"toolsListChanged":true}}`)}, func(_ context.Context, b []byte) error {
					var m struct{ Method string }
					_ = json.Unmarshal(b, &m)
					acked <- m.Method
					cancel() // the client goes away once acknowledged
					return nil
				})
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("subscriptions/listen neither acknowledged nor answered within 10 s")
			}
			bus.mu.Lock()
			checks, deadline := bus.checks, bus.deadline
			bus.mu.Unlock()
			if checks != 1 || !deadline {
				t.Errorf("Check called %d times (with a deadline: %v), want once with a deadline", checks, deadline)
			}
			if tt.err == nil {
				if got := <-acked; got != "notifications/subscriptions/acknowledged" {
					t.Fatalf("first message %q, want the acknowledgement", got)
				}
				return
			}
			if len(acked) != 0 {
				t.Fatalf("sent %q, want nothing before the error", <-acked)
			}
			if end == nil || end.Error == nil || end.Error.Code != jsonrpc.InternalError || !strings.Contains(end.Error.Message, "subscriptions/listen") || !strings.Contains(end.Error.Message, "event bus is unavailable") {
				t.Fatalf("answer %+v, want -32603 saying the event bus is unavailable", end)
			}
			if strings.Contains(end.Error.Message, "10.0.0.7") {
				t.Errorf("the answer %q gives the client the bus's own error; it belongs in the log", end.Error.Message)
			}
			if !strings.Contains(log.String(), "10.0.0.7:6379: connection refused") {
				t.Errorf("the log %q does not say why the bus is unavailable", log.String())
			}
		})
	}
}
