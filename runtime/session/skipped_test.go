package session_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/stdio"
)

// TestSkippedPayloadKeepsServing sends a stdio line over the size limit: it
// is answered with -32600 and id null, and the session keeps serving.
func TestSkippedPayloadKeepsServing(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := session.New(session.Server, stdio.New(inR, outW, stdio.WithMaxMessageSize(256)), mcp.NewServerHandler(testServer(t)), session.Options{})
	defer s.Close()
	lines := make(chan map[string]any, 4)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case m := <-lines:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
			return nil
		}
	}
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"`+strings.Repeat("a", 400)+`"}}}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	m := next()
	if m["id"] != nil || errorCode(t, m) != -32600 || !strings.Contains(errorMessage(m), "256 bytes") {
		t.Fatalf("oversized line answered with %v; want error -32600 with id null naming the limit", m)
	}
	if m := next(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("the ping after it was answered with %v", m)
	}
}
