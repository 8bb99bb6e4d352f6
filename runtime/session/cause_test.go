package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// brokenTransport is a connection that breaks: Read fails with the error
// sent on broke (or returns what is sent on in), and Write waits until
// Close, as a write to a peer that is gone may, then fails as a closed
// transport's does.
type brokenTransport struct {
	broke     chan error
	writing   chan struct{} // closed when a Write waits
	closed    chan struct{}
	closeOnce sync.Once
	writeOnce sync.Once
}

func newBrokenTransport() *brokenTransport {
	return &brokenTransport{broke: make(chan error, 1), writing: make(chan struct{}), closed: make(chan struct{})}
}

func (b *brokenTransport) Read(ctx context.Context) ([]byte, error) {
	select {
	case err := <-b.broke:
		return nil, err
	case <-b.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *brokenTransport) Write(ctx context.Context, data []byte) error {
	b.writeOnce.Do(func() { close(b.writing) })
	<-b.closed
	return fmt.Errorf("broken: write: %w", net.ErrClosed)
}

func (b *brokenTransport) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return nil
}

var _ transport.Transport = (*brokenTransport)(nil)

// A call in flight when the connection breaks fails with an error that
// says why (and is ErrClosed), whether it was waiting for its answer or
// still being sent when the session closed the transport; not with a bare
// "session closed", or the transport's "closed" that the session's own
// Close caused.
func TestCallFailsWithCause(t *testing.T) {
	cause := errors.New("connection reset by peer")
	for _, sending := range []bool{false, true} {
		name := "waiting for the answer"
		if sending {
			name = "being sent"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			b := newBrokenTransport()
			var tr transport.Transport = b
			if !sending {
				// Writes go through: the call waits for its answer.
				client, server := transport.Pipe()
				defer server.Close()
				tr = &writesThrough{brokenTransport: b, w: client}
			}
			s := session.New(session.Client, tr, mcp.NewClientHandler(mcp.UnimplementedClient{}), session.Options{})
			defer s.Close()
			errc := make(chan error, 1)
			go func() {
				_, err := s.Call(ctx, "ping", nil)
				errc <- err
			}()
			<-b.writing // the ping is being sent
			b.broke <- cause
			var err error
			select {
			case err = <-errc:
			case <-ctx.Done():
				t.Fatal("the call did not return when the connection broke")
			}
			if !errors.Is(err, session.ErrClosed) || !errors.Is(err, cause) || !strings.Contains(err.Error(), "session closed: connection reset by peer") {
				t.Fatalf("ping = %v, want session.ErrClosed wrapping %q", err, cause)
			}
			if err := s.Wait(); !errors.Is(err, cause) {
				t.Errorf("Wait = %v, want %q", err, cause)
			}
		})
	}
}

// writesThrough is a brokenTransport whose Writes go to w.
type writesThrough struct {
	*brokenTransport
	w transport.Transport
}

func (t *writesThrough) Write(ctx context.Context, data []byte) error {
	t.writeOnce.Do(func() { close(t.writing) })
	return t.w.Write(ctx, data)
}
