package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	m25 "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	m26 "github.com/mcpgen/mcpgen/protocol/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// named is a transport end that names its server.
type named struct{ transport.Transport }

func (named) String() string { return `the server process "deaf"` }

// TestConnectWithinNoAnswer connects, in either era, to a peer that reads
// everything and answers nothing: ConnectWithin gives up after its timeout
// with an error that names the server and what to check.
func TestConnectWithinNoAnswer(t *testing.T) {
	tests := []struct {
		name    string
		handler session.Handler
		named   bool
		want    string
	}{
		{"initialize era", m25.NewClientHandler(m25.UnimplementedClient{}), false, "connect: no answer from the server within 100ms: is it an MCP server"},
		{"stateless era, probe and fallback", m26.NewClientHandler(m26.UnimplementedClient{}), false, "connect: no answer from the server within 100ms"},
		{"a transport that names its server", m25.NewClientHandler(m25.UnimplementedClient{}), true, `connect: no answer from the server process "deaf" within 100ms`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			clientEnd, serverEnd := transport.Pipe()
			go func() { // reads, never answers
				for {
					if _, err := serverEnd.Read(ctx); err != nil {
						return
					}
				}
			}()
			var tr transport.Transport = clientEnd
			if tt.named {
				tr = named{clientEnd}
			}
			s := session.New(session.Client, tr, tt.handler, session.Options{})
			defer s.Close()
			err := s.ConnectWithin(ctx, &m26.Implementation{Name: "c", Version: "1"}, &m26.ClientCapabilities{}, 100*time.Millisecond)
			var cte *session.ConnectTimeoutError
			if !errors.As(err, &cte) || cte.Timeout != 100*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("ConnectWithin = %v; want a *ConnectTimeoutError of 100ms wrapping context.DeadlineExceeded", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ConnectWithin = %q; want it to say %q", err, tt.want)
			}
		})
	}
}

// TestConnectWithinCallerContext checks that the end of the caller's own
// context is not reported as the server's failure to answer in time.
func TestConnectWithinCallerContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	clientEnd, serverEnd := transport.Pipe()
	defer serverEnd.Close()
	s := session.New(session.Client, clientEnd, m25.NewClientHandler(m25.UnimplementedClient{}), session.Options{})
	defer s.Close()
	cancel()
	err := s.ConnectWithin(ctx, &m25.Implementation{Name: "c", Version: "1"}, &m25.ClientCapabilities{}, time.Hour)
	var cte *session.ConnectTimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &cte) {
		t.Fatalf("ConnectWithin = %v; want context.Canceled, not a *ConnectTimeoutError", err)
	}
}

// TestConnectToClosedPeer connects, in either era, to a peer that has gone
// or goes while the handshake waits for its answer: the error says that the
// connection ended, rather than that the session is already initialized
// (which the fallback to initialize said after a probe that had ended the
// session).
func TestConnectToClosedPeer(t *testing.T) {
	handlers := []session.Handler{m25.NewClientHandler(m25.UnimplementedClient{}), m26.NewClientHandler(m26.UnimplementedClient{})}
	for _, h := range handlers {
		for _, tt := range []struct {
			name   string
			reads  int // the messages the peer reads before it closes
			closed bool
		}{
			{"gone before", 0, false},
			{"goes during the handshake", 1, true},
		} {
			t.Run(h.Revision().Name+"/"+tt.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				clientEnd, serverEnd := transport.Pipe()
				go func() {
					for range tt.reads {
						if _, err := serverEnd.Read(ctx); err != nil {
							break
						}
					}
					serverEnd.Close()
				}()
				if tt.reads == 0 {
					serverEnd.Close()
				}
				s := session.New(session.Client, clientEnd, h, session.Options{})
				defer s.Close()
				err := s.ConnectWithin(ctx, &m26.Implementation{Name: "c", Version: "1"}, &m26.ClientCapabilities{}, time.Minute)
				if err == nil || strings.Contains(err.Error(), "already") || !strings.HasPrefix(err.Error(), "connect: ") {
					t.Fatalf("Connect = %v; want a connect error that does not blame the session's state", err)
				}
				if tt.closed && (!errors.Is(err, session.ErrClosed) || strings.Contains(err.Error(), "fallback")) {
					t.Errorf("Connect = %v; want session.ErrClosed, and no fallback", err)
				}
			})
		}
	}
}

type (
	okElicitor  struct{}
	badElicitor struct{}
	ptrElicitor struct{}
)

func (okElicitor) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	return nil, nil
}
func (badElicitor) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (m26.ElicitResult, error) {
	return m26.ElicitResult{}, nil
}
func (*ptrElicitor) Elicit(ctx context.Context, p *m26.ElicitRequestParams) (*m26.ElicitResult, error) {
	return nil, nil
}

func TestCheckHandler(t *testing.T) {
	const want = "func(context.Context, *ElicitRequestParams) (*ElicitResult, error)"
	tests := []struct {
		name    string
		h       any
		wantErr string
	}{
		{"nil", nil, ""},
		{"no such method", struct{}{}, ""},
		{"the method, a value", okElicitor{}, ""},
		{"the method on the pointer, a pointer", &ptrElicitor{}, ""},
		{"another signature", badElicitor{}, "session_test.badElicitor has a method Elicit of type func(context.Context, *mcp20260728.ElicitRequestParams) (mcp20260728.ElicitResult, error), which is not Elicitor's " + want},
		{"the method on the pointer, a value", ptrElicitor{}, "session_test.ptrElicitor has its method Elicit on the pointer type *session_test.ptrElicitor: pass a pointer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if _, ok := tt.h.(interface {
				Elicit(context.Context, *m26.ElicitRequestParams) (*m26.ElicitResult, error)
			}); !ok {
				err = session.CheckHandler(tt.h, "Elicit", "Elicitor", want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("CheckHandler = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("CheckHandler = %v; want it to say %q", err, tt.wantErr)
			}
		})
	}
}

func TestProgramInfo(t *testing.T) {
	name, version := session.ProgramInfo()
	if name == "" || version == "" || strings.ContainsAny(name, `/\`) {
		t.Errorf("ProgramInfo() = %q, %q; want a program name and a version", name, version)
	}
}

// TestPayloadStart quotes a line that is not JSON-RPC by its start: its
// first line, at most NotJSONRPCQuoteSize bytes, cut between characters.
func TestPayloadStart(t *testing.T) {
	long := strings.Repeat("a", session.NotJSONRPCQuoteSize-1) + "é and more"
	tests := []struct {
		name, in, want string
	}{
		{"a short line", "hello world", "hello world"},
		{"the first line", "starting\r\nlistening on :8080\n", "starting"},
		{"a long line, cut before a character that does not fit", long, strings.Repeat("a", session.NotJSONRPCQuoteSize-1)},
		{"a blank line", "\n", " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := session.PayloadStart([]byte(tt.in)); got != tt.want {
				t.Errorf("payloadStart(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
