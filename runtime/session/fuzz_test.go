package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/transport"
)

// FuzzSessionReader feeds arbitrary payloads to an initialized server
// session: it must not panic or hang, must still answer a ping afterwards,
// and must leave no goroutine behind once closed.
func FuzzSessionReader(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{`, `[]`, `null`, "\xff",
	} {
		f.Add([]byte(s))
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "fuzz", Version: "1"})
	srv.MustAddTool(mcp.Tool{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: "x"}}}}, nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		before := runtime.NumGoroutine()
		a, b := transport.Pipe()
		s := session.New(session.Server, a, mcp.NewServerHandler(srv), session.Options{})
		p := &peer{t: t, tr: b}
		p.initialize("2025-03-26") // the revision with batches
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := b.Write(ctx, data); err != nil {
			t.Fatal(err)
		}
		p.send(`{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}`)
		for {
			raw, err := b.Read(ctx)
			if err != nil {
				t.Fatalf("no answer to the ping after %q: %v", data, err)
			}
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil && m["id"] == "fuzz-ping" {
				break
			}
		}
		b.Close()
		select {
		case <-s.Done():
		case <-ctx.Done():
			t.Fatalf("the session did not end after %q", data)
		}
		for i := 0; runtime.NumGoroutine() > before && i < 200; i++ {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Fatalf("%d goroutines left behind after %q", n-before, data)
		}
	})
}

// FuzzClientSession feeds arbitrary server messages to a client session
// that has calls in flight (IDs 2 to 5, in some order, one asking for
// progress with its ID as token): each line of the input is one payload
// from the server. Invariants: no panic; every call returns, with a result
// or an error, within bounds; the session still works afterwards (a ping
// is answered); once the server closes the connection the session ends
// cleanly (Wait is nil) and leaves no goroutine behind.
func FuzzClientSession(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}` + "\n" + `{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad params"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"tools":"no"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1,"total":2,"message":"half"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":"x"}}`,
		`{"jsonrpc":"2.0","id":"s1","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"s2","method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`,
		`{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}}`,
		`[{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},{"jsonrpc":"2.0","id":3,"result":{"content":[]}}]`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"contents":[{"uri":"a://b","text":"t"}]},"extra":1}`,
		`{"jsonrpc":"2.0","id":5}` + "\n" + `{"jsonrpc":"1.0","id":2,"result":{}}` + "\n" + `{"id":3,"error":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
		`{`, `[]`, `null`, "\xff", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a, b := transport.Pipe()
		server := &scriptedServer{t: t, ctx: ctx, tr: b}

		connected := make(chan error, 1)
		var cs *mcp.ClientSession
		go func() {
			var err error
			cs, err = mcp.Connect(ctx, a, &mcp.ClientOptions{Info: mcp.Implementation{Name: "fuzz", Version: "1"}, Capabilities: mcp.ClientCapabilities{Roots: &mcp.ClientCapabilitiesRoots{}, Sampling: &mcp.ClientCapabilitiesSampling{}}})
			connected <- err
		}()
		server.answer(server.request("initialize"), `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}`)
		if err := <-connected; err != nil {
			t.Fatalf("Connect: %v", err)
		}
		server.notification("notifications/initialized")

		// Four calls in flight; each reports how it ended.
		type outcome struct {
			name string
			err  error
		}
		outcomes := make(chan outcome, 4)
		calls := []struct {
			name string
			call func() error
		}{
			{"tools/list", func() error { _, err := cs.ListTools(ctx, nil); return err }},
			{"tools/call", func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"}, session.WithProgress(func(session.Progress) {}))
				return err
			}},
			{"resources/read", func() error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: "a://b"})
				return err
			}},
			{"ping", func() error {
				raw, err := cs.Call(ctx, "ping", nil)
				if err == nil && !jsontext.Value(raw).IsValid() {
					return fmt.Errorf("invalid JSON result %q", raw)
				}
				return err
			}},
		}
		for _, c := range calls {
			go func() { outcomes <- outcome{c.name, c.call()} }()
		}
		for range calls {
			server.request("")
		}

		for line := range bytes.Lines(data) {
			if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
				if err := b.Write(ctx, line); err != nil {
					t.Fatalf("writing %q: %v", line, err)
				}
			}
		}

		// The session survived: a ping (ID 6) is answered.
		pinged := make(chan error, 1)
		go func() { _, err := cs.Ping(ctx, nil); pinged <- err }()
		server.answer(server.request("ping"), `{}`)
		if err := <-pinged; err != nil {
			t.Fatalf("ping after %q: %v", data, err)
		}

		b.Close()
		for range calls {
			select {
			case o := <-outcomes:
				// An error is the server's, the session's end, or a result
				// that did not decode, naming the method.
				var je *jsonrpc.Error
				if o.err != nil && !errors.Is(o.err, session.ErrClosed) && !errors.As(o.err, &je) && !strings.HasPrefix(o.err.Error(), o.name+" result: ") {
					t.Errorf("%s after %q: unexpected error %v", o.name, data, o.err)
				}
			case <-ctx.Done():
				t.Fatalf("a call did not return after %q", data)
			}
		}
		select {
		case <-cs.Done():
		case <-ctx.Done():
			t.Fatalf("the session did not end after %q", data)
		}
		if err := cs.Wait(); err != nil {
			t.Fatalf("Wait after the server closed: %v", err)
		}
		for i := 0; runtime.NumGoroutine() > before && i < 200; i++ {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Fatalf("%d goroutines left behind after %q", n-before, data)
		}
	})
}

// scriptedServer is the server end of a client session under test: it reads
// the client's messages and writes raw answers.
type scriptedServer struct {
	t   *testing.T
	ctx context.Context
	tr  transport.Transport
}

// next returns the client's next message.
func (s *scriptedServer) next() map[string]any {
	s.t.Helper()
	for {
		raw, err := s.tr.Read(s.ctx)
		if err != nil {
			s.t.Fatalf("server: reading: %v", err)
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			return m
		}
	}
}

// request returns the ID of the client's next request for method ("" for
// any method), skipping other messages (answers to the server's requests).
func (s *scriptedServer) request(method string) string {
	s.t.Helper()
	for {
		m := s.next()
		id, isReq := m["id"]
		if got, ok := m["method"].(string); ok && isReq && (method == "" || got == method) {
			b, _ := json.Marshal(id)
			return string(b)
		}
	}
}

// notification waits for the client's notification method.
func (s *scriptedServer) notification(method string) {
	s.t.Helper()
	for {
		m := s.next()
		if _, isReq := m["id"]; !isReq && m["method"] == method {
			return
		}
	}
}

func (s *scriptedServer) answer(id, result string) {
	s.t.Helper()
	if err := s.tr.Write(s.ctx, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":`+result+`}`)); err != nil {
		s.t.Fatalf("server: answering %s: %v", id, err)
	}
}
