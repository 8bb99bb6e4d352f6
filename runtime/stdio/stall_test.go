package stdio

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/protocol/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// TestWriteTimeout checks that with WithWriteTimeout a Write to a peer
// that never reads fails once the timeout passed, on a writer with write
// deadlines (an os.Pipe) and on one without (an io.Pipe), that later Writes
// fail at once, and that Close then leaves no goroutine behind.
func TestWriteTimeout(t *testing.T) {
	tests := []struct {
		name string
		pipe func(t *testing.T) (r io.Closer, w io.Writer)
	}{
		{"os.Pipe, write deadlines", func(t *testing.T) (io.Closer, io.Writer) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		}},
		{"io.Pipe, no write deadlines", func(t *testing.T) (io.Closer, io.Writer) {
			r, w := io.Pipe()
			return r, w
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			before := runtime.NumGoroutine()
			peer, w := tt.pipe(t) // the peer never reads
			tr := New(strings.NewReader(""), w, WithWriteTimeout(50*time.Millisecond))
			big := []byte(`"` + strings.Repeat("x", 1<<20) + `"`) // more than a pipe holds
			errc := make(chan error, 1)
			go func() { errc <- tr.Write(ctx, big) }()
			var err error
			select {
			case err = <-errc:
			case <-ctx.Done():
				t.Fatal("Write to a peer that never reads did not return")
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "not reading") {
				t.Fatalf("Write = %v, want an error wrapping os.ErrDeadlineExceeded that says the peer is not reading", err)
			}
			if err2 := tr.Write(ctx, []byte("{}")); !errors.Is(err2, os.ErrDeadlineExceeded) {
				t.Errorf("Write after the timeout = %v, want it to fail the same way", err2)
			}
			tr.Close()
			peer.Close()
			checkGoroutines(t, before)
		})
	}
}

// TestServeEndsWhenPeerNeverReads checks that a session over stdio whose
// peer stops reading its output ends once its input ends: the answer it
// owes cannot be written, and with WithWriteTimeout that write gives up,
// so the drain finishes and Serve returns.
func TestServeEndsWhenPeerNeverReads(t *testing.T) {
	ctx := testCtx(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	defer outR.Close()
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "big", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{{Value: &mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}}, nil
	})
	tr := New(inR, outW, WithWriteTimeout(100*time.Millisecond))
	served := make(chan error, 1)
	go func() { served <- mcp.Serve(ctx, tr, srv, session.Options{DrainTimeout: 100 * time.Millisecond}) }()

	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line, err := bufio.NewReader(outR).ReadString('\n'); err != nil || !strings.Contains(line, `"protocolVersion"`) {
		t.Fatalf("initialize answer: %q, %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// An answer of 1 MiB, which the peer never reads; then the end of input.
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	inW.Close()
	select {
	case <-served:
	case <-ctx.Done():
		t.Fatal("Serve did not return: the answer's write to a peer that never reads blocks the drain")
	}
}
