package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Cancelling the context a stateless request is served with (its HTTP
// request's) cancels the handler's context, however the handler watches
// it: its Done channel, polling Err, or a context derived from it.
func TestStatelessCancelReachesHandler(t *testing.T) {
	const wait = 10 * time.Second // the most a test waits for a cancellation
	watches := []struct {
		name  string
		watch func(ctx context.Context) error // returns once ctx is cancelled, or after wait
	}{
		{"Done", func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
				return errors.New("not cancelled")
			}
		}},
		{"Err", func(ctx context.Context) error {
			for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(time.Millisecond) {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			return errors.New("not cancelled")
		}},
		{"derived", func(ctx context.Context) error {
			d, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			<-d.Done()
			if errors.Is(d.Err(), context.DeadlineExceeded) {
				return errors.New("not cancelled")
			}
			return d.Err()
		}},
	}
	for _, w := range watches {
		t.Run(w.name, func(t *testing.T) {
			started := make(chan struct{})
			saw := make(chan error, 1)
			srv := m26.NewServer(m26.Implementation{Name: "cancel", Version: "1"})
			err := srv.AddTool(m26.Tool{Name: "wait", InputSchema: []byte(`{"type":"object"}`)},
				func(ctx context.Context, p *m26.CallToolRequestParams) (*m26.CallToolResult, error) {
					close(started)
					err := w.watch(ctx)
					saw <- err
					return nil, err
				})
			if err != nil {
				t.Fatal(err)
			}
			x := session.NewStateless(srv.Handler(), session.Options{})
			defer x.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := &jsonrpc.Message{Kind: jsonrpc.Request, ID: wire.IntID(1), Method: "tools/call", Params: []byte(`{` + rootsMeta + `,"name":"wait","arguments":{}}`)}
			done := make(chan struct{})
			go func() {
				defer close(done)
				x.Serve(ctx, m, func(context.Context, []byte) error { return nil })
			}()
			select {
			case <-started:
			case <-time.After(wait):
				t.Fatal("the handler did not start")
			}
			cancel()
			select {
			case err := <-saw:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the handler saw %v, want context.Canceled", err)
				}
			case <-time.After(2 * wait):
				t.Fatal("the handler did not return")
			}
			<-done
		})
	}
}
