package session_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// ReceiveHook sees what this side receives, not what it sends, and an
// error refuses the message: a *jsonrpc.Error as it is, another as -32600.
func TestReceiveHook(t *testing.T) {
	for _, tt := range []struct {
		name     string
		outgoing bool
		err      error
		want     string // what the chain returns: "next", or the error
		called   bool   // fn was called
	}{
		{"incoming, let through", false, nil, "next", true},
		{"incoming, refused", false, errors.New("no key"), "jsonrpc error -32600: no key", true},
		{"incoming, refused with a code", false, &jsonrpc.Error{Code: -32001, Message: "denied"}, "jsonrpc error -32001: denied", true},
		{"outgoing: not seen", true, errors.New("never"), "next", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			called := false
			mw := session.ReceiveHook(func(ctx context.Context, r *session.Request) error {
				mu.Lock()
				called = true
				mu.Unlock()
				return tt.err
			})
			h := mw(func(context.Context, *session.Request) (jsontext.Value, error) { return jsontext.Value(`"next"`), nil })
			res, err := h(context.Background(), &session.Request{Method: "tools/call", Outgoing: tt.outgoing})
			got := "next"
			if err != nil {
				got = err.Error()
			} else if string(res) != `"next"` {
				got = string(res)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if called != tt.called {
				t.Errorf("fn called: %v, want %v", called, tt.called)
			}
		})
	}
}

func ExampleReceiveHook() {
	logCalls := session.ReceiveHook(func(ctx context.Context, r *session.Request) error {
		if r.Method == "tools/call" {
			fmt.Println("call", string(r.Params))
		}
		return nil
	})
	opts := session.Options{Middleware: []session.Middleware{logCalls}}
	_ = opts // serve with it: every request and notification received passes logCalls
	h := logCalls(func(context.Context, *session.Request) (jsontext.Value, error) { return jsontext.Value(`{}`), nil })
	h(context.Background(), &session.Request{Method: "tools/call", Params: jsontext.Value(`{"name":"forecast"}`)})
	// Output: call {"name":"forecast"}
}
